//! The published cascade (`Browse::Cascade`) against a plain implementation of
//! its definition as the later commits of `diazf/expeval` write it (`exposure.py` at
//! 4b9d7e9: `expected` and `target`, with the target's undefined `g` read as the level's
//! `grade`, which is what its comment and the relevant count of `expected` say).

use ppg_core::objective::{Browse, ExpectedExposure, Level, LowerBound, Measure, Objective};
use ppg_core::Rng;

/// `expected`: each session, position `i` gets `p^i (1 - u)^relret`, `relret` the
/// relevant items already passed; averaged over sessions.
fn expected(ranking: &[u16], n: usize, relevant: &[bool], p: f64, u: f64) -> Vec<f64> {
    let sessions = ranking.len() / n;
    let mut e = vec![0.0; n];
    for block in ranking.chunks(n) {
        let mut relret = 0;
        for (i, &d) in block.iter().enumerate() {
            e[usize::from(d)] += p.powi(i as i32) * (1.0 - u).powi(relret) / sessions as f64;
            if relevant[usize::from(d)] {
                relret += 1;
            }
        }
    }
    e
}

/// `target`: levels by grade descending; a relevant level of `m` items below `b` gets
/// `(pp^b - pp^(b+m)) / (m (1 - pp))`, `pp = p (1 - u)`, the non-relevant one
/// `(1 - u)^b (p^b - p^(b+m)) / (m (1 - p))`.
fn target(utility: &[f64], p: f64, u: f64) -> Vec<f64> {
    let mut levels: Vec<f64> = utility.to_vec();
    levels.sort_by(|a, b| b.total_cmp(a));
    levels.dedup();
    let pp = p * (1.0 - u);
    let mut b = 0;
    let mut per_level = Vec::new();
    for &grade in &levels {
        let m = utility.iter().filter(|&&y| y == grade).count();
        let (bi, mi) = (b as i32, m as f64);
        let t = if grade > 0.0 {
            (pp.powi(bi) - pp.powi(bi + m as i32)) / (mi * (1.0 - pp))
        } else {
            (1.0 - u).powi(bi) * (p.powi(bi) - p.powi(bi + m as i32)) / (mi * (1.0 - p))
        };
        per_level.push((grade, t));
        b += m;
    }
    utility
        .iter()
        .map(|&y| per_level.iter().find(|(g, _)| *g == y).unwrap().1)
        .collect()
}

#[test]
fn published_cascade_against_its_definition() {
    let mut rng = Rng::new(42);
    let (mut compared, mut witnessed) = (0, 0);
    for case in 0..200 {
        let n = 2 + case % 9;
        let utility: Vec<f64> = (0..n)
            .map(|i| {
                if i == 0 {
                    2.0
                } else {
                    (rng.unit_f64() * 3.0).floor()
                }
            })
            .collect();
        let group: Vec<u8> = (0..n).map(|_| (rng.unit_f64() * 3.0) as u8).collect();
        let relevant: Vec<bool> = utility.iter().map(|&y| y > 0.0).collect();
        let (p, u) = (0.3 + 0.6 * rng.unit_f64(), 0.1 + 0.8 * rng.unit_f64());
        let sessions = 1 + case % 3;
        let mut ranking = Vec::new();
        for _ in 0..sessions {
            let mut perm: Vec<u16> = (0..n as u16).collect();
            for i in (1..n).rev() {
                perm.swap(i, (rng.unit_f64() * (i + 1) as f64) as usize);
            }
            ranking.extend(perm);
        }
        let e = expected(&ranking, n, &relevant, p, u);
        let t = target(&utility, p, u);
        let browse = Browse::Cascade {
            patience: p,
            utility: u,
        };
        for level in [Level::Item, Level::Group] {
            let (mut ee, mut tt) = (e.clone(), t.clone());
            if level == Level::Group {
                // d943b3e's aggregation, kept: the relevant items of each group.
                let (mut ge, mut gt) = (vec![0.0; 3], vec![0.0; 3]);
                for i in (0..n).filter(|&i| relevant[i]) {
                    ge[usize::from(group[i])] += e[i];
                    gt[usize::from(group[i])] += t[i];
                }
                let present: Vec<usize> = (0..3)
                    .filter(|&g| (0..n).any(|i| relevant[i] && group[i] as usize == g))
                    .collect();
                ee = present.iter().map(|&g| ge[g]).collect();
                tt = present.iter().map(|&g| gt[g]).collect();
            }
            let loss: f64 = ee.iter().zip(&tt).map(|(a, b)| (a - b) * (a - b)).sum();
            let disparity: f64 = ee.iter().map(|a| a * a).sum();
            let relevance: f64 = ee.iter().zip(&tt).map(|(a, b)| a * b).sum();
            let mut scratch = vec![0.0; 3 * n];
            let mut metric = ExpectedExposure::new(
                &utility,
                &group,
                browse,
                level,
                Measure::Loss,
                false,
                &mut scratch,
            )
            .unwrap();
            let r = metric.report(&ranking, sessions).unwrap().raw;
            let what = format!("{utility:?} {ranking:?} p {p} u {u} {level:?}");
            assert!((r.loss - loss).abs() < 1e-12, "{} {loss}: {what}", r.loss);
            assert!((r.disparity - disparity).abs() < 1e-12, "{what}");
            assert!((r.relevance - relevance).abs() < 1e-12, "{what}");
            // Not positional: the bound is 0, exact with one group in play, where the
            // relevant items first in every session reach it.
            let one_group = level == Level::Group && tt.len() == 1;
            let mut work = vec![0.0; 4 * n + 4];
            let mut out = vec![0u16; n * sessions];
            let (bound, found) = metric.optimum(sessions, &mut work, &mut out).unwrap();
            let want = LowerBound {
                value: 0.0,
                exact: one_group,
            };
            assert_eq!((bound, found), (want, one_group), "{what}");
            if one_group {
                witnessed += 1;
                assert!(metric.cost(&out, sessions) <= 1e-15, "{out:?}: {what}");
                let relevant_count = relevant.iter().filter(|&&r| r).count();
                for block in out.chunks(n) {
                    let top = &block[..relevant_count];
                    assert!(top.iter().all(|&i| relevant[usize::from(i)]), "{out:?}");
                    let grades: Vec<f64> = top.iter().map(|&i| utility[usize::from(i)]).collect();
                    assert!(grades.windows(2).all(|w| w[0] >= w[1]), "{out:?}");
                }
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 400);
    // These seeds: 27 cases with one group in play.
    assert!(witnessed >= 20, "{witnessed}");
}

/// Where every item is relevant the two cascades agree (each judged item is relevant);
/// where some are not, the published one gives the positions below a non-relevant item
/// more exposure.
#[test]
fn the_two_cascades_agree_only_without_non_relevant_items() {
    let (p, u) = (0.5, 0.5);
    let value = |utility: &[f64], browse| {
        let mut scratch = vec![0.0; 3 * utility.len()];
        let mut m = ExpectedExposure::new(
            utility,
            &[0, 1, 0],
            browse,
            Level::Item,
            Measure::Loss,
            false,
            &mut scratch,
        )
        .unwrap();
        m.report(&[1, 0, 2], 1).unwrap().raw.disparity
    };
    let judged = Browse::CascadeJudged {
        patience: p,
        utility: u,
    };
    let published = Browse::Cascade {
        patience: p,
        utility: u,
    };
    let all = [1.0, 2.0, 1.0];
    assert!((value(&all, judged) - value(&all, published)).abs() < 1e-15);
    // Item 1 (non-relevant) first: judged, positions get 1, 0.25, 0.0625; published, 1,
    // 0.5, 0.125 (no stop after a non-relevant item, one after item 0).
    let some = [1.0, 0.0, 1.0];
    assert!((value(&some, judged) - (1.0 + 0.0625 + 0.0625 * 0.0625)).abs() < 1e-15);
    assert!((value(&some, published) - (1.0 + 0.25 + 0.125 * 0.125)).abs() < 1e-15);
}
