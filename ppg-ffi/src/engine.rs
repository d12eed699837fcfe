//! The engine behind the handle: a core optimiser plus the query as the caller named it.
//!
//! Everything here is safe Rust over one borrowed byte buffer, so it can be tested from
//! Rust with a local array. The C layer (`api.rs`) only turns pointers into slices.
//!
//! Every method validates all of its input before it changes anything, or calls a core
//! method that does (the core's calls are transactional), so a failed call leaves the
//! engine as it was.
//!
//! The query it validates against (the caller's ids, the memory carved for them, the
//! built-in objectives over them) is `query.rs`.
//!
//! It stays whole past 400 lines: every method below is a validate-then-delegate step of
//! one handle's state.

use crate::query::{cost_tables, dense_groups, id_of, paper, CallerQuery, TABLES};
use crate::status::{ppg_status, Status};
use crate::types::{ppg_method, ppg_metric, ppg_train_config, ObjectiveSpec};
use core::mem::MaybeUninit;
use ppg_core::objective::RankStart;
use ppg_core::recipe::{
    certify_relevance_ranked, CostSpec, Metric, Outcome, Ranked, Recipe, Relevance, Tables,
    Workspace,
};
use ppg_core::{Dims, Objective, PlackettLuce, Ppg, SamplerMode, TrainConfig, TrainReport};

/// The weight `set_query` gives every PPG pair; `initial_weight` replaces it when a fresh
/// query starts training (see [`Engine::train`]).
const QUERY_WEIGHT: f32 = 0.5;

/// The optimiser: PPG or the PL baseline, through the same calls.
// One per engine, in caller memory, and no allocator to box a variant into: the 200-odd
// bytes a PL engine leaves unused do not matter.
#[allow(clippy::large_enum_variant)]
enum Core<'a> {
    Ppg(Ppg<'a>),
    Pl(PlackettLuce<'a>),
}

/// An engine in caller memory.
pub(crate) struct Engine<'a> {
    dims: Dims,
    core: Core<'a>,
    q: CallerQuery<'a>,
    /// The sampler `sample` draws with.
    sampler: SamplerMode,
    /// No step has changed PPG's weights since `set_query`.
    fresh: bool,
}

fn report(r: TrainReport) -> crate::types::ppg_train_report {
    crate::types::ppg_train_report {
        epochs: r.epochs,
        samples: r.samples,
        best_cost: r.best_cost,
        best_epoch: r.best_epoch.map_or(-1, i64::from),
        certified: r.certified,
        bound_exact: r.bound.is_some_and(|b| b.exact),
        bound: r.bound.map_or(f64::NAN, |b| b.value),
        gap: r
            .bound
            .map_or(f64::NAN, |b| (r.best_cost - b.value).max(0.0)),
        ..crate::growable::Growable::defaults()
    }
}

/// Sets every unconstrained pair of every session to `w` (a fresh query only: its
/// reference is still the input order, every such pair still at [`QUERY_WEIGHT`]).
fn reweight(ppg: &mut Ppg, w: f32) -> Status<()> {
    let n = ppg.items();
    for s in 0..ppg.sessions() {
        for a in 0..n {
            for b in a + 1..n {
                if !ppg.is_constrained(a, b) {
                    ppg.set_weight(s, a, b, w)?;
                }
            }
        }
    }
    Ok(())
}

impl<'a> Engine<'a> {
    /// Bytes of caller memory an engine of this shape needs (after the handle itself).
    pub(crate) fn bytes(method: ppg_method, dims: Dims) -> Status<usize> {
        dims.check()?;
        let core = Self::core_bytes(method, dims);
        // The core's sizes saturate: usize::MAX means "does not fit in memory".
        if core == usize::MAX {
            return Err(ppg_status::Capacity);
        }
        core.checked_add(CallerQuery::bytes(dims)?)
            .ok_or(ppg_status::Capacity)
    }

    /// Bytes of the optimiser's own regions (they come first in the engine's memory).
    fn core_bytes(method: ppg_method, dims: Dims) -> usize {
        match method {
            ppg_method::Ppg => Ppg::bytes(dims),
            ppg_method::Pl => PlackettLuce::bytes(dims),
        }
    }

    /// An engine in `mem`, which must hold [`Engine::bytes`].
    pub(crate) fn new(
        mem: &'a mut [u8],
        method: ppg_method,
        dims: Dims,
        seed: u64,
    ) -> Status<Self> {
        let needed = Self::bytes(method, dims)?;
        if mem.len() < needed {
            return Err(ppg_status::MemoryTooSmall);
        }
        let (core_mem, rest) = mem.split_at_mut(Self::core_bytes(method, dims));
        let core = match method {
            ppg_method::Ppg => Core::Ppg(Ppg::new(core_mem, dims, seed)?),
            ppg_method::Pl => Core::Pl(PlackettLuce::new(core_mem, dims, seed)?),
        };
        Ok(Engine {
            dims,
            core,
            q: CallerQuery::carve(rest, dims)?,
            sampler: TrainConfig::default().sampler,
            fresh: true,
        })
    }

    fn started(&self) -> Status<()> {
        if self.q.n == 0 {
            Err(ppg_status::NoQuery)
        } else {
            Ok(())
        }
    }

    /// Items per session times sessions of the current query.
    /// The layout the engine was made with.
    pub(crate) fn dims(&self) -> Dims {
        self.dims
    }

    pub(crate) fn ranking_len(&self) -> Status<usize> {
        self.started()?;
        Ok(self.q.total())
    }

    pub(crate) fn set_sampler(&mut self, sampler: SamplerMode) {
        self.sampler = sampler;
    }

    /// Replaces the query; constraints, weights, best ranking and pending batch start
    /// afresh. The generator carries on.
    pub(crate) fn set_query(
        &mut self,
        items: &[crate::types::ppg_item],
        sessions: usize,
    ) -> Status<()> {
        self.check_items(items, sessions)?;
        let n = items.len();
        match &mut self.core {
            Core::Ppg(ppg) => ppg.start(n, sessions, QUERY_WEIGHT)?,
            Core::Pl(pl) => {
                let logits = &mut self.q.logits[..n];
                for (logit, item) in logits.iter_mut().zip(items) {
                    *logit = item.utility as f32;
                }
                pl.start(logits, sessions)?;
            }
        }
        self.commit(items, sessions);
        Ok(())
    }

    /// The refusals of a new query that changes nothing: its shape, a utility that is not
    /// finite, an id named twice. Leaves the id index of `items` in the spare buffer, for
    /// [`Engine::commit`] (so that a refusal keeps the old one).
    fn check_items(&mut self, items: &[crate::types::ppg_item], sessions: usize) -> Status<()> {
        let n = items.len();
        if n == 0 || sessions == 0 {
            return Err(ppg_status::InvalidArgument);
        }
        if n > self.dims.items || sessions > self.dims.sessions {
            return Err(ppg_status::Capacity);
        }
        if items.iter().any(|item| !item.utility.is_finite()) {
            return Err(ppg_status::NotFinite);
        }
        let next = &mut self.q.spare[..n];
        for (k, slot) in next.iter_mut().enumerate() {
            // n <= dims.items <= u16::MAX.
            *slot = k as u16;
        }
        let id_of = |k: u16| items.get(usize::from(k)).map_or(0, |item| item.id);
        next.sort_unstable_by_key(|&k| id_of(k));
        if next.windows(2).any(|w| id_of(w[0]) == id_of(w[1])) {
            return Err(ppg_status::DuplicateItem);
        }
        Ok(())
    }

    /// Makes `items` (checked by [`Engine::check_items`], which left their id index in
    /// the spare buffer) the query, once the core has started it.
    fn commit(&mut self, items: &[crate::types::ppg_item], sessions: usize) {
        let q = &mut self.q;
        for (k, item) in items.iter().enumerate() {
            q.ids[k] = item.id;
            q.utility[k] = item.utility;
            q.group[k] = item.group;
        }
        core::mem::swap(&mut q.index, &mut q.spare);
        q.n = items.len();
        q.sessions = sessions;
        self.fresh = true;
    }

    fn ppg_only(&mut self) -> Status<&mut Ppg<'a>> {
        self.started()?;
        match &mut self.core {
            Core::Ppg(ppg) => Ok(ppg),
            Core::Pl(_) => Err(ppg_status::Unsupported),
        }
    }

    pub(crate) fn forbid(&mut self, a: u64, b: u64) -> Status<()> {
        self.ppg_only()?;
        let (a, b) = (self.q.lookup(a)?, self.q.lookup(b)?);
        self.ppg_only()?.forbid(a, b)?;
        Ok(())
    }

    pub(crate) fn keep_order_within_groups(&mut self) -> Status<()> {
        self.ppg_only()?;
        if let Core::Ppg(ppg) = &mut self.core {
            ppg.keep_order_within(&self.q.group[..self.q.n])?;
        }
        Ok(())
    }

    pub(crate) fn hold_order_within_groups(&mut self) -> Status<()> {
        self.ppg_only()?;
        if let Core::Ppg(ppg) = &mut self.core {
            ppg.hold_order_within(&self.q.group[..self.q.n])?;
        }
        Ok(())
    }

    pub(crate) fn keep_order_between(&mut self, labels: &[u32]) -> Status<()> {
        self.ppg_only()?.keep_order_between(labels)?;
        Ok(())
    }

    /// The pending batch as local items (empty when none).
    fn pending(&self) -> &[u16] {
        match &self.core {
            Core::Ppg(ppg) => ppg.batch(),
            Core::Pl(pl) => pl.batch(),
        }
    }

    /// Draws `count` rankings, writes them as ids to the start of `out`, and keeps them
    /// pending for [`Engine::update`].
    pub(crate) fn sample(&mut self, count: usize, out: &mut [MaybeUninit<u64>]) -> Status<()> {
        self.started()?;
        if count == 0 {
            return Err(ppg_status::InvalidArgument);
        }
        if count > self.dims.batch {
            return Err(ppg_status::Capacity);
        }
        let needed = count * self.q.total();
        let out = out.get_mut(..needed).ok_or(ppg_status::InvalidArgument)?;
        let batch = match &mut self.core {
            Core::Ppg(ppg) => ppg.sample_batch(count, self.sampler)?,
            Core::Pl(pl) => {
                pl.sample_batch(count)?;
                pl.batch()
            }
        };
        let ids = &self.q.ids[..self.q.n];
        for (slot, &local) in out.iter_mut().zip(batch) {
            slot.write(id_of(ids, local));
        }
        Ok(())
    }

    /// One training step on the pending batch, `rankings` being that batch as ids.
    pub(crate) fn update(
        &mut self,
        rankings: &[u64],
        costs: &[f64],
        config: &ppg_train_config,
    ) -> Status<()> {
        self.started()?;
        let total = self.q.total();
        let pending = self.pending();
        if pending.is_empty() {
            return Err(ppg_status::NoPendingBatch);
        }
        if costs.is_empty() || Some(rankings.len()) != costs.len().checked_mul(total) {
            return Err(ppg_status::InvalidArgument);
        }
        let ids = &self.q.ids[..self.q.n];
        let same = pending.len() == rankings.len()
            && pending
                .iter()
                .zip(rankings)
                .all(|(&local, &id)| id_of(ids, local) == id);
        if !same {
            return Err(ppg_status::UnknownSample);
        }
        // The step's batch is the pending one, whatever the recipe says for training.
        let config = ppg_train_config {
            batch: costs.len(),
            ..*config
        };
        // The recipe is checked before the core changes anything.
        let layout_batch = self.dims.batch;
        match &mut self.core {
            Core::Ppg(ppg) => ppg.update(costs, &config.ppg(layout_batch)?).map(drop)?,
            Core::Pl(pl) => pl.update(costs, &config.pl(layout_batch)?)?,
        }
        self.fresh = false;
        Ok(())
    }

    /// The best ranking so far as ids into the start of `out`, and its cost.
    pub(crate) fn best(&self, out: &mut [MaybeUninit<u64>]) -> Status<f64> {
        self.started()?;
        let (ranking, cost) = match &self.core {
            Core::Ppg(ppg) => ppg.best().ok_or(ppg_status::NoResult)?,
            Core::Pl(pl) => pl.best().ok_or(ppg_status::NoResult)?,
        };
        let out = out
            .get_mut(..ranking.len())
            .ok_or(ppg_status::InvalidArgument)?;
        let ids = &self.q.ids[..self.q.n];
        for (slot, &local) in out.iter_mut().zip(ranking) {
            slot.write(id_of(ids, local));
        }
        Ok(cost)
    }

    /// Trains against `cost`, which sees rankings as ids.
    pub(crate) fn train(
        &mut self,
        config: &ppg_train_config,
        mut cost: impl FnMut(&[u64], usize) -> f64,
    ) -> Status<crate::types::ppg_train_report> {
        self.started()?;
        let Engine {
            dims,
            core,
            q,
            fresh,
            ..
        } = self;
        let total = q.total();
        let groups = &q.group[..q.n];
        let (ids, buf) = (&q.ids[..q.n], &mut q.ids_out[..total]);
        // A grown run also costs rankings of fewer sessions than the query's.
        let mut objective = |ranking: &[u16], sessions: usize| {
            let out = &mut buf[..ranking.len()];
            for (slot, &local) in out.iter_mut().zip(ranking) {
                *slot = id_of(ids, local);
            }
            cost(out, sessions)
        };
        run(core, fresh, dims.batch, config, groups, &mut objective)
    }

    /// Trains against a built-in objective.
    pub(crate) fn train_builtin(
        &mut self,
        config: &ppg_train_config,
        spec: &ObjectiveSpec,
    ) -> Status<crate::types::ppg_train_report> {
        self.started()?;
        let Engine {
            dims,
            core,
            q,
            fresh,
            ..
        } = self;
        q.with_objective(spec, |objective, groups| {
            run(core, fresh, dims.batch, config, groups, objective)
        })
    }

    /// The recommended recipe in one call (`ppg_core::Ppg::rerank`): `items` (in their input
    /// ranking) become the query, re-ranked for `sessions` sessions with the built-in
    /// objective `spec` under `config`, seeded with `seed`; the rankings as ids into `out`;
    /// with `relevance`, the report's relevance certificate too (`ppg_engine_rerank`: for
    /// a report of the layout that has its fields, so that no other caller pays for it).
    /// A refusal of the items or of the objective over them (the input's cost included)
    /// leaves the engine as it was; a sampled ranking's cost that is not finite, met once
    /// the query is replaced, leaves it without one.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rerank(
        &mut self,
        items: &[crate::types::ppg_item],
        sessions: usize,
        spec: &ObjectiveSpec,
        config: &ppg_train_config,
        seed: u64,
        out: &mut [MaybeUninit<u64>],
        relevance: bool,
    ) -> Status<crate::types::ppg_train_report> {
        let Core::Ppg(_) = &self.core else {
            return Err(ppg_status::Unsupported);
        };
        let mix = Some((spec.mix_weight, spec.k));
        let (metric, ndcg) = match spec.metric {
            ppg_metric::Dtr => (Metric::Dtr, None),
            ppg_metric::Eel => (Metric::Eel, None),
            ppg_metric::DtrNdcgMix => (Metric::Dtr, mix),
            ppg_metric::EelNdcgMix => (Metric::Eel, mix),
            ppg_metric::ExpectedExposure => (Metric::Ee, None),
            ppg_metric::Awrf => (Metric::Awrf, None),
            // The recipe's costs are a fairness metric, optionally with NDCG.
            ppg_metric::Ndcg => return Err(ppg_status::Unsupported),
        };
        let cost = CostSpec {
            browse: spec.browse,
            level: spec.ee_level,
            ee: spec.ee,
            awrf_groups: spec.awrf_groups,
            awrf_depth: spec.awrf_depth,
            ..CostSpec::new(metric, spec.levels, ndcg)
        };
        let recipe = Recipe {
            train: config.ppg(self.dims.batch)?,
            intra: config.intra.get(),
            hold: config.hold.get(),
            initial_weight: config.initial_weight()?,
        };
        // The shape before `out_len`: a binding that got `PPG_STATUS_CAPACITY` here
        // allocated nothing for a count the engine cannot hold (it passes no buffer then).
        if items.len() > self.dims.items || sessions > self.dims.sessions {
            return Err(ppg_status::Capacity);
        }
        let total = items
            .len()
            .checked_mul(sessions)
            .ok_or(ppg_status::Capacity)?;
        if out.len() != total {
            return Err(ppg_status::InvalidArgument);
        }
        // Too many items: check_items refuses them below.
        if let Some(utility) = self.q.sorted_utility.get_mut(..items.len()) {
            for (slot, item) in utility.iter_mut().zip(items) {
                *slot = item.utility;
            }
            if !cost.defined(utility) {
                return self.pass_through(items, sessions, out);
            }
        }
        self.check_items(items, sessions)?;
        let n = items.len();
        // The items in their input ranking, the recipe's starting one, staged outside the
        // query's own buffers (a refusal must leave the old query): the utility in the
        // certificate's scratch (written after), the groups numbered densely.
        let (utility, group) = (&mut self.q.certificate[..n], &mut self.q.dense[..n]);
        for (slot, item) in utility.iter_mut().zip(items) {
            *slot = item.utility;
        }
        dense_groups(items.iter().map(|item| item.group), group)?;
        let outcome = match self.rerank_items(n, sessions, &cost, spec.rank_start, &recipe, seed) {
            Ok(outcome) => outcome,
            // Met in training: the core started the new query, so the old one is gone.
            Err(e @ ppg_core::Error::NotFinite { .. }) => {
                self.q.n = 0;
                return Err(e.into());
            }
            // Every other refusal (the input's own cost included) came before the core
            // changed anything.
            Err(e) => return Err(e.into()),
        };
        self.commit(items, sessions);
        self.fresh = false;
        let k = relevance.then_some(spec.k.max(1));
        let relevance = self.certify(&cost, spec.rank_start, &recipe, seed, &outcome, k);
        let (n, q) = (self.q.n, &self.q);
        let ids = &q.ids[..n];
        for (slot, &local) in out.iter_mut().zip(&q.locals[..total]) {
            slot.write(id_of(ids, local));
        }
        let trained = outcome.report.unwrap_or(TrainReport {
            epochs: 0,
            samples: 0,
            best_cost: outcome.after,
            best_epoch: None,
            bound: outcome.bound,
            certified: outcome.certified,
        });
        let report = report(TrainReport {
            best_cost: outcome.after,
            bound: outcome.bound,
            certified: outcome.certified,
            ..trained
        });
        Ok(match relevance {
            Some(r) => crate::types::ppg_train_report {
                ndcg: r.ndcg,
                ndcg_bound: r.bound,
                ndcg_gap: r.gap(),
                ndcg_exact: r.exact,
                ..report
            },
            None => report,
        })
    }

    /// A query the objective has no value for (`CostSpec::defined`: AWRF or group-level
    /// expected exposure without a relevant item): it becomes the engine's query,
    /// untrained, and its input ranking is the answer in every session, as `ppg rerank`
    /// and `ppg.rerank` pass it through; the report says so (`passed_through`, NaN
    /// cost). The items are checked as any query's (shape, ids, at most 16 groups).
    fn pass_through(
        &mut self,
        items: &[crate::types::ppg_item],
        sessions: usize,
        out: &mut [MaybeUninit<u64>],
    ) -> Status<crate::types::ppg_train_report> {
        if let Some(group) = self.q.sorted_group.get_mut(..items.len()) {
            dense_groups(items.iter().map(|item| item.group), group)?;
        }
        self.set_query(items, sessions)?;
        let ids = items.iter().map(|item| item.id).cycle();
        for (slot, id) in out.iter_mut().zip(ids) {
            slot.write(id);
        }
        Ok(crate::types::ppg_train_report {
            best_cost: f64::NAN,
            passed_through: true,
            ..crate::growable::Growable::defaults()
        })
    }

    /// The core's recipe over the `n` items staged by `rerank` (checked by
    /// [`Engine::check_items`], not yet the query), its rankings of local items into
    /// `locals`. The core refuses what it refuses (the cost over the items, the input's
    /// own cost) before it changes anything, so the cost is built once, there.
    fn rerank_items(
        &mut self,
        n: usize,
        sessions: usize,
        cost: &CostSpec,
        rank_start: RankStart,
        recipe: &Recipe,
        seed: u64,
    ) -> Result<Outcome, ppg_core::Error> {
        let Engine { core, q, .. } = self;
        let Core::Ppg(ppg) = core else {
            return Err(ppg_core::Error::Unsupported("the recipe needs PPG"));
        };
        let (utility, group) = (&q.certificate[..n], &q.dense[..n]);
        let (tables, scratch) =
            cost_tables(&mut q.tables[..TABLES * n], n, cost.metric, rank_start);
        let query = Ranked {
            utility,
            group,
            sessions,
            seed,
        };
        let work = Workspace {
            order: &mut q.order[..n],
            utility: &mut q.sorted_utility[..n],
            group: &mut q.sorted_group[..n],
            scratch,
        };
        ppg.rerank_ranked(
            &query,
            cost,
            &tables,
            recipe,
            work,
            &mut q.locals[..n * sessions],
        )
    }

    /// Given a `k`, the relevance certificate of NDCG@`k` of the utility of the recipe's
    /// `outcome` (in `locals`) over the current query (just committed), as `ppg rerank
    /// --report` gives it (none for a query of one item, as there).
    fn certify(
        &mut self,
        cost: &CostSpec,
        rank_start: RankStart,
        recipe: &Recipe,
        seed: u64,
        outcome: &Outcome,
        k: Option<usize>,
    ) -> Option<Relevance> {
        let q = &mut self.q;
        let (n, sessions) = (q.n, q.sessions);
        let k = k.filter(|_| n > 1)?;
        // The groups, numbered densely, are `rerank_items`'s.
        let query = Ranked {
            utility: &q.utility[..n],
            group: &q.dense[..n],
            sessions,
            seed,
        };
        // The certificate reads the paper's tables whatever the metric (expected
        // exposure's scratch, AWRF's attention are done with); a refusal (labels NDCG
        // refuses) leaves it out, as `--report` leaves its columns empty.
        let (exposure, discount) = paper(&mut q.tables[..2 * n], n, rank_start);
        let tables = Tables {
            exposure,
            discount,
            attention: &[],
        };
        certify_relevance_ranked(
            &query,
            &q.utility[..n],
            cost,
            &tables,
            recipe,
            outcome,
            &q.locals[..n * sessions],
            k,
            &mut q.spare[..n],
            &mut q.sorted_group[..n],
            q.certificate,
        )
        .ok()
    }

    /// The built-in objective's cost of a ranking given as ids.
    pub(crate) fn evaluate(&mut self, spec: &ObjectiveSpec, ranking: &[u64]) -> Status<f64> {
        self.started()?;
        self.q.locals_of(ranking)?;
        let (total, sessions) = (self.q.total(), self.q.sessions);
        // The objective borrows the query's scratch mutably: lend the ranking out meanwhile.
        let locals = core::mem::take(&mut self.q.locals);
        let value = self.q.with_objective(spec, |objective, _| {
            Ok(objective.cost(&locals[..total], sessions))
        });
        self.q.locals = locals;
        // Training stops on a cost that is not finite; evaluate refuses it the same way.
        value.and_then(|v| v.is_finite().then_some(v).ok_or(ppg_status::NotFinite))
    }
}

/// A training run of either method; PPG on a fresh query first moves its weights to
/// `initial_weight` and moves them back should the run fail, and with `config.hold` holds
/// the order within `groups` for the run (the core releases it, after the run or on error).
fn run<O: Objective + ?Sized, G: PartialEq>(
    core: &mut Core,
    fresh: &mut bool,
    layout_batch: usize,
    config: &ppg_train_config,
    groups: &[G],
    objective: &mut O,
) -> Status<crate::types::ppg_train_report> {
    let r = match core {
        Core::Ppg(ppg) => {
            let recipe = config.ppg(layout_batch)?;
            let w = config.initial_weight()?;
            if config.hold.get() && !config.intra.get() {
                ppg.hold_order_within(groups)?;
            }
            let reweighted = *fresh && w != QUERY_WEIGHT;
            // Moving the weights drops a pending batch; should the run fail, the weights
            // move back and the batch is drawn again, the same as before.
            let pending = ppg.pending_draw();
            if reweighted {
                reweight(ppg, w)?;
            }
            // As the recipe trains (`ppg_engine_rerank`, `ppg rerank`): from the optimum's
            // rankings where a certifying run's objective gives them.
            match ppg.train_from_optimum(objective, &recipe) {
                Ok(r) => r,
                Err(e) => {
                    if reweighted {
                        reweight(ppg, QUERY_WEIGHT)?;
                        if let Some(draw) = &pending {
                            ppg.redraw(draw)?;
                        }
                    }
                    return Err(e.into());
                }
            }
        }
        Core::Pl(pl) => pl.train(objective, &config.pl(layout_batch)?)?,
    };
    *fresh = false;
    Ok(report(r))
}
