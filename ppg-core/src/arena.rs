//! Typed regions carved out of one caller-provided byte buffer.
//!
//! The engine owns no memory: firmware hands it a static buffer, the C ABI a block from
//! the caller's allocator. Each region is aligned inside the buffer, so the buffer itself
//! may start at any address; the size functions count the worst-case padding.
//!
//! A foundation: uses only the error type. Public so that a front end laying out its own
//! buffers beside an engine's (the C API's id maps) counts and carves them the same way.

use crate::Error;
use bytemuck::Pod;
use core::mem::{align_of, size_of};

/// Bytes a region of `len` values of `T` may take, padding for alignment included.
pub const fn region_bytes<T>(len: usize) -> usize {
    len.saturating_mul(size_of::<T>())
        .saturating_add(align_of::<T>() - 1)
}

/// The sum of `parts`, saturating: a layout too large to count reports "too large".
pub const fn sum(parts: &[usize]) -> usize {
    let mut total = 0usize;
    let mut k = 0;
    while k < parts.len() {
        total = total.saturating_add(parts[k]);
        k += 1;
    }
    total
}

/// Hands out consecutive typed regions of a byte buffer.
pub struct Arena<'a> {
    rest: &'a mut [u8],
    given: usize,
    needed: usize,
}

impl<'a> Arena<'a> {
    /// `needed` is the layout's total, reported if the buffer runs out.
    pub fn new(bytes: &'a mut [u8], needed: usize) -> Self {
        Arena {
            given: bytes.len(),
            rest: bytes,
            needed,
        }
    }

    /// The next `len` values of `T`, zeroed.
    ///
    /// # Errors
    /// [`Error::MemoryTooSmall`] (with the layout's `needed`) when the buffer runs out.
    pub fn take<T: Pod>(&mut self, len: usize) -> Result<&'a mut [T], Error> {
        let too_small = Error::MemoryTooSmall {
            needed: self.needed,
            available: self.given,
        };
        let pad = self.rest.as_ptr().align_offset(align_of::<T>());
        let bytes = len.checked_mul(size_of::<T>()).ok_or(too_small)?;
        let end = pad.checked_add(bytes).ok_or(too_small)?;
        if end > self.rest.len() {
            return Err(too_small);
        }
        let rest = core::mem::take(&mut self.rest);
        let (head, tail) = rest.split_at_mut(end);
        self.rest = tail;
        let region = &mut head[pad..];
        region.fill(0);
        bytemuck::try_cast_slice_mut(region).map_err(|_| too_small)
    }
}
