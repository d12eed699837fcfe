//! Instruction-count probe for the sampler and the trainer, for use under
//! `valgrind --tool=cachegrind --branch-sim=yes`: unlike wall time, the counts do not move
//! with the machine's load. `probe_sample train` profiles training runs instead of samples,
//! `probe_sample batch` the same samples drawn in batches of 16, `probe_sample train-fixed`
//! the training runs of a [`FixedPpg`](ppg_core::FixedPpg) of 4 x 20 in memory on the stack,
//! against the byte buffer of `train`. A second argument sets the list length (`train 271`;
//! fewer runs, by its square).

#[path = "../benches/common/query.rs"]
mod query;

use ppg_core::{fixed_memory, Dims, FixedMemory, Ppg, SamplerMode, TrainConfig};

fn main() {
    // An optional second argument sets the list length (20 by default).
    let items = std::env::args().nth(2).map_or(20, |a| a.parse().unwrap());
    let sessions = 4;
    let dims = Dims::new(items, sessions, 16);
    let mut mem = vec![0u8; Ppg::bytes(dims)];
    let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
    ppg.start(items, sessions, 0.5).unwrap();
    if std::env::args().nth(1).as_deref() == Some("train") {
        train_runs(&mut ppg, items, sessions);
    } else if std::env::args().nth(1).as_deref() == Some("train-fixed") {
        // Its capacity is its type: 4 x 20 only.
        let mut memory: fixed_memory!(20, 4, 16) = FixedMemory::new();
        train_runs(&mut memory.engine(1), 20, sessions);
    } else if std::env::args().nth(1).as_deref() == Some("batch") {
        let mut total = 0.0;
        for _ in 0..100_000 / 16 {
            ppg.sample_batch(16, SamplerMode::Uncorrected).unwrap();
            total += ppg.batch_log_probs().iter().sum::<f64>();
        }
        println!("100000 samples, mean log-probability {}", total / 100_000.0);
    } else {
        let mut out = vec![0u16; items * sessions];
        let mut total = 0.0;
        for _ in 0..100_000 {
            total += ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
        }
        println!("100000 samples, mean log-probability {}", total / 100_000.0);
    }
}

/// Training runs with the reference recipe on the benchmark's EEL query, 200 of 4 x 20.
fn train_runs(ppg: &mut Ppg, items: usize, sessions: usize) {
    let query = query::Query::new(items);
    let mut eel = query.eel();
    let mut epochs = 0;
    let runs = (200 * 400 / (items * items)).max(2);
    for _ in 0..runs {
        ppg.start(items, sessions, 0.5).unwrap();
        epochs += ppg.train(&mut eel, &TrainConfig::default()).unwrap().epochs;
    }
    println!("{runs} training runs, {epochs} epochs");
}
