use ppg_core::objective::{exposure, Eel, RankStart};
use ppg_core::{Dims, Ppg, SamplerMode, TrainConfig};
use std::time::Instant;
fn main() {
    let (items, sessions) = (20, 4);
    let dims = Dims::new(items, sessions, 16);
    let mut mem = vec![0u8; Ppg::bytes(dims)];
    let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
    ppg.start(items, sessions, 0.5).unwrap();
    let train = std::env::args().nth(1).as_deref() == Some("train");
    let utility: Vec<f64> = (0..items)
        .map(|i| ((items - i) * 5 / items) as f64)
        .collect();
    let groups: Vec<u8> = (0..items).map(|i| (i % 3 == 1) as u8).collect();
    let mut table = vec![0f64; items];
    exposure::fill(RankStart::One, &mut table);
    let mut eel = Eel::new(&utility, &groups, 5, &table).unwrap();
    let mut out = vec![0u16; items * sessions];
    let mut best = f64::MAX;
    let reps = if train { 300 } else { 200_000 };
    for _ in 0..15 {
        let t = Instant::now();
        let mut total = 0.0;
        for _ in 0..reps {
            if train {
                ppg.start(items, sessions, 0.5).unwrap();
                total += ppg
                    .train(&mut eel, &TrainConfig::default())
                    .unwrap()
                    .best_cost;
            } else {
                total += ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / reps as f64;
        std::hint::black_box(total);
        best = best.min(ns);
    }
    println!(
        "min ns per {} {best:.1}",
        if train { "run" } else { "sample" }
    );
}
