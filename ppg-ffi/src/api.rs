//! The `extern "C"` functions. Each body goes through `ffi_boundary!`; the work is done
//! by the safe [`Engine`](crate::engine::Engine).
//!
//! One short `extern "C"` function per entry of `include/ppg.h`, in the header's order,
//! each with the documentation cbindgen copies into the header; the calls that run a query
//! (train, rerank, evaluate) are `run.rs` beside it.

use crate::boundary::{ffi_boundary, growable, init_growable, input, output, ppg_engine};
use crate::growable::Growable;
use crate::status::{message_ptr, ppg_status};
use crate::types::{
    ppg_item, ppg_method, ppg_objective_config, ppg_train_config, ppg_train_report,
    sampler_from_raw,
};
use core::ffi::{c_char, c_void};
use ppg_core::Dims;

// Both of its functions need a feature ("std" or "test-hooks"): without them the module
// is empty, and the re-export would be an unused import.
#[cfg(any(feature = "std", feature = "test-hooks"))]
pub use panics::*;
pub use run::*;

mod run;
// After `run`: cbindgen writes a module's own items, then its submodules in order.
mod panics;

/// A black-box cost of one multi-session ranking; lower is better.
///
/// `ranking` holds `len = items * sessions` ids: `sessions` blocks of `items` ids laid end
/// to end, each block a permutation of the query's ids. `sessions` is the query's, or fewer
/// in a grown run (`ppg_train_config.grow`). It is valid only during the call (it lives in
/// the engine's memory): copy what you keep. `user` is the pointer given to
/// `ppg_engine_train`.
///
/// The callback must return normally (no longjmp, no C++ exception through the library)
/// and must not call any function on the engine being trained (other engines are fine).
/// A NaN or infinite return value stops training with `PPG_STATUS_NOT_FINITE` and the
/// engine is left as it was before `ppg_engine_train`.
#[allow(non_camel_case_types)]
pub type ppg_cost_fn = Option<
    unsafe extern "C" fn(
        ranking: *const u64,
        len: usize,
        sessions: usize,
        user: *mut c_void,
    ) -> f64,
>;

/// The library version, e.g. "0.2.0": a static NUL-terminated string (never NULL, never
/// freed). Thread-safe.
#[no_mangle]
pub extern "C" fn ppg_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// A static, NUL-terminated English message for `status` (a `ppg_status` value; unknown
/// values give "unknown status"). Never NULL, never freed. Thread-safe.
#[no_mangle]
pub extern "C" fn ppg_status_str(status: u32) -> *const c_char {
    message_ptr(status)
}

/// Whether this library serves a program compiled against the header of version
/// `major.minor.patch`; call it as `PPG_CHECK_VERSION()` once at start. The same major
/// and, while the major is 0, the same minor (in 0.x each minor breaks the ABI), and the
/// library no older than the header. The library's own version is `ppg_version()`.
///
/// Returns `PPG_STATUS_OK` or `PPG_STATUS_VERSION_MISMATCH`. Thread-safe.
#[no_mangle]
pub extern "C" fn ppg_check_version(major: u32, minor: u32, patch: u32) -> ppg_status {
    ffi_boundary!(nonnull() => { crate::version::check(major, minor, patch) })
}

/// Fills the first `size` bytes of `*out` with the recommended recipe and sets
/// `out->struct_size = size`: the paper's budget and step (50 epochs of 16 samples,
/// learning rate 0.4, clamp to [0.05, 0.95], patience 20, uncorrected sampler,
/// approximate gradient, no baseline, initial weight 0.5; PL learning rate 0.1), the input
/// ranking scored first, grown over sessions, the order within groups held for a first run
/// (`hold`), and certified to 1e-8 where the objective gives a lower bound (`certify`):
/// what `ppg rerank` and the Python package run. Call it as `ppg_train_config_default(out)`,
/// which passes `sizeof *(out)`. `ppg_train_config_init_reference` gives the paper's run.
///
/// Returns `PPG_STATUS_OK`, `PPG_STATUS_NULL_PARAMETER` (`out` NULL),
/// `PPG_STATUS_MISALIGNED` or `PPG_STATUS_VERSION_MISMATCH` (`size` is no layout this
/// library knows; nothing written). Thread-safe.
///
/// # Safety
/// `out` is NULL or points to `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ppg_train_config_init(
    out: *mut ppg_train_config,
    size: usize,
) -> ppg_status {
    // SAFETY: the contract above.
    ffi_boundary!(nonnull(out) => { unsafe { init_growable(out, size, Growable::initial()) } })
}

/// As `ppg_train_config_init`, with the paper's reference run: the input not scored, no
/// growing, no holding, no certificate (protocol.md). Call it as
/// `ppg_train_config_reference(out)`, which passes `sizeof *(out)`.
///
/// Returns as `ppg_train_config_init`. Thread-safe.
///
/// # Safety
/// `out` is NULL or points to `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ppg_train_config_init_reference(
    out: *mut ppg_train_config,
    size: usize,
) -> ppg_status {
    // SAFETY: the contract above.
    ffi_boundary!(nonnull(out) => { unsafe { init_growable(out, size, Growable::defaults()) } })
}

/// Fills the first `size` bytes of `*out` with the default objective (EEL with 5 grade
/// levels and the reference exposure `PPG_RANK_START_ONE`, NDCG@10 at mix weight 0) and
/// sets `out->struct_size = size`. Call it as `ppg_objective_config_default(out)`.
///
/// Returns as `ppg_train_config_init`. Thread-safe.
///
/// # Safety
/// `out` is NULL or points to `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ppg_objective_config_init(
    out: *mut ppg_objective_config,
    size: usize,
) -> ppg_status {
    // SAFETY: the contract above.
    ffi_boundary!(nonnull(out) => { unsafe { init_growable(out, size, Growable::initial()) } })
}

/// Prepares a report for a training call: the first `size` bytes of `*out` say that
/// nothing ran (0 epochs and samples, best cost +infinity, best epoch -1) and
/// `out->struct_size = size`, which tells the library how much it may write. Call it as
/// `ppg_train_report_default(out)`.
///
/// Returns as `ppg_train_config_init`. Thread-safe.
///
/// # Safety
/// `out` is NULL or points to `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ppg_train_report_init(
    out: *mut ppg_train_report,
    size: usize,
) -> ppg_status {
    // SAFETY: the contract above.
    ffi_boundary!(nonnull(out) => { unsafe { init_growable(out, size, Growable::initial()) } })
}

/// The memory an engine needs: `*size` bytes aligned to `*align`, for `kind`
/// (`PPG_METHOD_PPG` or `PPG_METHOD_PL`) and a query of at most `items` items per session
/// (at most 65535), `sessions` sessions and `batch` samples per step.
///
/// The size covers everything the engine ever uses: no call allocates afterwards.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER` (`size` or `align` NULL);
/// `PPG_STATUS_MISALIGNED` (an output pointer); `PPG_STATUS_INVALID_ARGUMENT` (unknown
/// `kind`, or a zero count); `PPG_STATUS_CAPACITY` (more than 65535 items, or a size that
/// overflows). Thread-safe.
///
/// # Safety
/// `size` and `align` are NULL or point to writable `size_t`s.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_layout(
    kind: u32,
    items: usize,
    sessions: usize,
    batch: usize,
    size: *mut usize,
    align: *mut usize,
) -> ppg_status {
    ffi_boundary!(nonnull(size, align) => {
        let method = ppg_method::from_raw(kind)?;
        let bytes = crate::boundary::layout(method, Dims::new(items, sessions, batch))?;
        let (size, align) = (output!(size, 1), output!(align, 1));
        size[0].write(bytes);
        align[0].write(crate::boundary::ALIGN);
        Ok(())
    })
}

/// Places an engine in caller memory (no allocation, the firmware path) and writes its
/// handle to `*out`. `mem` must be aligned to and at least as long as what
/// `ppg_engine_layout` reports for the same arguments; `seed` seeds its generator (same
/// seed and same calls give the same results on every platform).
///
/// Ownership and lifetime: the engine lives in `mem` (its handle is `mem` itself); keep
/// the block allocated, unmoved and otherwise untouched while the engine is used. There
/// is nothing to free: when done, reuse or free `mem` yourself (`ppg_engine_free`
/// ignores such an engine). The engine holds no query until `ppg_engine_set_query`.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER` (`mem` or `out` NULL);
/// `PPG_STATUS_MISALIGNED`; `PPG_STATUS_MEMORY_TOO_SMALL`; `PPG_STATUS_INVALID_ARGUMENT`
/// and `PPG_STATUS_CAPACITY` as `ppg_engine_layout`. On failure `*out` is not written.
///
/// # Safety
/// `mem` is NULL or points to `len` writable bytes reserved for the engine as above;
/// `out` is NULL or points to a writable `ppg_engine *`.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_init(
    mem: *mut c_void,
    len: usize,
    kind: u32,
    items: usize,
    sessions: usize,
    batch: usize,
    seed: u64,
    out: *mut *mut ppg_engine,
) -> ppg_status {
    ffi_boundary!(nonnull(mem, out) => {
        let method = ppg_method::from_raw(kind)?;
        let out = output!(out, 1);
        // SAFETY: the caller hands `len` bytes at `mem` to the engine (contract above).
        let handle = unsafe {
            crate::boundary::place(mem.cast(), len, method, Dims::new(items, sessions, batch), seed)
        }?;
        out[0].write(handle);
        Ok(())
    })
}

/// Allocates an engine on the heap (hosted builds only, cargo feature "std") and writes
/// its handle to `*out`; arguments as `ppg_engine_init`.
///
/// Ownership: the caller owns the engine and releases it with `ppg_engine_free`.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER` (`out` NULL);
/// `PPG_STATUS_MISALIGNED` (`out`); `PPG_STATUS_ALLOCATION_FAILED`;
/// `PPG_STATUS_INVALID_ARGUMENT` and `PPG_STATUS_CAPACITY` as `ppg_engine_layout`.
///
/// # Safety
/// `out` is NULL or points to a writable `ppg_engine *`.
#[cfg(feature = "std")]
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_new(
    kind: u32,
    items: usize,
    sessions: usize,
    batch: usize,
    seed: u64,
    out: *mut *mut ppg_engine,
) -> ppg_status {
    ffi_boundary!(nonnull(out) => {
        let method = ppg_method::from_raw(kind)?;
        let out = output!(out, 1);
        let handle = crate::boundary::allocate(method, Dims::new(items, sessions, batch), seed)?;
        out[0].write(handle);
        Ok(())
    })
}

/// Frees an engine from `ppg_engine_new` (hosted builds only). NULL is ignored, and so is
/// an engine from `ppg_engine_init` (its memory is the caller's). A poisoned engine is
/// freed normally. The handle is invalid afterwards.
///
/// # Safety
/// `engine` is NULL or a live handle, not used by any other thread, never used again.
#[cfg(feature = "std")]
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_free(engine: *mut ppg_engine) {
    // Nothing here can panic (no drop glue runs code), so there is no status to return;
    // the boundary still guards it.
    let _ = ffi_boundary!(nonnull() => {
        // SAFETY: contract above.
        unsafe { crate::boundary::release(engine) };
        Ok(())
    });
}

/// Starts a query: `count` items in ranked order (the input ranking), repeated over
/// `sessions` sessions. Ids are the caller's and must be unique; the engine copies the
/// items (the array may be freed after the call). Constraints, weights, the best ranking
/// and any pending batch start afresh; the generator carries on. With `PPG_METHOD_PL` the
/// initial logits are the utilities.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER` (`engine` or `items` NULL);
/// `PPG_STATUS_MISALIGNED`; `PPG_STATUS_INVALID_ARGUMENT` (`count` or `sessions` 0);
/// `PPG_STATUS_CAPACITY` (more items or sessions than the layout);
/// `PPG_STATUS_NOT_FINITE` (a NaN or infinite utility, or for PL a utility beyond the
/// `float` range); `PPG_STATUS_DUPLICATE_ITEM` (an id repeated); `PPG_STATUS_PANIC`.
/// On failure the previous query, if any, stays.
///
/// # Safety
/// `engine` is a live handle (see the header preamble); `items` is NULL or points to
/// `count` readable `ppg_item`s.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_set_query(
    engine: *mut ppg_engine,
    items: *const ppg_item,
    count: usize,
    sessions: usize,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(items) => |e| {
        e.set_query(input!(items, count), sessions)
    })
}

/// Writes the length of one multi-session ranking of the current query,
/// `items * sessions`, to `*len`.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER`; `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle; `len` is NULL or points to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_ranking_len(
    engine: *mut ppg_engine,
    len: *mut usize,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(len) => |e| {
        let out = output!(len, 1);
        out[0].write(e.ranking_len()?);
        Ok(())
    })
}

/// Writes the engine's layout, the most it holds: `*items` items per session, `*sessions`
/// sessions and `*batch` samples per step (the arguments it was made with). A binding
/// checks a caller's counts against these before it allocates anything for a result, so
/// that a count the library would refuse costs no memory.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER` (any pointer NULL);
/// `PPG_STATUS_MISALIGNED`; `PPG_STATUS_PANIC`. Outputs are written on success only.
///
/// # Safety
/// `engine` is a live handle; `items`, `sessions` and `batch` are NULL or point to
/// writable `size_t`s.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_capacity(
    engine: *mut ppg_engine,
    items: *mut usize,
    sessions: *mut usize,
    batch: *mut usize,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(items, sessions, batch) => |e| {
        let dims = e.dims();
        let (items, sessions, batch) = (output!(items, 1), output!(sessions, 1), output!(batch, 1));
        items[0].write(dims.items);
        sessions[0].write(dims.sessions);
        batch[0].write(dims.batch);
        Ok(())
    })
}

/// Forbids inverting items `a` and `b` (ids) in every session: their order stays as in
/// the current reference (the input ranking, if called right after
/// `ppg_engine_set_query`, which is where constraints belong). A batch pending from
/// `ppg_engine_sample` is dropped: it was drawn before the change.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER`; `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_UNKNOWN_ITEM` (an id not in the query);
/// `PPG_STATUS_INVALID_ARGUMENT` (`a == b`); `PPG_STATUS_UNSUPPORTED` (`PPG_METHOD_PL`);
/// `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_forbid(engine: *mut ppg_engine, a: u64, b: u64) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull() => |e| { e.forbid(a, b) })
}

/// Intra-group fixed ranking: items of the same group (`ppg_item.group`) keep their
/// relative input order in every session. A batch pending from `ppg_engine_sample` is
/// dropped.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER`; `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_UNSUPPORTED` (`PPG_METHOD_PL`); `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_keep_order_within_groups(
    engine: *mut ppg_engine,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull() => |e| { e.keep_order_within_groups() })
}

/// Intra-group order first: in each training run, items of the same group
/// (`ppg_item.group`) keep their relative order for a first run, then are free for a
/// second run from the best ranking found (see `ppg_core::Ppg::hold_order_within`).
/// Without the intra constraint this is far fairer on long lists than a free run (TREC
/// 2020, DTR: 1.810 against 1.858), for about twice the samples. Pairs constrained
/// already stay so; no pair is held after `ppg_engine_set_query`.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER`; `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_UNSUPPORTED` (`PPG_METHOD_PL`); `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_hold_order_within_groups(
    engine: *mut ppg_engine,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull() => |e| { e.hold_order_within_groups() })
}

/// Inter-group fixed ranking: items with different `labels` keep their relative input
/// order. `labels[k]` labels the k-th item of the query (in the order given to
/// `ppg_engine_set_query`); `count` must be the query's item count. Labels are
/// arbitrary and copied. A batch pending from `ppg_engine_sample` is dropped.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER`; `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_INVALID_ARGUMENT` (`count` is not the item count);
/// `PPG_STATUS_UNSUPPORTED` (`PPG_METHOD_PL`); `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle; `labels` is NULL or points to `count` readable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_keep_order_between(
    engine: *mut ppg_engine,
    labels: *const u32,
    count: usize,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(labels) => |e| {
        e.keep_order_between(input!(labels, count))
    })
}

/// Chooses the `ppg_sampler` that `ppg_engine_sample` draws with (default
/// `PPG_SAMPLER_UNCORRECTED`; no effect with `PPG_METHOD_PL`). Training calls use the
/// `sampler` of their `ppg_train_config` instead.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER`; `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_INVALID_ARGUMENT` (unknown value); `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_set_sampler(
    engine: *mut ppg_engine,
    sampler: u32,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull() => |e| {
        e.set_sampler(sampler_from_raw(sampler)?);
        Ok(())
    })
}

/// Draws `count` multi-session rankings for callers that score rankings themselves,
/// writes them as ids to `out_ids` (`count` rankings of `items * sessions` ids, one after
/// the other) and keeps them pending for `ppg_engine_update`. A batch still pending is
/// replaced. `out_len` is the capacity of `out_ids` in ids; only the first
/// `count * items * sessions` are written.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER`; `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_INVALID_ARGUMENT` (`count` 0 or `out_len` too
/// small); `PPG_STATUS_CAPACITY` (`count` above the layout's batch, checked before
/// `out_len`: see `ppg_engine_capacity`); `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle; `out_ids` is NULL or points to `out_len` writable
/// `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_sample(
    engine: *mut ppg_engine,
    count: usize,
    out_ids: *mut u64,
    out_len: usize,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(out_ids) => |e| {
        e.sample(count, output!(out_ids, out_len))
    })
}

/// One training step on the pending batch: `rankings` must be exactly the batch the last
/// `ppg_engine_sample` wrote (`count` rankings, `len = count * items * sessions` ids) and
/// `costs[k]` the cost of the k-th (lower is better). Then best tracking as in training.
/// The recipe's learning rate, clamps, gradient and baseline apply (PL: its learning
/// rate and baseline); `batch` is ignored (the step's batch is the pending one);
/// `epochs`, `patience`, `sampler`, `score_input` and `initial_weight` are checked but
/// not used (the batch was drawn with the engine's sampler from the current weights).
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER`; `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_INVALID_ARGUMENT` (a bad recipe, `count` 0 or
/// `len != count * items * sessions`); `PPG_STATUS_NO_PENDING_BATCH`;
/// `PPG_STATUS_UNKNOWN_SAMPLE` (not the pending batch); `PPG_STATUS_NOT_FINITE` (a NaN
/// or infinite cost); `PPG_STATUS_VERSION_MISMATCH` (`config->struct_size` unknown);
/// `PPG_STATUS_PANIC`. On failure the batch stays pending.
///
/// # Safety
/// `engine` is a live handle; `rankings` points to `len` readable `uint64_t`, `costs` to
/// `count` readable `double`, `config` to a `ppg_train_config` of `struct_size` readable
/// bytes (each may be NULL, which is refused).
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_update(
    engine: *mut ppg_engine,
    rankings: *const u64,
    len: usize,
    costs: *const f64,
    count: usize,
    config: *const ppg_train_config,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(rankings, costs, config) => |e| {
        let config: ppg_train_config = growable!(config);
        e.update(input!(rankings, len), input!(costs, count), &config)
    })
}

/// The lowest-cost ranking scored so far (`items * sessions` ids into `out_ids`, whose
/// capacity `len` must be at least that) and its cost into `*cost`.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER` (`engine` or `out_ids` NULL;
/// `cost` may be NULL); `PPG_STATUS_MISALIGNED`; `PPG_STATUS_NO_QUERY`;
/// `PPG_STATUS_NO_RESULT` (nothing scored since the query was set);
/// `PPG_STATUS_INVALID_ARGUMENT` (`len` too small); `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle; `out_ids` is NULL or points to `len` writable `uint64_t`;
/// `cost` is NULL or points to a writable `double`.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_best(
    engine: *mut ppg_engine,
    out_ids: *mut u64,
    len: usize,
    cost: *mut f64,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(out_ids) => |e| {
        let cost_out = if cost.is_null() { None } else { Some(output!(cost, 1)) };
        let value = e.best(output!(out_ids, len))?;
        if let Some(slot) = cost_out {
            slot[0].write(value);
        }
        Ok(())
    })
}
