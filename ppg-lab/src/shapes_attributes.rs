//! Queries for TREC 2022's AWRF (`--metric awrf2022`): items aligned with several
//! attributes at once, softly, some values unknown, and an input ranking that is unfair on
//! purpose: the ranker's score favours a majority whose items share the first level of the
//! first four attributes, whatever their relevance, so the top of the input holds little
//! else. Beside [`crate::shapes`], as its generator of group columns.
//!
//! The same seed gives the same rows on every platform (the core's [`Rng`]).

use ppg_core::Rng;

/// The attributes' level counts: eight, of 3 to 33 levels, as TREC 2022's.
pub const LEVELS: [usize; 8] = [3, 5, 7, 11, 13, 21, 27, 33];

/// One generated query.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeQuery {
    /// The ranker's score; the input ranking is by score, descending.
    pub score: Vec<f64>,
    /// Binary relevance.
    pub utility: Vec<f64>,
    /// Item names, unique over the whole set.
    pub items: Vec<String>,
    /// The attribute table's lines of its items: `item attribute level weight`.
    pub table: Vec<String>,
}

/// `count` queries of `items` items each (at least 2), from `seed`.
pub fn generate(items: usize, count: usize, seed: u64) -> Vec<AttributeQuery> {
    assert!(items >= 2);
    let mut rng = Rng::new(seed);
    (0..count).map(|q| query(&mut rng, q, items)).collect()
}

fn below(rng: &mut Rng, n: usize) -> usize {
    ((rng.unit_f64() * n as f64) as usize).min(n - 1)
}

fn query(rng: &mut Rng, q: usize, n: usize) -> AttributeQuery {
    let mut out = AttributeQuery {
        score: Vec::with_capacity(n),
        utility: Vec::with_capacity(n),
        items: Vec::with_capacity(n),
        table: Vec::new(),
    };
    for i in 0..n {
        let name = format!("q{q}-d{i}");
        let majority = rng.unit_f64() < 0.6;
        // Item 0 is relevant, so that every query has a target.
        let relevant = i == 0 || rng.unit_f64() < 0.4;
        out.score.push(
            0.5 * f64::from(u8::from(relevant))
                + 2.0 * f64::from(u8::from(majority))
                + rng.unit_f64(),
        );
        out.utility.push(f64::from(u8::from(relevant)));
        for (a, &levels) in LEVELS.iter().enumerate() {
            let u = rng.unit_f64();
            let first = if majority && a < 4 {
                0
            } else {
                below(rng, levels)
            };
            if u < 0.1 {
                // Unknown: no line (the reader's unknown), or an explicit one.
                if rng.unit_f64() < 0.5 {
                    out.table.push(format!("{name} a{a} @UNKNOWN 1"));
                }
            } else if u < 0.8 || majority && a < 4 {
                out.table.push(format!("{name} a{a} l{first} 1"));
            } else {
                let second = (first + 1 + below(rng, levels - 1)) % levels;
                let w = 0.2 + 0.6 * rng.unit_f64();
                out.table.push(format!("{name} a{a} l{first} {w}"));
                out.table.push(format!("{name} a{a} l{second} {}", 1.0 - w));
            }
        }
        out.items.push(name);
    }
    out
}
