//! Arbitrary call sequences with arbitrary arguments never panic (proptest: a panic fails
//! the case). This stands in for a `no_panic` build, which cannot see through the bounds
//! checks that validation makes unreachable.

mod support;

use ppg_core::{Dims, Gradient, PlConfig, PlackettLuce, Ppg, SamplerMode, TrainConfig};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Call {
    Start(usize, usize, f32),
    Forbid(usize, usize),
    Within(Vec<u8>),
    Between(Vec<u8>),
    SetWeight(usize, usize, usize, f32),
    Sample(bool, usize),
    LogProb(bool, Vec<u16>),
    Score(bool, Vec<u16>, usize),
    SampleBatch(bool, usize),
    Update(Vec<f64>, f32),
    Train(TrainArgs, Vec<f64>),
}

#[derive(Debug, Clone)]
struct TrainArgs {
    lr: f32,
    epochs: u32,
    batch: usize,
    patience: u32,
    clamp: (f32, f32),
    corrected: bool,
    exact: bool,
    baseline: bool,
    score_input: bool,
    grow: bool,
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -2.0f64..2.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(-1e300),
    ]
}

fn weight() -> impl Strategy<Value = f32> {
    prop_oneof![4 => -0.5f32..1.5, 1 => Just(f32::NAN), 1 => Just(f32::INFINITY)]
}

fn call() -> impl Strategy<Value = Call> {
    let small = 0usize..12;
    prop_oneof![
        (small.clone(), 0usize..4, weight()).prop_map(|(n, s, w)| Call::Start(n, s, w)),
        (small.clone(), small.clone()).prop_map(|(a, b)| Call::Forbid(a, b)),
        prop::collection::vec(0u8..3, 0..12).prop_map(Call::Within),
        prop::collection::vec(0u8..3, 0..12).prop_map(Call::Between),
        (0usize..4, small.clone(), small.clone(), weight())
            .prop_map(|(s, a, b, w)| Call::SetWeight(s, a, b, w)),
        (any::<bool>(), 0usize..40).prop_map(|(c, len)| Call::Sample(c, len)),
        (any::<bool>(), prop::collection::vec(0u16..14, 0..40))
            .prop_map(|(c, r)| Call::LogProb(c, r)),
        (
            any::<bool>(),
            prop::collection::vec(0u16..14, 0..40),
            0usize..200
        )
            .prop_map(|(c, r, g)| Call::Score(c, r, g)),
        (any::<bool>(), 0usize..6).prop_map(|(c, k)| Call::SampleBatch(c, k)),
        (prop::collection::vec(float(), 0..6), weight()).prop_map(|(c, lr)| Call::Update(c, lr)),
        (
            (weight(), 0u32..4, 0usize..6, 0u32..3, (weight(), weight())),
            (
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
                any::<bool>()
            ),
            prop::collection::vec(float(), 1..8)
        )
            .prop_map(
                |(
                    (lr, epochs, batch, patience, clamp),
                    (corrected, exact, baseline, score_input, grow),
                    costs,
                )| {
                    Call::Train(
                        TrainArgs {
                            lr,
                            epochs,
                            batch,
                            patience,
                            clamp,
                            corrected,
                            exact,
                            baseline,
                            score_input,
                            grow,
                        },
                        costs,
                    )
                }
            ),
    ]
}

fn mode(corrected: bool) -> SamplerMode {
    if corrected {
        SamplerMode::Corrected
    } else {
        SamplerMode::Uncorrected
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn ppg_survives_any_call_sequence(calls in prop::collection::vec(call(), 1..25), seed in any::<u64>()) {
        let dims = Dims::new(9, 3, 4);
        let mut mem = support::memory(dims);
        let mut ppg = Ppg::new(&mut mem, dims, seed).unwrap();
        for call in calls {
            match call {
                Call::Start(n, s, w) => { let _ = ppg.start(n, s, w); }
                Call::Forbid(a, b) => { let _ = ppg.forbid(a, b); }
                Call::Within(g) => { let _ = ppg.keep_order_within(&g); }
                Call::Between(g) => { let _ = ppg.keep_order_between(&g); }
                Call::SetWeight(s, a, b, w) => { let _ = ppg.set_weight(s, a, b, w); let _ = ppg.weight(s, a, b); }
                Call::Sample(c, len) => { let _ = ppg.sample(mode(c), &mut vec![0; len]); }
                Call::LogProb(c, r) => { let _ = ppg.log_prob(mode(c), &r); }
                Call::Score(c, r, g) => { let _ = ppg.score(mode(c), &r, &mut vec![0.0; g]); }
                Call::SampleBatch(c, k) => { let _ = ppg.sample_batch(k, mode(c)); }
                Call::Update(costs, lr) => {
                    let _ = ppg.update(&costs, &TrainConfig { learning_rate: lr, ..TrainConfig::default() });
                }
                Call::Train(a, costs) => {
                    let config = TrainConfig {
                        learning_rate: a.lr, epochs: a.epochs, batch: a.batch, patience: a.patience,
                        clamp_min: a.clamp.0, clamp_max: a.clamp.1, sampler: mode(a.corrected),
                        gradient: if a.exact { Gradient::Exact } else { Gradient::Approximate },
                        baseline: a.baseline, score_input: a.score_input, grow: a.grow,
                        certify: a.score_input.then_some(1e-8),
                    };
                    let mut k = 0;
                    let mut cost = |_: &[u16], _: usize| { k += 1; costs[k % costs.len()] };
                    let _ = ppg.train(&mut cost, &config);
                }
            }
            let _ = (ppg.best(), ppg.batch(), ppg.batch_log_probs(), ppg.reference());
        }
    }

    #[test]
    fn plackett_luce_survives_any_call_sequence(calls in prop::collection::vec(call(), 1..25), seed in any::<u64>()) {
        let dims = Dims::new(9, 3, 4);
        let mut mem = vec![0u8; PlackettLuce::bytes(dims)];
        let mut pl = PlackettLuce::new(&mut mem, dims, seed).unwrap();
        for call in calls {
            match call {
                Call::Start(n, s, w) => { let _ = pl.start(&vec![w; n], s); }
                Call::Within(g) | Call::Between(g) => {
                    let logits: Vec<f32> = g.iter().map(|&x| x as f32 * 3.0 - 2.0).collect();
                    let _ = pl.set_logits(&logits);
                }
                Call::Sample(_, len) => { let _ = pl.sample(&mut vec![0; len]); let _ = pl.policy_sample(&mut vec![0; len]); let _ = pl.mode(&mut vec![0; len]); }
                Call::LogProb(_, r) => { let _ = pl.log_prob(&r); }
                Call::Score(_, r, g) => { let _ = pl.score(&r, &mut vec![0.0; g]); }
                Call::SampleBatch(_, k) => { let _ = pl.sample_batch(k); }
                Call::Update(costs, lr) => { let _ = pl.update(&costs, &PlConfig { lr, ..PlConfig::default() }); }
                Call::Train(a, costs) => {
                    let config = PlConfig { lr: a.lr, epochs: a.epochs, batch: a.batch as u16, patience: a.patience, baseline: a.baseline, ..PlConfig::default() };
                    let mut k = 0;
                    let mut cost = |_: &[u16], _: usize| { k += 1; costs[k % costs.len()] };
                    let _ = pl.train(&mut cost, &config);
                }
                Call::Forbid(..) | Call::SetWeight(..) => {}
            }
            let _ = (pl.best(), pl.batch(), pl.logits());
        }
    }
}
