//! `ppg reproduce` on one data set (a protocol file or the built-in set): the grid of
//! cells, printed as a table or JSON. `--all` goes to [`crate::report`] instead; `main`
//! dispatches between the two.

use crate::args::{Format, ReproduceArgs};
use crate::builtin;
use crate::data::read_protocol;
use crate::reproduce::{grid, parse_methods, Experiment};
use crate::table;
use ppg_host::cost::Metric;
use ppg_host::error::{Error, Result};

pub fn run(args: &ReproduceArgs) -> Result<()> {
    if args.sessions == 0 || args.runs == 0 {
        return Err(Error::Usage(
            "--sessions and --runs must be at least 1".into(),
        ));
    }
    let methods = parse_methods(&args.method)?;
    let (name, queries) = match &args.data {
        Some(path) => (path.display().to_string(), read_protocol(path)?),
        None => (
            format!("built-in data set (seed {})", args.data_seed),
            builtin::generate(args.data_seed, builtin::QUERIES),
        ),
    };
    let exp = Experiment::new(name, queries, args)?;
    let metrics: Vec<Metric> = dedup(args.metric.iter().map(|m| m.0).collect());
    let utilities = dedup(args.utility.clone());
    let cells = grid(
        &exp,
        &methods,
        &utilities,
        &metrics,
        args.sessions,
        args.runs,
    )?;
    let text = match args.format {
        Format::Table => table::text(&exp, &cells, &utilities, &metrics, &methods),
        Format::Json => table::json(&cells),
    };
    print!("{text}");
    Ok(())
}

fn dedup<T: PartialEq>(items: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}
