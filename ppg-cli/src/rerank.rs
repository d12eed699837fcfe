//! `ppg rerank`, streamed through `ppg_host::pipeline`: a reader thread reads and checks
//! queries into batches of a bounded window, a rayon pool re-ranks each batch, and the
//! main thread writes its results in input order; memory is the window plus the engines,
//! whatever the number of queries.
//! Each query's engine is laid out for that query and takes its bytes from the process's
//! one memory budget ([`Budget`]).

use std::io::Write;
use std::time::Instant;

use ppg_core::names::{NameError, Named, Parameter};
use ppg_core::objective::Browse;
use ppg_core::recipe::cost::EeScore;
use ppg_core::recipe::{Relevance, INITIAL_WEIGHT};
use ppg_core::{Recipe, TrainConfig};

use crate::cli::{RerankArgs, RerankMethodArg, UtilityArg};
use crate::destination;
use crate::streams::{self, Output};
use ppg_host::attributes::{read_spec, AttributeSpec, SpecInput};
use ppg_host::budget::{self, Budget};
use ppg_host::cost::{CostSpec, Metric};
use ppg_host::error::{Error, Result};
use ppg_host::interrupt;
use ppg_host::pause;
use ppg_host::pipeline;
use ppg_host::progress;
use ppg_host::quote::quoted;
use ppg_host::rerank_input::{InputError, InputQuery, Limit, Reader};
use ppg_host::rerank_query::Reranked;
use ppg_host::rerank_query::{ExactRefusal, Failure, Method, RerankSpec, Reranker, Rows};
use ppg_host::rerank_task::{Checks, Task};
use ppg_host::scratch::SortFolder;
use ppg_host::threads;
use ppg_host::trec_run::RunFormat;

pub fn run(args: &RerankArgs) -> Result<()> {
    let started = Instant::now();
    let mut spec = spec(args)?;
    let (max_groups, why) = ppg_host::cost::max_groups(spec.cost.metric);
    RunFormat::from(args.run_format)
        .check_run(args.sessions, &args.run_id)
        .map_err(Error::Usage)?;
    // Where the output and the report go, and what the environment allows, before
    // anything is read.
    interrupt::install()?;
    let output = args.output.as_deref();
    let destination = destination::resolve(&args.input, "-o", output, args.force)?;
    let report_destination = match &args.report {
        Some(path) => {
            let report = destination::resolve(&args.input, "--report", Some(path), args.force)?;
            destination::refuse_same(
                ("-o", output, &destination),
                ("--report", Some(path), &report),
            )?;
            Some(report)
        }
        None => None,
    };
    let limit = budget::Limit::here();
    let memory = match args.memory {
        Some(m) => {
            limit.check(m).map_err(Error::Failed)?;
            m
        }
        None => limit.default_budget(),
    };
    let _sort_folder = SortFolder::new()?;
    let path = if destination::is_std(&args.input) {
        "stdin".to_owned()
    } else {
        args.input.display().to_string()
    };
    let located = |e: InputError| Error::input(&path, e.line, e.message);
    let longest = Limit {
        most: budget::longest_line(memory),
        why: "the longest line read is 1/64 of --memory, at least 1 MiB",
    };
    if spec.cost.metric == Metric::Awrf {
        spec.cost.awrf_groups = Some(awrf_groups(args, max_groups, why, longest)?);
    }
    // Tables for the longest list the engine takes: a query reads its first n entries,
    // so results do not depend on which other queries the file holds.
    let reranker = Reranker::new(spec, ppg_core::MAX_ITEMS);
    let mut reader = Reader::new(streams::open_input(&args.input)?, max_groups, why, longest)
        .map_err(located)?;
    let use_label = match args.utility {
        Some(UtilityArg::Label) if !reader.has_label() => {
            return Err(Error::input(
                &path,
                1,
                "--utility label but there is no \"label\" column",
            ));
        }
        Some(UtilityArg::Label) => true,
        Some(UtilityArg::Score) => false,
        None => reader.has_label(),
    };
    let checks = Checks {
        path: &path,
        reranker: &reranker,
        use_label,
        memory,
    };
    let threads = threads::count(args.threads);
    let pool = threads::pool(threads)?;
    let budget = Budget::new(memory);
    let mut out = Output::create(&destination, args.output.as_deref())?;
    if let Some(header) = RunFormat::from(args.run_format).header() {
        writeln!(out.writer(), "{header}").map_err(|e| out.failed(e))?;
    }
    let mut report = match &report_destination {
        Some(destination) => {
            let mut report = Output::create(destination, args.report.as_deref())?;
            writeln!(
                report.writer(),
                "qid\tcost_before\tcost_after\tbound\tbound_exact\tcertified\tgap\t\
                 ndcg\tndcg_bound\tndcg_exact\tndcg_gap"
            )
            .map_err(|e| report.failed(e))?;
            Some(report)
        }
        None => None,
    };
    let workers = Workers {
        path: &path,
        reranker: &reranker,
        budget: &budget,
        // Each worker keeps its engine between queries when it is small: in all at most
        // 1/64 of --memory outside the budget, as the longest line read.
        keep: usize::try_from(memory / 64 / threads as u64).unwrap_or(usize::MAX),
        reporting: report.is_some(),
        ndcg_k: args.ndcg_k.max(1),
        format: args.run_format.into(),
        run_id: &args.run_id,
    };
    let (mut certified, mut bounded, mut largest_gap) = (0usize, 0usize, 0.0f64);
    let bar = progress::new(args.progress.show(), "rerank", None, "queries");
    let (mut queries, mut items, mut skipped) = (0usize, 0usize, 0usize);
    let mut index = 0;
    let read = || {
        let task = reader
            .next_query()
            .map_err(|e| Error::input(&path, e.line, e.message))?
            .map(|q| checks.task(index, q, reader.groups()))
            .transpose()?;
        if task.is_some() {
            pause::at("reading");
            index += 1;
        }
        Ok(task)
    };
    pipeline::in_order(
        read,
        pipeline::WINDOW_PER_THREAD * threads,
        &pool,
        |task| done(task, &workers),
        |task, done| {
            let (q, r) = (&task.query, &done.reranked);
            if args.verbose && r.is_undefined() {
                eprintln!("query {}: no relevant item, passed through", quoted(&q.qid));
            } else if args.verbose {
                eprintln!(
                    "query {}: cost {:.6} -> {:.6}",
                    quoted(&q.qid),
                    r.before,
                    r.after
                );
            }
            workers.format.check_ids(q, &path)?;
            out.writer()
                .write_all(&done.rows)
                .map_err(|e| out.failed(e))?;
            if let (Some(report), Some(line)) = (&mut report, &done.report) {
                report
                    .writer()
                    .write_all(line)
                    .map_err(|e| report.failed(e))?;
            }
            certified += usize::from(r.certified);
            if let Some(gap) = r.gap() {
                bounded += 1;
                largest_gap = largest_gap.max(gap);
            }
            queries += 1;
            items += q.len();
            skipped += usize::from(q.len() == 1 || r.is_undefined());
            Ok(())
        },
        |n| bar.inc(n as u64),
    )?;
    bar.finish_and_clear();
    // Both written in full before either is renamed: a report that fails leaves the
    // output as it was, and the other way round.
    let out = out.finish()?;
    let report = report.map(Output::finish).transpose()?.flatten();
    pause::at("committing");
    streams::commit(out, report)?;
    eprintln!(
        "ppg rerank: {}, {}, {} skipped (one item or no relevant item, passed through), {:.1} s",
        budget::count(queries, "query", "queries"),
        budget::count(items, "item", "items"),
        skipped,
        started.elapsed().as_secs_f64()
    );
    if bounded > 0 {
        eprintln!(
            "ppg rerank: certified {certified} of {queries} queries ({bounded} with a bound), \
             largest gap {largest_gap:.3e}"
        );
    }
    Ok(())
}

/// A query's rows, checked against the request ([`Reranker::check`]), and its engine's
/// size, checked against the memory budget; `groups` names the group ids.
/// Re-ranks one query ([`Reranker::rerank_alone`]) once the budget holds its engine.
/// A cost that is not finite for some ranking is a property of the query's utilities:
/// bad input at the query's lines.
fn rerank_one(task: &Task, w: &Workers) -> Result<Reranked> {
    let (path, reranker) = (w.path, w.reranker);
    let q = &task.query;
    let rows = Rows {
        score: &q.score,
        utility: task.utility(),
        group: &q.group,
    };
    let _permit = reranker.needs_engine(&rows).then(|| {
        let permit = w.budget.take(task.engine_bytes);
        pause::at("optimising");
        permit
    });
    let seed = reranker.seed(task.index);
    if reranker.spec().attributes.is_some() {
        let items: Vec<&str> = q.items.iter().collect();
        ppg_host::rerank_attributes::rerank_alone(reranker, &rows, &items, seed)
    } else {
        reranker.rerank_kept(&rows, seed, w.keep)
    }
    .map_err(|e| match e {
        Failure::Exact(e) => Error::Failed(format!("query \"{}\": {e}", q.qid)),
        Failure::Allocation { bytes, error } => Error::Failed(format!(
            "query {}: cannot allocate its engine's {} MiB: {error} (lower --memory or \
                 --threads, or free memory)",
            quoted(&q.qid),
            bytes.div_ceil(1 << 20)
        )),
        Failure::Core(ppg_core::Error::NotFinite { .. } | ppg_core::Error::InputNotFinite) => {
            Error::input(
                path,
                q.lines[0],
                format!(
                    "query {} (lines {}-{}): its {} cost is not finite for some ranking: its \
                     groups' utilities are too far apart in size",
                    quoted(&q.qid),
                    q.lines[0],
                    q.lines[q.len() - 1],
                    reranker.spec().cost.metric.name().to_uppercase()
                ),
            )
        }
        Failure::Engine(e) => Error::Failed(format!("engine: {e}")),
        Failure::Core(e) => Error::Failed(format!("query {}: {e}", quoted(&q.qid))),
    })
}

/// What the workers share: the request and where its parts come from.
struct Workers<'a> {
    path: &'a str,
    reranker: &'a Reranker,
    budget: &'a Budget,
    /// The largest engine a worker keeps for its next query, in bytes.
    keep: usize,
    /// Whether `--report` is written.
    reporting: bool,
    /// The cut-off of `--report`'s relevance certificate (`--ndcg-k`, at least 1).
    ndcg_k: usize,
    /// How the output is written: `--run-format` and `--run-id`.
    format: RunFormat,
    run_id: &'a str,
}

/// A query re-ranked, and its lines of the output and of `--report`, laid out on the
/// worker that re-ranked it: the thread that writes only copies them out in input order.
struct Done {
    reranked: Reranked,
    rows: Vec<u8>,
    report: Option<Vec<u8>>,
}

/// Re-ranks `task` ([`rerank_one`]) and formats what is written of it.
fn done(task: &Task, w: &Workers) -> Result<Done> {
    let r = rerank_one(task, w)?;
    let q = &task.query;
    let sessions = w.reranker.spec().sessions;
    let mut rows = Vec::with_capacity(sessions * q.len() * (q.qid.len() + 16));
    write_query(&mut rows, q, &r, w);
    let report = w.reporting.then(|| {
        // The relevance certificate, of NDCG@k of the utility (the only relevance the
        // recipe knows): empty for a query passed through.
        let relevance = (q.len() > 1 && !r.is_undefined())
            .then(|| {
                let rows = Rows {
                    score: &q.score,
                    utility: task.utility(),
                    group: &q.group,
                };
                w.reranker
                    .relevance(&rows, task.utility(), &r, w.ndcg_k)
                    .ok()
            })
            .flatten();
        let mut line = Vec::new();
        write_report(&mut line, q, &r, relevance.as_ref()).expect("a Vec takes every write");
        line
    });
    Ok(Done {
        reranked: r,
        rows,
        report,
    })
}

fn write_query(out: &mut Vec<u8>, q: &InputQuery, r: &Reranked, w: &Workers) {
    let n = q.len();
    for s in 0..w.reranker.spec().sessions {
        let ranking = r.rankings[s * n..(s + 1) * n].iter();
        let items = ranking.map(|&item| &q.items[usize::from(item)]);
        w.format.write_ranking(out, &q.qid, s + 1, items, w.run_id);
    }
}

/// One line of `--report`: the query's costs (empty for a query its metric has no value
/// for), its bound and its certificate, and its relevance certificate (empty where none).
fn write_report(
    w: &mut dyn Write,
    q: &InputQuery,
    r: &Reranked,
    relevance: Option<&Relevance>,
) -> std::io::Result<()> {
    let cost = |c: f64| {
        if c.is_nan() {
            String::new()
        } else {
            c.to_string()
        }
    };
    let (bound, exact) = match r.bound {
        Some(b) => (b.value.to_string(), u8::from(b.exact).to_string()),
        None => (String::new(), String::new()),
    };
    let gap = r.gap().map(|g| g.to_string()).unwrap_or_default();
    let relevance = match relevance {
        Some(v) => format!(
            "{}\t{}\t{}\t{}",
            v.ndcg,
            v.bound,
            u8::from(v.exact),
            v.gap()
        ),
        None => "\t\t\t".to_owned(),
    };
    writeln!(
        w,
        "{}\t{}\t{}\t{bound}\t{exact}\t{}\t{gap}\t{relevance}",
        q.qid,
        cost(r.before),
        cost(r.after),
        u8::from(r.certified)
    )
}

/// The host's rule of `--method exact` ([`RerankSpec::check_method`]), in the flags' words.
fn check_method(spec: &RerankSpec) -> Result<()> {
    let what = match spec.check_method() {
        Ok(()) => return Ok(()),
        Err(ExactRefusal::Metric(name)) => format!("not --metric {name}"),
        Err(ExactRefusal::Intra) => "not --intra (its rankings order each group by utility, \
                                     not as the input did; --method ppg --intra keeps that order)"
            .to_owned(),
    };
    Err(Error::Usage(format!(
        "{}: {what}",
        ppg_host::rerank_query::EXACT_NEEDS
    )))
}

/// The request, from the flags: the cost, then the recipe, then the method, each checked
/// in that order.
fn spec(args: &RerankArgs) -> Result<RerankSpec> {
    let cost = cost_spec(args)?;
    let recipe = recipe(args)?;
    let spec = RerankSpec {
        cost,
        recipe,
        sessions: args.sessions,
        seed: args.seed,
        method: match args.method {
            RerankMethodArg::Ppg => Method::Ppg,
            RerankMethodArg::Exact => Method::Exact,
        },
        rank_start: args.rank_start,
        attributes: None,
    };
    check_method(&spec)?;
    Ok(RerankSpec {
        attributes: attribute_spec(args, spec.cost.metric)?.map(std::sync::Arc::new),
        ..spec
    })
}

/// TREC 2022's AWRF's side data (`--attributes` and the flags beside it), read once;
/// `None` for another metric, which refuses them.
fn attribute_spec(args: &RerankArgs, metric: Metric) -> Result<Option<AttributeSpec>> {
    let used = args.attributes.is_some()
        || args.attribute_background.is_some()
        || args.attribute_target.is_some()
        || !args.attribute_unknown.is_empty();
    if metric != Metric::Awrf2022 {
        if used {
            return Err(Error::Usage(
                "--attributes, --attribute-background, --attribute-target and \
                 --attribute-unknown are for --metric awrf2022"
                    .into(),
            ));
        }
        return Ok(None);
    }
    let Some(path) = &args.attributes else {
        return Err(Error::Usage(
            "--metric awrf2022 needs --attributes FILE".into(),
        ));
    };
    let open =
        |p: &std::path::Path| -> Result<_> { Ok(std::io::BufReader::new(streams::open_input(p)?)) };
    let mut unknown = Vec::new();
    for given in &args.attribute_unknown {
        let (name, p) = given.split_once('=').ok_or_else(|| {
            Error::Usage(format!(
                "--attribute-unknown {given:?}: expected NAME=level|drop|uniform"
            ))
        })?;
        unknown.push((name.to_owned(), p.to_owned()));
    }
    let background = args.attribute_background.as_deref().map(open).transpose()?;
    let target = args.attribute_target.as_deref().map(open).transpose()?;
    read_spec(open(path)?, background, target, &unknown)
        .map(Some)
        .map_err(|(input, (line, message))| {
            let file = |flag: &str, p: &Option<std::path::PathBuf>| {
                let p = p.as_deref().unwrap_or(path);
                Error::input(&p.display().to_string(), line, format!("{flag}: {message}"))
            };
            match input {
                SpecInput::Table => file("--attributes", &args.attributes),
                SpecInput::Background => file("--attribute-background", &args.attribute_background),
                SpecInput::Target => file("--attribute-target", &args.attribute_target),
                SpecInput::Unknown => Error::Usage(format!("--attribute-unknown {message}")),
                SpecInput::Spec => Error::Usage(format!("--metric awrf2022's target: {message}")),
            }
        })
}

fn cost_spec(args: &RerankArgs) -> Result<CostSpec> {
    if args.sessions == 0 {
        return Err(Error::Usage("--sessions must be at least 1".into()));
    }
    let (metric, ndcg) = args
        .metric
        .cost(args.mix_fairness, args.mix_weight, args.ndcg_k)
        .map_err(refused)?;
    if !(1..=ppg_core::objective::MAX_LEVELS).contains(&args.levels) {
        return Err(Error::Usage(format!(
            "--levels must be in 1..={}",
            ppg_core::objective::MAX_LEVELS
        )));
    }
    Ok(CostSpec {
        browse: browse(args)?,
        level: args.ee_level,
        ee: EeScore {
            measure: args.ee_measure,
            normalised: !args.ee_raw,
        },
        awrf_depth: args.awrf_depth.map(|d| d as usize),
        ..CostSpec::new(metric, args.levels, ndcg)
    })
}

/// AWRF's population (issue 38, point 8): `--awrf-groups`, or the number of groups of the
/// whole input, counted by reading a regular file once before the run (the run reads it
/// again, query by query). A stream cannot be read twice, and its first queries would be
/// optimised before its last group appeared: it needs the flag.
fn awrf_groups(
    args: &RerankArgs,
    max_groups: usize,
    why: &'static str,
    longest: Limit,
) -> Result<usize> {
    if let Some(groups) = args.awrf_groups {
        return Ok(usize::from(groups));
    }
    let file = !destination::is_std(&args.input)
        && std::fs::metadata(&args.input).is_ok_and(|m| m.is_file());
    if !file {
        return Err(Error::Usage(
            "--metric awrf reading a stream needs --awrf-groups N: AWRF's population is the \
             groups of the whole input, which a stream cannot count before its first query"
                .into(),
        ));
    }
    let path = args.input.display().to_string();
    let located = |e: InputError| Error::input(&path, e.line, e.message);
    let mut reader = Reader::new(streams::open_input(&args.input)?, max_groups, why, longest)
        .map_err(located)?;
    while reader.next_query().map_err(located)?.is_some() {}
    Ok(reader.groups().len().max(1))
}

/// The browsing model of --metric ee, its parameters checked by the core.
fn browse(args: &RerankArgs) -> Result<Browse> {
    args.browse
        .with(args.browse_patience, args.cascade_utility, args.rank_start)
        .map_err(|e| Error::Usage(format!("--browse {}: {e}", args.browse.name())))
}

/// The core's refusal of --metric ndcg-mix's parameters, naming the flag.
fn refused(e: NameError) -> Error {
    let flag = match e {
        NameError::Parameter {
            parameter: Parameter::MixWeight,
            ..
        } => "--mix-weight",
        _ => "--ndcg-k",
    };
    Error::Usage(format!("{flag} {e}"))
}

fn recipe(args: &RerankArgs) -> Result<Recipe> {
    let train = if args.reference_run {
        TrainConfig::default()
    } else {
        TrainConfig {
            learning_rate: args.lr,
            epochs: args.epochs,
            batch: args.batch,
            patience: args.patience,
            sampler: args.sampler,
            gradient: args.gradient,
            baseline: args.baseline,
            score_input: true,
            grow: !args.no_grow,
            certify: (!args.no_certify).then_some(args.certify),
            ..Recipe::recommended().train
        }
    };
    let w0 = args.initial_weight;
    if !(w0 > 0.0 && w0 < 1.0) || (args.reference_run && w0 != INITIAL_WEIGHT) {
        return Err(Error::Usage(
            "--initial-weight must be in (0, 1), and 0.5 with --reference-run".into(),
        ));
    }
    train
        .check(train.batch.max(1))
        .map_err(|e| Error::Usage(format!("bad training recipe: {e}")))?;
    Ok(Recipe {
        train,
        intra: args.intra,
        hold: !args.intra && !args.no_hold && !args.reference_run,
        initial_weight: args.initial_weight,
    })
}
