//! C ABI of PPG search: `libppg.a`, `libppg.so` and the header `include/ppg.h`
//! (generated from this crate by cbindgen; the header is the API manual).
//!
//! - `#![no_std]`: the static library builds for bare-metal targets such as
//!   `thumbv7em-none-eabihf` without an allocator. There an engine lives in caller memory
//!   (`ppg_engine_layout` + `ppg_engine_init`), and a panic (none is reachable from caller
//!   input) ends in this crate's panic handler, which loops forever (a Rust firmware
//!   that uses this crate as an rlib can bring its own with `external-panic-handler`).
//!   Build the firmware library alone with
//!   `cargo rustc -p ppg-ffi --release --target thumbv7em-none-eabihf
//!   --no-default-features --crate-type staticlib` (tests/thumb.rs does, and links it).
//! - Feature `std` (default): adds `ppg_engine_new`/`ppg_engine_free` and catches panics
//!   at the boundary (`PPG_STATUS_PANIC`, the engine is poisoned), keeping their message
//!   for `ppg_last_panic_message` instead of printing it (`panic.rs`).
//! - Feature `test-hooks`: adds `ppg_debug_panic`, for the C tests.
//!
//! All `unsafe` code that turns C pointers into references lives in `boundary.rs`; the
//! engine logic (`engine.rs`) is safe Rust over one borrowed buffer.
#![no_std]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![allow(non_camel_case_types)]

#[cfg(feature = "std")]
extern crate std;

mod api;
mod boundary;
mod engine;
mod growable;
#[cfg(feature = "std")]
mod panic;
mod query;
mod status;
mod types;
mod version;

pub use api::*;
pub use boundary::ppg_engine;
pub use status::ppg_status;
pub use types::{
    ppg_browse, ppg_ee_level, ppg_ee_measure, ppg_gradient, ppg_item, ppg_method, ppg_metric,
    ppg_objective_config, ppg_rank_start, ppg_sampler, ppg_train_config, ppg_train_report,
    ByteBool,
};
pub use version::{PPG_VERSION_MAJOR, PPG_VERSION_MINOR, PPG_VERSION_PATCH};

/// Without `std` nothing can catch a panic, and the static library needs a handler of its
/// own: it parks the CPU (a watchdog, if any, resets the device). No caller input reaches
/// a panic; this is the last line for an internal bug.
#[cfg(all(
    not(feature = "std"),
    not(feature = "external-panic-handler"),
    not(test)
))]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    loop {
        core::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests;
