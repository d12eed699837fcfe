//! `ppg frontier DATA`: what fairness costs in relevance (issue 36, point 3), over one or
//! more sessions. The computation is the host's (`ppg_host::frontier`: the levels, the
//! windows, what is exact), shared with the Python package's `ppg.frontier`; here are the
//! command's reader (the protocol's data, streamed: memory flat in the queries), its table
//! (TSV or JSON) and its plot (`frontier_plot`).

use std::sync::atomic::AtomicBool;

use ppg_host::error::Result;
use ppg_host::frontier::{Config, Run};

// The command's arguments and its reader, where the test and `ppg` reach them.
pub use crate::args::{FrontierArgs, FrontierFormat};
pub use crate::data::stream;
pub use ppg_host::frontier::{Frontier, Row, BATCH};

/// `ppg frontier`: the table on standard output, the plot where asked.
pub fn run(args: &FrontierArgs) -> Result<()> {
    let frontier = compute(args)?;
    let text = match args.format {
        FrontierFormat::Tsv => tsv(&frontier),
        FrontierFormat::Json => json(&frontier),
    };
    if let Some(prefix) = &args.plot {
        let title = args.data.file_stem().map_or_else(
            || args.data.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        crate::frontier_plot::draw(prefix, &title, &frontier)?;
    }
    print!("{text}");
    Ok(())
}

/// The frontier of `args.data`, streamed.
pub fn compute(args: &FrontierArgs) -> Result<Frontier> {
    let config = Config {
        metric: args.metric.0,
        sessions: args.sessions,
        levels: args.levels,
        k: args.k,
        utility: args.utility.protocol(),
        seed: args.seed,
        budget: args.budget,
        threads: args.threads,
    };
    // The command stops on a signal by exiting; nothing sets this.
    let never = AtomicBool::new(false);
    let mut run = Run::new(config, &never)?;
    stream(&args.data, |q| run.push(&q.label, &q.ltr, &q.group))?;
    run.finish()
}

/// The table as tab-separated text with a header.
pub fn tsv(f: &Frontier) -> String {
    let mut out = String::from("level\tfairness\tndcg\tbound\texact\tqueries\n");
    let num = |v: f64| {
        if v.is_nan() {
            "-".to_owned()
        } else {
            format!("{v:.6}")
        }
    };
    for r in &f.rows {
        let level = r
            .level
            .map_or_else(|| "none".to_owned(), |t| format!("{t:.4}"));
        out.push_str(&format!(
            "{level}\t{}\t{}\t{}\t{}\t{}\n",
            num(r.fairness),
            num(r.ndcg),
            num(r.bound),
            r.exact,
            f.queries
        ));
    }
    out.push_str(&format!(
        "input\t{}\t{}\t-\t-\t{}\n",
        num(f.input.0),
        num(f.input.1),
        f.queries
    ));
    out.push_str(&format!(
        "recipe\t{}\t{}\t-\t-\t{}\n",
        num(f.recipe.0),
        num(f.recipe.1),
        f.queries
    ));
    out
}

/// The table as JSON: `metric`, `k`, `sessions`, `queries`, `rows` (`level` null for the row without a
/// constraint, `fairness` null there too), `input` and `recipe`.
pub fn json(f: &Frontier) -> String {
    let num = |v: f64| {
        if v.is_finite() {
            serde_json::json!(v)
        } else {
            serde_json::Value::Null
        }
    };
    let rows: Vec<_> = f
        .rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "level": r.level, "fairness": num(r.fairness), "ndcg": num(r.ndcg),
                "bound": num(r.bound), "exact": r.exact,
            })
        })
        .collect();
    let point = |p: (f64, f64)| serde_json::json!({"fairness": num(p.0), "ndcg": num(p.1)});
    let value = serde_json::json!({
        "metric": f.metric.name(), "k": f.k, "sessions": f.sessions, "queries": f.queries,
        "rows": rows,
        "input": point(f.input), "recipe": point(f.recipe),
    });
    format!("{value:#}\n")
}
