//! The section of docs/results.md on the TREC Fair Ranking measures: PPG, PL and FOE (and
//! the fixed rankings) under expected exposure in the official settings and under AWRF.

use std::fmt::Write as _;

use crate::args::DataUtility;
use crate::reproduce::Cell;
use crate::table::{find, fixed};
use ppg_host::cost::Metric;

/// The measures, as `ppg reproduce --metric ee,awrf` names them.
pub const METRICS: [Metric; 2] = [Metric::Ee, Metric::Awrf];
/// The rows: the optimisers the issue compares and the fixed rankings for scale.
pub const METHODS: [&str; 8] = [
    "ppg",
    "ppg-intra",
    "pl",
    "foe-soft",
    "foe-hard",
    "ltr",
    "ideal",
    "rand",
];

/// One data set's cells and its valid queries per measure.
pub struct Data<'a> {
    pub title: &'a str,
    pub cells: &'a [Cell],
    pub valid: [usize; 2],
}

/// Writes the section: one table per data set and utility.
pub fn write(w: &mut String, sessions: usize, runs: usize, data: &[Data]) {
    let _ = writeln!(w, "## The TREC Fair Ranking measures\n");
    let _ = writeln!(
        w,
        "The same protocol ({sessions} sessions, {runs} runs, the chosen utility optimised, \
         the true labels evaluated) with the measures TREC Fair Ranking scored with \
         ([metrics.md](metrics.md)). `EE`: expected exposure as TREC 2020 scored it \
         (`diazf/expeval -g -c` at `d943b3e`: group level, its cascade, where every judged \
         item counts toward the stop, with patience 0.5 and utility 0.5, EE-L normalised \
         per query; lower is better, 0 meets the target; `ppg rerank --browse \
         cascade-judged`, not the default published cascade, \
         [metrics.md](metrics.md#evaluator-versions)); each \
         optimiser minimises it directly. `AWRF`: AWRF x NDCG as TREC 2021 scored a ranking \
         (attention `1 / log2(max(r, 2))`, the target the relevant items' group \
         distribution averaged with the uniform one; higher is better, 1 is best); the \
         optimisers minimise `1 - AWRF x NDCG`. FOE solves its DTR program either way (its \
         rankings do not depend on the measure) and is evaluated under both. Valid queries: \
         those with a relevant item. No exact optimum is computed for these measures: the \
         two-group bound of the DTR and EEL tables needs a metric of one group's total \
         exposure, and neither measure is one (EE counts only relevant items, AWRF takes a \
         divergence per session).\n"
    );
    for d in data {
        for utility in [DataUtility::Label, DataUtility::Ltr] {
            let _ = writeln!(
                w,
                "### {}, {} as utility (valid queries: EE {}, AWRF {})\n",
                d.title,
                match utility {
                    DataUtility::Label => "true relevance labels",
                    DataUtility::Ltr => "LTR outputs",
                },
                d.valid[0],
                d.valid[1]
            );
            let _ = writeln!(w, "| method | EE | NDCG@10 | AWRF x NDCG | NDCG@10 | s |");
            let _ = writeln!(w, "| --- | --- | --- | --- | --- | --- |");
            for method in METHODS {
                let ee = find(d.cells, method, Metric::Ee, utility);
                let awrf = find(d.cells, method, Metric::Awrf, utility);
                let seconds: f64 = [ee, awrf].iter().flatten().map(|c| c.seconds).sum();
                let _ = writeln!(
                    w,
                    "| {method} | {} | {} | {} | {} | {seconds:.1} |",
                    fixed(ee.and_then(|c| c.fairness)),
                    fixed(ee.and_then(|c| c.ndcg)),
                    fixed(awrf.and_then(|c| c.fairness)),
                    fixed(awrf.and_then(|c| c.ndcg)),
                );
            }
            let _ = writeln!(w);
        }
    }
}
