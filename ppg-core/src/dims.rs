//! The shape an engine is laid out for.
//!
//! A foundation: uses only the error type.

use crate::Error;

/// The largest list one session may hold: item ids are `u16`.
pub const MAX_ITEMS: usize = u16::MAX as usize;

/// Items per session, sessions per query, and samples per batch that an engine's memory
/// is laid out for. All three are capacities: a query may use fewer items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    /// Items in one session's list (`n`).
    pub items: usize,
    /// Independent sessions (blocks) of the same list.
    pub sessions: usize,
    /// Samples per training step.
    pub batch: usize,
}

impl Dims {
    /// A shape; [`Dims::check`] says whether it is usable.
    pub const fn new(items: usize, sessions: usize, batch: usize) -> Self {
        Dims {
            items,
            sessions,
            batch,
        }
    }

    /// Items in one multi-session ranking (`items * sessions`), saturating.
    pub const fn total(&self) -> usize {
        self.items.saturating_mul(self.sessions)
    }

    /// Checks that every count is non-zero and within the id range.
    ///
    /// # Errors
    /// [`Error::Empty`] for a zero count, [`Error::Capacity`] for more than
    /// [`MAX_ITEMS`] items or a product that overflows.
    pub fn check(&self) -> Result<(), Error> {
        if self.items == 0 || self.sessions == 0 || self.batch == 0 {
            return Err(Error::Empty);
        }
        if self.items > MAX_ITEMS {
            return Err(Error::Capacity {
                requested: self.items,
                capacity: MAX_ITEMS,
            });
        }
        let total = self
            .items
            .checked_mul(self.sessions)
            .and_then(|t| t.checked_mul(self.batch));
        if total.is_none() {
            return Err(Error::Capacity {
                requested: usize::MAX,
                capacity: usize::MAX,
            });
        }
        Ok(())
    }
}
