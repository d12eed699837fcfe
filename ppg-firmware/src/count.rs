//! Instructions counted on QEMU's mps2-an386 by SysTick.
//!
//! The M4's cycle counter (DWT CYCCNT) is not emulated by QEMU, but SysTick is: it counts
//! down at the board's 25 MHz system clock in virtual time. Under `-icount shift=0`
//! QEMU advances virtual time by exactly 1 ns per instruction executed, so one SysTick
//! tick is 40 instructions. The image checks this with [`calibrate`], a loop of known
//! length; outside `-icount` the figures are not instruction counts.

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;

/// Instructions per SysTick tick under `-icount shift=0` (1 ns each, 25 MHz SysTick).
pub const PER_TICK: u64 = 40;
const RELOAD: u32 = 0x00FF_FFFF;

/// SysTick as a free-running 24-bit down counter.
pub struct Counter {
    syst: SYST,
}

impl Counter {
    /// Takes SysTick over: processor clock, full reload, no interrupt.
    pub fn new(mut syst: SYST) -> Self {
        syst.disable_interrupt();
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(RELOAD);
        syst.clear_current();
        syst.enable_counter();
        Counter { syst }
    }

    /// Runs `f` and returns its result and the instructions it ran, to 40, or `None`
    /// beyond one SysTick period (2^24 ticks, 671M instructions).
    pub fn measure<R>(&mut self, f: impl FnOnce() -> R) -> (R, Option<u64>) {
        // Start from a fresh period: a written counter reads 0 until the next tick
        // reloads it, so wait for the reload.
        self.syst.clear_current();
        while SYST::get_current() == 0 {}
        let _ = self.syst.has_wrapped(); // reading COUNTFLAG clears it
        let start = SYST::get_current();
        let result = f();
        let end = SYST::get_current();
        let ticks = (!self.syst.has_wrapped()).then(|| start - end);
        (result, ticks.map(|t| u64::from(t) * PER_TICK))
    }
}

/// Instructions of a loop of `iterations` two-instruction iterations (`subs`, `bne`):
/// `2 * iterations` plus a few around it. The tests compare it with what [`Counter`]
/// measures, which checks the 40-instructions-a-tick scale.
pub fn calibrate(iterations: u32) {
    // SAFETY: a register-only countdown loop; no memory, no stack.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {n}, #1",
            "bne 2b",
            n = inout(reg) iterations => _,
            options(nomem, nostack),
        );
    }
}
