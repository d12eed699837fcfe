//! Speed of sampling and of one full training run (criterion).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ppg_core::{fixed_memory, Dims, FixedMemory, Gradient, Ppg, SamplerMode, TrainConfig};
use std::hint::black_box;

#[path = "common/query.rs"]
mod query;

fn sampling(c: &mut Criterion) {
    let mut group = c.benchmark_group("sample");
    for (items, sessions) in [(20, 1), (20, 4), (271, 4)] {
        for mode in [SamplerMode::Uncorrected, SamplerMode::Corrected] {
            let dims = Dims::new(items, sessions, 1);
            let mut mem = vec![0u8; Ppg::bytes(dims)];
            let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
            ppg.start(items, sessions, 0.5).unwrap();
            let mut out = vec![0u16; items * sessions];
            let id = BenchmarkId::new(format!("{mode:?}"), format!("{sessions}x{items}"));
            group.bench_function(id, |b| {
                b.iter(|| black_box(ppg.sample(mode, &mut out).unwrap()))
            });
        }
    }
    // The uncorrected sampler re-indexes the weights by reference position on the first
    // draw after they change; this is what that costs on top of a draw.
    let (items, sessions) = (20, 4);
    let dims = Dims::new(items, sessions, 1);
    let mut mem = vec![0u8; Ppg::bytes(dims)];
    let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
    ppg.start(items, sessions, 0.5).unwrap();
    let mut out = vec![0u16; items * sessions];
    let mut flip = false;
    group.bench_function("Uncorrected-after-a-weight-change/4x20", |b| {
        b.iter(|| {
            flip = !flip;
            ppg.set_weight(0, 0, 1, if flip { 0.4 } else { 0.5 })
                .unwrap();
            black_box(ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap())
        })
    });
    group.finish();
}

/// One training run of a 4 x 20 query: EEL with 5 grade levels, two groups, the reference
/// recipe (50 epochs of 16, patience 20) and our variants.
fn training(c: &mut Criterion) {
    let mut group = c.benchmark_group("train");
    let (items, sessions) = (20, 4);
    let query = query::Query::new(items);
    let eel = query.eel();
    let recipes = [
        ("reference", TrainConfig::default()),
        (
            "corrected",
            TrainConfig {
                sampler: SamplerMode::Corrected,
                ..TrainConfig::default()
            },
        ),
        (
            "exact+baseline",
            TrainConfig {
                gradient: Gradient::Exact,
                baseline: true,
                ..TrainConfig::default()
            },
        ),
    ];
    for (name, config) in recipes {
        let dims = Dims::new(items, sessions, 16);
        let mut mem = vec![0u8; Ppg::bytes(dims)];
        let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
        group.bench_function(BenchmarkId::new(name, "4x20"), |b| {
            b.iter(|| {
                ppg.start(items, sessions, 0.5).unwrap();
                let mut objective = eel;
                black_box(ppg.train(&mut objective, &config).unwrap())
            })
        });
    }
    // The reference run again in a FixedMemory on the stack: the same engine code, so a
    // difference is where the memory lies.
    let mut memory: fixed_memory!(20, 4, 16) = FixedMemory::new();
    let mut ppg = memory.engine(1);
    group.bench_function(BenchmarkId::new("fixed", "4x20"), |b| {
        b.iter(|| {
            ppg.start(items, sessions, 0.5).unwrap();
            let mut objective = eel;
            black_box(ppg.train(&mut objective, &TrainConfig::default()).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, sampling, training);
criterion_main!(benches);
