//! `ppg rerank`: every query of a TSV through PPG, in parallel, output in input order.

use std::io::Write;

use ppg_core::objective::RankStart;
use ppg_core::{Dims, Ppg, SamplerMode, TrainConfig};

use crate::cli::{
    FairnessArg, GradientArg, MetricArg, RankStartArg, RerankArgs, SamplerArg, UtilityArg,
};
use ppg_cli::cost::{CostSpec, Metric, Tables};
use ppg_cli::optimise::{PpgRecipe, INITIAL_WEIGHT};
use ppg_cli::rerank_query::{self, Reranked};

use crate::data::{read_rerank, RerankInput, RerankQuery};
use crate::error::{CliError, Result};
use crate::output::AtomicFile;
use crate::parallel::{self, Progress};

/// Memory one worker's engine may take.
const MAX_ENGINE_BYTES: usize = 2 << 30;

pub fn run(args: &RerankArgs) -> Result<()> {
    let spec = cost_spec(args)?;
    let recipe = recipe(args)?;
    let (max_groups, why) = match spec.metric {
        Metric::Dtr => (2, "DTR compares two groups"),
        Metric::Eel => (
            ppg_core::objective::MAX_GROUPS,
            "EEL takes at most 16 groups",
        ),
    };
    let input = read_rerank(&args.input, max_groups, why)?;
    let use_label = match args.utility {
        Some(UtilityArg::Label) => {
            if input.queries[0].label.is_none() {
                return Err(CliError::input(
                    &input.path,
                    1,
                    "--utility label but there is no \"label\" column",
                ));
            }
            true
        }
        Some(UtilityArg::Score) => false,
        None => input.queries[0].label.is_some(),
    };
    let utility = |q: &'_ RerankQuery| -> Vec<f64> {
        match (&q.label, use_label) {
            (Some(l), true) => l.clone(),
            _ => q.score.clone(),
        }
    };
    if spec.metric == Metric::Dtr || spec.ndcg.is_some() {
        check_non_negative(&input, use_label)?;
    }
    let start = match args.rank_start {
        RankStartArg::One => RankStart::One,
        RankStartArg::Zero => RankStart::Zero,
    };
    let longest = input
        .queries
        .iter()
        .map(|q| q.items.len())
        .max()
        .unwrap_or(1);
    let tables = Tables::new(longest, start);
    let dims = Dims::new(longest, args.sessions, recipe.train.batch);
    // The engine holds n^2 / 2 weights per session, several times over: refuse up front
    // what would exhaust memory rather than abort mid-run.
    let bytes = Ppg::bytes(dims);
    if bytes > MAX_ENGINE_BYTES {
        return Err(CliError::Usage(format!(
            "the longest query has {longest} items: with {} sessions and batch {} one PPG \
             engine needs {} MiB (limit {} MiB); split the list or use fewer sessions",
            args.sessions,
            recipe.train.batch,
            bytes >> 20,
            MAX_ENGINE_BYTES >> 20
        )));
    }
    let order: Vec<usize> = longest_first(&input.queries);
    let progress = Progress::new("rerank", input.queries.len(), 200);
    let results = parallel::map(
        &order,
        parallel::threads(args.threads),
        progress.as_ref(),
        |tasks| {
            let mut mem = vec![0u8; Ppg::bytes(dims)];
            let mut engine =
                Ppg::new(&mut mem, dims, args.seed).map_err(|e| (0, failed("engine", &e)))?;
            let mut out = Vec::new();
            while let Some(k) = tasks.next() {
                let q = &input.queries[k];
                let outcome = rerank_query::rerank(
                    &mut engine,
                    rerank_query::query_seed(args.seed, k),
                    &q.score,
                    &utility(q),
                    &q.group,
                    &spec,
                    &recipe,
                    args.sessions,
                    &tables,
                )
                .map_err(|e| (k, failed(&format!("query \"{}\"", q.qid), &e)))?;
                out.push((k, outcome));
                tasks.done();
            }
            Ok(out)
        },
    );
    if let Some(p) = &progress {
        p.finish();
    }
    let results = results?;
    if args.verbose {
        for (q, r) in input.queries.iter().zip(&results) {
            eprintln!("query {}: cost {:.6} -> {:.6}", q.qid, r.before, r.after);
        }
    }
    match &args.output {
        Some(path) => {
            let mut file = AtomicFile::create(path)?;
            write_rankings(file.writer(), &input, &results, args.sessions)
                .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", path.display())))?;
            file.commit()
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = std::io::BufWriter::new(stdout.lock());
            write_rankings(&mut lock, &input, &results, args.sessions)
                .and_then(|()| lock.flush())
                .map_err(|e| CliError::Failed(format!("cannot write to stdout: {e}")))
        }
    }
}

fn failed(what: &str, e: &ppg_core::Error) -> CliError {
    CliError::Failed(format!("{what}: {e}"))
}

/// Task order: the longest queries first, so that no thread is left with one long query
/// at the end.
fn longest_first(queries: &[RerankQuery]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..queries.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(queries[k].items.len()));
    order
}

fn write_rankings(
    w: &mut impl Write,
    input: &RerankInput,
    results: &[Reranked],
    sessions: usize,
) -> std::io::Result<()> {
    writeln!(w, "qid\tsession\trank\titem")?;
    for (q, r) in input.queries.iter().zip(results) {
        let n = q.items.len();
        for s in 0..sessions {
            for (rank, &item) in r.rankings[s * n..(s + 1) * n].iter().enumerate() {
                writeln!(
                    w,
                    "{}\t{}\t{}\t{}",
                    q.qid,
                    s + 1,
                    rank + 1,
                    q.items[usize::from(item)]
                )?;
            }
        }
    }
    Ok(())
}

fn check_non_negative(input: &RerankInput, use_label: bool) -> Result<()> {
    for q in &input.queries {
        let (values, name) = match (&q.label, use_label) {
            (Some(l), true) => (l, "label"),
            _ => (&q.score, "score"),
        };
        if let Some(k) = values.iter().position(|&v| v < 0.0) {
            return Err(CliError::input(
                &input.path,
                q.lines[k],
                format!(
                    "{name} {} is negative: DTR and NDCG need non-negative utilities \
                     (use --utility or shift the scores)",
                    values[k]
                ),
            ));
        }
    }
    Ok(())
}

fn cost_spec(args: &RerankArgs) -> Result<CostSpec> {
    if args.sessions == 0 {
        return Err(CliError::Usage("--sessions must be at least 1".into()));
    }
    let fairness = |f: FairnessArg| match f {
        FairnessArg::Dtr => Metric::Dtr,
        FairnessArg::Eel => Metric::Eel,
    };
    let (metric, ndcg) = match args.metric {
        MetricArg::Dtr => (Metric::Dtr, None),
        MetricArg::Eel => (Metric::Eel, None),
        MetricArg::NdcgMix => {
            if !(args.mix_weight.is_finite() && args.mix_weight >= 0.0) {
                return Err(CliError::Usage(
                    "--mix-weight must be finite and non-negative".into(),
                ));
            }
            if args.ndcg_k == 0 {
                return Err(CliError::Usage("--ndcg-k must be at least 1".into()));
            }
            (
                fairness(args.mix_fairness),
                Some((args.mix_weight, args.ndcg_k)),
            )
        }
    };
    if !(1..=ppg_core::objective::MAX_LEVELS).contains(&args.levels) {
        return Err(CliError::Usage(format!(
            "--levels must be in 1..={}",
            ppg_core::objective::MAX_LEVELS
        )));
    }
    Ok(CostSpec {
        metric,
        levels: args.levels,
        ndcg,
    })
}

fn recipe(args: &RerankArgs) -> Result<PpgRecipe> {
    let train = if args.reference_run {
        TrainConfig::default()
    } else {
        TrainConfig {
            learning_rate: args.lr,
            epochs: args.epochs,
            batch: args.batch,
            patience: args.patience,
            sampler: match args.sampler {
                SamplerArg::Corrected => SamplerMode::Corrected,
                SamplerArg::Uncorrected => SamplerMode::Uncorrected,
            },
            gradient: match args.gradient {
                GradientArg::Approximate => ppg_core::Gradient::Approximate,
                GradientArg::Exact => ppg_core::Gradient::Exact,
            },
            baseline: args.baseline,
            score_input: true,
            ..TrainConfig::default()
        }
    };
    let w0 = args.initial_weight;
    if !(w0 > 0.0 && w0 < 1.0) || (args.reference_run && w0 != INITIAL_WEIGHT) {
        return Err(CliError::Usage(
            "--initial-weight must be in (0, 1), and 0.5 with --reference-run".into(),
        ));
    }
    train
        .check(train.batch.max(1))
        .map_err(|e| CliError::Usage(format!("bad training recipe: {e}")))?;
    Ok(PpgRecipe {
        train,
        intra: args.intra,
        initial_weight: args.initial_weight,
    })
}
