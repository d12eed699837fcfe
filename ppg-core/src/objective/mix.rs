//! A fairness cost traded off against a utility cost with one weight.

use super::Objective;
use crate::Error;

/// `fairness + weight * utility`, both costs of the same ranking.
///
/// The usual pairing is a fairness metric ([`Dtr`](super::Dtr), [`Eel`](super::Eel)) with
/// [`Ndcg`](super::Ndcg), whose cost is `1 - NDCG@k`; any two objectives (closures too)
/// combine the same way.
///
/// ```
/// use ppg_core::objective::{Dtr, ExposureTable, Mix, Ndcg, Objective, RankStart};
/// let exposure = ExposureTable::<2>::new(RankStart::One);
/// let discount = ExposureTable::<2>::new(RankStart::Zero);
/// let utility = [1.0, 0.0];
/// let dtr = Dtr::new(&utility, &[0, 1], exposure.as_slice())?;
/// let ndcg = Ndcg::new(&utility, 10, discount.as_slice())?;
/// let mut mix = Mix::new(dtr, ndcg, 0.5)?;
/// // Degenerate DTR (group 1 has no utility) and an ideal order: cost 0.
/// assert_eq!(mix.cost(&[0, 1], 1), 0.0);
/// # Ok::<(), ppg_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mix<F, G> {
    fairness: F,
    utility: G,
    weight: f64,
}

impl<F: Objective, G: Objective> Mix<F, G> {
    /// `fairness + weight * utility`.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] when `weight` is negative, NaN or infinite.
    pub fn new(fairness: F, utility: G, weight: f64) -> Result<Self, Error> {
        if !(weight.is_finite() && weight >= 0.0) {
            return Err(Error::InvalidConfig(
                "mix weight must be finite and non-negative",
            ));
        }
        Ok(Mix {
            fairness,
            utility,
            weight,
        })
    }

    /// The weight of the utility cost.
    pub fn weight(&self) -> f64 {
        self.weight
    }

    /// The fairness objective, to report its own value.
    pub fn fairness(&self) -> &F {
        &self.fairness
    }

    /// The utility objective, to report its own value.
    pub fn utility(&self) -> &G {
        &self.utility
    }

    /// The two objectives back.
    pub fn into_parts(self) -> (F, G) {
        (self.fairness, self.utility)
    }
}

impl<F: Objective, G: Objective> Objective for Mix<F, G> {
    /// Both parts are evaluated even at weight 0, so a NaN from either (a malformed
    /// ranking) reaches the optimiser.
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        let fairness = self.fairness.cost(ranking, sessions);
        fairness + self.weight * self.utility.cost(ranking, sessions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{Dtr, ExposureTable, Ndcg, RankStart};

    /// 1 / log2(3).
    const C: f64 = 0.630_929_753_571_457_4;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn dtr_with_ndcg() {
        let exposure = ExposureTable::<2>::new(RankStart::Zero);
        let discount = ExposureTable::<2>::new(RankStart::Zero);
        let u = [1.0, 2.0];
        let dtr = Dtr::new(&u, &[0, 1], exposure.as_slice()).unwrap();
        let ndcg = Ndcg::new(&u, 10, discount.as_slice()).unwrap();
        let mut mix = Mix::new(dtr, ndcg, 2.0).unwrap();
        // [0,1]: ratios 1/1 and C/2 -> DTR 2/C; gains 1, 3: NDCG (1 + 3C)/(3 + C).
        let ndcg01 = (1.0 + 3.0 * C) / (3.0 + C);
        assert!(close(
            mix.cost(&[0, 1], 1),
            2.0 / C - 1.0 + 2.0 * (1.0 - ndcg01)
        ));
        // [1,0]: ratios C/1 and 1/2 -> DTR 2C; ideal order.
        assert!(close(mix.cost(&[1, 0], 1), 2.0 * C - 1.0));
        assert_eq!(mix.weight(), 2.0);
        assert!(close(mix.fairness().ratio(&[1, 0], 1), 2.0 * C));
        assert!(close(mix.utility().value(&[0, 1], 1), ndcg01));
        let (_, ndcg) = mix.into_parts();
        assert_eq!(ndcg.value(&[1, 0], 1), 1.0);
    }

    #[test]
    fn closures_and_weight_zero() {
        let mut mix = Mix::new(
            |_: &[u16], s: usize| s as f64,
            |r: &[u16], _: usize| r.len() as f64,
            0.25,
        )
        .unwrap();
        assert_eq!(mix.cost(&[0, 1, 1, 0], 2), 2.0 + 0.25 * 4.0);
        let mut zero = Mix::new(
            |_: &[u16], _: usize| 1.0,
            |_: &[u16], _: usize| f64::NAN,
            0.0,
        )
        .unwrap();
        assert!(zero.cost(&[0], 1).is_nan());
    }

    #[test]
    fn weight_must_be_finite_non_negative() {
        let f = |_: &[u16], _: usize| 0.0;
        for w in [-1.0, f64::NAN, f64::INFINITY, -0.0 - 1e-300] {
            assert!(
                matches!(Mix::new(f, f, w), Err(Error::InvalidConfig(_))),
                "{w}"
            );
        }
        assert!(Mix::new(f, f, 0.0).is_ok());
    }
}
