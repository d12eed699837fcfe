//! The rows of the reproduction tables: each method's name, recipe, and how it turns one
//! query into `S` rankings.

use crate::foe::{self, FoeVariant};
use ppg_core::recipe::cost::EeScore;
use ppg_core::recipe::Relevance;
use ppg_core::{Gradient, PlConfig, PlackettLuce, Ppg, Recipe, Rng, SamplerMode, TrainConfig};
use ppg_host::rerank_query;
use ppg_host::rerank_query::Rows;

use crate::args::DataUtility;
use crate::data::ProtocolQuery;
use ppg_host::cost::{Cost, CostSpec, Eval, Metric, Tables};
use ppg_host::optimise::{self, ranking_by};
use ppg_host::protocol;

/// The paper's rows, in the order of its tables.
pub const PAPER_METHODS: [&str; 8] = [
    "ppg",
    "ppg-intra",
    "pl",
    "rand",
    "ltr",
    "ideal",
    "foe-soft",
    "foe-hard",
];

/// Our improvements on PPG + intra, shown beside the paper's rows.
pub const OUR_VARIANTS: [&str; 6] = [
    "ppg-intra-exact",
    "ppg-intra-corrected",
    "ppg-intra-baseline",
    "ppg-intra-scored",
    "ppg-held-grow",
    "ppg-intra-grow",
];

/// The exact optimum of each metric over S deterministic rankings
/// (`ppg_core::objective::bound`).
pub const BOUND: &str = "bound";

/// The exact optimum's rankings of the optimisation's cost (`ppg rerank --method exact`).
pub const EXACT: &str = "exact";

/// The core's recommended recipe (`ppg rerank`'s default): `ppg-held-grow-scored`, certified
/// against the optimisation cost's exact optimum.
pub const RECIPE: &str = "recipe";

/// The methods `reproduce` runs when none are named: the paper's rows, our variants, the
/// recommended recipe, the exact rankings, and the bound under them all.
pub fn default_methods() -> impl Iterator<Item = &'static str> {
    PAPER_METHODS
        .into_iter()
        .chain(OUR_VARIANTS)
        .chain([RECIPE, EXACT, BOUND])
}

/// A PPG recipe named by suffixes of `ppg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PpgVariant {
    pub intra: bool,
    pub exact: bool,
    pub corrected: bool,
    pub baseline: bool,
    pub scored: bool,
    /// Grown over sessions ([`TrainConfig::grow`]).
    pub grow: bool,
    /// Intra-group order held for the first part of each run ([`Ppg::hold_order_within`]).
    pub held: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Ppg(PpgVariant),
    /// Plackett-Luce, with its own Adam learning rate if named (`pl-lr0.01`).
    Pl(Option<f32>),
    Rand,
    Ltr,
    Ideal,
    Foe(FoeVariant),
    /// Not a ranker: the least value any S rankings can have
    /// (`ppg_core::objective::bound`).
    Bound,
    /// The rankings of the optimisation cost's exact optimum (`--method exact`).
    Exact,
    /// The core's recommended recipe, certified (`ppg rerank`'s default).
    Recipe,
}

/// A row: the name the user gave and what it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Method {
    pub name: String,
    pub kind: Kind,
}

impl Method {
    /// Parses a method name (see `ppg reproduce --help`).
    pub fn parse(name: &str) -> Result<Method, String> {
        let kind = match name {
            "pl" => Kind::Pl(None),
            _ if name.starts_with("pl-lr") => {
                let lr: f32 = name["pl-lr".len()..].parse().map_err(|_| unknown(name))?;
                if !(lr.is_finite() && lr >= 0.0) {
                    return Err(unknown(name));
                }
                Kind::Pl(Some(lr))
            }
            "rand" => Kind::Rand,
            "ltr" => Kind::Ltr,
            "ideal" => Kind::Ideal,
            BOUND => Kind::Bound,
            EXACT => Kind::Exact,
            RECIPE => Kind::Recipe,
            "foe-soft" => Kind::Foe(FoeVariant::Soft),
            "foe-hard" => Kind::Foe(FoeVariant::Hard),
            _ => {
                let mut parts = name.split('-');
                if parts.next() != Some("ppg") {
                    return Err(unknown(name));
                }
                let mut v = PpgVariant::default();
                for part in parts {
                    let flag = match part {
                        "intra" => &mut v.intra,
                        "exact" => &mut v.exact,
                        "corrected" => &mut v.corrected,
                        "baseline" => &mut v.baseline,
                        "scored" => &mut v.scored,
                        "grow" => &mut v.grow,
                        "held" => &mut v.held,
                        _ => return Err(unknown(name)),
                    };
                    if *flag {
                        return Err(format!("method \"{name}\" names \"{part}\" twice"));
                    }
                    *flag = true;
                }
                Kind::Ppg(v)
            }
        };
        Ok(Method {
            name: name.to_owned(),
            kind,
        })
    }

    /// The sampler the row used ("-" for non-PPG rows).
    pub fn sampler(&self) -> &'static str {
        match self.kind {
            Kind::Ppg(v) if v.corrected => "corrected",
            Kind::Ppg(_) | Kind::Recipe => "uncorrected",
            _ => "-",
        }
    }

    /// The gradient the row used ("-" where none applies).
    pub fn gradient(&self) -> &'static str {
        match self.kind {
            Kind::Ppg(v) if v.exact => "exact",
            Kind::Ppg(_) | Kind::Recipe => "approximate",
            Kind::Pl(_) => "exact (PL score)",
            _ => "-",
        }
    }

    /// Whether the row has a value for `metric` (FOE is a DTR method, evaluated under the
    /// TREC measures too, whose rankings it does not depend on; the exact optimum covers
    /// the protocol's two metrics).
    pub fn supports(&self, metric: Metric) -> bool {
        match self.kind {
            Kind::Foe(_) => metric != Metric::Eel,
            Kind::Bound => matches!(metric, Metric::Dtr | Metric::Eel),
            _ => true,
        }
    }

    /// Whether the row involves no randomness (one run is all runs).
    pub fn deterministic(&self) -> bool {
        matches!(
            self.kind,
            Kind::Ltr | Kind::Ideal | Kind::Bound | Kind::Exact
        )
    }

    pub fn needs_ppg(&self) -> bool {
        matches!(self.kind, Kind::Ppg(_) | Kind::Recipe)
    }

    /// Whether the row certifies its queries against the optimisation cost's optimum.
    pub fn certifies(&self) -> bool {
        matches!(self.kind, Kind::Recipe | Kind::Exact)
    }

    pub fn needs_pl(&self) -> bool {
        matches!(self.kind, Kind::Pl(_))
    }
}

fn unknown(name: &str) -> String {
    format!(
        "unknown method \"{name}\": expected pl, pl-lr<rate>, rand, ltr, ideal, foe-soft, foe-hard, recipe, exact, bound or \
         ppg[-intra][-exact][-corrected][-baseline][-scored][-grow][-held]"
    )
}

/// What every query of a cell shares.
pub struct Setup<'a> {
    pub tables: &'a Tables,
    pub sessions: usize,
    pub utility: DataUtility,
    pub metric: Metric,
    /// The number of expected exposure optimised and reported.
    pub ee: EeScore,
    /// PPG's recipe before the variant's changes.
    pub train: TrainConfig,
    /// PPG's initial pair weight.
    pub initial_weight: f32,
    pub pl: PlConfig,
}

/// The engines of one worker, made for the largest query.
pub struct Engines<'m> {
    pub ppg: Option<Ppg<'m>>,
    pub pl: Option<PlackettLuce<'m>>,
}

/// Runs `method` on query `q`: `sessions` rankings of its item ids.
pub fn run(
    method: &Method,
    setup: &Setup,
    q: &ProtocolQuery,
    seed: u64,
    engines: &mut Engines,
) -> Result<Vec<u16>, String> {
    let n = q.len();
    let s = setup.sessions;
    let utility = match setup.utility {
        DataUtility::Label => &q.label,
        DataUtility::Ltr => &q.ltr,
    };
    let engine_error = |e: ppg_core::Error| e.to_string();
    match method.kind {
        Kind::Ltr => Ok(ranking_by(&q.ltr).repeat(s)),
        Kind::Ideal => Ok(ranking_by(&q.label).repeat(s)),
        Kind::Bound => bound(setup.metric, q, s, setup.tables).map(|b| b.1),
        Kind::Exact | Kind::Recipe => {
            certified(method, setup, q, seed, engines).map(|(r, _)| r.rankings)
        }
        Kind::Rand => {
            let mut rng = Rng::new(seed);
            let mut out = Vec::with_capacity(n * s);
            for _ in 0..s {
                let mut block: Vec<u16> = (0..n as u16).collect();
                for k in (1..n).rev() {
                    let j = (rng.next_u64() % (k as u64 + 1)) as usize;
                    block.swap(k, j);
                }
                out.extend_from_slice(&block);
            }
            Ok(out)
        }
        Kind::Foe(variant) => {
            let merit = foe::min_max_normalise(utility);
            let solution = foe::solve(&merit, &q.group, &setup.tables.exposure, variant)
                .map_err(|e| e.to_string())?;
            let mixture = foe::birkhoff(&solution.marginals);
            let mut rng = Rng::new(seed);
            foe::sample_rankings(&mixture, s, &mut rng).map_err(|e| e.to_string())
        }
        Kind::Ppg(v) => {
            let order = ranking_by(utility);
            let utility_s = optimise::permute(utility, &order);
            let group_s = optimise::permute(&q.group, &order);
            let view = setup.tables.view();
            let spec = spec(setup);
            let mut scratch = ppg_host::cost::scratch(&spec, utility_s.len());
            let mut cost = Cost::new(&spec, &utility_s, &group_s, &view, &mut scratch)
                .map_err(engine_error)?;
            let recipe = Recipe {
                train: TrainConfig {
                    sampler: if v.corrected {
                        SamplerMode::Corrected
                    } else {
                        SamplerMode::Uncorrected
                    },
                    gradient: if v.exact {
                        Gradient::Exact
                    } else {
                        Gradient::Approximate
                    },
                    baseline: v.baseline,
                    score_input: v.scored,
                    grow: v.grow,
                    certify: None,
                    ..setup.train
                },
                intra: v.intra,
                hold: v.held,
                initial_weight: setup.initial_weight,
            };
            let engine = engines.ppg.as_mut().expect("a PPG engine for PPG rows");
            let best = optimise::ppg(engine, seed, &group_s, s, &mut cost, &recipe)
                .map_err(engine_error)?;
            Ok(optimise::to_items(&best, &order))
        }
        Kind::Pl(lr) => {
            let order = ranking_by(utility);
            let utility_s = optimise::permute(utility, &order);
            let group_s = optimise::permute(&q.group, &order);
            let view = setup.tables.view();
            let spec = spec(setup);
            let mut scratch = ppg_host::cost::scratch(&spec, utility_s.len());
            let mut cost = Cost::new(&spec, &utility_s, &group_s, &view, &mut scratch)
                .map_err(engine_error)?;
            // The logits start at the utility itself (label 0/1, grade 0..4): the policy
            // starts near the input ranking, as PPG's reference does.
            let logits: Vec<f32> = utility_s.iter().map(|&u| u as f32).collect();
            let config = PlConfig {
                lr: lr.unwrap_or(setup.pl.lr),
                ..setup.pl
            };
            let engine = engines.pl.as_mut().expect("a PL engine for PL rows");
            let sample =
                optimise::pl(engine, seed, &logits, s, &mut cost, &config).map_err(engine_error)?;
            Ok(optimise::to_items(&sample, &order))
        }
    }
}

/// The rows that certify (`recipe`, `exact`) on query `q`: their rankings and
/// certificates, against the optimisation cost (the row's utility, EEL with 5 levels).
///
/// # Errors
/// The engine's or the search's refusal of the query.
pub fn certified(
    method: &Method,
    setup: &Setup,
    q: &ProtocolQuery,
    seed: u64,
    engines: &mut Engines,
) -> Result<(rerank_query::Reranked, Relevance), String> {
    let utility = match setup.utility {
        DataUtility::Label => &q.label,
        DataUtility::Ltr => &q.ltr,
    };
    let rows = Rows {
        score: utility,
        utility,
        group: &q.group,
    };
    let request = protocol::recipe_request(
        setup.metric,
        setup.ee,
        setup.sessions,
        seed,
        setup.train,
        setup.initial_weight,
    );
    let reranked = if method.kind == Kind::Exact {
        rerank_query::exact(&request, setup.tables, &rows)?
    } else {
        let engine = engines
            .ppg
            .as_mut()
            .expect("a PPG engine for the recipe row");
        rerank_query::rerank(engine, &request, setup.tables, &rows, seed, &|| false)
            .map_err(|e| e.to_string())?
    };
    // The relevance certificate of the evaluation's NDCG@10 (the true labels).
    let relevance = rerank_query::relevance(
        &request,
        setup.tables,
        &rows,
        &q.label,
        &reranked,
        ppg_core::recipe::relevance::NDCG_CUTOFF,
    )
    .map_err(|e| e.to_string())?;
    Ok((reranked, relevance))
}

/// The bound row of query `q`: the evaluation's metric at its optimum over `sessions`
/// rankings (`ppg_host::protocol::optimum`).
///
/// # Errors
/// The metric's refusal of the query (an invalid query has no bound either).
pub fn bound(
    metric: Metric,
    q: &ProtocolQuery,
    sessions: usize,
    tables: &Tables,
) -> Result<(Eval, Vec<u16>, bool), String> {
    protocol::optimum(metric, &q.label, &q.group, sessions, tables)
}

/// The optimisers' cost for the cell's metric (`ppg_host::protocol::cost_spec`).
fn spec(setup: &Setup) -> CostSpec {
    protocol::cost_spec(setup.metric, setup.ee)
}
