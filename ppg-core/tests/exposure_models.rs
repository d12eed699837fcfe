//! Properties of the browsing models and expected exposure that their definitions state.

use ppg_core::objective::{Browse, ExpectedExposure, Level, Measure, RankStart};
use proptest::prelude::*;

fn model() -> impl Strategy<Value = Browse> {
    prop_oneof![
        Just(Browse::Log(RankStart::One)),
        Just(Browse::Log(RankStart::Zero)),
        (1e-3..=1.0f64).prop_map(|patience| Browse::Rbp { patience }),
        (1e-3..=1.0f64, 0.0..=1.0f64)
            .prop_map(|(patience, utility)| Browse::CascadeJudged { patience, utility }),
        (1e-3..=1.0f64, 0.0..=1.0f64)
            .prop_map(|(patience, utility)| Browse::Cascade { patience, utility }),
    ]
}

/// Utilities on a few levels (ties are the interesting case) and a permutation of them.
fn list() -> impl Strategy<Value = (Vec<f64>, Vec<u8>, Vec<u16>)> {
    (1usize..24).prop_flat_map(|n| {
        (
            prop::collection::vec((0u8..4).prop_map(f64::from), n),
            prop::collection::vec(0u8..3, n),
            Just((0..n as u16).collect::<Vec<_>>()).prop_shuffle(),
        )
    })
}

proptest! {
    /// Exposure starts at the model's top weight and never grows down the list; the
    /// geometric models sum to their closed form `(1 - q^n) / (1 - q)`.
    #[test]
    fn exposure_orders_and_sums(model in model(), n in 1usize..200) {
        let mut e = vec![0.0; n];
        model.fill(&mut e).unwrap();
        prop_assert!(e.windows(2).all(|w| w[1] <= w[0]));
        prop_assert!(e.iter().all(|x| (0.0..=1.0).contains(x)));
        let q = match model {
            Browse::Log(_) => None,
            Browse::Rbp { patience } => Some(patience),
            Browse::CascadeJudged { patience, utility } => Some(patience * (1.0 - utility)),
            // Its positional part (the stops are the ranking's).
            Browse::Cascade { patience, .. } => Some(patience),
        };
        if let Some(q) = q {
            prop_assert_eq!(e[0], 1.0);
            let closed = if q == 1.0 { n as f64 } else { (1.0 - q.powi(n as i32)) / (1.0 - q) };
            let sum: f64 = e.iter().sum();
            prop_assert!((sum - closed).abs() <= 1e-12 * closed.max(1.0), "{} vs {}", sum, closed);
        }
    }

    /// Targets share out exactly the exposure of the ideal ranking (under a positional
    /// model, of any ranking), and higher levels never get less.
    #[test]
    fn targets_share_the_exposure((utility, group, ranking) in list(), model in model()) {
        let n = utility.len();
        let relevant = utility.iter().filter(|&&y| y > 0.0).count();
        let total: f64 = (0..n).map(|i| model.ideal(i, relevant)).sum();
        let mut scratch = vec![0.0; ExpectedExposure::SCRATCH_PER_ITEM * n];
        let mut ee = ExpectedExposure::new(
            &utility, &group, model, Level::Item, Measure::Loss, false, &mut scratch,
        ).unwrap();
        let t = ee.targets().to_vec();
        prop_assert!((t.iter().sum::<f64>() - total).abs() <= 1e-12 * total.max(1.0));
        for i in 0..n {
            for j in 0..n {
                if utility[i] > utility[j] {
                    prop_assert!(t[i] >= t[j]);
                }
                if utility[i] == utility[j] {
                    prop_assert_eq!(t[i], t[j]);
                }
            }
        }
        let r = ee.report(&ranking, 1).unwrap().raw;
        prop_assert!(r.loss >= 0.0);
        // |e - t|^2 = |e|^2 - 2 e.t + |t|^2.
        let t2: f64 = t.iter().map(|x| x * x).sum();
        prop_assert!((r.loss - (r.disparity - 2.0 * r.relevance + t2)).abs() <= 1e-9);
        // Sorted by utility with every level's positions equally exposed, the loss is 0.
        let mut sorted: Vec<u16> = (0..n as u16).collect();
        sorted.sort_by(|&a, &b| utility[usize::from(b)].total_cmp(&utility[usize::from(a)]));
        let distinct = (1..n).all(|k| utility[usize::from(sorted[k])] != utility[usize::from(sorted[k - 1])]);
        if distinct {
            prop_assert!(ee.report(&sorted, 1).unwrap().raw.loss <= 1e-24);
        }
    }

    /// At group level the targets are the item targets summed over relevant items.
    #[test]
    fn group_targets_sum_item_targets((utility, group, ranking) in list(), model in model()) {
        prop_assume!(utility.iter().any(|&y| y > 0.0));
        let n = utility.len();
        let mut scratch = vec![0.0; 4 * n];
        let item = ExpectedExposure::new(
            &utility, &group, model, Level::Item, Measure::Loss, false, &mut scratch,
        ).unwrap().targets().to_vec();
        let mut scratch = vec![0.0; 4 * n];
        let mut ee = ExpectedExposure::new(
            &utility, &group, model, Level::Group, Measure::Loss, true, &mut scratch,
        ).unwrap();
        for g in 0..3u8 {
            let want: f64 = (0..n).filter(|&i| group[i] == g && utility[i] > 0.0).map(|i| item[i]).sum();
            prop_assert!((ee.targets()[usize::from(g)] - want).abs() <= 1e-12);
        }
        let r = ee.report(&ranking, 1).unwrap().normalised;
        prop_assert!(r.disparity >= 0.0 && r.relevance >= 0.0 && r.loss >= 0.0);
    }
}
