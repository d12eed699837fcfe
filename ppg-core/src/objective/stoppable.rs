//! A cost a caller can stop from outside, between any two costs (Python's Ctrl-C).

use super::{LowerBound, Objective};

/// `inner`, whose every cost first asks `stop`: once it says so the cost is NaN, and the
/// trainer ends the run at once and restores the engine, as it does for any cost that is
/// not finite ([`Error::NotFinite`](crate::Error::NotFinite)). Everything else (precision,
/// lower bound, optimum) is `inner`'s, so a stoppable cost trains and certifies as the cost itself.
pub struct Stoppable<'a, O> {
    /// The cost itself.
    pub inner: O,
    /// Asked before every cost; `&|| false` never stops.
    pub stop: &'a dyn Fn() -> bool,
}

impl<O: Objective> Objective for Stoppable<'_, O> {
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        if (self.stop)() {
            return f64::NAN;
        }
        self.inner.cost(ranking, sessions)
    }

    fn single(&self) -> bool {
        self.inner.single()
    }

    fn cost_single(&mut self, ranking: &[u16], sessions: usize) -> f32 {
        if (self.stop)() {
            return f32::NAN;
        }
        self.inner.cost_single(ranking, sessions)
    }

    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        self.inner.lower_bound(sessions, work)
    }

    fn optimum(
        &self,
        sessions: usize,
        work: &mut [f64],
        out: &mut [u16],
    ) -> Option<(LowerBound, bool)> {
        self.inner.optimum(sessions, work, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;

    #[test]
    fn it_is_the_inner_cost_until_told_to_stop() {
        let told = Cell::new(false);
        let stop = || told.get();
        let mut cost = Stoppable {
            inner: |r: &[u16], _: usize| f64::from(r[0]),
            stop: &stop,
        };
        assert_eq!(cost.cost(&[3, 1], 1), 3.0);
        assert_eq!(cost.cost_single(&[2, 1], 1), 2.0);
        told.set(true);
        assert!(cost.cost(&[3, 1], 1).is_nan());
        assert!(cost.cost_single(&[3, 1], 1).is_nan());
    }
}
