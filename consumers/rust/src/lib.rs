//! One query re-ranked as `ppg rerank` does with its defaults: the core's recommended
//! recipe (`Ppg::rerank_ranked`), EEL with 5 grade levels, exposure from rank 1. No heap:
//! the caller gives the engine's memory and the buffers, so this builds for a Cortex-M4F
//! as well.
#![no_std]

use ppg_core::objective::{exposure, RankStart};
use ppg_core::recipe::{CostSpec, Metric, Ranked, Tables, Workspace};
use ppg_core::{Dims, Error, Ppg, Recipe};

/// The engine's shape for a query of `items` items in `sessions` sessions.
pub fn dims(items: usize, sessions: usize) -> Dims {
    Dims::new(items, sessions, Recipe::recommended().train.batch)
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

/// The buffers [`rerank`] borrows for a query of `len` items: `tables` holds `2 * len`
/// values (the exposure and NDCG's discount of each rank), the others `len`.
pub struct Buffers<'b> {
    /// Exposure from rank 1, then NDCG's discount from rank 0.
    pub tables: &'b mut [f64],
    /// The recipe's starting order and the query in it.
    pub order: &'b mut [u16],
    /// The utility in starting order (the recipe's copy).
    pub utility: &'b mut [f64],
    /// The group in starting order (the recipe's copy).
    pub group: &'b mut [u8],
}

/// Re-ranks a query whose starting ranking puts the item of `utility[k]`, `group[k]` at
/// position `k`, over `sessions` sessions, with the core's recipe (`Ppg::rerank_ranked`,
/// the function `ppg rerank` runs: training, then the most relevant of the rankings as fair
/// as the one found), and writes the rankings (positions, session after session) to `out`.
/// `mem` holds at least `Ppg::bytes(dims(len, sessions))` bytes, `out` `len * sessions`.
///
/// # Errors
/// The engine's refusal (a shape beyond its layout, too many groups).
pub fn rerank(
    mem: &mut [u8],
    work: Buffers<'_>,
    seed: u64,
    utility: &[f64],
    group: &[u8],
    sessions: usize,
    out: &mut [u16],
) -> Result<(), Error> {
    let n = utility.len();
    // One item: nothing to re-rank (`ppg rerank` passes it through).
    if n < 2 {
        out.iter_mut().for_each(|o| *o = 0);
        return Ok(());
    }
    let (exposure, discount) = work.tables.split_at_mut(n);
    exposure::fill(RankStart::One, exposure);
    exposure::fill(RankStart::Zero, &mut discount[..n]);
    let tables = Tables {
        exposure,
        discount,
        attention: &[],
    };
    let query = Ranked {
        utility,
        group,
        sessions,
        seed,
    };
    let space = Workspace {
        order: work.order,
        utility: work.utility,
        group: work.group,
        scratch: &mut [],
    };
    let mut ppg = Ppg::new(mem, dims(n, sessions), seed)?;
    ppg.rerank_ranked(
        &query,
        &CostSpec::new(Metric::Eel, 5, None),
        &tables,
        &Recipe::recommended(),
        space,
        out,
    )?;
    Ok(())
}
