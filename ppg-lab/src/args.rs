//! The arguments of `ppg reproduce` and `ppg frontier` (clap derive), which the `ppg`
//! binary takes as its `reproduce` and `frontier` subcommands.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::names_arg::{core_names, MEASURE_HELP};
use ppg_core::names::Mixable;
use ppg_core::objective::Measure;
use ppg_host::progress::Show;

/// Where progress goes (`--progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    /// A bar when stderr is a terminal, else a plain line every 30 s.
    Auto,
    /// A plain line every 30 s, even on a terminal.
    Lines,
    /// Nothing.
    Never,
}

impl ProgressArg {
    /// The host's progress display.
    pub fn show(self) -> Show {
        match self {
            ProgressArg::Auto => Show::Auto,
            ProgressArg::Lines => Show::Lines,
            ProgressArg::Never => Show::Never,
        }
    }
}

/// Which column of the protocol's data the optimisers see as utility.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum)]
pub enum DataUtility {
    /// True relevance labels (the paper's Table 2).
    Label,
    /// The LTR model's grades (the paper's Table 1).
    Ltr,
}

impl DataUtility {
    /// The name `--utility` takes.
    pub fn name(self) -> &'static str {
        match self {
            DataUtility::Label => "label",
            DataUtility::Ltr => "ltr",
        }
    }

    /// The same column as the host's protocol names it.
    pub fn protocol(self) -> ppg_host::protocol::Utility {
        match self {
            DataUtility::Label => ppg_host::protocol::Utility::Label,
            DataUtility::Ltr => ppg_host::protocol::Utility::Ltr,
        }
    }
}

/// How `reproduce` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
}

const REPRODUCE_HELP: &str = "\
DATA
  --data FILE: tab-separated with header `qid group label ltr_grade` (the protocol's
  TREC files). Without --data, a built-in data set generated in code (50 queries of
  5-30 items, two groups, binary labels and correlated LTR grades; --data-seed).

METHODS (rows)
  ppg, ppg-intra    PPG without / with the intra-group constraint
  pl                Plackett-Luce REINFORCE (logits = the utility; output = one
                    draw of S sessions from the trained policy)
  rand              uniform random permutation per session
  ltr, ideal        the input ranking by ltr_grade / by label (deterministic)
  foe-soft, foe-hard  FOE linear programme (DTR only; EEL prints -)
  PPG variants compose suffixes: ppg[-intra][-exact][-corrected][-baseline][-scored]
  [-grow][-held] (exact gradient, corrected sampler, batch-mean baseline, input scored
  first, grown over sessions, intra-group order held for the first part of each run).

PROTOCOL
  Optimisation uses the chosen utility (EEL with 5 levels, exposure from r = 1);
  evaluation the true labels (EEL 2 levels), NDCG@10 averaged over sessions then
  queries, valid queries only (DTR: both groups with a nonzero label sum; EEL: both
  groups present); everything averaged over --runs runs. PPG's learning rate is the
  reference drivers' (0.4 with LTR grades, 0.01 with true labels) unless --lr is given. `seconds` is the wall-clock
  time of a cell (all its runs, all threads).

--all
  Runs TREC 2019 and 2020 from --data-dir (every method, both utilities and metrics,
  --sessions) and the session sweep, and writes results.md and the figures into --out.";

/// The arguments of `ppg reproduce`.
#[derive(Debug, Args)]
#[command(after_long_help = REPRODUCE_HELP)]
pub struct ReproduceArgs {
    /// Protocol data file [default: the built-in data set].
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Seed of the built-in data set.
    #[arg(long, default_value_t = 2022)]
    pub data_seed: u64,
    /// Utilities the optimisers see.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "label,ltr")]
    pub utility: Vec<DataUtility>,
    /// Fairness metrics.
    #[arg(long, value_parser = core_names::<Mixable>(&[]), value_delimiter = ',', default_value = "dtr,eel")]
    pub metric: Vec<Mixable>,
    /// The number --metric ee optimises and reports (EE-L is TREC 2020's score).
    #[arg(long, value_parser = core_names::<Measure>(MEASURE_HELP), default_value = "loss")]
    pub ee_measure: Measure,
    /// --metric ee raw rather than normalised per query (TREC 2020 normalised).
    #[arg(long)]
    pub ee_raw: bool,
    /// Sessions per query.
    #[arg(long, default_value_t = 4)]
    pub sessions: usize,
    /// Methods (rows), comma-separated [default: all, see --help].
    #[arg(long, value_delimiter = ',')]
    pub method: Vec<String>,
    /// Runs to average.
    #[arg(long, default_value_t = 2)]
    pub runs: usize,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// PPG learning rate [default: as the reference drivers, 0.4 with LTR grades, 0.01
    /// with true labels].
    #[arg(long)]
    pub lr: Option<f32>,
    /// Epochs at most (PPG and PL).
    #[arg(long, default_value_t = 50)]
    pub epochs: u32,
    /// PPG's initial pair weight.
    #[arg(long, default_value_t = 0.5)]
    pub initial_weight: f32,
    /// PL's Adam learning rate [default: the reference drivers' rate, as for PPG: 0.4 with
    /// LTR grades, 0.01 with true labels].
    #[arg(long)]
    pub pl_lr: Option<f32>,
    /// Worker threads (0: one per core; more than the cores are capped to them).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Run the full reproduction and write results.md and figures.
    #[arg(long, conflicts_with_all = ["data", "format"])]
    pub all: bool,
    /// Folder of trec2019.tsv and trec2020.tsv for --all [default: $PPG_DATA_DIR, else ../shared/data].
    #[arg(long, requires = "all")]
    pub data_dir: Option<PathBuf>,
    /// Folder --all writes into.
    #[arg(long, default_value = "docs", requires = "all")]
    pub out: PathBuf,
    /// Session counts of the sweep in --all.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,2,4,8,16,32",
        requires = "all"
    )]
    pub sweep: Vec<usize>,
    /// Runs per point of the sweep in --all.
    #[arg(long, default_value_t = 1, requires = "all")]
    pub sweep_runs: usize,
}

/// How `frontier` prints its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FrontierFormat {
    /// Tab-separated with a header (`frontier::tsv`).
    Tsv,
    /// One JSON object (`frontier::json`).
    Json,
}

/// The arguments of `ppg frontier`.
#[derive(Debug, Args)]
pub struct FrontierArgs {
    /// Protocol data file (header `qid group label ltr_grade`, as `ppg reproduce --data`).
    pub data: PathBuf,
    /// Fairness metric: dtr or eel (two groups).
    #[arg(long, value_parser = core_names::<Mixable>(&[]), default_value = "dtr")]
    pub metric: Mixable,
    /// Sessions per query: fairness is scored on their mean exposure (exact NDCG at 1; at more, the best found and a bound).
    #[arg(long, default_value_t = 1)]
    pub sessions: usize,
    /// Fairness levels from the optimum (first) to the input's own (last), at least 2.
    #[arg(long, default_value_t = 20)]
    pub levels: usize,
    /// NDCG cut-off.
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    /// The utility the default recipe's marker optimises.
    #[arg(long, value_enum, default_value_t = DataUtility::Label)]
    pub utility: DataUtility,
    /// Seed of the recipe's marker.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Nodes of the walk per query and level before it settles for the best found (the
    /// core's default budget is 200000; long lists need more to be exact).
    #[arg(long, default_value_t = 20_000_000)]
    pub budget: u64,
    /// Table format on standard output.
    #[arg(long, value_enum, default_value_t = FrontierFormat::Tsv)]
    pub format: FrontierFormat,
    /// Also draw the plot into PREFIX.svg and PREFIX.png.
    #[arg(long, value_name = "PREFIX")]
    pub plot: Option<PathBuf>,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}
