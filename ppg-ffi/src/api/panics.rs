//! The `extern "C"` functions about panics the boundary caught: the last one's message, and
//! a test hook that causes one. They close `include/ppg.h`.

#[cfg(any(feature = "std", feature = "test-hooks"))]
use crate::boundary::ffi_boundary;
#[cfg(feature = "std")]
use crate::boundary::output;
#[cfg(feature = "test-hooks")]
use crate::boundary::ppg_engine;
#[cfg(any(feature = "std", feature = "test-hooks"))]
use crate::status::ppg_status;
#[cfg(feature = "std")]
use core::ffi::c_char;

/// Copies the message of the last panic the library caught on the calling thread (see
/// the header's preamble: it is kept, never printed) into `out`, NUL-terminated and cut
/// at a character boundary to fit `len` bytes: "message at file:line:column", UTF-8.
/// Hosted builds only (cargo feature "std"). Thread-safe: each thread has its own.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER` (`out` NULL);
/// `PPG_STATUS_INVALID_ARGUMENT` (`len` 0); `PPG_STATUS_NO_RESULT` (no panic caught on
/// this thread). `out` is written on success only.
///
/// # Safety
/// `out` is NULL or points to `len` writable bytes.
#[cfg(feature = "std")]
#[no_mangle]
pub unsafe extern "C" fn ppg_last_panic_message(out: *mut c_char, len: usize) -> ppg_status {
    ffi_boundary!(nonnull(out) => {
        crate::panic::copy_last(output!(out.cast::<u8>(), len))
    })
}

/// Test hook (cargo feature "test-hooks" only): panics inside the boundary, so that tests
/// can see a real panic become `PPG_STATUS_PANIC` and poison `engine`.
///
/// Returns `PPG_STATUS_PANIC` (hosted builds), or `PPG_STATUS_NULL_PARAMETER`,
/// `PPG_STATUS_MISALIGNED`.
///
/// # Safety
/// `engine` is a live handle.
#[cfg(feature = "test-hooks")]
#[no_mangle]
pub unsafe extern "C" fn ppg_debug_panic(engine: *mut ppg_engine) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull() => |_e| {
        panic!("ppg_debug_panic: a deliberate panic to test the boundary")
    })
}
