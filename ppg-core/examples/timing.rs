//! Wall time for A/B comparisons on a noisy machine: the least mean time over 15 rounds of
//! 200,000 samples of 4 x 20 (no argument) or of 300 training runs with the reference
//! recipe on the benchmark's EEL query (`train`; `train-dtr` for DTR). On a shared virtual
//! machine the least round moves less than criterion's mean does; the README's figures still
//! come from criterion (`cargo bench -p ppg-core --bench engine`).

#[path = "../benches/common/query.rs"]
mod query;

use ppg_core::objective::{Dtr, Objective};
use ppg_core::{Dims, Ppg, SamplerMode, TrainConfig};
use std::time::Instant;

fn main() {
    let (items, sessions) = (20, 4);
    let dims = Dims::new(items, sessions, 16);
    let mut mem = vec![0u8; Ppg::bytes(dims)];
    let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
    ppg.start(items, sessions, 0.5).unwrap();
    let mode = std::env::args().nth(1).unwrap_or_default();
    let train = mode.starts_with("train");
    let query = query::Query::new(items);
    let mut eel = query.eel();
    let mut dtr = Dtr::new(&query.utility, &query.groups, &query.exposure).unwrap();
    let objective: &mut dyn Objective = if mode == "train-dtr" {
        &mut dtr
    } else {
        &mut eel
    };
    let mut out = vec![0u16; items * sessions];
    let reps = if train { 300 } else { 200_000 };
    let mut least = f64::MAX;
    for _ in 0..15 {
        let start = Instant::now();
        let mut total = 0.0;
        for _ in 0..reps {
            if train {
                ppg.start(items, sessions, 0.5).unwrap();
                total += ppg
                    .train(objective, &TrainConfig::default())
                    .unwrap()
                    .best_cost;
            } else {
                total += ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
            }
        }
        std::hint::black_box(total);
        least = least.min(start.elapsed().as_nanos() as f64 / reps as f64);
    }
    let what = if train {
        "training run"
    } else {
        "4 x 20 sample"
    };
    println!("least mean time per {what}: {least:.0} ns");
}
