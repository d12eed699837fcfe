//! [`polish`] against the plain version it replaced (every pair re-scored in full, no
//! memo), bit for bit, and [`Side::change`] against a full re-scoring, on random queries:
//! graded gains with ties and continuous ones, lists shorter and longer than the cut-off,
//! sessions drawn from a few patterns (the memo's case) or each its own.

extern crate std;

use super::*;
use crate::Rng;
use std::vec;
use std::vec::Vec;

/// The version before issue 37's shortcuts (0eecec3's `lex::polish`), kept as the
/// reference the fast one must equal.
fn plain(
    lists: &Lists<'_>,
    group: &[u8],
    sorted: &[u16],
    ranking: &mut [u16],
    sessions: usize,
    pa: &mut [u8],
    pb: &mut [u8],
) {
    let n = group.len();
    let k0 = lists.gain[0].len();
    let cut = lists.discount.len().min(n);
    let pattern = |ranking: &[u16], s: usize, out: &mut [u8]| {
        for (slot, &id) in out.iter_mut().zip(&ranking[s * n..(s + 1) * n]) {
            *slot = u8::from(group[usize::from(id)] == 0);
        }
    };
    for s in 0..sessions {
        pattern(ranking, s, pa);
        deal(pa, sorted, k0, &mut ranking[s * n..(s + 1) * n]);
    }
    for _ in 0..PASSES {
        let mut better = false;
        for a in 0..sessions {
            for b in a + 1..sessions {
                pattern(ranking, a, pa);
                pattern(ranking, b, pb);
                if pa[..cut] == pb[..cut] {
                    continue;
                }
                let mut now = lists.dcg(pa) + lists.dcg(pb);
                let mut changed = false;
                for r in 0..cut {
                    if pa[r] == pb[r] {
                        continue;
                    }
                    let below = (cut..n).find(|&q| pa[q] != pb[q] && pa[q] != pa[r]);
                    for q in (0..cut).chain(below) {
                        if q == r || pa[r] == pb[r] || pa[q] == pb[q] || pa[r] == pa[q] {
                            continue;
                        }
                        pa.swap(r, q);
                        pb.swap(r, q);
                        let next = lists.dcg(pa) + lists.dcg(pb);
                        if next > now * (1.0 + 1e-12) {
                            now = next;
                            changed = true;
                        } else {
                            pa.swap(r, q);
                            pb.swap(r, q);
                        }
                    }
                }
                if changed {
                    deal(pa, sorted, k0, &mut ranking[a * n..(a + 1) * n]);
                    deal(pb, sorted, k0, &mut ranking[b * n..(b + 1) * n]);
                    better = true;
                }
            }
        }
        if !better {
            break;
        }
    }
}

/// A random query of `n` items: groups, each group's gains descending (graded 0-4 with
/// ties, or continuous), NDCG's discount of the first 10 positions.
struct Query {
    group: Vec<u8>,
    sorted: Vec<u16>,
    gains: Vec<f64>,
    k0: usize,
    discount: Vec<f64>,
    exposure: Vec<f64>,
}

impl Query {
    fn new(rng: &mut Rng, n: usize, graded: bool) -> Query {
        let group: Vec<u8> = (0..n).map(|_| u8::from(rng.unit_f64() < 0.6)).collect();
        let mut gains = Vec::new();
        let mut sorted = Vec::new();
        for g in 0..2u8 {
            let mut mine: Vec<(f64, u16)> = (0..n)
                .filter(|&i| group[i] == g)
                .map(|i| {
                    let u = rng.unit_f64();
                    let gain = if graded {
                        libm::exp2((u * 5.0).floor()) - 1.0
                    } else {
                        u
                    };
                    (gain, i as u16)
                })
                .collect();
            mine.sort_by(|a, b| b.0.total_cmp(&a.0));
            gains.extend(mine.iter().map(|m| m.0));
            sorted.extend(mine.iter().map(|m| m.1));
        }
        let k0 = group.iter().filter(|&&g| g == 0).count();
        let discount = (0..n.min(10))
            .map(|r| 1.0 / libm::log2(r as f64 + 2.0))
            .collect();
        Query {
            group,
            sorted,
            gains,
            k0,
            discount,
            exposure: vec![1.0; n],
        }
    }

    fn lists(&self) -> Lists<'_> {
        let (gain0, gain1) = self.gains.split_at(self.k0);
        Lists {
            gain: [gain0, gain1],
            discount: &self.discount,
            exposure: &self.exposure,
        }
    }

    /// A pattern with group 0's `k0` positions at random.
    fn pattern(&self, rng: &mut Rng) -> Vec<u8> {
        let n = self.group.len();
        let mut p: Vec<u8> = (0..n).map(|i| u8::from(i < self.k0)).collect();
        for i in (1..n).rev() {
            p.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        p
    }
}

#[test]
fn polish_makes_the_plain_versions_trades_to_the_bit() {
    let mut rng = Rng::new(37);
    let (mut cases, mut traded, mut shared) = (0, 0, 0);
    for &n in &[2usize, 5, 10, 11, 20, 31] {
        for &sessions in &[2usize, 3, 6, 17, 32] {
            for case in 0..12 {
                let query = Query::new(&mut rng, n, case % 2 == 0);
                if query.k0 == 0 || query.k0 == n {
                    continue;
                }
                // Half the cases draw each session from a pool of 1-4 patterns, each the
                // last with two positions exchanged (so heads repeat with other tails).
                let mut pool = vec![query.pattern(&mut rng)];
                while pool.len() < 1 + case % 4 {
                    let mut p = pool[pool.len() - 1].clone();
                    p.swap(
                        (rng.next_u64() % n as u64) as usize,
                        (rng.next_u64() % n as u64) as usize,
                    );
                    pool.push(p);
                }
                let mut ranking = vec![0u16; n * sessions];
                for s in 0..sessions {
                    let p = if case < 6 {
                        pool[(rng.next_u64() % pool.len() as u64) as usize].clone()
                    } else {
                        query.pattern(&mut rng)
                    };
                    deal(
                        &p,
                        &query.sorted,
                        query.k0,
                        &mut ranking[s * n..(s + 1) * n],
                    );
                }
                let lists = query.lists();
                let (mut pa, mut pb) = (vec![0u8; n], vec![0u8; n]);
                let mut fast = ranking.clone();
                polish(
                    &lists,
                    &query.group,
                    &query.sorted,
                    &mut fast,
                    sessions,
                    &mut pa,
                    &mut pb,
                );
                let mut slow = ranking.clone();
                plain(
                    &lists,
                    &query.group,
                    &query.sorted,
                    &mut slow,
                    sessions,
                    &mut pa,
                    &mut pb,
                );
                assert_eq!(fast, slow, "n {n} sessions {sessions} case {case}");
                cases += 1;
                traded += usize::from(slow != ranking);
                shared += usize::from(case < 6 && sessions > pool.len());
            }
        }
    }
    // The comparison saw trades, and sessions sharing patterns, not only still rankings.
    assert!(
        cases > 300 && traded > cases / 4 && shared > cases / 4,
        "{cases} {traded} {shared}"
    );
}

/// Each position's gain within the cut-off, as [`Lists::dcg`] deals them.
fn gains(lists: &Lists<'_>, pattern: &[u8]) -> Vec<f64> {
    let mut next = [0; 2];
    let mut out = Vec::new();
    for &x in &pattern[..lists.discount.len()] {
        let g = usize::from(x != 1);
        out.push(lists.gain[g][next[g]]);
        next[g] += 1;
    }
    out
}

#[test]
fn a_trials_change_is_the_full_rescorings() {
    let mut rng = Rng::new(36);
    let mut checked = 0;
    for trial in 0..3000 {
        let n = 2 + (rng.next_u64() % 25) as usize;
        let query = Query::new(&mut rng, n, trial % 3 != 0);
        let lists = query.lists();
        let cut = lists.discount.len();
        let pattern = query.pattern(&mut rng);
        let r = (rng.next_u64() % cut as u64) as usize;
        let q = (rng.next_u64() % n as u64) as usize;
        if pattern[r] == pattern[q] {
            continue;
        }
        let (lo, hi) = (r.min(q), r.max(q));
        let (delta, moved) =
            Side::new(&lists, &pattern, cut).change(&lists, pattern[lo], lo, hi, cut);
        let mut swapped = pattern.clone();
        swapped.swap(r, q);
        let (before, after) = (lists.dcg(&pattern), lists.dcg(&swapped));
        // `moved`: some position within the cut-off takes another gain.
        assert_eq!(
            moved,
            gains(&lists, &pattern) != gains(&lists, &swapped),
            "{trial}"
        );
        if moved {
            assert!(
                (after - before - delta).abs() <= 1e-12 * (1.0 + before.abs()),
                "{trial}"
            );
        } else {
            // Nothing moved: the full sums are equal to the bit, and so is no change.
            assert_eq!(after.to_bits(), before.to_bits(), "{trial}");
            assert_eq!(delta, 0.0);
        }
        checked += 1;
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn keys_are_symmetric_and_tell_tails_apart() {
    let (a, b) = ([1u8, 0, 1, 0, 1, 0], [0u8, 1, 1, 0, 0, 1]);
    let (ab, ba) = (Key::of(&a, &b, 3), Key::of(&b, &a, 3));
    assert_eq!(ab, ba);
    // Below the cut-off `a` holds group 0 where `b` does not (position 4) and the other
    // way round (position 5); with only the first, the key differs.
    assert_eq!(ab.tails, 3);
    let c = [0u8, 1, 1, 0, 1, 0];
    assert_eq!(Key::of(&a, &c, 3).tails, 0);
    assert_ne!(Key::of(&a, &c, 3), Key::of(&a, &b, 3));
    // One kind only: swapping the roles swaps the bit, and the key is the same.
    let e = [0u8, 1, 1, 0, 0, 0];
    assert_eq!(Key::of(&a, &e, 3).tails, 1);
    assert_eq!(Key::of(&a, &e, 3), Key::of(&e, &a, 3));
}
