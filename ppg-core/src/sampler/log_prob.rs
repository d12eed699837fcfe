//! The probability of a sampled or replayed ranking, kept as a product of decision
//! probabilities and folded into a log before it underflows. Every sampler of this folder
//! (the merges, the leaf tables, the score) multiplies into one; it uses nothing else.
//!
//! The uncorrected sampler draws in single precision and multiplies its factors in as
//! `f32`, with the product's binary exponent moved into an integer count before it can
//! underflow: exact bookkeeping without a software double routine per decision on a
//! single-precision FPU. The other samplers multiply `f64` factors.

/// A running product of probabilities, folded into a log before it can underflow.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LogProb {
    product: f64,
    log: f64,
    /// The single-precision factors' product is `single * 2^exponent`.
    single: f32,
    exponent: i32,
}

/// `2^-32`: the single product is renormalised below it. A factor of at least [`TINY`]
/// then leaves it at `2^-96` or more, a normal `f32` (the least is `2^-126`) whose exponent
/// field holds its power of two.
const RENORMALISE_BELOW: f32 = 2.328_306_4e-10;
/// `2^-64`: a factor below it (none a trained weight gives) goes to the double product.
const TINY: f32 = 5.421_011e-20;

impl LogProb {
    pub(crate) fn new() -> Self {
        LogProb {
            product: 1.0,
            log: 0.0,
            single: 1.0,
            exponent: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn times(&mut self, p: f64) {
        self.product *= p;
        if self.product < 1e-250 {
            self.log += libm::log(self.product);
            self.product = 1.0;
        }
    }

    /// Multiplies by a single-precision factor in `[0, 1]`.
    #[inline(always)]
    pub(crate) fn times_single(&mut self, p: f32) {
        if p < TINY {
            self.times(f64::from(p));
            return;
        }
        self.single *= p;
        if self.single < RENORMALISE_BELOW {
            let (power, mantissa) = split(self.single);
            self.exponent += power;
            self.single = mantissa;
        }
    }

    /// The log of the product. The single product's own binary exponent joins the exact
    /// count, so that single precision only takes the log of a mantissa in `[1, 2)` (to
    /// within `5e-8`); the double product's log is taken only when a factor went there.
    /// On a single-precision FPU each double log is a software routine of about 850
    /// instructions, which had been 15% of a 4 x 20 sample.
    pub(crate) fn value(&self) -> f64 {
        let (power, mantissa) = split(self.single);
        let mut value = self.log
            + f64::from(self.exponent + power) * core::f64::consts::LN_2
            + f64::from(libm::logf(mantissa));
        if self.product != 1.0 {
            value += libm::log(self.product);
        }
        value
    }
}

/// A normal `x` as `2^power * mantissa`, the mantissa in `[1, 2)`, from its bits: exact.
#[inline(always)]
fn split(x: f32) -> (i32, f32) {
    let bits = x.to_bits();
    let power = (bits >> 23 & 0xff) as i32 - 127;
    (power, f32::from_bits(bits & 0x807f_ffff | 127 << 23))
}

#[cfg(test)]
mod tests {
    use super::LogProb;

    /// Single-precision factors, renormalised many times over, and one tiny factor, give the log of their product to within one `f32` rounding per
    /// factor (`2^-24` relative each, so `3e3 * 6e-8` here); the double path is exact.
    #[test]
    fn single_factors_fold_exactly_into_the_log() {
        let mut rng = crate::Rng::new(5);
        let (mut single, mut double, mut want) = (LogProb::new(), LogProb::new(), 0.0);
        for k in 0..3000 {
            let p = if k == 500 {
                1e-40
            } else {
                0.05 + 0.95 * rng.unit_f64() as f32
            };
            single.times_single(p);
            double.times(f64::from(p));
            want += libm::log(f64::from(p));
        }
        assert!(
            want < -800.0,
            "{want}: far below what an f32 or f64 product holds"
        );
        assert!(
            (single.value() - want).abs() < 3e3 * 6e-8,
            "{} {want}",
            single.value()
        );
        assert!((double.value() - want).abs() < 1e-9 * -want);
    }
}
