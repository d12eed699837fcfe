//! The one error type of the engine.
//!
//! A foundation: uses nothing else in the crate.

use core::fmt;

/// Why a call was refused. A call that returns an error has changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A list, a batch or a session count was zero where at least one is needed.
    Empty,
    /// More items (or sessions, or batch slots) than the engine was laid out for.
    Capacity {
        /// How many were asked for.
        requested: usize,
        /// How many fit.
        capacity: usize,
    },
    /// The memory handed to the engine is smaller than its layout needs.
    MemoryTooSmall {
        /// Bytes the layout needs (alignment slack included).
        needed: usize,
        /// Bytes that were given.
        available: usize,
    },
    /// A slice had the wrong length.
    LengthMismatch {
        /// The length the call needs.
        expected: usize,
        /// The length it was given.
        found: usize,
    },
    /// An item id is not below the number of items.
    ItemOutOfRange {
        /// The offending id.
        item: usize,
        /// The number of items.
        items: usize,
    },
    /// A ranking names some item twice (and so misses another).
    NotPermutation,
    /// A pair names the same item twice.
    SamePair,
    /// A cost, utility or weight is NaN or infinite.
    NotFinite {
        /// Position of the offending value in the slice that held it.
        index: usize,
    },
    /// The input ranking's own cost (the recipe's starting point) is NaN or infinite:
    /// refused before the engine was touched, unlike [`Error::NotFinite`] met during
    /// training, after which the engine holds the new query half trained.
    InputNotFinite,
    /// A probability lies outside `[0, 1]`.
    NotProbability {
        /// Position of the offending value.
        index: usize,
    },
    /// A configuration value is out of its documented range.
    InvalidConfig(&'static str),
    /// `update` was called without a batch sampled since the last update.
    NoPendingBatch,
    /// The rankings given to `update` are not the batch the engine sampled.
    UnknownSample,
    /// A metric needs something the query does not have (say, two groups for DTR).
    Unsupported(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Empty => {
                f.write_str("empty input: at least one item, session and sample is needed")
            }
            Error::Capacity {
                requested,
                capacity,
            } => {
                write!(
                    f,
                    "capacity exceeded: {requested} requested, {capacity} fit"
                )
            }
            Error::MemoryTooSmall { needed, available } => {
                write!(
                    f,
                    "memory too small: {needed} bytes needed, {available} given"
                )
            }
            Error::LengthMismatch { expected, found } => {
                write!(f, "length mismatch: expected {expected}, found {found}")
            }
            Error::ItemOutOfRange { item, items } => {
                write!(f, "item {item} out of range for {items} items")
            }
            Error::NotPermutation => f.write_str("ranking is not a permutation of the items"),
            Error::SamePair => f.write_str("a pair must name two different items"),
            Error::NotFinite { index } => write!(f, "value at index {index} is NaN or infinite"),
            Error::InputNotFinite => f.write_str("the input ranking's cost is NaN or infinite"),
            Error::NotProbability { index } => {
                write!(f, "value at index {index} is not a probability in [0, 1]")
            }
            Error::InvalidConfig(what) => write!(f, "invalid configuration: {what}"),
            Error::NoPendingBatch => f.write_str("no sampled batch is waiting for an update"),
            Error::UnknownSample => {
                f.write_str("rankings differ from the batch the engine sampled")
            }
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
        }
    }
}

impl core::error::Error for Error {}
