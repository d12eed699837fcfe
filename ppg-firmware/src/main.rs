//! A Cortex-M4F image of PPG search for QEMU's mps2-an386: it prints the golden values
//! of ppg-core/tests/golden.rs over semihosting, then instruction counts, RAM per engine
//! shape, and exits 0. `tests/firmware.rs` runs it and compares the values with the host.
//!
//! The semihosting command line picks a mode: `panic` panics on purpose, to show that a
//! panic reports itself and exits non-zero (see the panic handler below); `train` runs
//! the golden training run alone, `sample` 64 samples of 4 x 20 alone (for instruction
//! profiles: scripts/firmware-profile).
//!
//! Build and run: `cargo run --release` in this folder (.cargo/config.toml sets the target
//! and the QEMU runner; add `-icount shift=0` to QEMU for instruction counts).

#![no_std]
#![no_main]

mod count;
mod report;

use core::cell::Cell;
use core::fmt::Write;
use core::panic::PanicInfo;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hio, nr, syscall};
use ppg_core::{Dims, FixedMemory, Ppg, SamplerMode};

/// Engine shapes whose RAM is reported, with `Ppg::bytes` of each, evaluated when
/// compiling (as a firmware author's buffer is): the image holds no copy of its code.
const SHAPES: [(Dims, usize); 4] = {
    const fn shape(items: usize, sessions: usize, batch: usize) -> (Dims, usize) {
        let dims = Dims::new(items, sessions, batch);
        (dims, Ppg::bytes(dims))
    }
    [
        shape(10, 4, 16),
        shape(20, 4, 16),
        shape(20, 1, 16),
        shape(50, 1, 16),
    ]
};
/// Samples whose mean instruction count is reported.
const SAMPLES: u32 = 64;
/// Iterations of the calibration loop.
const CALIBRATION: u32 = 1_000_000;

#[entry]
fn main() -> ! {
    // cortex-m-rt hands a `static mut` declared here to `main` as a `&'static mut`: the
    // engines live in .bss, not on the stack, one after the other in one memory.
    static mut MEMORY: report::Memory = FixedMemory::new();

    let mut out = hio::hstdout().unwrap_or_else(|()| exit(false));
    let mut cmdline = [0u8; 64];
    // The command line is the image's name, then the mode, if any.
    let mode = command_line(&mut cmdline)
        .split_once(' ')
        .map_or("", |(_, mode)| mode);
    if mode == "panic" {
        panic!("deliberate panic (semihosting argument `panic`)");
    }
    if mode == "train" {
        // The training run alone, for instruction profiles of it.
        let result = report::trained::<f32>(MEMORY)
            .and_then(|(ppg, report)| report::print_trained(&mut out, "single_", &ppg, &report));
        exit(result.is_ok());
    }
    if mode == "sample" {
        // 4 x 20 uncorrected samples alone, for instruction profiles of them.
        let mut ranking = [0u16; 80];
        let result = engine_4x20(MEMORY).and_then(|mut ppg| {
            (0..SAMPLES)
                .try_for_each(|_| ppg.sample(SamplerMode::Uncorrected, &mut ranking).map(drop))
        });
        exit(result.is_ok());
    }
    let core = cortex_m::Peripherals::take().unwrap_or_else(|| exit(false));
    let mut counter = count::Counter::new(core.SYST);

    let result =
        report::golden(&mut out, MEMORY).and_then(|()| measure(&mut out, &mut counter, MEMORY));
    if let Err(e) = result {
        let _ = writeln!(out, "error {e}");
        exit(false);
    }
    exit(true)
}

/// The board's interrupt vectors after the 16 of the core: QEMU's mps2-an386 has 32, and
/// the image uses none. (cortex-m-rt's generic table has 240, 832 B more of flash.)
#[link_section = ".vector_table.interrupts"]
#[no_mangle]
static __INTERRUPTS: [unsafe extern "C" fn(); 32] = [{
    extern "C" {
        fn DefaultHandler();
    }
    DefaultHandler
}; 32];

/// Instruction counts and RAM figures, on lines that start with `measure`.
fn measure(
    out: &mut impl Write,
    counter: &mut count::Counter,
    mem: &mut report::Memory,
) -> Result<(), report::Failure> {
    let ((), n) = counter.measure(|| count::calibrate(CALIBRATION));
    writeln!(out, "measure calibration_loop_{CALIBRATION} {}", Count(n))?;

    let (trained, n) = counter.measure(|| report::trained::<f32>(mem));
    let (_, report) = trained?;
    writeln!(
        out,
        "measure train_10x4_single {} epochs {}",
        Count(n),
        report.epochs
    )?;

    let mut ppg = engine_4x20(mem)?;
    let mut ranking = [0u16; 80];
    let (first, n) = counter.measure(|| ppg.sample(SamplerMode::Uncorrected, &mut ranking));
    first?;
    writeln!(out, "measure sample_4x20_uncorrected_first {}", Count(n))?;
    let (all, n) = counter.measure(|| {
        (0..SAMPLES).try_for_each(|_| ppg.sample(SamplerMode::Uncorrected, &mut ranking).map(drop))
    });
    all?;
    writeln!(
        out,
        "measure sample_4x20_uncorrected_x{SAMPLES} {}",
        Count(n)
    )?;

    for (dims, bytes) in SHAPES {
        let (items, sessions, batch) = (dims.items, dims.sessions, dims.batch);
        writeln!(out, "measure bytes_{items}x{sessions}x{batch} {bytes}")?;
    }
    Ok(())
}

/// A 4 x 20 engine at weights 0.5, seeded as the golden values.
fn engine_4x20(mem: &mut report::Memory) -> Result<report::Engine<'_>, ppg_core::Error> {
    let mut ppg = mem.engine(report::SEED);
    ppg.start(20, 4, 0.5)?;
    Ok(ppg)
}

/// An instruction count, or `wrapped` when SysTick wrapped more than once.
struct Count(Option<u64>);

impl core::fmt::Display for Count {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("wrapped"),
        }
    }
}

/// The semihosting command line (QEMU: `-semihosting-config ...,arg=...`), or "".
fn command_line(buf: &mut [u8]) -> &str {
    // The host writes the length back into the block: cells, so that it may.
    let block = [
        Cell::new(buf.as_mut_ptr() as usize),
        Cell::new(buf.len() - 1),
    ];
    // SAFETY: SYS_GET_CMDLINE writes at most `block[1]` bytes and a NUL into `buf`.
    let status = unsafe { syscall(nr::GET_CMDLINE, &block) };
    if status != 0 {
        return "";
    }
    let len = buf.iter().position(|&b| b == 0).unwrap_or(0);
    core::str::from_utf8(&buf[..len]).unwrap_or("")
}

/// Ends the QEMU session through semihosting: exit status 0 or 1.
fn exit(success: bool) -> ! {
    loop {
        debug::exit(if success {
            debug::EXIT_SUCCESS
        } else {
            debug::EXIT_FAILURE
        });
    }
}

/// A panic prints its message and location to the host's stderr and exits non-zero, so
/// a test run or a CI job never mistakes a panicked image for a passing one.
#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    if let Ok(mut err) = hio::hstderr() {
        let _ = writeln!(err, "panicked: {info}");
    }
    exit(false)
}
