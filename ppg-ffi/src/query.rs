//! The query behind an engine's handle, in the caller's terms: its ids mapped to the
//! core's local items and back, its buffers carved from the caller's memory, and the
//! built-in objectives over it ([`CallerQuery::with_objective`]). The engine (`engine.rs`)
//! validates each call against this mapping, then delegates to the core.
//!
//! It stays whole past 400 lines: the mapping, the memory it lives in and the objectives
//! that read it are one idea, the caller's query.

use crate::status::{ppg_status, Status};
use crate::types::{ppg_metric, ObjectiveSpec};
use ppg_core::arena::{region_bytes, sum, Arena};
use ppg_core::objective::{
    exposure, Awrf, AwrfCost, AwrfTarget, Eel, ExpectedExposure, Mix, Ndcg, RankStart, MAX_GROUPS,
};
use ppg_core::recipe::{relevance, AnyDtr, Metric, Tables};
use ppg_core::{Dims, Objective};

/// The objectives' scratch per item (expected exposure's need).
pub(crate) const TABLES: usize = 3;
const _: () = assert!(TABLES >= ExpectedExposure::SCRATCH_PER_ITEM && TABLES >= 2);

/// The query in the caller's terms, and the buffers that translate to and from them
/// (named by its role: the core's `recipe::Query` is the query a recipe takes, scored; the
/// host's `rerank_input::InputQuery` a query read from a file). Capacities are the layout's; the first `n` (or `n * sessions`) entries are live.
pub(crate) struct CallerQuery<'a> {
    /// Items per session; 0 before the first query.
    pub(crate) n: usize,
    pub(crate) sessions: usize,
    /// `ids[k]`: the caller's id of local item `k` (its rank in the input).
    pub(crate) ids: &'a mut [u64],
    pub(crate) utility: &'a mut [f64],
    pub(crate) group: &'a mut [u32],
    /// Local items sorted by id, for id lookups by binary search.
    pub(crate) index: &'a mut [u16],
    /// Scratch: the next `index` while a query is validated, seen-marks while a ranking is.
    pub(crate) spare: &'a mut [u16],
    /// Scratch of `rerank`: the recipe's starting order (`spare` holds the next `index`).
    pub(crate) order: &'a mut [u16],
    /// Scratch: a ranking as ids (handed to the cost callback).
    pub(crate) ids_out: &'a mut [u64],
    /// Scratch: a caller's ranking as local items (`evaluate`).
    pub(crate) locals: &'a mut [u16],
    /// Scratch for the built-in objectives, `3 n` values: the exposure and the NDCG (or
    /// AWRF) discount in its first two thirds, or expected exposure's scratch in all of
    /// it; and the dense group ids.
    pub(crate) tables: &'a mut [f64],
    pub(crate) dense: &'a mut [u8],
    /// Scratch: PL's initial logits.
    pub(crate) logits: &'a mut [f32],
    /// Scratch of `rerank`: the recipe's workspace (utility and groups in starting order).
    pub(crate) sorted_utility: &'a mut [f64],
    pub(crate) sorted_group: &'a mut [u8],
    /// Scratch of `rerank`'s relevance certificate ([`CERTIFICATE`] values per item and
    /// [`relevance::SCRATCH_EXTRA`] more).
    pub(crate) certificate: &'a mut [f64],
}

/// The relevance certificate's scratch per item (at least one: `rerank` stages the
/// items' utility there before it reads the certificate).
pub(crate) const CERTIFICATE: usize = relevance::SCRATCH_PER_ITEM;
const _: () = assert!(CERTIFICATE >= 1);

/// The relevance certificate's scratch for `n` items.
fn certificate_len(n: usize) -> usize {
    n.saturating_mul(CERTIFICATE)
        .saturating_add(relevance::SCRATCH_EXTRA)
}

impl CallerQuery<'_> {
    /// Bytes of the query's buffers, counted as the core counts its own
    /// ([`ppg_core::arena`]); [`ppg_status::Capacity`] when they do not fit in memory.
    pub(crate) fn bytes(dims: Dims) -> Status<usize> {
        let (n, total) = (dims.items, dims.total());
        let bytes = sum(&[
            region_bytes::<u64>(n),
            region_bytes::<f64>(n),
            region_bytes::<u32>(n),
            region_bytes::<u16>(n),
            region_bytes::<u16>(n),
            region_bytes::<u16>(n),
            region_bytes::<u64>(total),
            region_bytes::<u16>(total),
            region_bytes::<f64>(n.saturating_mul(TABLES)),
            region_bytes::<u8>(n),
            region_bytes::<f32>(n),
            region_bytes::<f64>(n),
            region_bytes::<u8>(n),
            region_bytes::<f64>(certificate_len(n)),
        ]);
        // The core's sizes saturate: usize::MAX means "does not fit in memory".
        if bytes == usize::MAX {
            return Err(ppg_status::Capacity);
        }
        Ok(bytes)
    }
}

impl<'a> CallerQuery<'a> {
    pub(crate) fn carve(rest: &'a mut [u8], dims: Dims) -> Status<Self> {
        let (n, total) = (dims.items, dims.total());
        let rest = &mut Arena::new(rest, Self::bytes(dims)?);
        Ok(CallerQuery {
            n: 0,
            sessions: 0,
            ids: rest.take(n)?,
            utility: rest.take(n)?,
            group: rest.take(n)?,
            index: rest.take(n)?,
            spare: rest.take(n)?,
            order: rest.take(n)?,
            ids_out: rest.take(total)?,
            locals: rest.take(total)?,
            tables: rest.take(n.checked_mul(TABLES).ok_or(ppg_status::Capacity)?)?,
            dense: rest.take(n)?,
            logits: rest.take(n)?,
            sorted_utility: rest.take(n)?,
            sorted_group: rest.take(n)?,
            certificate: rest.take(certificate_len(n))?,
        })
    }

    pub(crate) fn total(&self) -> usize {
        self.n * self.sessions
    }

    /// The local item of the caller's `id`.
    pub(crate) fn lookup(&self, id: u64) -> Status<usize> {
        let ids = &self.ids[..self.n];
        let index = &self.index[..self.n];
        let at = index
            .binary_search_by_key(&id, |&k| id_of(ids, k))
            .map_err(|_| ppg_status::UnknownItem)?;
        Ok(usize::from(index[at]))
    }

    /// Translates a ranking of ids into `locals`, checking that each session is a
    /// permutation of the query's items.
    pub(crate) fn locals_of(&mut self, ranking: &[u64]) -> Status<()> {
        let (n, total) = (self.n, self.total());
        if ranking.len() != total {
            return Err(ppg_status::InvalidArgument);
        }
        for (s, block) in ranking.chunks_exact(n).enumerate() {
            self.spare[..n].fill(0);
            for (k, &id) in block.iter().enumerate() {
                let local = self.lookup(id)?;
                if self.spare[local] != 0 {
                    return Err(ppg_status::NotPermutation);
                }
                self.spare[local] = 1;
                // Local ids are below n <= u16::MAX.
                self.locals[s * n + k] = local as u16;
            }
        }
        Ok(())
    }

    /// Runs `f` with the built-in objective `spec` over the current query and its groups
    /// (numbered densely: equal where the caller's are).
    pub(crate) fn with_objective<R>(
        &mut self,
        spec: &ObjectiveSpec,
        f: impl FnOnce(&mut dyn Objective, &[u8]) -> Status<R>,
    ) -> Status<R> {
        let n = self.n;
        dense_groups(self.group[..n].iter().copied(), &mut self.dense[..n])?;
        let (utility, group) = (&self.utility[..n], &self.dense[..n]);
        let tables = &mut self.tables[..TABLES * n];
        let start = spec.rank_start;
        let ndcg = |discount| Ndcg::new(utility, spec.k, discount);
        match spec.metric {
            ppg_metric::Dtr => f(
                &mut AnyDtr::new(utility, group, paper(tables, n, start).0)?,
                group,
            ),
            ppg_metric::Eel => {
                let exposure = paper(tables, n, start).0;
                f(&mut Eel::new(utility, group, spec.levels, exposure)?, group)
            }
            ppg_metric::Ndcg => f(&mut ndcg(paper(tables, n, start).1)?, group),
            ppg_metric::DtrNdcgMix => {
                let (exposure, discount) = paper(tables, n, start);
                let dtr = AnyDtr::new(utility, group, exposure)?;
                f(&mut Mix::new(dtr, ndcg(discount)?, spec.mix_weight)?, group)
            }
            ppg_metric::EelNdcgMix => {
                let (exposure, discount) = paper(tables, n, start);
                let eel = Eel::new(utility, group, spec.levels, exposure)?;
                f(&mut Mix::new(eel, ndcg(discount)?, spec.mix_weight)?, group)
            }
            ppg_metric::ExpectedExposure => f(
                &mut ExpectedExposure::new(
                    utility,
                    group,
                    spec.browse,
                    spec.ee_level,
                    spec.ee.measure,
                    spec.ee.normalised,
                    tables,
                )?,
                group,
            ),
            ppg_metric::Awrf => {
                let attention = &mut tables[..n];
                Awrf::discount(attention);
                // Uniform over the caller's count of groups, else the query's ids
                // 0..=max (`ppg_objective_config.awrf_groups`).
                let groups = spec
                    .awrf_groups
                    .unwrap_or_else(|| group.iter().max().map_or(1, |&g| usize::from(g) + 1));
                let population = [1.0; MAX_GROUPS];
                let target = AwrfTarget::Trec {
                    population: population.get(..groups).ok_or(ppg_core::Error::Capacity {
                        requested: groups,
                        capacity: MAX_GROUPS,
                    })?,
                };
                let awrf = Awrf::new(utility, group, target, attention, AwrfCost::Product)?;
                let awrf = match spec.awrf_depth {
                    Some(depth) => awrf.with_depth(depth)?,
                    None => awrf,
                };
                f(&mut { awrf }, group)
            }
        }
    }
}

/// The tables and scratch the recipe's cost of `metric` over `n` items takes, in `memory`
/// (the built-ins' scratch, as `with_objective` lends it): the paper's two tables, AWRF's
/// attention, or expected exposure's own values (no built-in mixes those two with NDCG,
/// so none needs more).
pub(crate) fn cost_tables(
    memory: &mut [f64],
    n: usize,
    metric: Metric,
    rank_start: RankStart,
) -> (Tables<'_>, &mut [f64]) {
    match metric {
        Metric::Dtr | Metric::Eel => {
            let (exposure, discount) = paper(memory, n, rank_start);
            let tables = Tables {
                exposure,
                discount,
                attention: &[],
            };
            (tables, &mut [])
        }
        Metric::Awrf => {
            let attention = &mut memory[..n];
            Awrf::discount(attention);
            let tables = Tables {
                exposure: &[],
                discount: &[],
                attention: &*attention,
            };
            (tables, &mut [])
        }
        // The C API names no AWRF 2022 (its attributes are side data the C request does
        // not carry yet); `Cost::new` refuses it.
        Metric::Ee | Metric::Awrf2022 => {
            let tables = Tables {
                exposure: &[],
                discount: &[],
                attention: &[],
            };
            (tables, memory)
        }
    }
}

/// The paper's exposure (from `start`) and the NDCG discount in the first `2 n` of
/// `tables`.
pub(crate) fn paper(tables: &mut [f64], n: usize, start: RankStart) -> (&[f64], &[f64]) {
    let (exposure, rest) = tables.split_at_mut(n);
    let discount = &mut rest[..n];
    exposure::fill(start, exposure);
    exposure::fill(RankStart::Zero, discount);
    (exposure, discount)
}

/// The caller's id of local item `local` (always below the item count: the core's
/// rankings are permutations of `0..n`).
pub(crate) fn id_of(ids: &[u64], local: u16) -> u64 {
    ids.get(usize::from(local)).copied().unwrap_or(u64::MAX)
}

/// Maps arbitrary group labels to `0..groups` in order of first appearance: the metrics
/// index arrays by group and tell at most [`MAX_GROUPS`] apart.
pub(crate) fn dense_groups(group: impl IntoIterator<Item = u32>, out: &mut [u8]) -> Status<()> {
    let mut seen = [0u32; MAX_GROUPS];
    let mut count = 0;
    for (g, slot) in group.into_iter().zip(out.iter_mut()) {
        let k = match seen[..count].iter().position(|&s| s == g) {
            Some(k) => k,
            None if count < MAX_GROUPS => {
                seen[count] = g;
                count += 1;
                count - 1
            }
            None => return Err(ppg_status::Capacity),
        };
        // k < MAX_GROUPS = 16.
        *slot = k as u8;
    }
    Ok(())
}
