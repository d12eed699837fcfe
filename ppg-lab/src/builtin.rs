//! The built-in data set of `ppg reproduce` without `--data`: small, deterministic, and
//! shaped like the TREC files (two groups, binary labels, LTR grades 0..4).

use ppg_core::Rng;

use crate::data::ProtocolQuery;

/// Queries in the built-in set.
pub const QUERIES: usize = 50;

/// `count` queries of 5 to 30 items generated from `seed` (the same seed gives the same
/// data on every platform).
///
/// Each item has a latent relevance `z` uniform in `[0, 1)`, plus 0.15 for group 1 (so
/// that the groups differ in merit and a ranking by merit is unfair in exposure). Its
/// label is 1 when `z > 0.7`; its LTR score is `z` plus noise (a sum of three uniforms,
/// spread 0.45), min-max normalised per query onto `[0, 5)` and floored to the grades
/// 0..4, as the protocol's `ltr_grade`. About a third of the items are in group 1; every
/// query has both groups.
pub fn generate(seed: u64, count: usize) -> Vec<ProtocolQuery> {
    let mut rng = Rng::new(seed);
    (0..count).map(|_| query(&mut rng)).collect()
}

fn query(rng: &mut Rng) -> ProtocolQuery {
    let n = 5 + (rng.next_u64() % 26) as usize;
    let mut group: Vec<u8> = (0..n).map(|_| u8::from(rng.unit_f64() < 0.35)).collect();
    if group.iter().all(|&g| g == group[0]) {
        group[n - 1] = 1 - group[0];
    }
    let mut label = Vec::with_capacity(n);
    let mut score = Vec::with_capacity(n);
    for &g in &group {
        let z = rng.unit_f64() + if g == 1 { 0.15 } else { 0.0 };
        let noise = (rng.unit_f64() + rng.unit_f64() + rng.unit_f64() - 1.5) * 0.3;
        label.push(if z > 0.7 { 1.0 } else { 0.0 });
        score.push(z + noise);
    }
    let lo = score.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = score.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ltr = score
        .iter()
        .map(|&s| {
            let unit = if hi > lo { (s - lo) / (hi - lo) } else { 0.0 };
            (unit * 5.0).floor().min(4.0)
        })
        .collect();
    ProtocolQuery { group, label, ltr }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pinned: the quick start's numbers must not move between releases or platforms.
    #[test]
    fn golden() {
        let q = &generate(2022, 1)[0];
        assert_eq!(q.len(), 20);
        assert_eq!(q.group[..5], [0, 0, 0, 0, 0]);
        assert_eq!(q.label[..5], [0.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!(q.ltr[..5], [1.0, 1.0, 3.0, 2.0, 2.0]);
    }

    #[test]
    fn deterministic_and_shaped() {
        let a = generate(2022, QUERIES);
        assert_eq!(a, generate(2022, QUERIES));
        assert_ne!(a, generate(2023, QUERIES));
        for q in &a {
            assert!((5..=30).contains(&q.len()));
            assert!(q.group.contains(&0) && q.group.contains(&1));
            assert!(q
                .ltr
                .iter()
                .all(|&g| (0.0..=4.0).contains(&g) && g.fract() == 0.0));
            assert!(q.label.iter().all(|&l| l == 0.0 || l == 1.0));
        }
    }
}
