//! The probability of a sampled or replayed ranking, kept as a product of decision
//! probabilities and folded into a log before it underflows. Every sampler of this folder
//! (the merges, the leaf tables, the score) multiplies into one; it uses nothing else.

/// A running product of probabilities, folded into a log before it can underflow.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LogProb {
    product: f64,
    log: f64,
}

impl LogProb {
    pub(crate) fn new() -> Self {
        LogProb {
            product: 1.0,
            log: 0.0,
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

    pub(crate) fn value(&self) -> f64 {
        self.log + libm::log(self.product)
    }
}
