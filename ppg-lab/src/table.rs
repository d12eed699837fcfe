//! Printing cells: the paper-style table and JSON.

use std::fmt::Write;

use serde_json::{json, Value};

use crate::args::DataUtility;
use crate::methods::Method;
use crate::reproduce::{Cell, Experiment};
use ppg_host::cost::Metric;

/// `x` with three decimals, or "-".
pub fn fixed(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |x| format!("{x:.3}"))
}

/// The cell of `method`, `metric`, `utility` among `cells`.
pub fn find<'c>(
    cells: &'c [Cell],
    method: &str,
    metric: Metric,
    utility: DataUtility,
) -> Option<&'c Cell> {
    cells
        .iter()
        .find(|c| c.method == method && c.metric == metric && c.utility == utility)
}

/// The column's name: the metric's, or expected exposure's number (`EE-L`, `EE-D raw`,
/// ...).
fn label(metric: Metric, exp: &Experiment) -> String {
    match metric {
        Metric::Ee => exp.ee.name().to_owned(),
        m => m.name().to_uppercase(),
    }
}

/// One table per utility, methods as rows, for each metric its fairness, NDCG@10 and
/// seconds.
pub fn text(
    exp: &Experiment,
    cells: &[Cell],
    utilities: &[DataUtility],
    metrics: &[Metric],
    methods: &[Method],
) -> String {
    let mut out = String::new();
    let sessions = cells.first().map_or(0, |c| c.sessions);
    let runs = cells.iter().map(|c| c.runs).max().unwrap_or(0);
    for &utility in utilities {
        let valid: Vec<String> = metrics
            .iter()
            .map(|&m| format!("{} {}", label(m, exp), exp.valid(m).len()))
            .collect();
        let _ = writeln!(
            out,
            "{}: {} queries; optimised for {}; {} sessions; {} runs; valid queries: {}",
            exp.name,
            exp.queries.len(),
            match utility {
                DataUtility::Label => "true labels",
                DataUtility::Ltr => "LTR grades",
            },
            sessions,
            runs,
            valid.join(", ")
        );
        let mut header = format!("{:<22} {:<12} {:<16}", "method", "sampler", "gradient");
        for m in metrics {
            let _ = write!(header, " {:>7} {:>8} {:>7}", label(*m, exp), "NDCG@10", "s");
        }
        let _ = writeln!(out, "{header}");
        let _ = writeln!(out, "{}", "-".repeat(header.len()));
        for method in methods {
            let mut line = format!(
                "{:<22} {:<12} {:<16}",
                method.name,
                method.sampler(),
                method.gradient()
            );
            for &m in metrics {
                let cell = find(cells, &method.name, m, utility);
                let (f, n, s) = match cell {
                    Some(c) if c.fairness.is_some() => (
                        fixed(c.fairness),
                        fixed(c.ndcg),
                        format!("{:.2}", c.seconds),
                    ),
                    _ => ("-".into(), "-".into(), "-".into()),
                };
                let _ = write!(line, " {f:>7} {n:>8} {s:>7}");
            }
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out);
    }
    out
}

/// The cells as a JSON list.
pub fn json(cells: &[Cell]) -> String {
    let rows: Vec<Value> = cells.iter().map(cell_json).collect();
    let mut s = serde_json::to_string_pretty(&rows).expect("JSON of plain values");
    s.push('\n');
    s
}

pub fn cell_json(c: &Cell) -> Value {
    json!({
        "method": c.method,
        "metric": c.metric.name(),
        "ee_measure": (c.metric == Metric::Ee).then(|| c.ee.name()),
        "utility": c.utility.name(),
        "sessions": c.sessions,
        "fairness": c.fairness,
        "ndcg10": c.ndcg,
        "queries": c.queries,
        "runs": c.runs,
        "seconds": c.seconds,
        "sampler": c.sampler,
        "gradient": c.gradient,
        "bounded": c.bounded,
        "certified": c.certified,
        "largest_gap": c.largest_gap,
        "ndcg_bound": c.ndcg_bound,
        "ndcg_gap": c.ndcg_gap,
        "ndcg_exact": c.ndcg_exact,
    })
}
