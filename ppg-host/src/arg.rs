//! Values the front ends' command lines share (clap's `ValueEnum`): the `ppg` binary's
//! `rerank --mix-fairness` and the research harness's `reproduce --metric`.

use clap::ValueEnum;

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
