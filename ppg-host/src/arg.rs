//! Values the front ends' command lines share (clap's `ValueEnum`): the `ppg` binary's
//! `rerank --mix-fairness` and the research harness's `reproduce --metric`, and
//! `--ee-measure` of both; and [`parse_f32`] for their single-precision numbers.

use clap::ValueEnum;
use ppg_core::objective::Measure;

/// A fairness metric.
// Doc comments on the variants would become `--help`'s text, which lists the names alone.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FairnessArg {
    Eel,
    Dtr,
    Ee,
    Awrf,
}

/// Which number of expected exposure `--metric ee` is (`--ee-measure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EeMeasureArg {
    /// EE-L, the loss against the target exposure (TREC 2020's score).
    Loss,
    /// EE-D, the disparity: the squared norm of the exposure (blind to relevance).
    Disparity,
    /// EE-R, the relevance: the exposure's agreement with the target (minimised as its
    /// distance below its upper bound).
    Relevance,
}

impl EeMeasureArg {
    /// The core's measure.
    pub fn measure(self) -> Measure {
        match self {
            EeMeasureArg::Loss => Measure::Loss,
            EeMeasureArg::Disparity => Measure::Disparity,
            EeMeasureArg::Relevance => Measure::Relevance,
        }
    }
}

/// Parses a number for an `f32` flag (`--lr`, `--initial-weight`): read as an `f64` first,
/// so that a finite number beyond `f32`'s range is said to be so, rather than becoming an
/// infinity that a later check calls "not finite". NaN and the infinities pass, for the
/// flag's own check to name.
///
/// # Errors
/// Not a number, or finite and beyond `f32::MAX` in size.
pub fn parse_f32(text: &str) -> Result<f32, String> {
    let x: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("\"{text}\" is not a number"))?;
    if x.is_finite() && x.abs() > f64::from(f32::MAX) {
        return Err(format!(
            "{text} is out of range for a single-precision float (at most {:e} in size)",
            f32::MAX
        ));
    }
    Ok(x as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_flags_are_checked_in_f64() {
        assert_eq!(parse_f32("0.4"), Ok(0.4));
        assert!(parse_f32("1e308").unwrap_err().contains("out of range"));
        assert!(parse_f32("-1e39").unwrap_err().contains("out of range"));
        assert!(parse_f32("inf").unwrap().is_infinite());
        assert!(parse_f32("lots").is_err());
    }
}
