//! A fixed seed gives fixed samples and a fixed trained result, on every platform.
//! If an intended change to the sampler moves these values, regenerate them and say why
//! in the commit.

mod support;

use ppg_core::objective::{exposure, Eel, RankStart};
use ppg_core::{Dims, Ppg, Rng, SamplerMode, TrainConfig};
use support::memory;

#[test]
fn generator_reference_outputs() {
    let mut rng = Rng::new(42);
    let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
    assert_eq!(first, GOLDEN_RNG);
}

fn engine_samples(mode: SamplerMode) -> Vec<Vec<u16>> {
    let dims = Dims::new(8, 2, 1);
    let mut mem = memory(dims);
    let mut ppg = Ppg::new(&mut mem, dims, 42).unwrap();
    ppg.start(8, 2, 0.5).unwrap();
    let mut out = vec![0u16; 16];
    (0..3)
        .map(|_| {
            ppg.sample(mode, &mut out).unwrap();
            out.clone()
        })
        .collect()
}

#[test]
fn first_samples_of_seed_42() {
    assert_eq!(engine_samples(SamplerMode::Uncorrected), GOLDEN_UNCORRECTED);
    assert_eq!(engine_samples(SamplerMode::Corrected), GOLDEN_CORRECTED);
}

#[test]
fn trained_result_of_seed_42() {
    let utility = [4.0, 4.0, 3.0, 3.0, 2.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    let group = [0u8, 0, 0, 1, 0, 0, 1, 1, 0, 1];
    let mut table = [0f64; 10];
    exposure::fill(RankStart::One, &mut table);
    let mut eel = Eel::new(&utility, &group, 5, &table).unwrap();
    let dims = Dims::new(10, 4, 16);
    let mut mem = memory(dims);
    let mut ppg = Ppg::new(&mut mem, dims, 42).unwrap();
    ppg.start(10, 4, 0.5).unwrap();
    ppg.keep_order_within(&group).unwrap();
    let report = ppg.train(&mut eel, &TrainConfig::default()).unwrap();
    let (best, cost) = ppg.best().unwrap();
    assert_eq!((report.epochs, report.best_epoch), GOLDEN_EPOCHS);
    assert_eq!(best, GOLDEN_BEST);
    assert_eq!(cost.to_bits(), GOLDEN_COST_BITS);
}

// xoshiro256++ seeded through SplitMix64 with 42, as rand_xoshiro 0.8 does it.
const GOLDEN_RNG: [u64; 3] = [
    15021278609987233951,
    5881210131331364753,
    18149643915985481100,
];
const GOLDEN_UNCORRECTED: [[u16; 16]; 3] = [
    [0, 1, 3, 2, 5, 4, 7, 6, 0, 1, 2, 3, 5, 6, 7, 4],
    [0, 2, 1, 4, 6, 3, 5, 7, 0, 1, 2, 3, 7, 5, 4, 6],
    [0, 1, 3, 6, 2, 5, 4, 7, 1, 0, 3, 5, 4, 6, 7, 2],
];
const GOLDEN_CORRECTED: [[u16; 16]; 3] = [
    [0, 6, 3, 1, 4, 7, 5, 2, 3, 6, 2, 5, 0, 4, 7, 1],
    [0, 3, 6, 5, 7, 4, 2, 1, 6, 5, 0, 7, 4, 2, 1, 3],
    [5, 4, 2, 0, 6, 7, 3, 1, 0, 4, 1, 3, 2, 5, 6, 7],
];
// The reference recipe reaches EEL 1.6e-9 at epoch 37 and runs all 50 epochs. The cost
// bits depend on the order in which EEL sums the exposure (four partial sums).
const GOLDEN_EPOCHS: (u32, Option<u32>) = (50, Some(37));
const GOLDEN_BEST: [u16; 40] = [
    0, 1, 2, 4, 3, 6, 7, 9, 5, 8, 0, 1, 2, 4, 5, 8, 3, 6, 7, 9, 0, 3, 6, 1, 2, 4, 5, 7, 9, 8, 0, 1,
    2, 4, 5, 3, 6, 7, 9, 8,
];
const GOLDEN_COST_BITS: u64 = 4475323624960596855;
