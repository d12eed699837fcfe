//! The merge sampler's exact probabilities, its empirical frequencies, and its extremes.

mod support;

use ppg_core::{Dims, Ppg, SamplerMode};
use support::{memory, permutations, TestRng};

const MODES: [SamplerMode; 2] = [SamplerMode::Corrected, SamplerMode::Uncorrected];

fn random_weights(ppg: &mut Ppg, rng: &mut TestRng) {
    let n = ppg.items();
    for s in 0..ppg.sessions() {
        for a in 0..n {
            for b in a + 1..n {
                if !ppg.is_constrained(a, b) {
                    ppg.set_weight(s, a, b, (0.02 + 0.96 * rng.unit()) as f32)
                        .unwrap();
                }
            }
        }
    }
}

#[test]
fn exact_probabilities_sum_to_one_for_every_list_up_to_six() {
    let mut rng = TestRng(7);
    for n in 1..=6 {
        let dims = Dims::new(n, 1, 1);
        let mut mem = memory(dims);
        let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
        for constrained in [false, true] {
            ppg.start(n, 1, 0.5).unwrap();
            if constrained && n >= 3 {
                ppg.forbid(0, n - 1).unwrap();
                ppg.forbid(1, 2).unwrap();
            }
            random_weights(&mut ppg, &mut rng);
            for mode in MODES {
                let total: f64 = permutations(n)
                    .iter()
                    .map(|p| ppg.log_prob(mode, p).unwrap().exp())
                    .sum();
                assert!(
                    (total - 1.0).abs() < 1e-9,
                    "n={n} {mode:?} constrained={constrained}: {total}"
                );
            }
        }
    }
}
