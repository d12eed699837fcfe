//! The Plackett-Luce engine never touches the heap: a counting global allocator sees no
//! allocation while an engine is built over a stack buffer, trained, sampled and updated.

use ppg_core::{Dims, PlConfig, PlackettLuce};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the calls made on the current thread while counting is on. Per thread, because the
/// test harness allocates on its own threads at any moment.
struct Counting;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: the allocator may run while thread-locals are being torn down.
    if ON.try_with(Cell::get).unwrap_or(false) {
        let _ = CALLS.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counting only
// touches const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note();
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap calls made by `f` on this thread.
fn heap_calls(f: impl FnOnce()) -> usize {
    CALLS.with(|c| c.set(0));
    ON.with(|on| on.set(true));
    f();
    ON.with(|on| on.set(false));
    CALLS.with(Cell::get)
}

const DIMS: Dims = Dims::new(12, 4, 16);

#[test]
fn no_heap_allocation_in_new_train_sample_update() {
    // The buffer is a stack array, sized at compile time; nothing is allocated beforehand.
    let mut mem = [0u8; PlackettLuce::bytes(DIMS)];
    let mut ranking = [0u16; 48];
    let mut report = None;
    // Sanity check that the counter counts.
    assert!(heap_calls(|| drop(std::hint::black_box(Box::new(1u64)))) >= 1);
    let calls = heap_calls(|| {
        let mut pl = PlackettLuce::new(&mut mem, DIMS, 2022).unwrap();
        pl.set_logits(&[1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0, -0.1])
            .unwrap();
        // Exposure-like cost: item 11 should move up in every session.
        let mut cost = |r: &[u16], sessions: usize| {
            r.chunks_exact(r.len() / sessions)
                .map(|block| block.iter().position(|&i| i == 11).unwrap_or(0) as f64)
                .sum::<f64>()
        };
        let config = PlConfig {
            baseline: true,
            ..PlConfig::default()
        };
        report = Some(pl.train(&mut cost, &config).unwrap());
        pl.sample(&mut ranking).unwrap();
        pl.policy_sample(&mut ranking).unwrap();
        pl.log_prob(&ranking).unwrap();
        pl.sample_batch(16).unwrap();
        let mut costs = [0.0; 16];
        for (c, r) in costs.iter_mut().zip(pl.batch().chunks_exact(48)) {
            *c = cost(r, 4);
        }
        pl.update(&costs, &config).unwrap();
        pl.mode(&mut ranking).unwrap();
        let _ = pl.best();
        // An error path too: a NaN cost is refused and everything restored.
        assert!(pl
            .train(&mut |_: &[u16], _: usize| f64::NAN, &config)
            .is_err());
    });
    assert_eq!(calls, 0, "heap calls during new + train + sample + update");
    assert!(report.unwrap().samples > 0);
}
