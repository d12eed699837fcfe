//! The names the front ends give the core's choices (`ppg rerank`'s flag values, Python's
//! string arguments), and their parameters checked, in one place: a front end parses a name
//! here and adds only the flag or argument it came from to the message. A new metric or
//! browsing model is a line in a table below.
//!
//! Every table lists its names in the order the front ends show them (`ppg rerank --help`
//! lists them so). The C door takes numbers, not names: its enums map to these types.

use core::fmt;
use core::str::FromStr;

use crate::objective::{Browse, Level, Measure, RankStart};
use crate::recipe::Metric;
use crate::{Gradient, SamplerMode};

/// Why a name or a named choice's parameter was refused: the one error of this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameError {
    /// The name is none of `expected`.
    Unknown {
        /// What was named ("metric", "browsing model").
        what: &'static str,
        /// The names there are.
        expected: &'static [&'static str],
    },
    /// A parameter of the named choice is out of its range.
    Parameter {
        /// Which parameter: the front end names its flag or argument.
        parameter: Parameter,
        /// The rule it broke ("must be at least 1").
        why: &'static str,
    },
}

/// A parameter of a named choice that [`NameError::Parameter`] can refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parameter {
    /// A browsing model's patience ([`Browse::Rbp`] and the cascades).
    Patience,
    /// A cascade's stop probability after a relevant item (a judged one under
    /// [`Browse::CascadeJudged`]).
    CascadeUtility,
    /// The weight of `1 - NDCG@k` in [`MetricChoice::NdcgMix`].
    MixWeight,
    /// The cut-off `k` of NDCG@k in [`MetricChoice::NdcgMix`].
    NdcgK,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::Unknown { what, expected } => {
                write!(f, "unknown {what} (expected ")?;
                for (i, name) in expected.iter().enumerate() {
                    let sep = match i {
                        0 => "",
                        _ if i + 1 == expected.len() => " or ",
                        _ => ", ",
                    };
                    write!(f, "{sep}{name:?}")?;
                }
                f.write_str(")")
            }
            NameError::Parameter { why, .. } => f.write_str(why),
        }
    }
}

/// A choice with names: its table.
pub trait Named: Copy + PartialEq + 'static {
    /// What the choice is, for messages.
    const WHAT: &'static str;
    /// The names, in the front ends' order.
    const NAMES: &'static [&'static str];
    /// The values, one per name.
    const VALUES: &'static [Self];

    /// The name of `self`.
    fn name(self) -> &'static str {
        // `named!` builds the two lists in pairs and every table lists every value (a test
        // holds both), so the empty name is never given.
        let mut pairs = Self::VALUES.iter().zip(Self::NAMES);
        pairs
            .find(|(&v, _)| v == self)
            .map_or("", |(_, &name)| name)
    }
}

/// The value named `name`.
///
/// # Errors
/// [`NameError::Unknown`] for a name not in `T`'s table.
pub fn parse<T: Named>(name: &str) -> Result<T, NameError> {
    T::NAMES
        .iter()
        .position(|&n| n == name)
        .map(|i| T::VALUES[i])
        .ok_or(NameError::Unknown {
            what: T::WHAT,
            expected: T::NAMES,
        })
}

/// A table, and `FromStr` over it.
macro_rules! named {
    ($ty:ty, $what:literal, [$($name:literal => $value:expr),+ $(,)?]) => {
        impl Named for $ty {
            const WHAT: &'static str = $what;
            const NAMES: &'static [&'static str] = &[$($name),+];
            const VALUES: &'static [Self] = &[$($value),+];
        }

        impl FromStr for $ty {
            type Err = NameError;

            fn from_str(name: &str) -> Result<Self, NameError> {
                parse(name)
            }
        }
    };
}

/// What a front end's metric argument names: a fairness metric alone, or one mixed with
/// NDCG ([`MetricChoice::cost`] takes the mix's parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricChoice {
    /// The metric alone.
    Fairness(Metric),
    /// A [`Mixable`] metric plus a weight times `1 - NDCG@k`.
    NdcgMix,
}

/// A fairness metric that can be mixed with NDCG (`--mix-fairness`, Python's
/// `mix_fairness`): every metric but AWRF 2022, whose attributes are side data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mixable(pub Metric);

/// The name of a browsing model ([`BrowseName::with`] takes its parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowseName {
    /// [`Browse::Cascade`].
    Cascade,
    /// [`Browse::Rbp`].
    Rbp,
    /// [`Browse::Log`].
    Log,
    /// [`Browse::CascadeJudged`].
    CascadeJudged,
}

named!(Metric, "metric", [
    "eel" => Metric::Eel,
    "dtr" => Metric::Dtr,
    "ee" => Metric::Ee,
    "awrf" => Metric::Awrf,
    "awrf2022" => Metric::Awrf2022,
]);
named!(MetricChoice, "metric", [
    "eel" => MetricChoice::Fairness(Metric::Eel),
    "dtr" => MetricChoice::Fairness(Metric::Dtr),
    "ee" => MetricChoice::Fairness(Metric::Ee),
    "awrf" => MetricChoice::Fairness(Metric::Awrf),
    "awrf2022" => MetricChoice::Fairness(Metric::Awrf2022),
    "ndcg-mix" => MetricChoice::NdcgMix,
]);
named!(Mixable, "fairness metric", [
    "eel" => Mixable(Metric::Eel),
    "dtr" => Mixable(Metric::Dtr),
    "ee" => Mixable(Metric::Ee),
    "awrf" => Mixable(Metric::Awrf),
]);
named!(BrowseName, "browsing model", [
    "cascade" => BrowseName::Cascade,
    "rbp" => BrowseName::Rbp,
    "log" => BrowseName::Log,
    "cascade-judged" => BrowseName::CascadeJudged,
]);
named!(Level, "level", ["group" => Level::Group, "item" => Level::Item]);
named!(Measure, "measure", [
    "loss" => Measure::Loss,
    "disparity" => Measure::Disparity,
    "relevance" => Measure::Relevance,
]);
named!(RankStart, "rank start", ["one" => RankStart::One, "zero" => RankStart::Zero]);
named!(SamplerMode, "sampler", [
    "corrected" => SamplerMode::Corrected,
    "uncorrected" => SamplerMode::Uncorrected,
]);
named!(Gradient, "gradient", [
    "approximate" => Gradient::Approximate,
    "exact" => Gradient::Exact,
]);

impl Metric {
    /// The metric's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        Named::name(self)
    }
}

impl MetricChoice {
    /// The metric and the NDCG part of [`crate::recipe::CostSpec::new`]: `mix` with
    /// `(weight, k)` for [`MetricChoice::NdcgMix`] (the two checked), the metric alone
    /// otherwise (`mix`, `weight` and `k` unread).
    ///
    /// # Errors
    /// [`NameError::Parameter`] for a weight that is not finite and non-negative, or a `k`
    /// of 0 (the weight first).
    pub fn cost(
        self,
        mix: Mixable,
        weight: f64,
        k: usize,
    ) -> Result<(Metric, Option<(f64, usize)>), NameError> {
        match self {
            MetricChoice::Fairness(metric) => Ok((metric, None)),
            MetricChoice::NdcgMix if !(weight.is_finite() && weight >= 0.0) => {
                Err(NameError::Parameter {
                    parameter: Parameter::MixWeight,
                    why: "must be finite and non-negative",
                })
            }
            MetricChoice::NdcgMix if k == 0 => Err(NameError::Parameter {
                parameter: Parameter::NdcgK,
                why: "must be at least 1",
            }),
            MetricChoice::NdcgMix => Ok((mix.0, Some((weight, k)))),
        }
    }
}

impl BrowseName {
    /// The model with its parameters, checked as [`Browse::checked`] checks them: `patience`
    /// for every model but the log discount, `utility` for the cascades, `start` for the
    /// log discount.
    ///
    /// # Errors
    /// [`NameError::Parameter`] naming the parameter out of range (the patience first).
    pub fn with(self, patience: f64, utility: f64, start: RankStart) -> Result<Browse, NameError> {
        let model = match self {
            BrowseName::Cascade => Browse::Cascade { patience, utility },
            BrowseName::Rbp => Browse::Rbp { patience },
            BrowseName::Log => Browse::Log(start),
            BrowseName::CascadeJudged => Browse::CascadeJudged { patience, utility },
        };
        model.checked().map_err(|e| {
            // The patience alone first, so that the error names the parameter out of range.
            let parameter = match (Browse::Rbp { patience }).checked() {
                Ok(_) => Parameter::CascadeUtility,
                Err(_) => Parameter::Patience,
            };
            let why = match e {
                crate::Error::InvalidConfig(why) => why,
                _ => "out of range",
            };
            NameError::Parameter { parameter, why }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Named + FromStr<Err = NameError> + core::fmt::Debug>() {
        assert_eq!(T::NAMES.len(), T::VALUES.len(), "{}", T::WHAT);
        for (&name, &value) in T::NAMES.iter().zip(T::VALUES) {
            assert_eq!(name.parse::<T>(), Ok(value));
            assert_eq!(value.name(), name);
        }
        assert_eq!(
            "no-such-name".parse::<T>(),
            Err(NameError::Unknown {
                what: T::WHAT,
                expected: T::NAMES
            })
        );
    }

    #[test]
    fn every_table_parses_its_names_back_and_refuses_others() {
        round_trip::<Metric>();
        round_trip::<MetricChoice>();
        round_trip::<Mixable>();
        round_trip::<BrowseName>();
        round_trip::<Level>();
        round_trip::<Measure>();
        round_trip::<RankStart>();
        round_trip::<SamplerMode>();
        round_trip::<Gradient>();
        // Names are exact: no case folding, no trimming.
        assert!("EEL".parse::<Metric>().is_err());
        assert!(" eel".parse::<Metric>().is_err());
    }

    #[test]
    fn every_metric_has_a_name_and_the_mixable_ones_are_all_but_awrf2022() {
        for m in [
            Metric::Dtr,
            Metric::Eel,
            Metric::Ee,
            Metric::Awrf,
            Metric::Awrf2022,
        ] {
            assert_eq!(m.name().parse::<Metric>(), Ok(m));
            let choice = m.name().parse::<MetricChoice>();
            assert_eq!(choice, Ok(MetricChoice::Fairness(m)));
            assert_eq!(m.name().parse::<Mixable>().is_ok(), m != Metric::Awrf2022);
        }
    }

    #[test]
    fn the_message_lists_every_name() {
        let mut text = heapless::String::<160>::new();
        let e = "x".parse::<BrowseName>().unwrap_err();
        core::fmt::write(&mut text, format_args!("{e}")).unwrap();
        assert_eq!(
            text.as_str(),
            "unknown browsing model (expected \"cascade\", \"rbp\", \"log\" or \
             \"cascade-judged\")"
        );
    }

    #[test]
    fn the_mix_checks_its_weight_then_its_k() {
        let eel = Mixable(Metric::Eel);
        let mix = MetricChoice::NdcgMix;
        assert_eq!(mix.cost(eel, 0.5, 10), Ok((Metric::Eel, Some((0.5, 10)))));
        for weight in [-0.1, f64::NAN, f64::INFINITY] {
            let e = mix.cost(eel, weight, 0).unwrap_err();
            assert!(matches!(
                e,
                NameError::Parameter {
                    parameter: Parameter::MixWeight,
                    ..
                }
            ));
        }
        let e = mix.cost(eel, 1.0, 0).unwrap_err();
        assert!(matches!(
            e,
            NameError::Parameter {
                parameter: Parameter::NdcgK,
                ..
            }
        ));
        // A metric alone reads none of the mix's parameters.
        let dtr = MetricChoice::Fairness(Metric::Dtr);
        assert_eq!(dtr.cost(eel, f64::NAN, 0), Ok((Metric::Dtr, None)));
    }

    #[test]
    fn a_browsing_model_names_the_parameter_out_of_range() {
        let start = RankStart::One;
        assert_eq!(
            BrowseName::Cascade.with(0.5, 0.25, start),
            Ok(Browse::Cascade {
                patience: 0.5,
                utility: 0.25
            })
        );
        assert_eq!(
            BrowseName::Log.with(f64::NAN, 9.0, start),
            Ok(Browse::Log(start))
        );
        let refused = |name: BrowseName, p: f64, u: f64| match name.with(p, u, start) {
            Err(NameError::Parameter { parameter, .. }) => Some(parameter),
            _ => None,
        };
        for name in [BrowseName::Cascade, BrowseName::CascadeJudged] {
            assert_eq!(refused(name, 0.0, 2.0), Some(Parameter::Patience));
            assert_eq!(refused(name, 1.0, 2.0), Some(Parameter::CascadeUtility));
            assert_eq!(
                refused(name, 1.0, f64::NAN),
                Some(Parameter::CascadeUtility)
            );
        }
        assert_eq!(
            refused(BrowseName::Rbp, 1.5, 2.0),
            Some(Parameter::Patience)
        );
        assert_eq!(refused(BrowseName::Rbp, 1.0, 2.0), None);
    }
}
