//! The core's workspace of a query ([`Workspace`]: starting order, utility and groups in
//! that order, the cost's scratch) kept on each worker thread from one query to the next,
//! as [`crate::kept`] keeps the engine: on the pass-through file of
//! `scripts/bench-rerank` (20 items, one group) its four allocations were a third of the
//! `malloc`/`free` instructions (docs/performance.md, "round 5"). Each query gets them
//! zeroed and exactly its length, as fresh ones were, so the core sees the same input.
//! Buffers of a query above [`KEEP_ITEMS`] items are not kept: memory a long query needs
//! once stays outside the budget only up to that size.

use std::cell::RefCell;

use ppg_core::recipe::Workspace;

/// Longest query whose buffers are kept (about 60 KiB with expected exposure's scratch).
const KEEP_ITEMS: usize = 1024;

/// The buffers behind one [`Workspace`].
#[derive(Default)]
struct Buffers {
    order: Vec<u16>,
    utility: Vec<f64>,
    group: Vec<u8>,
    scratch: Vec<f64>,
}

thread_local! {
    /// This thread's buffers, between its queries.
    static KEPT: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// Sets `v` to `len` zeros, keeping its allocation.
fn zeroed<T: Clone + Default>(v: &mut Vec<T>, len: usize) {
    v.clear();
    v.resize(len, T::default());
}

/// Runs `f` on a workspace of `n` items (zeroed) and `scratch` scratch values: this
/// thread's kept buffers, or new ones while they are in use (a call inside `f`).
pub(crate) fn with_workspace<T>(n: usize, scratch: usize, f: impl FnOnce(Workspace) -> T) -> T {
    let mut b = KEPT.with(|k| k.take());
    zeroed(&mut b.order, n);
    zeroed(&mut b.utility, n);
    zeroed(&mut b.group, n);
    zeroed(&mut b.scratch, scratch);
    let out = f(Workspace {
        order: &mut b.order,
        utility: &mut b.utility,
        group: &mut b.group,
        scratch: &mut b.scratch,
    });
    if n <= KEEP_ITEMS {
        KEPT.with(|k| k.replace(b));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_workspace_comes_zeroed_at_each_length() {
        with_workspace(5, 3, |w| {
            w.order.fill(7);
            w.utility.fill(1.5);
            w.group.fill(2);
            w.scratch.fill(9.0);
        });
        with_workspace(3, 0, |w| {
            assert_eq!(w.order, &[0u16; 3][..]);
            assert_eq!(w.utility, &[0.0; 3][..]);
            assert_eq!(w.group, &[0u8; 3][..]);
            assert!(w.scratch.is_empty());
        });
        // A call inside another gets buffers of its own.
        with_workspace(2, 0, |outer| {
            outer.order.fill(4);
            with_workspace(2, 0, |inner| assert_eq!(inner.order, &[0u16; 2][..]));
            assert_eq!(outer.order, &[4u16; 2][..]);
        });
    }
}
