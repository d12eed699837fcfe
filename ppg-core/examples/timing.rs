//! Wall time for A/B comparisons on a noisy machine: the least mean time over 15 rounds of
//! 200,000 samples of 4 x 20 (no argument), of the same drawn as 12,500 batches of 16
//! (`batch`, time per sample), or of 300 training runs with the reference recipe on the
//! benchmark's EEL query (`train`; `train-dtr` for DTR). A second argument sets the list
//! length, with repetitions scaled down by its square (`train 271`). On a shared virtual machine the
//! least round moves less than criterion's mean does; docs/performance.md's figures still come from
//! criterion (`cargo bench -p ppg-core --bench engine`).

#[path = "../benches/common/query.rs"]
mod query;

use ppg_core::objective::{Dtr, Objective};
use ppg_core::{Dims, Ppg, SamplerMode, TrainConfig};
use std::time::Instant;

fn main() {
    // An optional second argument sets the list length (20 by default).
    let items = std::env::args().nth(2).map_or(20, |a| a.parse().unwrap());
    let sessions = 4;
    let dims = Dims::new(items, sessions, 16);
    let mut mem = vec![0u8; Ppg::bytes(dims)];
    let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
    ppg.start(items, sessions, 0.5).unwrap();
    let mode = std::env::args().nth(1).unwrap_or_default();
    let train = mode.starts_with("train");
    let batch = mode == "batch";
    let query = query::Query::new(items);
    let mut eel = query.eel();
    let mut dtr = Dtr::new(&query.utility, &query.groups, &query.exposure).unwrap();
    let objective: &mut dyn Objective = if mode == "train-dtr" {
        &mut dtr
    } else {
        &mut eel
    };
    let mut out = vec![0u16; items * sessions];
    // Fewer repetitions for longer lists: the work grows as items^2.
    let scale = |reps: usize| (reps * 400 / (items * items)).max(1);
    let (reps, per_rep) = match (train, batch) {
        (true, _) => (scale(300), 1),
        (_, true) => (scale(12_500), 16),
        _ => (scale(200_000), 1),
    };
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
            } else if batch {
                ppg.sample_batch(16, SamplerMode::Uncorrected).unwrap();
                total += ppg.batch_log_probs()[15];
            } else {
                total += ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
            }
        }
        std::hint::black_box(total);
        let per = start.elapsed().as_nanos() as f64 / (reps * per_rep) as f64;
        least = least.min(per);
    }
    let what = match (train, batch) {
        (true, _) => "training run",
        (_, true) => "sample in batches of 16",
        _ => "sample",
    };
    println!("least mean time per 4 x {items} {what}: {least:.0} ns");
}
