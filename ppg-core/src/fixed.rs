//! The fixed-capacity engine: [`Ppg`] over memory whose capacity is in its type.
//!
//! A [`FixedMemory`] is the engine's memory as a value: items, sessions and batch are const
//! parameters, checked when compiling, and it can live on the stack or in a `static` (its
//! constructor is a `const fn`). [`FixedMemory::engine`] lays a [`Ppg`] out in it, the same
//! engine and the same code as over a byte buffer, and hands it back as a [`FixedPpg`],
//! which is that `Ppg` (it dereferences to it) with the capacity in its type and the best
//! ranking returned as a bounded [`Ranking`].
//!
//! Why a fourth parameter, the byte count: an array whose length is computed from const
//! parameters (`[u8; Ppg::bytes(Dims::new(ITEMS, SESSIONS, BATCH))]` inside a generic
//! type) needs `generic_const_exprs`, which stable Rust does not have. So the type takes
//! the count as `BYTES`, [`fixed_memory!`](crate::fixed_memory) computes it where the three
//! capacities are concrete, and [`FixedMemory::new`] refuses, when compiling, a `BYTES`
//! other than [`Ppg::bytes`] of the capacities, so that a type can only name a right one.
//! The memory borrows into the engine rather than holding it: an engine holding its own
//! tables would refer to itself, which safe Rust cannot express, and a second engine that
//! keeps offsets instead of slices is what this module exists not to be.
//!
//! Uses the engine only.

use crate::{Dims, Ppg, MAX_ITEMS};
use core::ops::{Deref, DerefMut};

/// A multi-session ranking of at most `SESSIONS` sessions of at most `ITEMS` item ids each:
/// what a query of fewer items or sessions than the capacity returns, without a heap.
pub type Ranking<const ITEMS: usize, const SESSIONS: usize> =
    heapless::Vec<heapless::Vec<u16, ITEMS>, SESSIONS>;

/// Memory for one engine of `ITEMS` items per session, `SESSIONS` sessions and batches of
/// `BATCH` samples, `BYTES` long; name the type with
/// [`fixed_memory!`](crate::fixed_memory)`(ITEMS, SESSIONS, BATCH)`, which computes `BYTES`.
///
/// Aligned to 8 bytes, the engine's largest alignment, so that its regions fall at the
/// same offsets wherever the value lives.
///
/// ```
/// use ppg_core::{fixed_memory, FixedMemory};
/// static mut MEMORY: fixed_memory!(10, 4, 16) = FixedMemory::new(); // .bss, not the stack
/// let mut stack: fixed_memory!(8, 1, 4) = FixedMemory::new();
/// let mut ppg = stack.engine(42);
/// ppg.start(8, 1, 0.5)?;
/// # Ok::<(), ppg_core::Error>(())
/// ```
///
/// A `BYTES` other than the engine's size does not compile:
///
/// ```compile_fail
/// let memory = ppg_core::FixedMemory::<10, 4, 16, 1024>::new();
/// ```
#[repr(align(8))]
pub struct FixedMemory<
    const ITEMS: usize,
    const SESSIONS: usize,
    const BATCH: usize,
    const BYTES: usize,
> {
    bytes: [u8; BYTES],
}

impl<const ITEMS: usize, const SESSIONS: usize, const BATCH: usize, const BYTES: usize>
    FixedMemory<ITEMS, SESSIONS, BATCH, BYTES>
{
    /// The shape the engine is laid out for.
    pub const DIMS: Dims = Dims::new(ITEMS, SESSIONS, BATCH);

    /// Zeroed memory, for a `static` or a local.
    ///
    /// # Panics
    /// Never at run time: an unusable shape (a zero capacity, more than [`MAX_ITEMS`]
    /// items, a product that overflows) or a `BYTES` other than [`Ppg::bytes`] of it fails
    /// to compile.
    pub const fn new() -> Self {
        const {
            assert!(
                ITEMS > 0 && SESSIONS > 0 && BATCH > 0,
                "every capacity must be at least 1"
            );
            assert!(ITEMS <= MAX_ITEMS, "item ids are u16: at most 65,535 items");
            let total = ITEMS.checked_mul(SESSIONS);
            assert!(
                total.is_some() && total.unwrap().checked_mul(BATCH).is_some(),
                "items x sessions x batch overflows"
            );
            assert!(
                BYTES == Ppg::bytes(Dims::new(ITEMS, SESSIONS, BATCH)),
                "BYTES must be Ppg::bytes of the capacities: name the type with fixed_memory!"
            );
        }
        FixedMemory { bytes: [0; BYTES] }
    }

    /// A new engine in this memory, its generator seeded with `seed`; it holds no query
    /// until [`Ppg::start`]. Any engine laid out here before is gone.
    ///
    /// Infallible: [`Ppg::new`] checks only the shape and the memory's size and alignment,
    /// which [`FixedMemory::new`] (the only way to make one) checked when compiling, and
    /// the type's alignment gives.
    pub fn engine(&mut self, seed: u64) -> FixedPpg<'_, ITEMS, SESSIONS, BATCH> {
        match Ppg::new(&mut self.bytes, Self::DIMS, seed) {
            Ok(ppg) => FixedPpg { ppg },
            // Unreachable: see above (the tests lay out every shape they use here).
            Err(e) => panic!("FixedMemory holds its engine: {e}"),
        }
    }
}

impl<const ITEMS: usize, const SESSIONS: usize, const BATCH: usize, const BYTES: usize> Default
    for FixedMemory<ITEMS, SESSIONS, BATCH, BYTES>
{
    fn default() -> Self {
        Self::new()
    }
}

/// The type of the memory of an engine of `items` items per session, `sessions` sessions
/// and batches of `batch` samples: [`FixedMemory`] with its byte count computed.
///
/// ```
/// use ppg_core::{fixed_memory, Dims, FixedMemory};
/// type Memory = fixed_memory!(20, 4, 16);
/// assert_eq!(Memory::DIMS, Dims::new(20, 4, 16));
/// let memory: Memory = FixedMemory::new();
/// ```
#[macro_export]
macro_rules! fixed_memory {
    ($items:expr, $sessions:expr, $batch:expr $(,)?) => {
        $crate::FixedMemory<
            { $items },
            { $sessions },
            { $batch },
            { $crate::Ppg::bytes($crate::Dims::new($items, $sessions, $batch)) },
        >
    };
}

/// A [`Ppg`] laid out in a [`FixedMemory`]: every method of `Ppg` through `Deref`, the
/// capacity in the type, and the best ranking as a bounded [`Ranking`].
pub struct FixedPpg<'m, const ITEMS: usize, const SESSIONS: usize, const BATCH: usize> {
    ppg: Ppg<'m>,
}

impl<const ITEMS: usize, const SESSIONS: usize, const BATCH: usize>
    FixedPpg<'_, ITEMS, SESSIONS, BATCH>
{
    /// The lowest-cost ranking seen so far, one bounded list per session of the query, and
    /// its cost; `None` until a ranking was scored. [`Ppg::best`] gives the same ids as
    /// one slice without copying.
    pub fn best_ranking(&self) -> Option<(Ranking<ITEMS, SESSIONS>, f64)> {
        let (flat, cost) = self.ppg.best()?;
        // A query holds at most ITEMS items and SESSIONS sessions (`Ppg::start` refuses
        // more), so neither bounded list can overflow; `?` keeps that without a panic path.
        let mut ranking = Ranking::new();
        for session in flat.chunks_exact(self.ppg.items().max(1)) {
            ranking
                .push(heapless::Vec::from_slice(session).ok()?)
                .ok()?;
        }
        Some((ranking, cost))
    }
}

impl<'m, const ITEMS: usize, const SESSIONS: usize, const BATCH: usize> Deref
    for FixedPpg<'m, ITEMS, SESSIONS, BATCH>
{
    type Target = Ppg<'m>;

    fn deref(&self) -> &Ppg<'m> {
        &self.ppg
    }
}

impl<'m, const ITEMS: usize, const SESSIONS: usize, const BATCH: usize> DerefMut
    for FixedPpg<'m, ITEMS, SESSIONS, BATCH>
{
    fn deref_mut(&mut self) -> &mut Ppg<'m> {
        &mut self.ppg
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{exposure, Eel, RankStart};
    use crate::{Error, TrainConfig};

    /// The golden query of tests/golden.rs: 10 items, 4 sessions, EEL, intra-group.
    const UTILITY: [f64; 10] = [4.0, 4.0, 3.0, 3.0, 2.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    const GROUP: [u8; 10] = [0, 0, 0, 1, 0, 0, 1, 1, 0, 1];

    fn trained(ppg: &mut Ppg) -> crate::TrainReport {
        let mut table = [0.0; 10];
        exposure::fill(RankStart::One, &mut table);
        let mut eel = Eel::new(&UTILITY, &GROUP, 5, &table).unwrap();
        ppg.start(10, 4, 0.5).unwrap();
        ppg.keep_order_within(&GROUP).unwrap();
        ppg.train(&mut eel, &TrainConfig::default()).unwrap()
    }

    #[test]
    fn the_fixed_engine_trains_as_the_engine_over_a_byte_buffer() {
        let mut memory: crate::fixed_memory!(10, 4, 16) = FixedMemory::new();
        let mut fixed = memory.engine(42);
        let report = trained(&mut fixed);

        let mut bytes = [0u8; Ppg::bytes(Dims::new(10, 4, 16))];
        let mut ppg = Ppg::new(&mut bytes, Dims::new(10, 4, 16), 42).unwrap();
        assert_eq!(trained(&mut ppg), report);

        let (flat, cost) = ppg.best().unwrap();
        let (ranking, fixed_cost) = fixed.best_ranking().unwrap();
        assert_eq!(fixed_cost.to_bits(), cost.to_bits());
        assert_eq!(ranking.len(), 4);
        for (session, ids) in ranking.iter().zip(flat.chunks(10)) {
            assert_eq!(session.as_slice(), ids);
        }
    }

    #[test]
    fn a_query_below_the_capacity_returns_its_own_sessions_and_items() {
        let mut memory: crate::fixed_memory!(10, 4, 16) = FixedMemory::new();
        let mut ppg = memory.engine(7);
        assert!(ppg.best_ranking().is_none(), "nothing scored yet");
        ppg.start(6, 3, 0.5).unwrap();
        ppg.train(
            &mut |r: &[u16], _: usize| f64::from(r[0]),
            &TrainConfig::default(),
        )
        .unwrap();
        let (ranking, cost) = ppg.best_ranking().unwrap();
        assert_eq!(ranking.len(), 3);
        assert!(ranking.iter().all(|s| s.len() == 6));
        assert_eq!(cost, f64::from(ranking[0][0]));
        // Beyond the capacity in the type, the engine refuses the query.
        assert_eq!(
            ppg.start(11, 1, 0.5),
            Err(Error::Capacity {
                requested: 11,
                capacity: 10
            })
        );
    }

    #[test]
    fn the_memory_is_exactly_the_engine_and_aligned() {
        type Memory = crate::fixed_memory!(20, 4, 16);
        assert_eq!(
            core::mem::size_of::<Memory>(),
            Ppg::bytes(Dims::new(20, 4, 16)).next_multiple_of(8)
        );
        assert_eq!(core::mem::align_of::<Memory>(), 8);
        assert_eq!(Memory::DIMS, Dims::new(20, 4, 16));
    }
}
