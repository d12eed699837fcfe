//! One query re-ranked as `ppg rerank` does with its defaults: EEL with 5 grade levels,
//! exposure from rank 1, items of a group held in their order for the first part of a
//! run, the input ranking scored first, sessions grown. No heap: the caller gives the
//! engine's memory and the exposure table, so this builds for a Cortex-M4F as well.
#![no_std]

use ppg_core::objective::{exposure, Eel, RankStart};
use ppg_core::{Dims, Error, Ppg, TrainConfig};

/// The training recipe of `ppg rerank` without options.
pub fn recipe() -> TrainConfig {
    TrainConfig {
        score_input: true,
        grow: true,
        ..TrainConfig::default()
    }
}

/// The engine's shape for a query of `items` items in `sessions` sessions.
pub fn dims(items: usize, sessions: usize) -> Dims {
    Dims::new(items, sessions, recipe().batch)
}

/// SplitMix64's finaliser, the mixing step of `ppg rerank`'s seeds.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed `ppg rerank --seed seed` gives the query at `index` (0-based, input order).
pub fn query_seed(seed: u64, index: u64) -> u64 {
    mix(mix(seed) ^ mix(index))
}

/// Re-ranks a query whose starting ranking puts the item of `utility[k]`, `group[k]` at
/// position `k`, over `sessions` sessions, and writes the best rankings found (positions,
/// session after session) to `out`. `mem` holds at least `Ppg::bytes(dims(len,
/// sessions))` bytes, `table` and `utility` `len` values, `out` `len * sessions`.
///
/// # Errors
/// The engine's refusal (a shape beyond its layout, too many groups).
pub fn rerank(
    mem: &mut [u8],
    table: &mut [f64],
    seed: u64,
    utility: &[f64],
    group: &[u8],
    sessions: usize,
    out: &mut [u16],
) -> Result<(), Error> {
    let n = utility.len();
    let input = (0..sessions).flat_map(|_| 0..n as u16);
    // One group only: EEL has nothing to optimise and the input ranking is the answer.
    if n < 2 || !Eel::valid(group) {
        out.iter_mut().zip(input).for_each(|(o, k)| *o = k);
        return Ok(());
    }
    exposure::fill(RankStart::One, table);
    let mut eel = Eel::new(utility, group, 5, table)?;
    let mut ppg = Ppg::new(mem, dims(n, sessions), seed)?;
    ppg.start(n, sessions, 0.5)?;
    ppg.hold_order_within(group)?;
    ppg.train(&mut eel, &recipe())?;
    match ppg.best() {
        Some((best, _)) => out.copy_from_slice(best),
        None => out.copy_from_slice(ppg.reference()),
    }
    Ok(())
}
