//! The engine's memory, taken through a fallible path.
//!
//! An engine's size grows with items squared times sessions, so a list of 60,000 items
//! asks for 50 GB: allocating that the infallible way aborts the process. Here a shape
//! whose engine needs more than the process's budget (`ppg rerank`'s default: a quarter of
//! physical memory or of the cgroup's limit, whichever is smaller,
//! [`ppg_host::budget::Limit`]) or that the allocator refuses
//! raises `MemoryError`, starting with the argument that made it too large and naming the
//! shape.

use std::sync::OnceLock;

use ppg_core::{Dims, Ppg};
use ppg_host::budget;
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

/// The names of the three extents in the caller's API, as the messages give them.
#[derive(Debug, Clone, Copy)]
pub struct Names {
    /// The list length ("items", or "utility" for `ppg.rerank`).
    pub items: &'static str,
    /// The session count.
    pub sessions: &'static str,
    /// The batch size.
    pub batch: &'static str,
}

/// The zeroed memory of an engine of shape `dims`.
///
/// # Errors
/// As [`check`]; `MemoryError` naming the items too when the allocator refuses.
pub fn engine(dims: Dims, names: Names) -> PyResult<Vec<u8>> {
    let bytes = check(dims, names)?;
    allocate(bytes).map_err(|why| PyMemoryError::new_err(format!("{}: {why}", names.items)))
}

/// `bytes` of zeroed memory, or why not.
///
/// # Errors
/// The allocator's refusal, in words.
pub fn allocate(bytes: usize) -> Result<Vec<u8>, String> {
    let mut memory = Vec::new();
    memory
        .try_reserve_exact(bytes)
        .map_err(|_| format!("the allocator refused the engine's {}", size(bytes)))?;
    memory.resize(bytes, 0);
    Ok(memory)
}

/// The bytes of an engine of shape `dims`, checked against the process's budget.
///
/// # Errors
/// `ValueError` naming a zero extent or a list longer than the engine takes; `MemoryError`
/// naming the extent that makes the engine too large (the first of items, sessions and
/// batch whose value, with the ones after it at 1, is already too large), the shape and
/// the size.
pub fn check(dims: Dims, names: Names) -> PyResult<usize> {
    let extents = [
        (names.items, dims.items),
        (names.sessions, dims.sessions),
        (names.batch, dims.batch),
    ];
    if let Some((name, _)) = extents.iter().find(|(_, v)| *v == 0) {
        return Err(PyValueError::new_err(format!("{name}: must be at least 1")));
    }
    if dims.items > ppg_core::MAX_ITEMS {
        return Err(PyValueError::new_err(format!(
            "{}: {} items, more than the {} the engine takes",
            names.items,
            dims.items,
            ppg_core::MAX_ITEMS
        )));
    }
    let limit = limit();
    let bytes = Ppg::bytes(dims);
    let shape = || {
        format!(
            "{} items x {} sessions x batch {} needs {} for its engine",
            dims.items,
            dims.sessions,
            dims.batch,
            size(bytes)
        )
    };
    if dims.check().is_err() || bytes > limit {
        let blamed = if Ppg::bytes(Dims::new(dims.items, 1, 1)) > limit {
            names.items
        } else if Ppg::bytes(Dims::new(dims.items, dims.sessions, 1)) > limit {
            names.sessions
        } else {
            names.batch
        };
        return Err(PyMemoryError::new_err(format!(
            "{blamed}: {}, more than the {} a process may take (a quarter of the memory it \
             can have, as `ppg rerank` allows by default)",
            shape(),
            size(limit)
        )));
    }
    Ok(bytes)
}

/// The bytes all engines of the process may take: `ppg rerank`'s default budget, read
/// from the system once (every `ppg.rerank` call asks, and the cgroup's files take a
/// while to read).
pub fn limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        usize::try_from(budget::Limit::here().default_budget()).unwrap_or(usize::MAX)
    })
}

/// `bytes` for a message: MiB, or GiB from 10 GiB up.
fn size(bytes: usize) -> String {
    if bytes >= 10 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", bytes.div_ceil(1 << 20))
    }
}
