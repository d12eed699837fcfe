//! clap over the core's names ([`ppg_core::names`], the one parser the CLI, Python and C
//! use): a flag's value parser that lists the core's names and hands them to the core, so
//! that `ppg rerank`, `ppg reproduce` and `ppg frontier` take the same names the same way.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use ppg_core::names::{self, Named};

/// The help of each expected exposure measure ([`ppg_core::objective::Measure`]), in the
/// table's order (`--ee-measure` of `ppg rerank` and `ppg reproduce`).
pub const MEASURE_HELP: &[&str] = &[
    "EE-L, the loss against the target exposure (TREC 2020's score)",
    "EE-D, the disparity: the squared norm of the exposure (blind to relevance)",
    "EE-R, the relevance: the exposure's agreement with the target (minimised as its \
     distance below its upper bound)",
];

/// A flag's parser of the core's names of `T`, each shown with its `help` (none when
/// `help` is empty): the core parses, clap lists the names and refuses others.
pub fn core_names<T: Named + Send + Sync>(
    help: &'static [&'static str],
) -> impl TypedValueParser<Value = T> {
    debug_assert!(
        help.is_empty() || help.len() == T::NAMES.len(),
        "{}",
        T::WHAT
    );
    let values = T::NAMES
        .iter()
        .enumerate()
        .map(move |(i, &name)| match help.get(i) {
            Some(&h) => PossibleValue::new(name).help(h),
            None => PossibleValue::new(name),
        });
    PossibleValuesParser::new(values)
        .map(|name| names::parse::<T>(&name).expect("clap passes only the core's names"))
}
