//! Tests of FOE: the LP against a full LP, the decomposition, the solver's invariants.
//! They stay in one file (over 400 lines) because they share its small fixtures and each
//! checks one property of [`super::solve`].

use ppg_core::Rng;

use super::lp::full_lp;
use super::*;

/// The protocol's exposure: `1 / log2(r + 2)` for ranks `r = 1, 2, ...`.
fn exposure(n: usize) -> Vec<f64> {
    (0..n).map(|j| 1.0 / ((j + 3) as f64).log2()).collect()
}

/// Ratio `Exp(G) / U(G)` per group, with sums, as the protocol's DTR.
fn ratios(p: &Marginals, u: &[f64], g: &[u8], v: &[f64]) -> [f64; 2] {
    let e = p.item_exposure(v);
    let (mut exp, mut merit) = ([0.0; 2], [0.0; 2]);
    for i in 0..u.len() {
        exp[usize::from(g[i])] += e[i];
        merit[usize::from(g[i])] += u[i];
    }
    [exp[0] / merit[0], exp[1] / merit[1]]
}

fn objective(p: &Marginals, u: &[f64], v: &[f64]) -> f64 {
    p.item_exposure(v).iter().zip(u).map(|(e, u)| e * u).sum()
}

fn is_permutation(r: &[u16]) -> bool {
    let mut seen = vec![false; r.len()];
    r.iter().all(|&i| {
        let i = usize::from(i);
        i < seen.len() && !std::mem::replace(&mut seen[i], true)
    })
}

/// A random query; `levels` > 0 draws utilities from that many grades (ties), 0 continuous.
fn random_query(rng: &mut Rng, n: usize, levels: u32) -> (Vec<f64>, Vec<u8>) {
    loop {
        let u: Vec<f64> = (0..n)
            .map(|_| {
                if levels > 0 {
                    (rng.unit_f64() * f64::from(levels)).floor()
                } else {
                    rng.unit_f64()
                }
            })
            .collect();
        let g: Vec<u8> = (0..n).map(|_| u8::from(rng.unit_f64() < 0.4)).collect();
        let merit = |k| (0..n).filter(|&i| g[i] == k).map(|i| u[i]).sum::<f64>();
        if merit(0) > 0.0 && merit(1) > 0.0 {
            return (u, g);
        }
    }
}

fn reconstruct(decomposition: &[(f64, Vec<u16>)], n: usize) -> Vec<f64> {
    let mut p = vec![0.0; n * n];
    for (w, r) in decomposition {
        for (j, &i) in r.iter().enumerate() {
            p[usize::from(i) * n + j] += w;
        }
    }
    p
}

#[test]
fn marginals_are_doubly_stochastic() {
    let mut rng = Rng::new(1);
    for n in [2, 5, 12, 40] {
        for levels in [0, 2, 5] {
            let (u, g) = random_query(&mut rng, n, levels);
            for variant in [FoeVariant::Hard, FoeVariant::Soft] {
                let s = solve(&u, &g, &exposure(n), variant).unwrap();
                assert!(
                    s.marginals.stochastic_error() < 1e-6,
                    "{n} {levels} {variant:?}"
                );
                assert!(s.marginals.as_slice().iter().all(|&x| x >= -1e-12));
                // The soft LP's own matrix is sub-stochastic.
                let lp = &s.lp_marginals;
                for i in 0..n {
                    let row: f64 = lp.row(i).unwrap().iter().sum();
                    let col: f64 = (0..n).map(|k| lp.get(k, i).unwrap()).sum();
                    assert!(row <= 1.0 + 1e-9 && col <= 1.0 + 1e-9);
                }
            }
        }
    }
}

#[test]
fn already_fair_utility_ranking_is_kept() {
    // Groups {0, 2} and {1, 3}; u1 chosen so that the utility ranking 0, 1, 2, 3 meets DT
    // exactly: (v0 + v2) / (u0 + u2) = (v1 + v3) / (u1 + u3).
    let v = exposure(4);
    let (u0, u2, u3) = (1.0, 0.5, 0.3);
    let u1 = (v[1] + v[3]) * (u0 + u2) / (v[0] + v[2]) - u3;
    let u = [u0, u1, u2, u3];
    assert!(u0 > u1 && u1 > u2 && u2 > u3);
    let g = [0, 1, 0, 1];
    let expected = Marginals::from_ranking(&[0, 1, 2, 3]).unwrap();
    for variant in [FoeVariant::Hard, FoeVariant::Soft] {
        let s = solve(&u, &g, &v, variant).unwrap();
        assert_eq!(s.outcome, Outcome::Optimal);
        for (a, b) in s.marginals.as_slice().iter().zip(expected.as_slice()) {
            assert!((a - b).abs() < 1e-6, "{variant:?}: {:?}", s.marginals);
        }
    }
}

#[test]
fn hard_meets_disparate_treatment() {
    let mut rng = Rng::new(2);
    let mut binding = 0;
    for n in [4, 9, 20, 60] {
        for levels in [0, 2, 5] {
            let (u, g) = random_query(&mut rng, n, levels);
            let v = exposure(n);
            let s = solve(&u, &g, &v, FoeVariant::Hard).unwrap();
            if s.outcome == Outcome::Infeasible {
                continue;
            }
            let start = Marginals::from_ranking(&utility_ranking(&u)).unwrap();
            let [a, b] = ratios(&start, &u, &g, &v);
            if (a - b).abs() > 1e-3 {
                binding += 1;
            }
            let [r0, r1] = ratios(&s.marginals, &u, &g, &v);
            assert!((r0 - r1).abs() < 1e-6, "n={n}: {r0} vs {r1}");
            assert!(dt_gap(&s.marginals, &u, &g, &v).unwrap().abs() < 1e-6);
            // Soft meets DT in its LP matrix.
            let soft = solve(&u, &g, &v, FoeVariant::Soft).unwrap();
            let [s0, s1] = ratios(&soft.lp_marginals, &u, &g, &v);
            assert!((s0 - s1).abs() < 1e-6, "soft n={n}: {s0} vs {s1}");
        }
    }
    // The test means something only if DT actually had to move the rankings.
    assert!(binding >= 6, "only {binding} queries where DT binds");
}

#[test]
fn column_generation_matches_the_full_lp() {
    let mut rng = Rng::new(3);
    let (mut compared, mut infeasible) = (0, 0);
    for round in 0..60 {
        let n = 2 + round % 8;
        let levels = [0, 2, 3, 5][round % 4];
        let (u, g) = random_query(&mut rng, n, levels);
        let v = exposure(n);
        for variant in [FoeVariant::Hard, FoeVariant::Soft] {
            let s = solve(&u, &g, &v, variant).unwrap();
            match (full_lp(&u, &g, &v, variant), s.outcome) {
                (Ok((best, _)), Outcome::Optimal) => {
                    let ours = objective(&s.lp_marginals, &u, &v);
                    assert!(
                        (ours - best).abs() <= 1e-7 * (1.0 + best.abs()),
                        "{variant:?} n={n}: {ours} vs full LP {best} ({u:?} {g:?})"
                    );
                    compared += 1;
                }
                (Err(microlp::Error::Infeasible), Outcome::Infeasible) => infeasible += 1,
                (full, ours) => panic!("{variant:?} n={n}: full LP {full:?}, ours {ours:?}"),
            }
        }
    }
    // Both branches exercised: optima compared, infeasibility agreed on.
    assert!(
        compared >= 80 && infeasible >= 5,
        "{compared} optima, {infeasible} infeasible"
    );
}

#[test]
fn tied_items_share_their_row() {
    let u = [2.0, 1.0, 1.0, 1.0, 0.0, 1.5, 0.5, 0.5];
    let g = [0, 0, 0, 0, 0, 1, 1, 1];
    let v = exposure(u.len());
    let s = solve(&u, &g, &v, FoeVariant::Hard).unwrap();
    assert_eq!(s.outcome, Outcome::Optimal);
    for (a, b) in [(1, 2), (2, 3), (6, 7)] {
        assert_eq!(s.marginals.row(a), s.marginals.row(b));
    }
    assert_ne!(s.marginals.row(1), s.marginals.row(6));
}

#[test]
fn birkhoff_reconstructs_and_sums_to_one() {
    let mut rng = Rng::new(4);
    let mut matrices = Vec::new();
    for n in [1, 3, 10, 30] {
        for levels in [0, 3] {
            let (u, g) = random_query(&mut rng, n.max(2), levels);
            for variant in [FoeVariant::Hard, FoeVariant::Soft] {
                let s = solve(&u, &g, &exposure(u.len()), variant).unwrap();
                check_decomposition(&s.decomposition(), &s.marginals);
                assert!(s.decomposition().len() <= 2 * u.len());
                matrices.push(s.marginals);
            }
        }
    }
    // A dense one: a random mixture of 12 permutations of 15 items.
    let n = 15;
    let mut p = vec![0.0; n * n];
    for _ in 0..12 {
        let mut perm: Vec<usize> = (0..n).collect();
        for k in (1..n).rev() {
            perm.swap(k, (rng.unit_f64() * (k + 1) as f64) as usize);
        }
        for (j, &i) in perm.iter().enumerate() {
            p[i * n + j] += 1.0 / 12.0;
        }
    }
    matrices.push(Marginals { n, p });

    for m in &matrices {
        check_decomposition(&birkhoff(m), m);
    }
}

/// Weights positive and summing to 1, rankings permutations, mixture equal to `m`.
fn check_decomposition(d: &[(f64, Vec<u16>)], m: &Marginals) {
    let total: f64 = d.iter().map(|(w, _)| w).sum();
    assert!((total - 1.0).abs() < 1e-6, "weights sum to {total}");
    assert!(d
        .iter()
        .all(|(w, r)| *w > 0.0 && is_permutation(r) && r.len() == m.n()));
    let back = reconstruct(d, m.n());
    let err = back
        .iter()
        .zip(m.as_slice())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(err < 1e-6, "reconstruction error {err}");
}

#[test]
fn samples_are_permutations_and_follow_the_mixture() {
    let mut rng = Rng::new(5);
    let (u, g) = random_query(&mut rng, 12, 3);
    let v = exposure(12);
    let s = solve(&u, &g, &v, FoeVariant::Hard).unwrap();
    let d = s.decomposition();
    let sessions = 20_000;
    let out = sample_rankings(&d, sessions, &mut Rng::new(6)).unwrap();
    assert_eq!(out.len(), sessions * 12);
    let mut freq = vec![0.0; 144];
    for block in out.chunks(12) {
        assert!(is_permutation(block));
        for (j, &i) in block.iter().enumerate() {
            freq[usize::from(i) * 12 + j] += 1.0 / sessions as f64;
        }
    }
    let err = freq
        .iter()
        .zip(s.marginals.as_slice())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(err < 0.02, "empirical marginals off by {err}");
}

#[test]
fn fixed_seed_gives_fixed_samples() {
    let d = vec![
        (0.5, vec![0, 1, 2]),
        (0.25, vec![2, 1, 0]),
        (0.0, vec![1, 0, 2]),
        (0.25, vec![1, 2, 0]),
    ];
    let a = sample_rankings(&d, 8, &mut Rng::new(42)).unwrap();
    let b = sample_rankings(&d, 8, &mut Rng::new(42)).unwrap();
    let c = sample_rankings(&d, 8, &mut Rng::new(43)).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    // The zero-weight ranking is never drawn.
    assert!(a.chunks(3).chain(c.chunks(3)).all(|r| r != [1, 0, 2]));
    // Golden values: the first draws of Rng::new(42) (xoshiro256++, SplitMix64 seeding).
    let mut rng = Rng::new(42);
    let draws: Vec<f64> = (0..8).map(|_| rng.unit_f64()).collect();
    let expected: Vec<u16> = draws
        .iter()
        .flat_map(|&x| match x {
            x if x < 0.5 => [0, 1, 2],
            x if x < 0.75 => [2, 1, 0],
            _ => [1, 2, 0],
        })
        .collect();
    assert_eq!(a, expected);
    assert_eq!(a, GOLDEN);
}

/// `sample_rankings(d, 8, Rng::new(42))` for the mixture of `fixed_seed_gives_fixed_samples`.
const GOLDEN: [u16; 24] = [
    1, 2, 0, 0, 1, 2, 1, 2, 0, 2, 1, 0, 1, 2, 0, 2, 1, 0, 0, 1, 2, 2, 1, 0,
];

#[test]
fn zero_merit_group_falls_back_to_the_utility_ranking() {
    let v = exposure(5);
    let cases: [(&[f64], &[u8]); 3] = [
        (&[0.2, 0.9, 0.0, 0.9, 0.5], &[0, 1, 0, 1, 1]), // group 0 merit 0.2: fine
        (&[0.0, 0.9, 0.0, 0.9, 0.5], &[0, 1, 0, 1, 1]), // group 0 merit 0
        (&[0.3, 0.9, 0.1, 0.9, 0.5], &[1, 1, 1, 1, 1]), // group 0 empty
    ];
    for (k, (u, g)) in cases.iter().enumerate() {
        for variant in [FoeVariant::Hard, FoeVariant::Soft] {
            let s = solve(u, g, &v, variant).unwrap();
            if k == 0 {
                assert_ne!(s.outcome, Outcome::ZeroMerit);
                continue;
            }
            assert_eq!(s.outcome, Outcome::ZeroMerit);
            // Descending utility, ties: the later item first.
            assert_eq!(utility_ranking(u)[..2], [3, 1]);
            let expected = Marginals::from_ranking(&utility_ranking(u)).unwrap();
            assert_eq!(s.marginals, expected);
            assert_eq!(birkhoff(&s.marginals), vec![(1.0, utility_ranking(u))]);
            assert_eq!(s.decomposition(), vec![(1.0, utility_ranking(u))]);
        }
    }
}

#[test]
fn unreachable_dt_falls_back_for_hard_only() {
    // Group 1 holds almost all merit in one item: even at the top it cannot get its share.
    let u = [1.0, 1.0, 1.0, 1.0, 100.0];
    let g = [0, 0, 0, 0, 1];
    let v = exposure(5);
    let hard = solve(&u, &g, &v, FoeVariant::Hard).unwrap();
    assert_eq!(hard.outcome, Outcome::Infeasible);
    assert_eq!(
        hard.marginals,
        Marginals::from_ranking(&[4, 3, 2, 1, 0]).unwrap()
    );
    assert!(full_lp(&u, &g, &v, FoeVariant::Hard).is_err());
    let soft = solve(&u, &g, &v, FoeVariant::Soft).unwrap();
    assert_eq!(soft.outcome, Outcome::Optimal);
    assert!(dt_gap(&soft.lp_marginals, &u, &g, &v).unwrap().abs() < 1e-9);
    assert!(soft.marginals.stochastic_error() < 1e-9);
}

#[test]
fn invalid_input_is_refused() {
    let v = exposure(3);
    let u = [1.0, 0.5, 0.2];
    let g = [0, 1, 0];
    assert!(matches!(
        solve(&u, &g[..2], &v, FoeVariant::Hard),
        Err(FoeError::LengthMismatch { .. })
    ));
    assert!(matches!(
        solve(&u, &g, &v[..2], FoeVariant::Hard),
        Err(FoeError::LengthMismatch { .. })
    ));
    assert_eq!(
        solve(&[1.0, -0.5, 0.2], &g, &v, FoeVariant::Hard),
        Err(FoeError::InvalidUtility(1))
    );
    assert_eq!(
        solve(&[1.0, f64::NAN, 0.2], &g, &v, FoeVariant::Soft),
        Err(FoeError::InvalidUtility(1))
    );
    assert_eq!(
        solve(&u, &[0, 2, 0], &v, FoeVariant::Hard),
        Err(FoeError::InvalidGroup(1))
    );
    assert_eq!(
        solve(&u, &g, &[0.5, 0.6, 0.1], FoeVariant::Hard),
        Err(FoeError::InvalidExposure(1))
    );
    assert_eq!(
        Marginals::from_ranking(&[0, 0, 1]),
        Err(FoeError::NotAPermutation)
    );
    assert_eq!(
        sample_rankings(&[], 3, &mut Rng::new(1)),
        Err(FoeError::EmptyDecomposition)
    );
    assert_eq!(
        sample_rankings(&[(0.0, vec![0, 1])], 3, &mut Rng::new(1)),
        Err(FoeError::EmptyDecomposition)
    );
    assert_eq!(
        solve(&[], &[], &[], FoeVariant::Hard).unwrap().outcome,
        Outcome::ZeroMerit
    );
}

#[test]
fn min_max_normalise_matches_the_reference() {
    assert_eq!(min_max_normalise(&[1.0, 3.0, 2.0]), vec![0.0, 1.0, 0.5]);
    assert_eq!(min_max_normalise(&[2.0, 2.0]), vec![0.0, 0.0]);
}

/// Release-mode timings: `cargo test -p ppg-lab --release -- --ignored --nocapture timing`;
/// with `FOE_FULL_LP=1` also the full `n^2` LP at n = 271 (about 30 s).
#[test]
#[ignore]
fn timing() {
    use std::time::Instant;
    let mut rng = Rng::new(9);
    for n in [20, 100, 271] {
        for levels in [5, 0] {
            let (u, g) = random_query(&mut rng, n, levels);
            let v = exposure(n);
            for variant in [FoeVariant::Hard, FoeVariant::Soft] {
                let t = Instant::now();
                let s = solve(&u, &g, &v, variant).unwrap();
                let solved = t.elapsed().as_secs_f64();
                let t = Instant::now();
                let d = s.decomposition();
                let out = sample_rankings(&d, 4, &mut rng).unwrap();
                let sampled = t.elapsed().as_secs_f64();
                let t = Instant::now();
                let generic = birkhoff(&s.marginals).len();
                let generic_s = t.elapsed().as_secs_f64();
                let full = if n < 271 || std::env::var_os("FOE_FULL_LP").is_some() {
                    let t = Instant::now();
                    let (best, _) = full_lp(&u, &g, &v, variant).unwrap_or((f64::NAN, vec![]));
                    let ours = objective(&s.lp_marginals, &u, &v);
                    format!(
                        "full LP {:.4}s (optimum {best:.9}, ours {ours:.9})",
                        t.elapsed().as_secs_f64()
                    )
                } else {
                    String::new()
                };
                println!(
                    "n={n:3} levels={levels} {variant:?} {:?}: solve {solved:.4}s, \
                     decomposition+sample {sampled:.4}s ({} rankings, {} items), \
                     birkhoff {generic_s:.4}s ({generic} rankings); {full}",
                    s.outcome,
                    d.len(),
                    out.len() / 4,
                );
            }
        }
    }
}
