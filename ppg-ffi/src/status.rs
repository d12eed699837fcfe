//! The status every call returns, and its static messages.

use core::ffi::c_char;
use ppg_core::Error;

/// The outcome of a call. `PPG_STATUS_OK` (0) is success; every other value means the
/// call changed nothing (outputs unwritten, engine as before), except `PPG_STATUS_PANIC`
/// which also poisons the engine. New values may be added at the end in later versions.
#[allow(non_camel_case_types)]
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ppg_status {
    /// Success.
    Ok = 0,
    /// A pointer that must not be NULL was NULL.
    NullParameter = 1,
    /// An argument is out of its documented range: a zero count, a length that does not
    /// match, an unknown enumeration value, a configuration field out of range, a pair
    /// naming the same item twice.
    InvalidArgument = 2,
    /// More items, sessions or samples than the engine's layout holds (or a layout
    /// whose size overflows `size_t`), or more distinct groups than a metric supports.
    Capacity = 3,
    /// The memory block is smaller than `ppg_engine_layout` says.
    MemoryTooSmall = 4,
    /// A pointer is not aligned for its type (the engine block: to the `align` that
    /// `ppg_engine_layout` reports).
    Misaligned = 5,
    /// A ranking names an item twice within one session.
    NotPermutation = 6,
    /// An internal item index is out of range (not expected through this API).
    ItemOutOfRange = 7,
    /// The query names an item id twice.
    DuplicateItem = 8,
    /// An id is not one of the current query's items.
    UnknownItem = 9,
    /// A utility or cost is NaN or infinite (a callback's return value included).
    NotFinite = 10,
    /// The engine has no query yet: call `ppg_engine_set_query` first.
    NoQuery = 11,
    /// `ppg_engine_update` without a batch from `ppg_engine_sample` waiting.
    NoPendingBatch = 12,
    /// The rankings given to `ppg_engine_update` are not the pending batch.
    UnknownSample = 13,
    /// The method or the query does not support the request (constraints with
    /// `PPG_METHOD_PL`; a metric that needs two groups on a query with one).
    Unsupported = 14,
    /// No ranking has been scored yet, so there is no best one.
    NoResult = 15,
    /// `ppg_engine_new` could not allocate.
    AllocationFailed = 16,
    /// An internal panic was caught; the engine is poisoned (see the header's preamble).
    Panic = 17,
    /// A `struct_size` this library does not know (a header newer than the library, or a
    /// struct not filled by its `_default`/`_init` function), or a header version this
    /// library cannot serve (`ppg_check_version`). Nothing was read or written.
    VersionMismatch = 18,
}

impl ppg_status {
    /// The static, NUL-terminated message of a raw status value.
    pub(crate) fn message(raw: u32) -> &'static core::ffi::CStr {
        match raw {
            0 => c"ok",
            1 => c"a required pointer was NULL",
            2 => c"invalid argument",
            3 => c"capacity exceeded",
            4 => c"memory block too small for the layout",
            5 => c"pointer misaligned for its type",
            6 => c"ranking is not a permutation of the items",
            7 => c"item index out of range",
            8 => c"an item id is repeated in the query",
            9 => c"unknown item id",
            10 => c"value is NaN or infinite",
            11 => c"no query set",
            12 => c"no sampled batch is waiting for an update",
            13 => c"rankings differ from the batch the engine sampled",
            14 => c"unsupported by this method or query",
            15 => c"no ranking has been scored yet",
            16 => c"allocation failed",
            17 => c"internal panic caught; the engine is poisoned",
            18 => {
                c"a struct_size or version this library does not know (header newer than library?)"
            }
            _ => c"unknown status",
        }
    }
}

impl From<Error> for ppg_status {
    fn from(error: Error) -> Self {
        match error {
            Error::Capacity { .. } => ppg_status::Capacity,
            Error::MemoryTooSmall { .. } => ppg_status::MemoryTooSmall,
            Error::ItemOutOfRange { .. } => ppg_status::ItemOutOfRange,
            Error::NotPermutation => ppg_status::NotPermutation,
            Error::NotFinite { .. } | Error::InputNotFinite => ppg_status::NotFinite,
            Error::NoPendingBatch => ppg_status::NoPendingBatch,
            Error::UnknownSample => ppg_status::UnknownSample,
            Error::Unsupported(_) => ppg_status::Unsupported,
            // Empty, LengthMismatch, SamePair, NotProbability, InvalidConfig and anything
            // the core adds later: the caller passed something out of range.
            _ => ppg_status::InvalidArgument,
        }
    }
}

/// The result type of the safe layer: `Err` carries the status to return.
pub(crate) type Status<T = ()> = Result<T, ppg_status>;

/// `ptr` to the static message of `status`.
pub(crate) fn message_ptr(status: u32) -> *const c_char {
    ppg_status::message(status).as_ptr()
}
