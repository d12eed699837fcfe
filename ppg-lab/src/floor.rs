//! The bound row in the written report: how it is computed, on which queries it is exact,
//! and the check that no row goes below it.

use std::fmt::Write as _;

use crate::methods::BOUND;
use crate::reproduce::Cell;

/// A row may sit this far below the bound before it counts as beating it: the bound and
/// the metrics sum the same exposures in different orders.
const ROUNDING: f64 = 1e-9;

/// Cells of `cells` whose fairness is below the bound row's at the same metric, utility
/// and session count: each query's value is at least its bound, so a mean below the mean
/// bound is a bug in one or the other.
pub fn below<'c>(cells: &[&'c Cell]) -> Vec<(&'c Cell, f64)> {
    cells
        .iter()
        .copied()
        .filter(|c| c.method != BOUND)
        .filter_map(|c| {
            let bound = cells.iter().find(|b| {
                b.method == BOUND
                    && b.metric == c.metric
                    && b.utility == c.utility
                    && b.sessions == c.sessions
            })?;
            let (f, b) = (c.fairness?, bound.fairness?);
            (f < b - ROUNDING).then_some((c, b))
        })
        .collect()
}

/// The report's section on the bound: `sections` are (data set title, its cells).
pub fn section(w: &mut String, sections: &[(&str, Vec<&Cell>)]) {
    let _ = writeln!(w, "## The bound row\n");
    let _ = writeln!(w, "{}\n", HOW.trim());
    let mut bounded = Vec::new();
    let mut beaten = Vec::new();
    for (title, cells) in sections {
        for c in cells.iter().filter(|c| c.method == BOUND && c.bounded > 0) {
            bounded.push(format!(
                "{title} {} {} S={}: {} of {} queries",
                c.utility.name(),
                c.metric.name(),
                c.sessions,
                c.bounded,
                c.queries
            ));
        }
        for (c, b) in below(cells) {
            beaten.push(format!(
                "{title} {} {} S={} {}: {:.6} below the bound {b:.6}",
                c.utility.name(),
                c.metric.name(),
                c.sessions,
                c.method,
                c.fairness.unwrap_or(f64::NAN)
            ));
        }
    }
    if bounded.is_empty() {
        let _ = writeln!(
            w,
            "In this run the search finished (or met the hull bound) on every valid query \
             of every cell: the bound row is the exact optimum everywhere.\n"
        );
    } else {
        let _ = writeln!(
            w,
            "Cells where the search was cut on some queries (their value is the hull \
             bound, a proven lower bound, not the optimum): {}.\n",
            bounded.join("; ")
        );
    }
    if beaten.is_empty() {
        let _ = writeln!(
            w,
            "Checked: no row of any table or sweep point is below the bound of its cell.\n"
        );
    } else {
        let _ = writeln!(
            w,
            "**Rows below the bound (a bug):** {}.\n",
            beaten.join("; ")
        );
    }
}

const HOW: &str = "
`bound` is not a ranker: it is the least value the metric can take over S deterministic
rankings of each query, averaged over the valid queries like every other row
(`ppg_core::objective::bound`). Both metrics depend on the rankings only through the total
exposure that group 0 receives over the S sessions, and that total is `sum_r c_r e_r`,
`c_r` the number of sessions in which group 0 holds position r (any counts between 0 and S
summing to S times the size of group 0 come from S rankings). A branch and bound over these
counts finds the total closest to the fair point from either side: exact where it walks
every branch or reaches the hull bound (the metric at the fair point clamped into the
achievable range, which no ranking beats) to within 1e-8; where cut after 2 million
nodes, the hull bound stands in. The optimum does not depend on the intra-group constraint
or on the utility optimised (the evaluation uses the true labels), so the row is the same in
both utilities' tables. Its NDCG@10 is that of one optimal set of rankings (items of a
group in label order on that group's positions), not the best NDCG among the optimal ones.";
