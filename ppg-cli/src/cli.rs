//! Command-line arguments (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use ppg_core::names::{BrowseName, MetricChoice, Mixable};
use ppg_core::objective::{Level, Measure, RankStart};
use ppg_core::{Gradient, SamplerMode};

use ppg_host::trec_run::RunFormat;
use ppg_lab::names_arg::core_names;
pub use ppg_lab::ProgressArg;
pub use ppg_lab::{FrontierArgs, ReproduceArgs};

/// Fair re-ranking by Probabilistic Permutation Graph (PPG) search.
#[derive(Debug, Parser)]
#[command(name = "ppg", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Re-rank ranked lists for group fairness (one PPG per query).
    Rerank(RerankArgs),
    /// Run the paper's experimental protocol and print its tables.
    Reproduce(ReproduceArgs),
    /// What fairness costs in relevance: the best mean NDCG@k at each fairness level, its
    /// bound, the input ranking and the default recipe (table and plot).
    Frontier(FrontierArgs),
}

/// The help of each of the core's names ([`ppg_core::names`]) a flag takes, in the
/// table's order: adding a name to the core adds a line here (a test holds the lengths).
mod value_help {
    /// `--metric` ([`MetricChoice`](ppg_core::names::MetricChoice)).
    pub const METRIC: &[&str] = &[
        "Expected exposure loss of the groups",
        "Disparity of treatment ratio (up to 16 groups; the paper's on two)",
        "Expected exposure as TREC Fair Ranking 2020 scored it: --ee-measure (normalised EE-L \
         by default) under --browse at --ee-level",
        "1 - AWRF x NDCG as TREC Fair Ranking 2021 scored a ranking",
        "1 - AWRF x NDCG as TREC Fair Ranking 2022 scored a ranking: soft attributes with \
         unknowns, from --attributes",
        "A fairness metric (--mix-fairness) plus --mix-weight x (1 - NDCG@k)",
    ];
    /// `--mix-fairness`: the names alone.
    pub const MIXABLE: &[&str] = &[];
    /// `--browse`.
    pub const BROWSE: &[&str] = &[
        "The published cascade (Diaz et al.): patience^i x (1 - utility)^k, k the relevant \
         items above",
        "Rank-biased precision: patience^i",
        "The paper's log discount (--rank-start)",
        "The cascade of diazf/expeval at d943b3e, where every judged (listed) item counts: \
         (patience x (1 - utility))^i; ppg's published TREC figures use it",
    ];
    /// `--ee-level`.
    pub const LEVEL: &[&str] = &["Groups (TREC 2020's setting)", "Individual items"];
    /// `--ee-measure`.
    pub use ppg_lab::names_arg::MEASURE_HELP as MEASURE;
    /// `--sampler`.
    pub const SAMPLER: &[&str] = &[
        "The paper's Eq. 9 correction w / (1 - q)",
        "The reference code's plain w",
    ];
    /// `--gradient`.
    pub const GRADIENT: &[&str] = &[
        "The paper's Eq. 8, pairs treated as independent",
        "The exact gradient of the sampler's log-probability",
    ];
    /// `--rank-start`.
    pub const RANK_START: &[&str] = &[
        "r = 1, 2, ...: the paper's reference code (top position 0.631)",
        "r = 0, 1, ...: the usual DCG discount (top position 1)",
    ];
}

/// How `rerank` finds each query's rankings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RerankMethodArg {
    /// PPG search with the recommended recipe (see RECIPE in --help).
    Ppg,
    /// The exact optimum's rankings (DTR or EEL alone, two groups; see METHODS in --help).
    Exact,
}

/// Which column of a `rerank` input is the items' utility (merit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UtilityArg {
    Label,
    Score,
}

const RERANK_HELP: &str = "\
INPUT FORMAT
  Tab-separated, first line a header (a UTF-8 byte-order mark before it is accepted).
  Columns are found by name, in any order; other columns are ignored:
    qid     query id; the rows of a query are contiguous (a query whose rows are
            interrupted by another query's is refused as split, naming both parts' lines;
            found at its row when fewer than 65,536 queries came between the parts, else
            when the input ends, before the output file is committed)
    item    item id, unique within its query
    score   the ranker's score, a number; the input ranking of a query is its rows by
            score, descending (ties: the later row first)
    group   fairness group name (two at most for DTR, 16 for EEL)
    label   optional relevance label (non-negative number)
  The utility the fairness metrics use is `label` when the column exists, `score`
  otherwise (--utility overrides). Utilities must be >= 0 (DTR and NDCG need it, and
  EEL would grade every negative one as 0); NDCG (--metric ndcg-mix) needs them below
  1024, as its gain 2^u - 1 must be finite; DTR needs each group's utility, summed
  over the sessions, within the double range.
  Ids (qid, item, group) are kept byte for byte: nothing is trimmed, so the output
  gives each id back as the input had it. Header names and numbers may have ASCII
  spaces around them; a line ends at \\n or \\r\\n; blank lines are skipped; a header
  without rows is an input of no queries (the output is its header). Refused with
  file:line (exit 2): a row with fewer or more fields than the header, an empty qid
  or item (or one of only whitespace), a NUL byte in a field, text that is not UTF-8,
  a score or label that is not a finite number, a line longer than 1/64 of --memory
  (at least 1 MiB: see MEMORY). A field quoted in a message is cut
  after 60 characters. A query of one item is passed through unchanged (counted as
  skipped), and so is a query without an item of utility > 0 under --metric awrf or
  --metric ee at group level (their evaluators skip such a query: it keeps its input
  ranking by score, --report leaves its costs empty, and ppg.rerank and the C API's
  ppg_engine_rerank return it the same way).

INPUT AND OUTPUT
  The input is read and written query by query: memory stays flat whatever the number
  of queries. `-` is stdin (input) or stdout (-o -); a name ending in .gz is read or
  written gzip-compressed. -o FILE is replaced whole or not at all (written beside its
  name under .ppg-output.XXXXXXXXXXXX.tmp and renamed), keeps its mode, and is refused
  when read-only unless --force; a symlink is followed; a device, FIFO or socket is
  written to directly; a folder is refused. The output is never the input, compared by
  device and inode, stdin and stdout included (exit 2). --report FILE follows the same
  rules (--force included), and -o and --report are never one place: compared by what
  they are (device and inode; for a new name, its folder's and the name), so `-o x.tsv
  --report ./x.tsv`, a symlink to the other, or `--report -` beside rankings on stdout
  are refused (exit 2). Two files are renamed only once both are written, and the
  first is taken back if the second cannot be: a failed run leaves both as they were
  (rows on stdout or a device are written as they come). SIGINT, SIGTERM and SIGHUP
  remove the temporary files and exit 128 + the signal; a run also removes what a
  killed run left. A summary line ends the run on stderr: queries, items, skipped,
  seconds.

MEMORY
  --memory is the budget of the whole process: each query's engine takes its bytes
  from it while the query runs, threads wait when it is spent, and a query whose
  engine alone exceeds it is refused with the figures (exit 1). A line is held whole
  while it is read: one longer than 1/64 of the budget (at least 1 MiB) is refused at
  its number before more of it is read (exit 2). Default: a quarter of physical
  memory or of the cgroup's limit, whichever is smaller; more than either is refused
  (exit 1). TMPDIR holds the check of split queries (.ppg-rerank.XXXXXXXXXXXX/): it
  is tried at the start, and a missing, read-only or full one is an error (exit 1).

OUTPUT FORMAT
  Tab-separated with header `qid session rank item`: for every query (in input order),
  sessions 1..S, each a full ranking of the query's items, ranks from 1.
  --run-format writes a TREC Fair Ranking run file instead, for that track's evaluator:
    trec2020      `qid sample docno rank sim run_id`, no header, a block per session
                  (sample Q0, Q1, ...; sim n - rank + 1): diazf/expeval's `expeval.py
                  -I`, TREC 2019 and 2020 (expected exposure); --run-id names the run
    trec2022      header `id page_id`, one ranking per topic in line order (one
                  session only): TREC 2022 task 1 (fair-trec/trec2022-fair-public)
    trec2022-seq  header `id seq_no page_id`, seq_no the session from 1: TREC 2022
                  task 2
  An id that evaluator would misread is refused at its line (exit 2): whitespace in
  trec2020, anything but digits in the 2022 formats.

RECIPE
  By default PPG runs the paper's reference hyper-parameters (50 epochs of 16 samples,
  learning rate 0.4, patience 20, uncorrected sampler, approximate gradient) but scores
  the input ranking first, so the output is never worse than the input on the metric.
  With more than one session it is grown over sessions: the same run at 1 session,
  then at each larger count (1, 2, 4, 8 for --sessions 8; 1, 3, 6, 12 for 12), keeping
  at each count the better of its best and the previous count's best copied into every
  session. The paper's single run falls away from the optimum as sessions grow (TREC
  2020, true labels, DTR with --intra: 1.817 at 4 sessions, 2.116 at 32; grown, 1.810
  at both, the exact optimum); grown, the result is never worse than at half the
  sessions on every metric (they all average over sessions; where certified, within
  --certify), and with --intra never worse than the single run, for about twice the
  training. --no-grow is the single run.
  Without --intra, each run first keeps the order within each group, then frees it and
  trains again from the best ranking found, at every count of a grown run (the free
  run starting from the previous count's answer copied when that is better): with
  every pair free from the start the search stops far from the optimum on long lists
  (TREC 2020, true labels, DTR: 1.858 against the optimum's 1.810; held first, 1.810
  at every number of sessions; --metric ee, EE-L 0.049 at 1 session, 0.004 at 4 and
  at 32), for about twice the training again. --no-hold trains with every pair free
  from the start.
  Every run stops as soon as its best cost is within --certify (default 1e-8) of the
  cost's lower bound at its number of sessions, where the cost has one (DTR alone, EEL
  alone: the exact optimum over two groups; EE-L alone, --metric ee, and AWRF alone,
  --metric awrf: a looser proven bound, see docs/metrics.md): in every stage of a grown
  run and both parts of a held one. Such a query is certified; its gap is its cost
  minus the bound. --report writes each query's costs, bound and certificate; the
  summary line on stderr counts the certified queries and gives the largest gap.
  --no-certify trains on until patience runs out.
  --reference-run is exactly the paper's recipe (the input is not scored, no growing,
  no holding, no certificate).

METHODS
  --method ppg (default) is PPG search with the recipe above. --method exact returns
  the exact optimum's rankings (two-group DTR or EEL alone, no NDCG mix): the cost's
  minimum over every S-tuple of rankings, found by a search over how often group 0
  holds each position, with the items of a group in order of utility, so it takes
  neither --intra nor --metric ee, awrf or ndcg-mix (exit 2). It is deterministic,
  needs no seed, and is certified unless its search gives up at its node budget (then
  its best rankings, uncertified). A query with one group keeps its input ranking under
  either method.

  Queries run in parallel (--threads); each query's seed is derived from --seed and its
  index, so the output is the same whatever the thread count. Output is in input order.

EXIT STATUS
  0 success, 2 bad input or usage (the message names file and line; no output file is
  left behind), 1 other failures (environment, memory, writing), 128 + N stopped by
  signal N.";

#[derive(Debug, Args)]
#[command(after_long_help = RERANK_HELP)]
pub struct RerankArgs {
    /// Ranked lists, tab-separated (see --help for the format); `-` is stdin, `.gz` is
    /// decompressed.
    pub input: PathBuf,
    /// Write the re-ranked lists here instead of stdout (a file atomically: whole or not at
    /// all, its mode kept; a device or FIFO directly; `.gz` is compressed).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Replace a read-only output or report file (its mode is kept).
    #[arg(long)]
    pub force: bool,
    /// What to minimise.
    #[arg(long, value_parser = core_names::<MetricChoice>(value_help::METRIC), default_value = "eel")]
    pub metric: MetricChoice,
    /// Fairness part of --metric ndcg-mix.
    #[arg(long, value_parser = core_names::<Mixable>(value_help::MIXABLE), default_value = "eel")]
    pub mix_fairness: Mixable,
    /// Weight of 1 - NDCG@k in --metric ndcg-mix.
    #[arg(long, default_value_t = 1.0)]
    pub mix_weight: f64,
    /// Cut-off k of NDCG@k in --metric ndcg-mix and in --report's relevance certificate.
    #[arg(long, default_value_t = 10)]
    pub ndcg_k: usize,
    /// Groups of AWRF's population (--metric awrf, --mix-fairness awrf): the target is
    /// uniform over this many, as TREC 2021's was over every region whether a query held
    /// it or not [default: the groups of the whole input, counted in a first pass over a
    /// file; required when the input is not a regular file]
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=16))]
    pub awrf_groups: Option<u8>,
    /// Positions of each session AWRF scores (--metric awrf, --mix-fairness awrf): TREC
    /// 2021 scored ranks 1-20 (`--awrf-depth 20`); NDCG's ideal stays the whole list's
    /// [default: the whole list]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65_535))]
    pub awrf_depth: Option<u32>,
    /// The items' attributes for --metric awrf2022: a file of `item attribute level
    /// weight` lines (level `@UNKNOWN`: unknown mass; an item missing from an attribute is
    /// unknown in it, one missing from the file is dropped with its attention)
    #[arg(long, value_name = "FILE")]
    pub attributes: Option<PathBuf>,
    /// Backgrounds of --metric awrf2022's target: `attribute level weight` lines; the
    /// target is the relevant items' mean alignment averaged 50/50 with them, as TREC 2022
    /// built it [default: no background]
    #[arg(long, value_name = "FILE", conflicts_with = "attribute_target")]
    pub attribute_background: Option<PathBuf>,
    /// A given target for --metric awrf2022: `attribute level weight` lines, a marginal
    /// for every attribute; the joint target is their product
    #[arg(long, value_name = "FILE")]
    pub attribute_target: Option<PathBuf>,
    /// An attribute's unknown policy for --metric awrf2022, NAME=level|drop|uniform
    /// (repeatable): level keeps unknown as a level of its own (TREC 2022), drop leaves it
    /// out (TREC 2021), uniform spreads it over the known levels [default: level]
    #[arg(long, value_name = "NAME=POLICY")]
    pub attribute_unknown: Vec<String>,
    /// Browsing model of --metric ee.
    #[arg(long, value_parser = core_names::<BrowseName>(value_help::BROWSE), default_value = "cascade")]
    pub browse: BrowseName,
    /// Patience of --browse cascade, cascade-judged and rbp, in (0, 1].
    #[arg(long, default_value_t = 0.5)]
    pub browse_patience: f64,
    /// Stop probability after a relevant item of --browse cascade (a judged item of
    /// cascade-judged), in [0, 1].
    #[arg(long, default_value_t = 0.5)]
    pub cascade_utility: f64,
    /// Level of --metric ee.
    #[arg(long, value_parser = core_names::<Level>(value_help::LEVEL), default_value = "group")]
    pub ee_level: Level,
    /// Number of --metric ee to minimise (relevance: its distance below its upper bound).
    #[arg(long, value_parser = core_names::<Measure>(value_help::MEASURE), default_value = "loss")]
    pub ee_measure: Measure,
    /// Minimise --ee-measure raw rather than normalised per query (TREC 2020 normalised).
    #[arg(long)]
    pub ee_raw: bool,
    /// Column used as utility [default: label if present, else score].
    #[arg(long, value_enum)]
    pub utility: Option<UtilityArg>,
    /// Sessions per query: S rankings whose expected fairness is optimised together.
    #[arg(long, default_value_t = 1)]
    pub sessions: usize,
    /// Keep the input order within each group (the paper's intra-group constraint).
    #[arg(long)]
    pub intra: bool,
    /// Weight (inversion probability) every unconstrained pair starts from.
    #[arg(long, default_value_t = 0.5, value_parser = ppg_host::arg::parse_f32)]
    pub initial_weight: f32,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Training epochs at most.
    #[arg(long, default_value_t = 50, conflicts_with = "reference_run")]
    pub epochs: u32,
    /// Learning rate.
    #[arg(long, default_value_t = 0.4, conflicts_with = "reference_run", value_parser = ppg_host::arg::parse_f32)]
    pub lr: f32,
    /// Samples per epoch.
    #[arg(long, default_value_t = 16, conflicts_with = "reference_run")]
    pub batch: usize,
    /// Stop after this many epochs without a new best (0: never).
    #[arg(long, default_value_t = 20, conflicts_with = "reference_run")]
    pub patience: u32,
    /// Sampler variant.
    #[arg(long, value_parser = core_names::<SamplerMode>(value_help::SAMPLER), default_value = "uncorrected", conflicts_with = "reference_run")]
    pub sampler: SamplerMode,
    /// Gradient estimate.
    #[arg(long, value_parser = core_names::<Gradient>(value_help::GRADIENT), default_value = "approximate", conflicts_with = "reference_run")]
    pub gradient: Gradient,
    /// Subtract the batch-mean cost (variance reduction).
    #[arg(long, conflicts_with = "reference_run")]
    pub baseline: bool,
    /// Train all sessions in one run, as the paper does, instead of growing them from one
    /// session (see RECIPE in --help).
    #[arg(long, conflicts_with = "reference_run")]
    pub no_grow: bool,
    /// Without --intra: train with all pairs free from the start, instead of holding the
    /// order within each group for a first run (see RECIPE in --help).
    #[arg(long, conflicts_with = "reference_run")]
    pub no_hold: bool,
    /// Exactly the paper's reference recipe: the input ranking is not scored first, the
    /// sessions are not grown, no certificate.
    #[arg(long)]
    pub reference_run: bool,
    /// How each query is re-ranked (see METHODS in --help).
    #[arg(long, value_enum, default_value_t = RerankMethodArg::Ppg)]
    pub method: RerankMethodArg,
    /// Stop a run once its cost is within this of the exact optimum, where the cost has one
    /// (see RECIPE in --help).
    #[arg(long, default_value_t = ppg_core::recipe::CERTIFY_TOLERANCE, conflicts_with_all = ["reference_run", "no_certify"])]
    pub certify: f64,
    /// Train on until patience runs out, without computing the optimum.
    #[arg(long, conflicts_with = "reference_run")]
    pub no_certify: bool,
    /// Write each query's costs and certificate here, tab-separated: qid, cost_before,
    /// cost_after, bound, bound_exact, certified, gap (bound and gap empty where the cost
    /// has no bound), and the relevance certificate: ndcg (NDCG@--ndcg-k of the utility,
    /// mean over sessions), ndcg_bound (at least the NDCG of every ranking as fair),
    /// ndcg_exact, ndcg_gap (empty for a query passed through).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Format of the output: ppg's own, or a TREC Fair Ranking run file (see OUTPUT FORMAT
    /// in --help).
    #[arg(long, value_enum, default_value_t = RunFormatArg::Ppg)]
    pub run_format: RunFormatArg,
    /// Run id of --run-format trec2020 (its last column).
    #[arg(long, default_value = "ppg")]
    pub run_id: String,
    /// EEL grade levels when optimising.
    #[arg(long, default_value_t = 5)]
    pub levels: u32,
    /// Exposure vector of the fairness metrics.
    #[arg(long, value_parser = core_names::<RankStart>(value_help::RANK_START), default_value = "one")]
    pub rank_start: RankStart,
    /// Worker threads (0: one per core; more than the cores are capped to them).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Memory budget of the process (e.g. 512M, 4G) [default: a quarter of physical
    /// memory or of the cgroup's limit, whichever is smaller; more is refused].
    #[arg(long, value_parser = ppg_host::budget::parse_size)]
    pub memory: Option<u64>,
    /// Progress on stderr.
    #[arg(long, value_enum, default_value_t = ProgressArg::Auto)]
    pub progress: ProgressArg,
    /// Print each query's cost before and after on stderr.
    #[arg(short, long)]
    pub verbose: bool,
}

/// `--run-format`: the names of [`RunFormat`] (the host's, which carries no command-line
/// parser).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunFormatArg {
    /// ppg's own: header `qid session rank item`, sessions and ranks from 1.
    Ppg,
    /// TREC 2019/2020 (diazf/expeval): `qid sample docno rank sim run_id`, a block per session.
    Trec2020,
    /// TREC 2022 task 1: header `id page_id`, one ranking per topic in line order.
    Trec2022,
    /// TREC 2022 task 2: header `id seq_no page_id`, seq_no the session from 1.
    #[value(name = "trec2022-seq")]
    Trec2022Seq,
}

impl From<RunFormatArg> for RunFormat {
    fn from(arg: RunFormatArg) -> RunFormat {
        match arg {
            RunFormatArg::Ppg => RunFormat::Ppg,
            RunFormatArg::Trec2020 => RunFormat::Trec2020,
            RunFormatArg::Trec2022 => RunFormat::Trec2022,
            RunFormatArg::Trec2022Seq => RunFormat::Trec2022Seq,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ppg_core::names::Named;

    #[test]
    fn every_core_name_has_its_help() {
        assert_eq!(value_help::METRIC.len(), MetricChoice::NAMES.len());
        assert_eq!(value_help::BROWSE.len(), BrowseName::NAMES.len());
        assert_eq!(value_help::LEVEL.len(), Level::NAMES.len());
        assert_eq!(value_help::MEASURE.len(), Measure::NAMES.len());
        assert_eq!(value_help::SAMPLER.len(), SamplerMode::NAMES.len());
        assert_eq!(value_help::GRADIENT.len(), Gradient::NAMES.len());
        assert_eq!(value_help::RANK_START.len(), RankStart::NAMES.len());
    }
}
