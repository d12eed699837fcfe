//! The C boundary: the one place that turns C pointers into Rust references, places an
//! engine in caller memory, calls the caller's callback, and stops panics.
//!
//! Every `extern "C"` function runs its body through [`ffi_boundary!`], which
//! - checks the engine handle (NULL, alignment, poisoned) and the listed pointers (NULL),
//! - runs the body under `catch_unwind` (feature `std`), turning a panic into
//!   `PPG_STATUS_PANIC` and poisoning the engine,
//! - turns the body's `Result` into a `ppg_status`.
//!
//! Inside a body, [`input!`], [`output!`] and [`write_out!`] turn pointer + length pairs
//! into slices after checking NULL and alignment; their safety rests on the contract the
//! header states for every pointer (valid for the call, the stated length, no aliasing
//! with the engine block).

use crate::engine::Engine;
use crate::growable::Growable;
use crate::status::{ppg_status, Status};
use crate::types::ppg_method;
use core::ffi::c_void;
use core::mem::{align_of, size_of, MaybeUninit};
use ppg_core::Dims;

/// The handle C holds. It sits at the start of the engine's memory block; the engine's
/// regions follow it in the same block. Opaque to C.
pub struct ppg_engine {
    engine: Engine<'static>,
    /// A panic was caught inside a call on this engine: its state may be half-updated,
    /// so every later call refuses with `PPG_STATUS_PANIC`.
    poisoned: bool,
    /// Size of the block when `ppg_engine_new` allocated it (`None`: caller memory).
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    heap: Option<usize>,
}

/// Alignment the engine block needs.
pub(crate) const ALIGN: usize = align_of::<ppg_engine>();
/// Bytes of the handle at the start of the block (a multiple of [`ALIGN`]).
const HEAD: usize = size_of::<ppg_engine>();

/// Bytes of the whole engine block.
pub(crate) fn layout(method: ppg_method, dims: Dims) -> Status<usize> {
    HEAD.checked_add(Engine::bytes(method, dims)?)
        // A Rust slice may not exceed isize::MAX bytes.
        .filter(|&size| size <= isize::MAX as usize)
        .ok_or(ppg_status::Capacity)
}

/// Places an engine at `mem`.
///
/// # Safety
/// `mem` is NULL or points to `len` writable bytes that nothing else reads or writes
/// while the engine is in use, and that do not move.
pub(crate) unsafe fn place(
    mem: *mut u8,
    len: usize,
    method: ppg_method,
    dims: Dims,
    seed: u64,
) -> Status<*mut ppg_engine> {
    if mem.is_null() {
        return Err(ppg_status::NullParameter);
    }
    if (mem as usize) % ALIGN != 0 {
        return Err(ppg_status::Misaligned);
    }
    let needed = layout(method, dims)?;
    if len < needed {
        return Err(ppg_status::MemoryTooSmall);
    }
    let body = needed - HEAD;
    // SAFETY: `HEAD + body <= len` bytes at `mem` are writable (contract above); zeroing
    // first makes them initialised `u8`s. The slice lives as long as the caller keeps
    // the block, which the header states as the engine's lifetime ('static here is that
    // promise). It does not overlap the handle written below.
    let rest: &'static mut [u8] = unsafe {
        let start = mem.add(HEAD);
        core::ptr::write_bytes(start, 0, body);
        core::slice::from_raw_parts_mut(start, body)
    };
    let engine = Engine::new(rest, method, dims, seed)?;
    let handle = mem.cast::<ppg_engine>();
    // SAFETY: `mem` is aligned for `ppg_engine` (checked) and its first HEAD bytes are
    // writable and unused by `rest`.
    unsafe {
        handle.write(ppg_engine {
            engine,
            poisoned: false,
            heap: None,
        })
    };
    Ok(handle)
}

/// An engine on the heap (`ppg_engine_new`).
#[cfg(feature = "std")]
pub(crate) fn allocate(method: ppg_method, dims: Dims, seed: u64) -> Status<*mut ppg_engine> {
    let size = layout(method, dims)?;
    let layout =
        std::alloc::Layout::from_size_align(size, ALIGN).map_err(|_| ppg_status::Capacity)?;
    // SAFETY: `size >= HEAD > 0`.
    let mem = unsafe { std::alloc::alloc(layout) };
    if mem.is_null() {
        return Err(ppg_status::AllocationFailed);
    }
    // SAFETY: a fresh allocation of `size` bytes, owned by the engine until `release`.
    match unsafe { place(mem, size, method, dims, seed) } {
        Ok(handle) => {
            // SAFETY: `place` just wrote a valid handle there.
            unsafe { (*handle).heap = Some(size) };
            Ok(handle)
        }
        Err(status) => {
            // SAFETY: allocated above with this layout, not handed out.
            unsafe { std::alloc::dealloc(mem, layout) };
            Err(status)
        }
    }
}

/// Frees an engine from [`allocate`]; NULL and caller-memory engines are left alone.
///
/// # Safety
/// `handle` is NULL or a live engine handle not used afterwards.
#[cfg(feature = "std")]
pub(crate) unsafe fn release(handle: *mut ppg_engine) {
    if handle.is_null() || (handle as usize) % ALIGN != 0 {
        return;
    }
    // SAFETY: a live handle (contract above).
    let Some(size) = (unsafe { (*handle).heap }) else {
        return;
    };
    // SAFETY: the block was allocated by `allocate` with exactly this size and ALIGN, and
    // the handle (which owns nothing else) is dropped in place before it is freed.
    unsafe {
        core::ptr::drop_in_place(handle);
        std::alloc::dealloc(
            handle.cast(),
            std::alloc::Layout::from_size_align_unchecked(size, ALIGN),
        );
    }
}

/// Runs `f` and turns a panic into `PPG_STATUS_PANIC`, its message kept for
/// `ppg_last_panic_message` and not printed (feature `std`, see `panic.rs`). Without
/// `std` a panic cannot be caught: it ends in the panic handler (see `lib.rs`).
fn catch(f: impl FnOnce() -> ppg_status) -> ppg_status {
    #[cfg(feature = "std")]
    {
        crate::panic::catch(f).unwrap_or(ppg_status::Panic)
    }
    #[cfg(not(feature = "std"))]
    {
        f()
    }
}

fn status(result: Status) -> ppg_status {
    match result {
        Ok(()) => ppg_status::Ok,
        Err(status) => status,
    }
}

/// The body of a call that takes no engine: `nulls` says which required pointers are NULL.
pub(crate) fn run(nulls: &[bool], f: impl FnOnce() -> Status) -> ppg_status {
    catch(|| {
        if nulls.contains(&true) {
            return ppg_status::NullParameter;
        }
        status(f())
    })
}

/// The body of a call on an engine.
///
/// # Safety
/// `handle` is NULL or a handle from `ppg_engine_init`/`ppg_engine_new` that is still
/// live, and no other call on it is running (the engine is not thread-safe, and a cost
/// callback must not call back into its own engine).
pub(crate) unsafe fn run_engine(
    handle: *mut ppg_engine,
    nulls: &[bool],
    f: impl FnOnce(&mut Engine<'static>) -> Status,
) -> ppg_status {
    if handle.is_null() {
        return ppg_status::NullParameter;
    }
    if (handle as usize) % ALIGN != 0 {
        return ppg_status::Misaligned;
    }
    let result = catch(|| {
        // SAFETY: a live, exclusively used handle (contract above); the reference ends
        // with this closure.
        let h = unsafe { &mut *handle };
        if h.poisoned {
            return ppg_status::Panic;
        }
        if nulls.contains(&true) {
            return ppg_status::NullParameter;
        }
        status(f(&mut h.engine))
    });
    if result == ppg_status::Panic {
        // SAFETY: the handle is live; the closure's reference died with the unwind, so
        // this write through the raw pointer aliases nothing.
        unsafe { core::ptr::addr_of_mut!((*handle).poisoned).write(true) };
    }
    result
}

/// Checks a pointer for NULL and alignment and that `len` values of `T` fit in a slice.
fn check<T>(p: *const T, len: usize) -> Status<()> {
    if p.is_null() {
        return Err(ppg_status::NullParameter);
    }
    if (p as usize) % align_of::<T>() != 0 {
        return Err(ppg_status::Misaligned);
    }
    match len.checked_mul(size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(()),
        _ => Err(ppg_status::InvalidArgument),
    }
}

/// `len` values the caller passes in.
///
/// # Safety
/// A non-NULL `p` points to `len` initialised values of `T`, valid and unmodified for the
/// call, not inside the engine block.
pub(crate) unsafe fn read_slice<'s, T>(p: *const T, len: usize) -> Status<&'s [T]> {
    check(p, len)?;
    // SAFETY: non-NULL, aligned, size in range (checked); valid per the contract above.
    Ok(unsafe { core::slice::from_raw_parts(p, len) })
}

/// A caller buffer of `len` values, possibly uninitialised, that the call may write.
///
/// # Safety
/// A non-NULL `p` points to `len` writable values of `T`, used by nothing else during the
/// call, not inside the engine block.
pub(crate) unsafe fn write_slice<'s, T>(p: *mut T, len: usize) -> Status<&'s mut [MaybeUninit<T>]> {
    check(p, len)?;
    // SAFETY: as for `input`; `MaybeUninit` makes no claim about the current contents.
    Ok(unsafe { core::slice::from_raw_parts_mut(p.cast::<MaybeUninit<T>>(), len) })
}

/// The caller's growable struct at `p`: the fields of the caller's layout (as its
/// `struct_size` says), the fields it lacks at their defaults. NULL, misalignment and an
/// unknown `struct_size` are refused before anything else is read.
///
/// # Safety
/// A non-NULL `p` points to a readable struct whose `struct_size` bytes are readable.
pub(crate) unsafe fn read_growable<T: Growable>(p: *const T) -> Status<T> {
    // SAFETY: as this function's contract.
    let end = unsafe { caller_layout(p) }?;
    let mut value = T::defaults();
    // SAFETY: `end <= struct_size` bytes of the caller's struct are readable (contract
    // above) and `end <= size_of::<T>()` (a known layout); the copy is untyped, so the
    // padding it carries along is fine.
    unsafe { core::ptr::copy_nonoverlapping(p.cast::<u8>(), (&raw mut value).cast::<u8>(), end) };
    Ok(value)
}

/// The one place that reads a caller's `struct_size`: NULL and misalignment refused, then
/// the end of the caller's layout, or `PPG_STATUS_VERSION_MISMATCH`.
///
/// # Safety
/// A non-NULL `p` points to a struct whose first four bytes are readable.
unsafe fn caller_layout<T: Growable>(p: *const T) -> Status<usize> {
    check(p, 1)?;
    // SAFETY: non-NULL and aligned (checked); every layout begins with `uint32_t struct_size`.
    let size = unsafe { p.cast::<u32>().read() };
    T::known_end(size as usize)
}

/// A caller's growable output struct whose `struct_size` is checked: [`Self::write`]
/// writes the fields of the caller's layout only, and leaves `struct_size` as it was.
pub(crate) struct GrowableOut<T> {
    p: *mut T,
    end: usize,
}

impl GrowableOut<crate::types::ppg_train_report> {
    /// The caller's report has the relevance certificate's fields (its fourth layout).
    pub(crate) fn holds_relevance(&self) -> bool {
        use crate::types::ppg_train_report;
        self.holds(core::mem::offset_of!(ppg_train_report, ndcg_exact) + size_of::<bool>())
    }
}

impl<T: Growable> GrowableOut<T> {
    /// Checks NULL, alignment and `struct_size` (before the call does its work, so that a
    /// refused struct leaves the engine untouched).
    ///
    /// # Safety
    /// A non-NULL `p` points to a struct whose `struct_size` bytes are writable and which
    /// nothing else uses until [`Self::write`].
    pub(crate) unsafe fn new(p: *mut T) -> Status<Self> {
        // SAFETY: as this function's contract.
        let end = unsafe { caller_layout(p.cast_const()) }?;
        Ok(GrowableOut { p, end })
    }

    /// The caller's layout reaches `end` (the end of one of the fields).
    pub(crate) fn holds(&self, end: usize) -> bool {
        self.end >= end
    }

    /// Writes `value`'s fields of the caller's layout.
    pub(crate) fn write(self, value: T) {
        let skip = size_of::<u32>();
        // SAFETY: `new` checked the pointer and the layout; `skip <= end <= struct_size`
        // bytes are writable and `end <= size_of::<T>()`. `struct_size` (the first u32)
        // is the caller's and stays.
        unsafe {
            core::ptr::copy_nonoverlapping(
                (&raw const value).cast::<u8>().add(skip),
                self.p.cast::<u8>().add(skip),
                self.end - skip,
            )
        };
    }
}

/// Fills the caller's growable struct at `out`, declared `size` bytes long (a known
/// layout's `sizeof`), with `value`'s fields of that layout (normally
/// [`Growable::initial`]), `struct_size` = `size`.
///
/// # Safety
/// A non-NULL `out` points to `size` writable bytes.
pub(crate) unsafe fn init_growable<T: Growable>(out: *mut T, size: usize, value: T) -> Status<()> {
    check(out.cast_const(), 1)?;
    let end = T::known_end(size)?;
    // SAFETY: non-NULL and aligned (checked); `end <= size` bytes writable (contract
    // above), `end <= size_of::<T>()`; a known size fits `u32` (the structs are small).
    unsafe {
        core::ptr::copy_nonoverlapping((&raw const value).cast::<u8>(), out.cast::<u8>(), end);
        out.cast::<u32>().write(size as u32);
    }
    Ok(())
}

/// The signature of `ppg_cost_fn` without the `Option` that stands for NULL.
pub(crate) type CostFn = unsafe extern "C" fn(
    ranking: *const u64,
    len: usize,
    sessions: usize,
    user: *mut c_void,
) -> f64;

/// The caller's cost callback and its context pointer.
pub(crate) struct Callback {
    pub(crate) f: CostFn,
    pub(crate) user: *mut c_void,
}

impl Callback {
    pub(crate) fn call(&self, ranking: &[u64], sessions: usize) -> f64 {
        // SAFETY: the header requires the callback to read at most `len` ids from
        // `ranking` during the call, to return normally (no longjmp or exception through
        // the library) and not to call back into the same engine; `user` is the caller's.
        unsafe { (self.f)(ranking.as_ptr(), ranking.len(), sessions, self.user) }
    }
}

/// The boundary every `extern "C"` body goes through (see the module docs).
///
/// ```ignore
/// ffi_boundary!(engine(engine), nonnull(out) => |e| { ... Ok(()) })
/// ffi_boundary!(nonnull(out) => { ... Ok(()) })
/// ```
macro_rules! ffi_boundary {
    (engine($engine:expr), nonnull($($p:expr),*) => |$e:ident| $body:block) => {{
        let nulls = [$($p.is_null()),*];
        let body = |$e: &mut $crate::engine::Engine<'static>| -> $crate::status::Status { $body };
        // SAFETY: the header's contract for engine handles (live, not used concurrently).
        unsafe { $crate::boundary::run_engine($engine, &nulls, body) }
    }};
    (nonnull($($p:expr),*) => $body:block) => {
        $crate::boundary::run(&[$($p.is_null()),*], || -> $crate::status::Status { $body })
    };
}

/// `len` input values at `p` as a slice, or return the status (NULL, misaligned).
macro_rules! input {
    ($p:expr, $len:expr) => {
        // SAFETY: the header states that `p` points to `len` readable values for the call.
        unsafe { $crate::boundary::read_slice($p, $len) }?
    };
}

/// `len` writable values at `p` as a `MaybeUninit` slice, or return the status.
macro_rules! output {
    ($p:expr, $len:expr) => {
        // SAFETY: the header states that `p` points to `len` writable values for the call.
        unsafe { $crate::boundary::write_slice($p, $len) }?
    };
}

/// The growable struct at `p` (see [`read_growable`]), or return the status.
macro_rules! growable {
    ($p:expr) => {
        // SAFETY: the header states that `p` points to a readable struct of `struct_size` bytes.
        unsafe { $crate::boundary::read_growable($p) }?
    };
}

/// `None` for a NULL `p`, else the checked growable output struct at `p` (see
/// [`GrowableOut`]), or return the status.
macro_rules! growable_out {
    ($p:expr) => {
        if $p.is_null() {
            None
        } else {
            // SAFETY: the header states that a non-NULL `p` points to a writable struct of
            // `struct_size` bytes, filled by its `_default`/`_init` function.
            Some(unsafe { $crate::boundary::GrowableOut::new($p) }?)
        }
    };
}

pub(crate) use {ffi_boundary, growable, growable_out, input, output};
