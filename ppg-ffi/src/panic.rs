//! Panics caught at the boundary are kept, not printed (hosted builds).
//!
//! A library must not write to its host's streams, but Rust's default panic hook prints
//! the message (and a backtrace) to stderr even when `catch_unwind` then catches the
//! panic. Nothing short of a panic hook can silence it, and the hook is process-wide. So
//! the first call into the library installs a hook that *chains*: a panic raised inside a
//! library call on the current thread is stored in that thread's last message
//! (`ppg_last_panic_message`); every other panic goes to the hook that was installed
//! before, so a Rust host's own panics are reported exactly as before. A host that sets
//! its own hook later replaces this one; library panics then reach the host's hook.
//!
//! The message is per thread, not per engine: the engine block is caller memory of a
//! fixed layout, calls without an engine can panic too, and an engine is used from one
//! thread at a time (the `errno`/`dlerror` model).

use core::cell::{Cell, RefCell};
use core::mem::MaybeUninit;
use std::boxed::Box;
use std::format;
use std::string::String;
use std::sync::OnceLock;

use crate::status::{ppg_status, Status};

std::thread_local! {
    /// Inside a library call (nested calls from a cost callback count too).
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// The last panic caught on this thread: "message at file:line:column".
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The hook that was installed before this library's (std's default, or the host's).
type Hook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;
static PREVIOUS: OnceLock<Hook> = OnceLock::new();

/// Runs `f`, catching a panic without printing it; `None` when it panicked.
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Option<R> {
    PREVIOUS.get_or_init(|| {
        let previous = std::panic::take_hook();
        // `hook` is a function, so its box allocates nothing (nothing left for a leak
        // checker to report at exit); the previous hook is kept in PREVIOUS.
        std::panic::set_hook(Box::new(hook));
        previous
    });
    let outer = INSIDE.with(|inside| inside.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    INSIDE.with(|inside| inside.set(outer));
    result.ok()
}

fn hook(info: &std::panic::PanicHookInfo<'_>) {
    if !INSIDE.try_with(Cell::get).unwrap_or(false) {
        if let Some(previous) = PREVIOUS.get() {
            previous(info);
        }
        return;
    }
    let text = message(info);
    let text = match info.location() {
        Some(at) => format!("{text} at {}:{}:{}", at.file(), at.line(), at.column()),
        None => String::from(text),
    };
    // A thread being torn down has no storage left: the message is then dropped.
    let _ = LAST.try_with(|last| {
        if let Ok(mut last) = last.try_borrow_mut() {
            *last = Some(text);
        }
    });
}

/// The panic's message: `panic!`'s payload is a `&str` or a `String`.
fn message<'a>(info: &'a std::panic::PanicHookInfo<'_>) -> &'a str {
    let payload = info.payload();
    match payload.downcast_ref::<&str>() {
        Some(text) => text,
        None => payload
            .downcast_ref::<String>()
            .map_or("(a panic without a message)", String::as_str),
    }
}

/// Copies the calling thread's last panic message into `out`, NUL-terminated and cut at
/// a character boundary to fit.
pub(crate) fn copy_last(out: &mut [MaybeUninit<u8>]) -> Status {
    if out.is_empty() {
        return Err(ppg_status::InvalidArgument);
    }
    LAST.with(|last| {
        let last = last.borrow();
        let text = last.as_deref().ok_or(ppg_status::NoResult)?;
        let mut end = text.len().min(out.len() - 1);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        for (slot, &byte) in out.iter_mut().zip(&text.as_bytes()[..end]) {
            slot.write(byte);
        }
        out[end].write(0);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    fn read(len: usize) -> (Status, std::vec::Vec<u8>) {
        let mut buf = vec![MaybeUninit::new(0xA5u8); len];
        let status = copy_last(&mut buf);
        // SAFETY: every byte was initialised above.
        let bytes = buf.iter().map(|b| unsafe { b.assume_init() }).collect();
        (status, bytes)
    }

    #[test]
    fn a_caught_panic_is_kept_per_thread_and_copied_to_fit() {
        // Each test runs on a thread of its own: nothing was caught on this one yet.
        assert_eq!(read(16), (Err(ppg_status::NoResult), vec![0xA5; 16]));
        assert_eq!(catch(|| 7), Some(7));
        assert_eq!(catch(|| -> u8 { panic!("héllo") }), None);
        let (status, bytes) = read(256);
        assert_eq!(status, Ok(()));
        let text = core::ffi::CStr::from_bytes_until_nul(&bytes).unwrap();
        let text = text.to_str().unwrap();
        assert!(text.starts_with("héllo at ppg-ffi/src/panic.rs:"), "{text}");
        // Cut to fit, never inside a character: "h", then "é" (2 bytes) does not fit in 2.
        assert_eq!(read(3).1, b"h\0\xA5");
        assert_eq!(read(4).1, "hé\0".as_bytes());
        assert_eq!(read(0).0, Err(ppg_status::InvalidArgument));
        // Another thread has its own (empty) message.
        let other = std::thread::spawn(|| read(8).0).join().unwrap();
        assert_eq!(other, Err(ppg_status::NoResult));
    }

    /// Set in the child process of `the_hosts_hook_still_gets_its_own_panics`.
    const CHILD: &str = "PPG_FFI_HOOK_CHILD";

    /// The child half of the test below (it does nothing in a normal run): as a Rust host
    /// would, it sets its own hook before the library's first call, then panics once
    /// inside a library call and once outside.
    #[test]
    fn hook_child() {
        if std::env::var_os(CHILD).is_none() {
            return;
        }
        std::panic::set_hook(Box::new(|info| {
            std::eprintln!("host hook: {}", message(info));
        }));
        assert_eq!(catch(|| -> u8 { panic!("inside the library") }), None);
        assert!(std::panic::catch_unwind(|| panic!("the host's own")).is_err());
    }

    /// In a process of its own (the hook is process-wide): the library's panic is kept,
    /// not printed, and the host's own panic still reaches the host's hook.
    #[test]
    fn the_hosts_hook_still_gets_its_own_panics() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "panic::tests::hook_child", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(CHILD, "1")
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains("host hook: the host's own"), "{stderr}");
        assert!(!stderr.contains("inside the library"), "{stderr}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
    }
}
