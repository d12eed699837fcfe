//! The engine's random source: seeded, portable, identical on every target.
//!
//! A foundation: uses only `rand_xoshiro`.

use rand_core::{Rng as _, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator every optimiser draws from; the same seed gives the same stream on every
/// platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng(Xoshiro256PlusPlus);

impl Rng {
    /// A generator seeded from `seed` (SplitMix64 expansion, as `rand_core` specifies).
    pub fn new(seed: u64) -> Self {
        Rng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// Raw 64 random bits.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    #[inline(always)]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in the open interval `(0, 1)`: safe under `ln`. 52 bits, so that adding the
    /// half step cannot round up to 1.
    #[inline(always)]
    pub fn open_unit_f64(&mut self) -> f64 {
        ((self.next_u64() >> 12) as f64 + 0.5) * (1.0 / (1u64 << 52) as f64)
    }
}
