//! Values the front ends' command lines share (clap's `ValueEnum`): the `ppg` binary's
//! `rerank --mix-fairness` and the research harness's `reproduce --metric`, and
//! `--ee-measure` of both.

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
