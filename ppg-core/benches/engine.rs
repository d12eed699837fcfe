//! Speed of sampling and of one full training run (criterion).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ppg_core::{Dims, Ppg, SamplerMode};
use std::hint::black_box;

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
    group.finish();
}

criterion_group!(benches, sampling);
criterion_main!(benches);
