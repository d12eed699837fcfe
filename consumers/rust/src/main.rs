//! `ppg-consumer FILE SEED SESSIONS`: re-ranks every query of FILE (`ppg rerank`'s input:
//! a header naming qid, item, score, group and optionally label, a query's rows
//! together) and prints what `ppg rerank FILE --seed SEED --sessions SESSIONS` prints.

use ppg_consumer::{dims, query_seed, rerank, Buffers};
use ppg_core::Ppg;

struct Query {
    qid: String,
    item: Vec<String>,
    score: Vec<f64>,
    utility: Vec<f64>,
    group: Vec<u8>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, file, seed, sessions] = &args[..] else {
        eprintln!("usage: ppg-consumer FILE SEED SESSIONS");
        std::process::exit(2);
    };
    let seed: u64 = seed.parse().expect("SEED is an integer");
    let sessions: usize = sessions.parse().expect("SESSIONS is an integer");
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    println!("qid\tsession\trank\titem");
    for (index, q) in queries(&text).iter().enumerate() {
        // The starting ranking: by score, descending; ties: the later row first.
        let mut order: Vec<usize> = (0..q.score.len()).collect();
        order.sort_by(|&a, &b| q.score[a].total_cmp(&q.score[b]));
        order.reverse();
        let utility: Vec<f64> = order.iter().map(|&i| q.utility[i]).collect();
        let group: Vec<u8> = order.iter().map(|&i| q.group[i]).collect();
        let n = order.len();
        let mut mem = vec![0u8; Ppg::bytes(dims(n, sessions))];
        let (mut tables, mut sorted) = (vec![0.0; 2 * n], vec![0.0; n]);
        let (mut at, mut groups) = (vec![0u16; n], vec![0u8; n]);
        let work = Buffers {
            tables: &mut tables,
            order: &mut at,
            utility: &mut sorted,
            group: &mut groups,
        };
        let mut best = vec![0u16; n * sessions];
        let seed = query_seed(seed, index as u64);
        rerank(&mut mem, work, seed, &utility, &group, sessions, &mut best)
        .unwrap_or_else(|e| panic!("query {}: {e}", q.qid));
        for (s, ranking) in best.chunks(n).enumerate() {
            for (rank, &k) in ranking.iter().enumerate() {
                let item = &q.item[order[usize::from(k)]];
                println!("{}\t{}\t{}\t{item}", q.qid, s + 1, rank + 1);
            }
        }
    }
}

/// The queries of a `ppg rerank` input, in order; group ids by first appearance in the
/// file, the utility the label when there is one, else the score.
fn queries(text: &str) -> Vec<Query> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    let column = |name: &str| header.iter().position(|h| *h == name);
    let need = |name: &str| column(name).unwrap_or_else(|| panic!("no {name} column"));
    let (qid, item, score, group) = (need("qid"), need("item"), need("score"), need("group"));
    let label = column("label");
    let mut groups: Vec<String> = Vec::new();
    let mut out: Vec<Query> = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        if out.last().is_none_or(|q| q.qid != f[qid]) {
            out.push(Query {
                qid: f[qid].to_string(),
                item: Vec::new(),
                score: Vec::new(),
                utility: Vec::new(),
                group: Vec::new(),
            });
        }
        let q = out.last_mut().expect("a query");
        let g = match groups.iter().position(|g| g == f[group]) {
            Some(g) => g,
            None => {
                groups.push(f[group].to_string());
                groups.len() - 1
            }
        };
        let score: f64 = f[score].parse().expect("a numeric score");
        q.item.push(f[item].to_string());
        q.score.push(score);
        q.utility
            .push(label.map_or(score, |l| f[l].parse().expect("a numeric label")));
        q.group.push(u8::try_from(g).expect("at most 256 groups"));
    }
    out
}
