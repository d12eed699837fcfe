//! The trainer's step scratch: one region that holds either the exact gradient or the
//! approximate step's buffers, since no step needs both.
//!
//! A foundation of the trainer: uses the arena's sums, `pairs` and the `i8` keys of
//! `approximate`.

use super::approximate::Key;
use crate::arena::sum;
use crate::pairs;
use crate::Dims;

/// The approximate step's buffers, carved from the trainer's step scratch: the exact
/// gradient needs `pairs x sessions` values and these about `pairs + 512 + batch + n x batch
/// / 4`, so sharing one region takes the larger of the two instead of their sum (2,607
/// bytes less for 20 items x 4 sessions x 16, which matters on a 64 KiB part).
pub(super) struct StepScratch<'w> {
    /// E of one session's pairs.
    pub(super) inverted: &'w mut [f32],
    /// The two subset-sum tables.
    pub(super) subsets: &'w mut [[f32; 256]; 2],
    /// Each sample's share of the gradient, `(cost - baseline) / batch`.
    pub(super) scale: &'w mut [f32],
    /// The sample keys of `inverted_shares`, `n x batch` of `i8` (or `i16` past 256 items).
    pub(super) keys: &'w mut [f32],
}

impl<'w> StepScratch<'w> {
    /// `f32` values of the step's scratch for shape `dims`.
    pub(super) const fn len(dims: Dims) -> usize {
        let pairs = pairs::count(dims.items);
        let key_bytes = if dims.items <= i8::PLACES { 1 } else { 2 };
        let keys = dims
            .items
            .saturating_mul(dims.batch)
            .saturating_mul(key_bytes);
        let exact = pairs.saturating_mul(dims.sessions);
        let approximate = sum(&[pairs, 512, dims.batch, keys.div_ceil(4)]);
        if exact > approximate {
            exact
        } else {
            approximate
        }
    }

    /// The buffers for `pairs` pairs and `batch` samples; the keys take the rest.
    pub(super) fn split(work: &'w mut [f32], pairs: usize, batch: usize) -> Self {
        let (inverted, rest) = work.split_at_mut(pairs);
        let Some((subsets, rest)) = rest.split_first_chunk_mut::<512>() else {
            unreachable!("`len` counts the subset tables");
        };
        let (scale, keys) = rest.split_at_mut(batch);
        StepScratch {
            inverted,
            subsets: bytemuck::must_cast_mut(subsets),
            scale,
            keys,
        }
    }
}
