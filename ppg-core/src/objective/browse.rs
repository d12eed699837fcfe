//! Browsing models: how much attention each position of a ranking gets.
//!
//! The expected-exposure metrics of Diaz et al. ("Evaluating stochastic rankings with
//! expected exposure", CIKM 2020) weigh position `i` (0-based) by a user model. Their
//! evaluator, `diazf/expeval`, offers two: `rbp` (rank-biased precision: the user goes on
//! with probability `patience` after each item) and `gerr` (the cascade: the user also stops
//! after an item with probability `utility`). This project adds the paper's log discount.
//!
//! [`Browse::Cascade`], the default, is the cascade as Diaz et al. publish it and as the
//! evaluator's later commits count it (`exposure.py`: `qrels[did] > 0`): the user stops
//! after a *relevant* item with probability `utility`, so position `i` gets
//! `patience^i (1 - utility)^k` with `k` the relevant items above it. That exposure depends
//! on the ranking above a position, not on the position alone: [`Browse::at`] gives its
//! positional part, [`Browse::ideal`] its value in the ideal ranking (every relevant item
//! first), and the metric applies the factor per ranking ([`Browse::relevant_stops`]).
//!
//! [`Browse::CascadeJudged`] is the cascade as the evaluator computes it at `d943b3e` in the
//! re-ranking setting of its `trec/expeval.sh` (`expeval.py -g -c`, complete judgements:
//! every listed item is judged). That version counts an item toward the cascade's stop when
//! it is judged, so with every item judged the exposure of position `i` is `(patience * (1 -
//! utility))^i`, positional; the normalisation bounds keep their own rates (see
//! [`Browse::upper`] and [`Browse::lower`]). ppg's published TREC expected-exposure figures
//! use it ([`Browse::D943B3E`]).

use super::exposure::{self, RankStart};
use crate::Error;

/// A browsing model; [`Browse::fill`] gives its exposure per position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Browse {
    /// `1 / log2(r + 2)` with `r` counted from `start`: the paper's exposure.
    Log(RankStart),
    /// Rank-biased precision: `patience^i`.
    Rbp {
        /// Probability of looking at the next item, in `(0, 1]` (0.5 in the evaluator).
        patience: f64,
    },
    /// The published cascade, the default: `patience^i (1 - utility)^k`, `k` the relevant
    /// items (utility > 0) above position `i`; not positional (see the module docs).
    Cascade {
        /// Probability of looking at the next item, in `(0, 1]` (0.5 in the evaluator).
        patience: f64,
        /// Probability of stopping after a relevant item, in `[0, 1]` (0.5 in the evaluator).
        utility: f64,
    },
    /// The cascade as the evaluator at `d943b3e` computes it with complete judgements
    /// (every listed item judged, each counting toward the stop): `(patience * (1 -
    /// utility))^i`, positional.
    CascadeJudged {
        /// Probability of looking at the next item, in `(0, 1]`.
        patience: f64,
        /// Probability of stopping after a judged item, in `[0, 1]`.
        utility: f64,
    },
}

/// The evaluator's default patience and cascade utility.
pub const DEFAULT_PATIENCE: f64 = 0.5;

impl Browse {
    /// The default: the published cascade with the evaluator's patience and utility, 0.5.
    pub const DEFAULT: Browse = Browse::Cascade {
        patience: DEFAULT_PATIENCE,
        utility: DEFAULT_PATIENCE,
    };

    /// `d943b3e`'s cascade with patience and utility 0.5: what ppg's published TREC
    /// expected-exposure figures (`ppg reproduce`, docs/results.md) are scored under.
    pub const D943B3E: Browse = Browse::CascadeJudged {
        patience: DEFAULT_PATIENCE,
        utility: DEFAULT_PATIENCE,
    };

    /// The model itself when its parameters are in range.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for a patience outside `(0, 1]` or a utility outside
    /// `[0, 1]` (NaN included).
    pub fn checked(self) -> Result<Self, Error> {
        let patience_ok = |p: f64| p > 0.0 && p <= 1.0;
        match self {
            Browse::Log(_) => Ok(self),
            Browse::Rbp { patience } if patience_ok(patience) => Ok(self),
            Browse::CascadeJudged { patience, utility } | Browse::Cascade { patience, utility }
                if patience_ok(patience) && (0.0..=1.0).contains(&utility) =>
            {
                Ok(self)
            }
            Browse::Rbp { .. } => Err(Error::InvalidConfig("patience must be in (0, 1]")),
            Browse::CascadeJudged { patience, .. } | Browse::Cascade { patience, .. }
                if !patience_ok(patience) =>
            {
                Err(Error::InvalidConfig("patience must be in (0, 1]"))
            }
            Browse::CascadeJudged { .. } | Browse::Cascade { .. } => {
                Err(Error::InvalidConfig("cascade utility must be in [0, 1]"))
            }
        }
    }

    /// The exposure of 0-based position `i` (for [`Browse::Cascade`], in the ideal
    /// ranking of a list of `relevant` relevant items, which sit at the top: `k = min(i,
    /// relevant)`; the other models ignore `relevant`).
    pub fn ideal(self, i: usize, relevant: usize) -> f64 {
        match self {
            Browse::Cascade { patience, utility } => {
                pow(patience, i) * pow(1.0 - utility, i.min(relevant))
            }
            _ => self.at(i),
        }
    }

    /// The exposure of 0-based position `i`; for [`Browse::Cascade`] its
    /// positional part `patience^i` (the relevant stops above are the ranking's:
    /// [`Browse::relevant_stops`]).
    pub fn at(self, i: usize) -> f64 {
        match self {
            Browse::Log(start) => exposure::at(start, i),
            Browse::Rbp { patience } | Browse::Cascade { patience, .. } => pow(patience, i),
            // The evaluator multiplies the two powers; so does this, for the same rounding.
            Browse::CascadeJudged { patience, utility } => pow(patience, i) * pow(1.0 - utility, i),
        }
    }

    /// The factor each relevant item puts on every position below it: `1 - utility` for
    /// [`Browse::Cascade`], `None` for the positional models.
    pub fn relevant_stops(self) -> Option<f64> {
        match self {
            Browse::Cascade { utility, .. } => Some(1.0 - utility),
            _ => None,
        }
    }

    /// Fills `out[i]` with [`Browse::at`]`(i)`.
    ///
    /// # Errors
    /// As [`Browse::checked`]; `out` is then left as it was.
    pub fn fill(self, out: &mut [f64]) -> Result<(), Error> {
        let model = self.checked()?;
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = model.at(i);
        }
        Ok(())
    }

    /// The position weight the evaluator's upper normalisation bounds use: `patience^i`
    /// for both of its models (its "loose" bounds ignore the cascade's stops), the
    /// exposure itself for the log discount.
    pub fn upper(self, i: usize) -> f64 {
        match self {
            Browse::Log(start) => exposure::at(start, i),
            Browse::Rbp { patience }
            | Browse::CascadeJudged { patience, .. }
            | Browse::Cascade { patience, .. } => pow(patience, i),
        }
    }

    /// The position weight the evaluator's lower bounds (and the worst-case distance) use:
    /// `patience^i` for `rbp`, `(patience * utility)^i` for the cascade (the evaluator
    /// writes `p * u` there, not `p * (1 - u)`; the two agree at its default 0.5), the
    /// exposure itself for the log discount.
    pub fn lower(self, i: usize) -> f64 {
        match self {
            Browse::Log(start) => exposure::at(start, i),
            Browse::Rbp { patience } => pow(patience, i),
            Browse::CascadeJudged { patience, utility } | Browse::Cascade { patience, utility } => {
                pow(patience * utility, i)
            }
        }
    }

    /// `sum_{i < n} upper(i)`: the evaluator's geometric series `(1 - q^n) / (1 - q)` in
    /// closed form (`n` when `q = 1`), the plain sum for the log discount.
    pub(crate) fn upper_sum(self, n: usize) -> f64 {
        match self {
            Browse::Log(start) => (0..n).map(|i| exposure::at(start, i)).sum(),
            Browse::Rbp { patience }
            | Browse::CascadeJudged { patience, .. }
            | Browse::Cascade { patience, .. } => geometric(patience, n),
        }
    }

    /// `sum_{i < n} lower(i)`, as [`Browse::upper_sum`].
    pub(crate) fn lower_sum(self, n: usize) -> f64 {
        match self {
            Browse::Log(start) => (0..n).map(|i| exposure::at(start, i)).sum(),
            Browse::Rbp { patience } => geometric(patience, n),
            Browse::CascadeJudged { patience, utility } | Browse::Cascade { patience, utility } => {
                geometric(patience * utility, n)
            }
        }
    }
}

/// `sum_{i < n} q^i` as the evaluator writes it (`util.gp`).
fn geometric(q: f64, n: usize) -> f64 {
    if q == 1.0 {
        n as f64
    } else {
        (1.0 - pow(q, n)) / (1.0 - q)
    }
}

/// `base^i` by repeated squaring, without `libm::pow` and its tables (about 7 KB on a
/// Cortex-M4): the relative error grows with `i`, within `i` ulps of the evaluator's
/// `p**i` (6e-14 relative at position 271, TREC 2020's longest list; the TREC 2019 check of
/// tests/trec_metrics.rs moved by nothing).
fn pow(base: f64, i: usize) -> f64 {
    let (mut result, mut square, mut i) = (1.0, base, i);
    while i > 0 {
        if i & 1 == 1 {
            result *= square;
        }
        square *= square;
        i >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed() {
        let rbp = Browse::Rbp { patience: 0.5 };
        assert_eq!([rbp.at(0), rbp.at(1), rbp.at(3)], [1.0, 0.5, 0.125]);
        let judged = Browse::D943B3E;
        assert_eq!(
            [judged.at(0), judged.at(1), judged.at(2)],
            [1.0, 0.25, 0.0625]
        );
        assert_eq!(judged.upper(2), 0.25);
        assert_eq!(judged.lower(2), 0.0625);
        assert_eq!(judged.relevant_stops(), None);
        // The published cascade: p^i positionally, times 1 - u per relevant item above.
        let published = Browse::DEFAULT;
        assert_eq!([published.at(1), published.at(2)], [0.5, 0.25]);
        assert_eq!(
            [published.ideal(2, 1), published.ideal(2, 5)],
            [0.125, 0.0625]
        );
        assert_eq!(published.relevant_stops(), Some(0.5));
        assert_eq!([published.upper(2), published.lower(2)], [0.25, 0.0625]);
        let log = Browse::Log(RankStart::Zero);
        assert_eq!([log.at(0), log.at(2)], [1.0, 0.5]);
    }

    #[test]
    fn series_closed_form_equals_sum() {
        for model in [
            Browse::Rbp { patience: 0.3 },
            Browse::Rbp { patience: 1.0 },
            Browse::CascadeJudged {
                patience: 0.9,
                utility: 0.2,
            },
        ] {
            for n in [0, 1, 2, 7, 40] {
                let sum: f64 = (0..n).map(|i| model.upper(i)).sum();
                assert!((sum - model.upper_sum(n)).abs() < 1e-12, "{model:?} {n}");
                let sum: f64 = (0..n).map(|i| model.lower(i)).sum();
                assert!((sum - model.lower_sum(n)).abs() < 1e-12, "{model:?} {n}");
            }
        }
    }

    #[test]
    fn pow_by_squaring_is_close_to_libm() {
        for base in [0.0, 0.25, 0.5, 0.7, 0.999, 1.0] {
            for i in [0usize, 1, 2, 3, 7, 64, 1000, 65_535] {
                let want = libm::pow(base, i as f64);
                let ulps = (i as f64).max(1.0) * f64::EPSILON;
                assert!((pow(base, i) - want).abs() <= ulps * want, "{base}^{i}");
            }
        }
    }

    #[test]
    fn bad_parameters() {
        for p in [0.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
            assert!(Browse::Rbp { patience: p }.checked().is_err(), "{p}");
            let cascade = Browse::CascadeJudged {
                patience: p,
                utility: 0.5,
            };
            assert!(cascade.checked().is_err(), "{p}");
        }
        for u in [-0.1, 1.1, f64::NAN] {
            let cascade = Browse::CascadeJudged {
                patience: 0.5,
                utility: u,
            };
            assert!(cascade.checked().is_err(), "{u}");
        }
        assert!(Browse::Rbp { patience: 1.0 }.checked().is_ok());
        let mut out = [7.0; 3];
        assert!(Browse::Rbp { patience: 2.0 }.fill(&mut out).is_err());
        assert_eq!(out, [7.0; 3]);
    }
}
