//! What the image prints, one `key values...` line each: the golden computations of
//! ppg-core/tests/golden.rs through the public API. `tests/firmware.rs` includes this
//! file on the host and compares its lines with the image's, value by value.

use core::fmt::{self, Write};
use ppg_core::objective::{exposure, Eel, RankStart, Real};
use ppg_core::{fixed_memory, FixedPpg, Objective, Rng, SamplerMode, TrainConfig, TrainReport};

/// The memory every engine of the image takes in turn, of the largest shape it runs (the
/// 4 x 20 measurement's: 20 items, 4 sessions, batch 16): the golden first samples
/// (8 x 2) and training run (10 x 4) are queries below its capacity. One memory, not one
/// per shape, keeps the image's RAM at one engine's.
pub type Memory = fixed_memory!(20, 4, 16);
/// An engine laid out in [`Memory`].
pub type Engine<'m> = FixedPpg<'m, 20, 4, 16>;
/// The seed of every golden value.
pub const SEED: u64 = 42;

/// Why a report stopped.
#[derive(Debug)]
pub enum Failure {
    /// The engine refused a call (a bug in this example: the inputs are fixed).
    Engine(ppg_core::Error),
    /// Training scored no ranking.
    NoBest,
    /// The output stream failed.
    Write,
}

impl From<ppg_core::Error> for Failure {
    fn from(e: ppg_core::Error) -> Self {
        Failure::Engine(e)
    }
}

impl From<fmt::Error> for Failure {
    fn from(_: fmt::Error) -> Self {
        Failure::Write
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Engine(e) => write!(f, "engine error: {e}"),
            Failure::NoBest => f.write_str("training scored no ranking"),
            Failure::Write => f.write_str("output failed"),
        }
    }
}

fn line<T: fmt::Display>(out: &mut impl Write, key: &str, values: &[T]) -> fmt::Result {
    out.write_str(key)?;
    for v in values {
        write!(out, " {v}")?;
    }
    out.write_char('\n')
}

/// Prints every golden value: the generator's first outputs, the first samples of both
/// samplers, the trained result with EEL in single precision (`single_` lines), each
/// engine laid out in `mem` in turn. The double-precision run of the golden values
/// (`trained::<f64>`) is the C image's, whose built-in EEL is `f64`: this image holds one
/// precision, as a firmware would, and its flash has no room for both.
pub fn golden(out: &mut impl Write, mem: &mut Memory) -> Result<(), Failure> {
    let mut rng = Rng::new(SEED);
    line(
        out,
        "rng",
        &[rng.next_u64(), rng.next_u64(), rng.next_u64()],
    )?;

    for (key, mode) in [
        ("uncorrected", SamplerMode::Uncorrected),
        ("corrected", SamplerMode::Corrected),
    ] {
        let mut ppg = mem.engine(SEED);
        ppg.start(8, 2, 0.5)?;
        let mut ranking = [0u16; 16];
        for _ in 0..3 {
            ppg.sample(mode, &mut ranking)?;
            line(out, key, &ranking)?;
        }
    }

    let (ppg, report) = trained::<f32>(mem)?;
    print_trained(out, "single_", &ppg, &report)
}

/// The golden training run: the 10 x 4 EEL query with the intra-group constraint,
/// trained with the reference recipe in `mem`, EEL adding its
/// exposures up in `F`: `f64` is the golden value of ppg-core/tests/golden.rs, `f32` what
/// firmware on a single-precision FPU runs (no software double routine in the training
/// loop: the trainer keeps a single-precision objective's costs in `f32`).
pub fn trained<F: Real>(mem: &mut Memory) -> Result<(Engine<'_>, TrainReport), Failure> {
    let utility = [4.0, 4.0, 3.0, 3.0, 2.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    let group = [0u8, 0, 0, 1, 0, 0, 1, 1, 0, 1];
    let mut table = [0f64; 10];
    exposure::fill(RankStart::One, &mut table);
    let table = table.map(F::from_f64);
    let mut eel = Eel::new(&utility, &group, 5, &table)?;
    train(mem, &group, &mut eel)
}

/// The golden run's engine and training, the same code for either precision's objective.
fn train<'m>(
    mem: &'m mut Memory,
    group: &[u8],
    objective: &mut dyn Objective,
) -> Result<(Engine<'m>, TrainReport), Failure> {
    let mut ppg = mem.engine(SEED);
    ppg.start(10, 4, 0.5)?;
    ppg.keep_order_within(group)?;
    let report = ppg.train(objective, &TrainConfig::default())?;
    Ok((ppg, report))
}

/// Prints the trained result, each key after `prefix`: the report's fields, the best
/// ranking, the cost bits.
pub fn print_trained(
    out: &mut impl Write,
    prefix: &str,
    ppg: &Engine,
    report: &TrainReport,
) -> Result<(), Failure> {
    fn keyed<T: fmt::Display>(
        out: &mut impl Write,
        prefix: &str,
        key: &str,
        values: &[T],
    ) -> fmt::Result {
        out.write_str(prefix)?;
        line(out, key, values)
    }
    keyed(out, prefix, "epochs", &[report.epochs])?;
    keyed(out, prefix, "samples", &[report.samples])?;
    // -1: no new best in this run, as the C API's `best_epoch`.
    let best_epoch = report.best_epoch.map_or(-1, i64::from);
    keyed(out, prefix, "best_epoch", &[best_epoch])?;
    keyed(out, prefix, "best_cost_bits", &[report.best_cost.to_bits()])?;
    // The sessions one after the other, as the host's flat ranking: the engine's own
    // slice, not `best_ranking`'s bounded copy, which would only be flattened again here
    // at a cost in flash (its copy and capacity checks).
    let (best, cost) = ppg.best().ok_or(Failure::NoBest)?;
    keyed(out, prefix, "best", best)?;
    keyed(out, prefix, "cost_bits", &[cost.to_bits()])?;
    Ok(())
}
