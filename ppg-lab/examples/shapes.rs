//! Writes a generated query file ([`ppg_lab::shapes`]) to stdout, as `ppg rerank` reads it:
//!
//! ```text
//! cargo run --release -p ppg-lab --example shapes -- graded 3 20 1000 SEED > graded3.tsv
//! ```
//!
//! Arguments: `scores` or `graded`, groups (2-4), items per query, queries, seed; with
//! `--protocol` first, graded queries in `ppg reproduce --data`'s format.

use std::io::Write;

use ppg_lab::shapes::{generate, tsv, Kind};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let protocol = args.first().is_some_and(|a| a == "--protocol");
    if protocol {
        args.remove(0);
    }
    let usage = "usage: shapes [--protocol] scores|graded GROUPS ITEMS QUERIES SEED";
    let [kind, groups, items, count, seed] = args.as_slice() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let kind = match kind.as_str() {
        "scores" => Kind::Scores,
        "graded" => Kind::Graded,
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let number = |s: &str| -> usize {
        s.parse().unwrap_or_else(|_| {
            eprintln!("{usage}: `{s}` is not a number");
            std::process::exit(2)
        })
    };
    let (groups, items) = (number(groups), number(items));
    if !(2..=4).contains(&groups) || items < groups {
        eprintln!("{usage}: 2 to 4 groups, at least as many items");
        std::process::exit(2);
    }
    if protocol && kind != Kind::Graded {
        eprintln!("{usage}: --protocol needs graded labels");
        std::process::exit(2);
    }
    let queries = generate(kind, groups, items, number(count), number(seed) as u64);
    let text = if protocol {
        ppg_lab::shapes::protocol(&queries)
    } else {
        tsv(&queries)
    };
    std::io::stdout()
        .write_all(text.as_bytes())
        .expect("stdout");
}
