//! Writes generated queries for TREC 2022's AWRF (`ppg_lab::shapes_attributes`) as the
//! files `ppg rerank --metric awrf2022` reads: `PREFIX.tsv` (qid item score group label;
//! one group, which the metric does not score) and `PREFIX-attributes.txt` (`item
//! attribute level weight`), plus `PREFIX-background.txt`, a background on the first
//! attribute.
//!
//! `cargo run --release -p ppg-lab --example shapes_attributes -- ITEMS QUERIES SEED PREFIX`

use std::fmt::Write as _;

use ppg_lab::shapes_attributes::{generate, LEVELS};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, items, queries, seed, prefix] = &args[..] else {
        eprintln!("usage: shapes_attributes ITEMS QUERIES SEED PREFIX");
        std::process::exit(2);
    };
    let items: usize = items.parse().expect("ITEMS");
    let queries: usize = queries.parse().expect("QUERIES");
    let seed: u64 = seed.parse().expect("SEED");
    let (mut rows, mut table) = (
        String::from("qid\titem\tscore\tgroup\tlabel\n"),
        String::new(),
    );
    table.push_str("# item attribute level weight (ppg-lab shapes_attributes)\n");
    for (q, query) in generate(items, queries, seed).iter().enumerate() {
        for i in 0..items {
            let (name, score, label) = (&query.items[i], query.score[i], query.utility[i]);
            writeln!(rows, "t{q}\t{name}\t{score}\tall\t{label}").unwrap();
        }
        for line in &query.table {
            writeln!(table, "{line}").unwrap();
        }
    }
    let mut background = String::from("# attribute level weight\n");
    for l in 0..LEVELS[0] {
        writeln!(background, "a0 l{l} {}", (l + 1) as f64 / 6.0).unwrap();
    }
    std::fs::write(format!("{prefix}.tsv"), rows).expect("write the rows");
    std::fs::write(format!("{prefix}-attributes.txt"), table).expect("write the table");
    std::fs::write(format!("{prefix}-background.txt"), background).expect("write the background");
}
