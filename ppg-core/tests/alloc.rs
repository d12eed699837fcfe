//! Sampling and training never touch the heap.

mod support;

use ppg_core::objective::{exposure, Eel, RankStart};
use ppg_core::{Dims, Gradient, Ppg, SamplerMode, TrainConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only counts calls made by this thread.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            CALLS.with(|c| c.set(c.get() + 1));
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn heap_calls(f: impl FnOnce()) -> usize {
    CALLS.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    CALLS.with(Cell::get)
}

#[test]
fn the_counter_sees_a_heap_allocation() {
    assert_eq!(heap_calls(|| drop(std::hint::black_box(vec![1u8; 8]))), 1);
}

#[test]
fn sampling_and_training_allocate_nothing() {
    const DIMS: Dims = Dims::new(24, 4, 16);
    let mut mem = [0u8; Ppg::bytes(DIMS)];
    let utility: [f64; 24] = core::array::from_fn(|i| ((i * 7) % 5) as f64);
    let group: [u8; 24] = core::array::from_fn(|i| (i % 3 == 0) as u8);
    let mut table = [0f64; 24];
    let mut ranking = [0u16; 96];
    let calls = heap_calls(|| {
        exposure::fill(RankStart::One, &mut table);
        let mut eel = Eel::new(&utility, &group, 5, &table).unwrap();
        let mut ppg = Ppg::new(&mut mem, DIMS, 7).unwrap();
        ppg.start(24, 4, 0.5).unwrap();
        ppg.keep_order_within(&group).unwrap();
        for sampler in [SamplerMode::Uncorrected, SamplerMode::Corrected] {
            for gradient in [Gradient::Approximate, Gradient::Exact] {
                let config = TrainConfig {
                    sampler,
                    gradient,
                    baseline: true,
                    ..TrainConfig::default()
                };
                ppg.train(&mut eel, &config).unwrap();
                ppg.sample(sampler, &mut ranking).unwrap();
                ppg.log_prob(sampler, &ranking).unwrap();
            }
        }
        ppg.sample_batch(16, SamplerMode::Corrected).unwrap();
        ppg.update(&[1.0; 16], &TrainConfig::default()).unwrap();
        assert!(ppg.best().is_some());
    });
    assert_eq!(calls, 0);
}
