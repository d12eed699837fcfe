//! The floating-point type a metric adds its exposures up in: `f64`, the default and what
//! the paper's tables use, or `f32` for a single-precision FPU such as the Cortex-M4F's,
//! where every `f64` operation is a software routine of 30 to 130 instructions.
//!
//! A sealed trait of the few operations the metrics need, written here rather than taken
//! from a numeric-traits crate: the core's dependencies are the design card's.

use core::ops::{Add, AddAssign, Div, Mul, Sub};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// `f32` or `f64`.
pub trait Real:
    sealed::Sealed
    + Copy
    + PartialOrd
    + Add<Output = Self>
    + AddAssign
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + core::fmt::Debug
{
    /// 0.
    const ZERO: Self;
    /// Whether this is `f32`.
    const SINGLE: bool;
    /// `x`, rounded to the nearest value of this type.
    fn from_f64(x: f64) -> Self;
    /// The value as an `f64`, exactly.
    fn to_f64(self) -> f64;
    /// The value as an `f32`, rounded.
    fn to_f32(self) -> f32;
    /// `n`, rounded to the nearest value of this type (without passing through `f64`).
    fn from_count(n: usize) -> Self;
    /// `values` as `f64`s when this is `f64` (the exact optimum adds up in `f64` only).
    fn as_f64s(values: &[Self]) -> Option<&[f64]>;
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    const SINGLE: bool = true;
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn to_f32(self) -> f32 {
        self
    }
    fn from_count(n: usize) -> Self {
        n as f32
    }
    fn as_f64s(_: &[Self]) -> Option<&[f64]> {
        None
    }
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    const SINGLE: bool = false;
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn from_count(n: usize) -> Self {
        n as f64
    }
    fn as_f64s(values: &[Self]) -> Option<&[f64]> {
        Some(values)
    }
}
