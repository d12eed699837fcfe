//! TREC 2022's AWRF checked against its definition: a plain implementation here that lays
//! out the whole joint space (every cell of the product of the attributes' levels), builds
//! the ranking's alignment as dense outer products, the organisers' target step by step as
//! `Task1Alignment.py`'s `avg_with_bg` does (pattern by pattern of known and unknown
//! values), and the divergence as scipy's `jensenshannon` does (both sides normalised,
//! `rel_entr`); small cases by hand; agreement to 1e-12 on random small lists.

use ppg_core::objective::awrf2022::{
    unknown_row, Attributes, Awrf2022, Target2022, Unknown, Work2022,
};
use ppg_core::objective::{Awrf, AwrfCost, AwrfReport};
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Owned rows and scratch for one list.
struct List {
    levels: Vec<u16>,
    unknown: Vec<bool>,
    start: Vec<u32>,
    level: Vec<u16>,
    weight: Vec<f64>,
}

impl List {
    fn attrs(&self) -> Attributes<'_> {
        Attributes {
            levels: &self.levels,
            unknown: &self.unknown,
            start: &self.start,
            level: &self.level,
            weight: &self.weight,
        }
    }

    /// Dense joint alignment of item `i` (mixed radix, attribute 0 slowest).
    fn joint(&self, i: usize) -> Vec<f64> {
        let size: usize = self.levels.iter().map(|&l| usize::from(l)).product();
        let a = self.attrs();
        (0..size)
            .map(|c| {
                let cell = cell_of(&self.levels, c);
                (0..cell.len())
                    .map(|x| a.value(i, x, cell[x]))
                    .product::<f64>()
            })
            .collect()
    }
}

fn cell_of(levels: &[u16], mut c: usize) -> Vec<u16> {
    let mut out = vec![0u16; levels.len()];
    for x in (0..levels.len()).rev() {
        let l = usize::from(levels[x]);
        out[x] = (c % l) as u16;
        c /= l;
    }
    out
}

/// The scratch of one metric, owned.
struct Scratch {
    key: Vec<u16>,
    cell: Vec<u32>,
    value: Vec<f64>,
    item: Vec<u32>,
    cells: Vec<f64>,
    memo: Vec<f64>,
    discount: Vec<f64>,
}

impl Scratch {
    fn new(list: &List, n: usize) -> Self {
        let c = Awrf2022::contributions(&list.attrs(), n).unwrap();
        let [lk, lc, lv, li, lf, lm] = Work2022::lengths(c, n, list.levels.len());
        let mut discount = vec![0.0; n];
        Awrf::discount(&mut discount);
        Scratch {
            key: vec![0; lk],
            cell: vec![0; lc],
            value: vec![0.0; lv],
            item: vec![0; li],
            cells: vec![0.0; lf],
            memo: vec![0.0; lm],
            discount,
        }
    }

    fn metric<'a>(
        &'a mut self,
        list: &List,
        utility: &'a [f64],
        target: Target2022,
        cost: AwrfCost,
    ) -> Awrf2022<'a> {
        let work = Work2022 {
            key: &mut self.key,
            cell: &mut self.cell,
            value: &mut self.value,
            item: &mut self.item,
            cells: &mut self.cells,
            memo: &mut self.memo,
        };
        Awrf2022::new(utility, &list.attrs(), target, &self.discount, work, cost).unwrap()
    }
}

fn score(
    list: &List,
    utility: &[f64],
    target: Target2022,
    ranking: &[u16],
    cost: AwrfCost,
) -> (AwrfReport, f64, usize) {
    let n = utility.len();
    let mut scratch = Scratch::new(list, n);
    let mut m = scratch.metric(list, utility, target, cost);
    let sessions = ranking.len() / n;
    let report = m.report(ranking, sessions).unwrap();
    use ppg_core::Objective;
    let cost = m.cost(ranking, sessions);
    (report, cost, m.cells())
}

/// scipy's `jensenshannon(p, q) ** 2`, natural log.
fn js(p: &[f64], q: &[f64]) -> f64 {
    let (sp, sq): (f64, f64) = (p.iter().sum(), q.iter().sum());
    let rel = |a: f64, m: f64| if a > 0.0 { a * (a / m).ln() } else { 0.0 };
    let mut s = 0.0;
    for (&a, &b) in p.iter().zip(q) {
        let (a, b) = (a / sp, b / sq);
        let m = 0.5 * (a + b);
        s += rel(a, m) + rel(b, m);
    }
    0.5 * s
}

/// The organisers' target laid out: `avg_with_bg` over the dense mean alignment.
fn dense_trec(list: &List, utility: &[f64], bg: &[Vec<f64>]) -> Vec<f64> {
    let k = list.levels.len();
    let size: usize = list.levels.iter().map(|&l| usize::from(l)).product();
    let mut tm = vec![0.0; size];
    let mut r = 0.0;
    for (i, _) in utility.iter().enumerate().filter(|(_, &y)| y > 0.0) {
        for (t, v) in tm.iter_mut().zip(list.joint(i)) {
            *t += v;
        }
        r += 1.0;
    }
    for t in &mut tm {
        *t /= r;
    }
    let avg: Vec<usize> = (0..k).filter(|&a| !bg[a].is_empty()).collect();
    let cells: Vec<Vec<u16>> = (0..size).map(|c| cell_of(&list.levels, c)).collect();
    let a_key = |cell: &[u16]| avg.iter().map(|&a| cell[a]).collect::<Vec<_>>();
    let r_key = |cell: &[u16]| {
        (0..k)
            .filter(|a| !avg.contains(a))
            .map(|a| cell[a])
            .collect::<Vec<_>>()
    };
    // tail mass per A-coordinate, tail marginal per R-coordinate, imputation.
    let tail_mass = |key: &[u16], m: &[f64]| -> f64 {
        cells
            .iter()
            .zip(m)
            .filter(|(c, _)| a_key(c) == key)
            .map(|(_, &v)| v)
            .sum()
    };
    let tail_marg = |key: &[u16]| -> f64 {
        cells
            .iter()
            .zip(&tm)
            .filter(|(c, _)| r_key(c) == key)
            .map(|(_, &v)| v)
            .sum()
    };
    let imputed: Vec<f64> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if tail_mass(&a_key(c), &tm) > 0.0 {
                tm[i]
            } else {
                tail_marg(&r_key(c))
            }
        })
        .collect();
    let scale: Vec<f64> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| imputed[i] / tail_mass(&a_key(c), &imputed))
        .collect();
    let is_known = |a: usize, l: u16| !(list.unknown[a] && l == list.levels[a] - 1);
    let mut out = tm.clone();
    // Every pattern of known/unknown over the averaged attributes but all-unknown.
    for pattern in 0..(1usize << avg.len()) {
        let known: Vec<bool> = (0..avg.len()).map(|x| pattern >> x & 1 == 1).collect();
        if known.iter().all(|&b| !b) {
            continue;
        }
        let sel: Vec<usize> = (0..size)
            .filter(|&i| {
                avg.iter()
                    .zip(&known)
                    .all(|(&a, &kn)| is_known(a, cells[i][a]) == kn)
            })
            .collect();
        if sel.is_empty() {
            continue;
        }
        let c_sum: f64 = sel.iter().map(|&i| tm[i]).sum();
        for &i in &sel {
            let b: f64 = avg
                .iter()
                .zip(&known)
                .filter(|(_, &kn)| kn)
                .map(|(&a, _)| bg[a][usize::from(cells[i][a])])
                .product();
            out[i] = 0.5 * tm[i] + 0.5 * b * scale[i] * c_sum;
        }
    }
    out
}

/// The metric laid out: dense alignment, dense target, scipy's divergence.
fn dense(list: &List, utility: &[f64], target: &[f64], ranking: &[u16]) -> AwrfReport {
    let n = utility.len();
    let mut disc = vec![0.0; n];
    Awrf::discount(&mut disc);
    let relevant = utility.iter().filter(|&&y| y > 0.0).count();
    let ideal: f64 = disc[..relevant].iter().sum();
    let mut sum = AwrfReport {
        awrf: 0.0,
        ndcg: 0.0,
        product: 0.0,
    };
    let blocks = ranking.len() / n;
    for block in ranking.chunks(n) {
        let mut p = vec![0.0; target.len()];
        let mut dcg = 0.0;
        for (r, &i) in block.iter().enumerate() {
            for (x, v) in p.iter_mut().zip(list.joint(usize::from(i))) {
                *x += disc[r] * v;
            }
            if utility[usize::from(i)] > 0.0 {
                dcg += disc[r];
            }
        }
        let awrf = 1.0 - js(&p, target);
        sum.awrf += awrf;
        sum.ndcg += dcg / ideal;
        sum.product += awrf * dcg / ideal;
    }
    let b = blocks as f64;
    AwrfReport {
        awrf: sum.awrf / b,
        ndcg: sum.ndcg / b,
        product: sum.product / b,
    }
}

/// A random list: `n` items over attributes of the given known levels, each under a
/// policy; rows of 1-3 entries, some unknown mass, some items without any row.
fn random_list(rng: &mut Xoshiro256PlusPlus, n: usize, known: &[u16], policy: &[Unknown]) -> List {
    let mut list = List {
        levels: known
            .iter()
            .zip(policy)
            .map(|(&l, &p)| l + u16::from(p == Unknown::Level))
            .collect(),
        unknown: policy.iter().map(|&p| p == Unknown::Level).collect(),
        start: vec![0],
        level: vec![],
        weight: vec![],
    };
    let mut out_l = [0u16; 16];
    let mut out_w = [0.0; 16];
    for _ in 0..n {
        let absent = rng.next_u32() % 7 == 0;
        for (&kn, &p) in known.iter().zip(policy) {
            let entries = if absent {
                0
            } else {
                (rng.next_u32() % 4) as usize
            };
            let mut lv: Vec<u16> = vec![];
            let mut wt = vec![];
            for _ in 0..entries {
                let l = (rng.next_u32() % u32::from(kn + 1)) as u16;
                if !lv.contains(&l) {
                    lv.push(l);
                    wt.push(f64::from(rng.next_u32() % 5 + 1));
                }
            }
            let written = if absent {
                0
            } else {
                unknown_row(p, kn, &lv, &wt, &mut out_l, &mut out_w).unwrap()
            };
            list.level.extend_from_slice(&out_l[..written]);
            list.weight.extend_from_slice(&out_w[..written]);
            list.start.push(list.level.len() as u32);
        }
    }
    list
}

#[test]
fn agrees_with_the_laid_out_definition_on_random_small_lists() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2022);
    let policies = [Unknown::Level, Unknown::Drop, Unknown::Uniform];
    let mut checked = 0;
    for case in 0..300 {
        let k = 1 + case % 3;
        let n = 2 + (rng.next_u32() % 7) as usize;
        let known: Vec<u16> = (0..k).map(|_| 1 + (rng.next_u32() % 3) as u16).collect();
        let policy: Vec<Unknown> = (0..k)
            .map(|_| policies[(rng.next_u32() % 3) as usize])
            .collect();
        let list = random_list(&mut rng, n, &known, &policy);
        let utility: Vec<f64> = (0..n)
            .map(|i| {
                if i == 0 || rng.next_u32() % 2 == 0 {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let aligned = |i: usize| list.joint(i).iter().sum::<f64>() > 0.0;
        if !(0..n).any(|i| utility[i] > 0.0 && aligned(i)) {
            continue;
        }
        // Backgrounds on some attributes, over their known levels.
        let bg: Vec<Vec<f64>> = known
            .iter()
            .map(|&kn| {
                if rng.next_u32() % 2 == 0 {
                    return vec![];
                }
                let raw: Vec<f64> = (0..kn).map(|_| f64::from(rng.next_u32() % 9 + 1)).collect();
                let s: f64 = raw.iter().sum();
                raw.iter().map(|v| v / s).collect()
            })
            .collect();
        let mut bstart = vec![0u32];
        let mut bval = vec![];
        for b in &bg {
            bval.extend_from_slice(b);
            bstart.push(bval.len() as u32);
        }
        let mut ranking: Vec<u16> = (0..n as u16).collect();
        let mut two = ranking.clone();
        two.reverse();
        ranking.extend_from_slice(&two);
        let want_target = dense_trec(&list, &utility, &bg);
        let want = dense(&list, &utility, &want_target, &ranking);
        let target = Target2022::Trec {
            start: &bstart,
            background: &bval,
        };
        let (got, cost, _) = score(&list, &utility, target, &ranking, AwrfCost::Product);
        for (g, w) in [
            (got.awrf, want.awrf),
            (got.ndcg, want.ndcg),
            (got.product, want.product),
        ] {
            assert!((g - w).abs() <= 1e-12, "case {case}: {g} vs {w}");
        }
        assert!((cost - (1.0 - want.product)).abs() <= 1e-12);
        // A given marginal target: the product of the marginals.
        let mstart: Vec<u32> = (0..=k)
            .map(|a| list.levels[..a].iter().map(|&l| u32::from(l)).sum())
            .collect();
        let mval: Vec<f64> = (0..mstart[k])
            .map(|_| f64::from(rng.next_u32() % 4))
            .collect();
        if (0..k).any(|a| {
            mval[mstart[a] as usize..mstart[a + 1] as usize]
                .iter()
                .sum::<f64>()
                == 0.0
        }) {
            continue;
        }
        let dense_m: Vec<f64> = (0..want_target.len())
            .map(|c| {
                cell_of(&list.levels, c)
                    .iter()
                    .enumerate()
                    .map(|(a, &l)| {
                        let r = &mval[mstart[a] as usize..mstart[a + 1] as usize];
                        r[usize::from(l)] / r.iter().sum::<f64>()
                    })
                    .product()
            })
            .collect();
        let want = dense(&list, &utility, &dense_m, &ranking);
        let target = Target2022::Marginals {
            start: &mstart,
            value: &mval,
        };
        let (got, _, _) = score(&list, &utility, target, &ranking, AwrfCost::Fairness);
        assert!(
            (got.awrf - want.awrf).abs() <= 1e-12,
            "case {case}: {} vs {}",
            got.awrf,
            want.awrf
        );
        checked += 1;
    }
    assert!(checked > 150, "only {checked} cases checked");
}

/// One metric scoring many rankings (its per-(item, position) terms kept as it goes) gives
/// each the bits a fresh metric gives it, and the laid-out definition's value to 1e-12:
/// a cost does not depend on the rankings scored before it.
#[test]
fn a_ranking_scores_the_same_after_any_other() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    let policies = [Unknown::Level, Unknown::Uniform, Unknown::Drop];
    let (mut same_mass, mut checked) = (0, 0);
    for case in 0..150 {
        let k = 1 + case % 3;
        let n = 3 + (rng.next_u32() % 8) as usize;
        let known: Vec<u16> = (0..k).map(|_| 1 + (rng.next_u32() % 3) as u16).collect();
        // Mostly policies that keep every item's mass 1 (the memo's case).
        let policy: Vec<Unknown> = (0..k)
            .map(|_| policies[usize::from(rng.next_u32() % 5 == 0) * 2])
            .collect();
        let list = random_list(&mut rng, n, &known, &policy);
        let utility: Vec<f64> = (0..n).map(|i| f64::from(u8::from(i % 3 == 0))).collect();
        let aligned = |i: usize| list.joint(i).iter().sum::<f64>() > 0.0;
        if !(0..n).any(|i| utility[i] > 0.0 && aligned(i)) {
            continue;
        }
        let mass = |i: usize| list.joint(i).iter().sum::<f64>();
        same_mass += usize::from((0..n).all(|i| (mass(i) - 1.0).abs() < 1e-12));
        let bg: Vec<Vec<f64>> = known
            .iter()
            .enumerate()
            .map(|(a, &kn)| {
                if a == 0 {
                    vec![1.0 / f64::from(kn); usize::from(kn)]
                } else {
                    vec![]
                }
            })
            .collect();
        let mut bstart = vec![0u32];
        let mut bval = vec![];
        for b in &bg {
            bval.extend_from_slice(b);
            bstart.push(bval.len() as u32);
        }
        let target = Target2022::Trec {
            start: &bstart,
            background: &bval,
        };
        let want_target = dense_trec(&list, &utility, &bg);
        let mut scratch = Scratch::new(&list, n);
        let mut kept = scratch.metric(&list, &utility, target, AwrfCost::Product);
        for round in 0..12 {
            let sessions = 1 + round % 2;
            let mut ranking = vec![];
            for _ in 0..sessions {
                let mut r: Vec<u16> = (0..n as u16).collect();
                for i in (1..n).rev() {
                    r.swap(i, (rng.next_u32() as usize) % (i + 1));
                }
                ranking.extend(r);
            }
            let got = kept.report(&ranking, sessions).unwrap();
            let (fresh, _, _) = score(&list, &utility, target, &ranking, AwrfCost::Product);
            assert_eq!(got.awrf.to_bits(), fresh.awrf.to_bits(), "case {case}");
            let want = dense(&list, &utility, &want_target, &ranking);
            assert!(
                (got.awrf - want.awrf).abs() <= 1e-12,
                "case {case}: {} vs {}",
                got.awrf,
                want.awrf
            );
            checked += 1;
        }
    }
    assert!(
        checked > 1000 && same_mass > 30,
        "{checked} rankings, {same_mass} lists of one mass"
    );
}

fn hard(levels: &[u16], rows: &[&[u16]]) -> List {
    let mut list = List {
        levels: levels.to_vec(),
        unknown: vec![false; levels.len()],
        start: vec![0],
        level: vec![],
        weight: vec![],
    };
    for row in rows {
        for &l in *row {
            list.level.push(l);
            list.weight.push(1.0);
            list.start.push(list.level.len() as u32);
        }
    }
    list
}

#[test]
fn by_hand_one_attribute_two_levels() {
    // A and B at level 0 and relevant, C at level 1; target 50/50; ranking A B C:
    // attention 1, 1, 1/log2 3, so p = (2, 1/log2 3) / (2 + 1/log2 3).
    let list = hard(&[2], &[&[0], &[0], &[1]]);
    let start = [0u32, 2];
    let value = [1.0, 1.0];
    let t = 1.0 / 3f64.log2();
    let (p0, p1) = (2.0 / (2.0 + t), t / (2.0 + t));
    let half =
        |p: f64| 0.5 * (p * (p / (0.5 * (p + 0.5))).ln() + 0.5 * (0.5 / (0.5 * (p + 0.5))).ln());
    let awrf = 1.0 - (half(p0) + half(p1));
    let (got, _, cells) = score(
        &list,
        &[1.0, 1.0, 0.0],
        Target2022::Marginals {
            start: &start,
            value: &value,
        },
        &[0, 1, 2],
        AwrfCost::Product,
    );
    assert_eq!(cells, 2);
    assert!((got.awrf - awrf).abs() < 1e-15, "{} vs {awrf}", got.awrf);
    assert_eq!(got.ndcg, 1.0);
}

#[test]
fn by_hand_the_organisers_target_with_an_unknown_level() {
    // One attribute: known levels 0 and 1, level 2 unknown; background (0.25, 0.75).
    // Relevant: one item at level 0, one unknown. tm = (1/2, 0, 1/2); the known pattern's
    // mass is 1/2, so T = (0.25 + 0.5*0.5*0.25, 0.5*0.5*0.75, 0.5) = (0.3125, 0.1875, 0.5).
    let list = List {
        levels: vec![3],
        unknown: vec![true],
        start: vec![0, 1, 2],
        level: vec![0, 2],
        weight: vec![1.0, 1.0],
    };
    let start = [0u32, 2];
    let bg = [0.25, 0.75];
    let (got, _, _) = score(
        &list,
        &[1.0, 1.0],
        Target2022::Trec {
            start: &start,
            background: &bg,
        },
        &[0, 1],
        AwrfCost::Fairness,
    );
    let m0: f64 = 0.5 * (0.5 + 0.3125);
    let js = 0.5 * (0.5 * (0.5 / m0).ln() + 0.3125 * (0.3125 / m0).ln() + 0.1875 * 2f64.ln());
    assert!(
        (got.awrf - (1.0 - js)).abs() < 1e-15,
        "{} vs {}",
        got.awrf,
        1.0 - js
    );
}

#[test]
fn an_item_without_alignment_is_dropped_with_its_attention() {
    // Item 1 has no row: the list scores as if it were not there, its position's attention
    // gone with it (1/log2 3 for item 2 at rank 3, not 1).
    let list = List {
        levels: vec![2],
        unknown: vec![false],
        start: vec![0, 1, 1, 2],
        level: vec![0, 1],
        weight: vec![1.0, 1.0],
    };
    let start = [0u32, 2];
    let value = [0.5, 0.5];
    let (got, _, _) = score(
        &list,
        &[1.0, 1.0, 1.0],
        Target2022::Marginals {
            start: &start,
            value: &value,
        },
        &[0, 1, 2],
        AwrfCost::Fairness,
    );
    let t = 1.0 / 3f64.log2();
    let p = [1.0 / (1.0 + t), t / (1.0 + t)];
    assert!((got.awrf - (1.0 - js(&p, &[0.5, 0.5]))).abs() < 1e-15);
}

#[test]
fn the_unknown_policies_write_the_rows_they_promise() {
    let (mut l, mut w) = ([0u16; 4], [0.0; 4]);
    // Level 3 is unknown for an attribute of 3 known levels: weights 1 (level 0), 1 (unknown).
    let n = unknown_row(Unknown::Level, 3, &[0, 3], &[1.0, 1.0], &mut l, &mut w).unwrap();
    assert_eq!((&l[..n], &w[..n]), (&[0u16, 3][..], &[0.5, 0.5][..]));
    let n = unknown_row(Unknown::Drop, 3, &[0, 3], &[1.0, 1.0], &mut l, &mut w).unwrap();
    assert_eq!((&l[..n], &w[..n]), (&[0u16][..], &[0.5][..]));
    let n = unknown_row(Unknown::Uniform, 3, &[0, 3], &[1.0, 1.0], &mut l, &mut w).unwrap();
    assert_eq!(&l[..n], &[0, 1, 2]);
    assert!((w[0] - (0.5 + 0.5 / 3.0)).abs() < 1e-15 && (w[1] - 0.5 / 3.0).abs() < 1e-15);
    // No entry at all: the value is unknown.
    assert_eq!(
        unknown_row(Unknown::Level, 3, &[], &[], &mut l, &mut w),
        Ok(1)
    );
    assert_eq!((l[0], w[0]), (3, 1.0));
    assert_eq!(
        unknown_row(Unknown::Drop, 3, &[], &[], &mut l, &mut w),
        Ok(0)
    );
    assert!(unknown_row(Unknown::Level, 3, &[4], &[1.0], &mut l, &mut w).is_err());
    assert!(unknown_row(Unknown::Level, 3, &[0], &[-1.0], &mut l, &mut w).is_err());
}
