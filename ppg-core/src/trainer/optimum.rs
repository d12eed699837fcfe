//! A certifying training call that starts from the objective's optimum rankings
//! ([`Objective::optimum`](crate::Objective::optimum)) where it gives them.
//!
//! Why: where the objective's lower bound is exact and it can build rankings that reach
//! it (the two-group DTR and EEL), sampling towards them is slower than scoring them. On
//! TREC 2020 with true labels, at one session, 27 of DTR's 108 valid queries and 98 of
//! EEL's 190 never came within the tolerance of the bound in 995f228's run and trained to
//! their patience (96% and 71% of the runs' steps); the optimum rankings cost less and
//! gain NDCG@10 (DTR 0.8853 to 0.8910, EEL 0.9856 to 0.9990). The rankings are only scored
//! through the objective, and only taken when certified and when they keep every frozen
//! pair's order.

use super::{locate, lowest, Run, Trainer};
use crate::distribution::Distribution;
use crate::objective::LowerBound;
use crate::sampler::Sampler;
use crate::{Error, Objective, TrainReport};

/// With [`crate::TrainConfig::certify`], the whole call at once: scores the objective's
/// optimum rankings at the call's session count (and the input first, with
/// `score_input`); when the better of them is certified it becomes the best and every
/// session's reference, and the report of a call that trained no epoch is returned. `None`
/// otherwise: the call trains, every run scoring the optimum's rankings at its own count
/// ([`offer`]).
///
/// # Errors
/// [`Error::NotFinite`] when a cost is NaN or an infinity; the caller undoes the call.
pub(crate) fn start(run: &mut Run) -> Result<Option<TrainReport>, Error> {
    let Some(tolerance) = run.config.certify else {
        return Ok(None);
    };
    let (n, sessions) = (run.dist.n, run.dist.sessions);
    let total = n * sessions;
    let bound = match run.trainer.optimum(&*run.objective, n, sessions, true) {
        Some(b) if run.trainer.optimum_in_batch(sessions) && !run.objective.single() => b,
        _ => return Ok(None),
    };
    if !frozen_kept(run.trainer, run.dist, run.sampler) {
        return Ok(None);
    }
    let trainer = &mut *run.trainer;
    let mut samples = 0;
    let mut best = f64::INFINITY;
    if run.config.score_input {
        best = run.objective.cost(&run.dist.reference[..total], sessions);
        samples += 1;
        if !best.is_finite() {
            return Err(Error::NotFinite { index: 0 });
        }
    }
    let cost = run.objective.cost(&trainer.state.batch[..total], sessions);
    samples += 1;
    if !cost.is_finite() {
        return Err(Error::NotFinite { index: 0 });
    }
    let found_won = lowest(&[cost], &mut best).is_some();
    if best > bound.value + tolerance {
        return Ok(None);
    }
    // The caller's best carried in may be better still (a second call on one query).
    if lowest(&[best], &mut trainer.state.best_cost).is_some() {
        let from = if found_won {
            &trainer.state.batch[..total]
        } else {
            &run.dist.reference[..total]
        };
        trainer.state.best[..total].copy_from_slice(from);
        trainer.rereference(run.dist, run.sampler);
        run.sampler.invalidate();
    }
    Ok(Some(TrainReport {
        epochs: 0,
        samples,
        best_cost: trainer.state.best_cost,
        best_epoch: None,
        bound: None,
        certified: false,
    }))
}

/// What a call that starts from the optimum lends its runs ([`Run::from_optimum`]):
/// functions, not a flag, so that an image whose calls never do (the firmware, which only
/// calls `Ppg::train`) links none of it (65,648 B of flash with a flag, 64,612 B without).
#[derive(Clone, Copy)]
pub(crate) struct FromOptimum {
    /// The run's bound, with the optimum's rankings into the batch ([`Trainer::optimum`]).
    pub(crate) bound: fn(&mut Trainer, &dyn Objective, usize, usize) -> Option<LowerBound>,
    /// Scores them ([`offer`]).
    pub(crate) offer: fn(
        &mut Trainer,
        &mut Distribution,
        &mut Sampler,
        &mut dyn Objective,
    ) -> Result<bool, Error>,
    /// A held stage's candidate ([`carry`]).
    pub(crate) carry: Carry,
}

/// [`carry`]'s type.
pub(crate) type Carry = fn(
    &mut Trainer,
    &mut Distribution,
    &mut Sampler,
    &mut dyn Objective,
    f64,
) -> Result<(f64, bool), Error>;

/// [`FromOptimum`]'s functions.
pub(crate) const FROM_OPTIMUM: FromOptimum = FromOptimum {
    bound: |trainer, objective, n, sessions| trainer.optimum(objective, n, sessions, false),
    offer,
    carry,
};

/// One run's candidate: the optimum's rankings in the batch ([`Trainer::optimum`]), scored
/// and made the best (and every session's reference) when they beat it and keep every
/// frozen pair's order. Whether they were scored.
///
/// # Errors
/// [`Error::NotFinite`] when their cost is NaN or an infinity.
pub(crate) fn offer(
    trainer: &mut Trainer,
    dist: &mut Distribution,
    sampler: &mut Sampler,
    objective: &mut dyn Objective,
) -> Result<bool, Error> {
    if objective.single() || !frozen_kept(trainer, dist, sampler) {
        return Ok(false);
    }
    let (sessions, total) = (dist.sessions, dist.n * dist.sessions);
    let cost = objective.cost(&trainer.state.batch[..total], sessions);
    if !cost.is_finite() {
        return Err(Error::NotFinite { index: 0 });
    }
    if lowest(&[cost], &mut trainer.state.best_cost).is_some() {
        trainer.state.best[..total].copy_from_slice(&trainer.state.batch[..total]);
        trainer.rereference(dist, sampler);
        sampler.invalidate();
    }
    Ok(true)
}

/// A held stage's candidate for its free part ([`super::hold`]), before the held pairs are
/// frozen: the optimum's rankings at the stage's count (written into the batch again where
/// a draw overwrote them: at the call's own count, searched before the first stage),
/// scored when they keep every frozen pair, and copied into the trainer's `kept` scratch
/// when they cost less than `carried`, the cost of what it holds. Returns the cost of what
/// it holds then, and whether they were scored.
///
/// Why: the held part refuses them (they break the held order) and draws over them, so
/// without this the free part never saw them, and a 2-session run could end above the
/// 1-session answer that they are (TREC 2020, EEL, by 3.4e-7).
///
/// # Errors
/// [`Error::NotFinite`] when their cost is NaN or an infinity.
pub(crate) fn carry(
    trainer: &mut Trainer,
    dist: &mut Distribution,
    sampler: &mut Sampler,
    objective: &mut dyn Objective,
    carried: f64,
) -> Result<(f64, bool), Error> {
    let (n, sessions) = (dist.n, dist.sessions);
    if objective.single() {
        return Ok((carried, false));
    }
    // The stage's bound, searched and cached here when first asked (the run's certificate
    // asks again), with its rankings; searched again only where a draw overwrote them.
    trainer.optimum(&*objective, n, sessions, false);
    if !trainer.refill_optimum(&*objective, n, sessions) || !keeps_frozen(trainer, dist, sampler) {
        return Ok((carried, false));
    }
    let total = n * sessions;
    let cost = objective.cost(&trainer.state.batch[..total], sessions);
    if !cost.is_finite() {
        return Err(Error::NotFinite { index: 0 });
    }
    if cost >= carried {
        return Ok((carried, true));
    }
    let Trainer { state, kept, .. } = trainer;
    kept[..total].copy_from_slice(&state.batch[..total]);
    Ok((cost, true))
}

/// Whether the rankings in the batch keep every frozen pair in its reference order, in
/// every session, after [`order_within_frozen`] has put the items of each class of
/// frozen pairs in their reference order on the positions the class holds.
///
/// Why reorder: the optimum's rankings put each group's items in its positions by
/// utility, the most relevant order those positions allow (graded labels, 600 queries,
/// two-group DTR at one session: NDCG@10 0.945 in input order, 0.956 by utility). Where
/// the order within groups is frozen (`intra`, or a held run), the same positions in the
/// reference order are the rankings that keep it, at the same cost for a metric of the
/// groups' positions (every built-in one); a caller's own cost scores them anyway.
fn frozen_kept(trainer: &mut Trainer, dist: &Distribution, sampler: &mut Sampler) -> bool {
    keeps_frozen(trainer, dist, sampler) || {
        order_within_frozen(trainer, dist, sampler);
        keeps_frozen(trainer, dist, sampler)
    }
}

/// Puts, in every session of the batch, the items of each class of frozen pairs (items
/// joined by a frozen pair to the class's first item: the groups, under the intra-group
/// constraint) in their reference order on the positions the class holds.
fn order_within_frozen(trainer: &mut Trainer, dist: &Distribution, sampler: &mut Sampler) {
    let n = dist.n;
    for s in 0..dist.sessions {
        let (class, was) = sampler.positions(n);
        // The class of `y`: the first item it is frozen with, or itself.
        for y in 0..n {
            class[y] = (0..y)
                .find(|&x| class[x] as usize == x && dist.frozen.get(crate::pairs::index(x, y, n)))
                .unwrap_or(y) as u16;
        }
        locate(dist.reference_of(s), was);
        let block = &mut trainer.state.batch[s * n..(s + 1) * n];
        // Selection within each class: position by position, the class's item with the
        // earliest reference position among those at or after it.
        for p in 0..n {
            let c = class[usize::from(block[p])];
            let mut pick = p;
            for q in p + 1..n {
                let item = usize::from(block[q]);
                if class[item] == c && was[item] < was[usize::from(block[pick])] {
                    pick = q;
                }
            }
            block.swap(p, pick);
        }
    }
}

/// Whether the rankings in the batch keep every frozen pair in its reference order, in
/// every session (the intra-group constraint, the caller's `forbid`s).
fn keeps_frozen(trainer: &Trainer, dist: &Distribution, sampler: &mut Sampler) -> bool {
    let n = dist.n;
    let found = &trainer.state.batch[..n * dist.sessions];
    for (s, block) in found.chunks_exact(n).enumerate() {
        let (at, was) = sampler.positions(n);
        locate(block, at);
        locate(dist.reference_of(s), was);
        let mut pair = 0;
        for x in 0..n {
            for y in x + 1..n {
                if dist.frozen.get(pair) && (at[x] < at[y]) != (was[x] < was[y]) {
                    return false;
                }
                pair += 1;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::objective::{exposure, Dtr, RankStart};
    use crate::{Dims, Ppg, TrainConfig};

    const N: usize = 6;

    /// The optimum's rankings of a query whose input favours group 0, and whether the run
    /// trained; `forbid` keeps items 1 and 4 in their starting order.
    fn run(forbid: bool) -> ([u16; N], u32) {
        let dims = Dims::new(N, 1, 16);
        let mut mem = [0u8; Ppg::bytes(Dims::new(N, 1, 16))];
        let mut engine = Ppg::new(&mut mem, dims, 3).unwrap();
        let mut table = [0.0; N];
        exposure::fill(RankStart::One, &mut table);
        let (utility, group) = ([1.0; N], [0, 0, 0, 1, 1, 1]);
        let mut dtr = Dtr::new(&utility, &group, &table).unwrap();
        engine.start(N, 1, 0.5).unwrap();
        if forbid {
            engine.forbid(1, 4).unwrap();
        }
        let config = TrainConfig {
            score_input: true,
            certify: Some(1e-8),
            ..TrainConfig::default()
        };
        let report = engine.train_from_optimum(&mut dtr, &config).unwrap();
        let mut best = [0; N];
        best.copy_from_slice(engine.best().unwrap().0);
        (best, report.epochs)
    }

    #[test]
    fn rankings_that_break_a_frozen_pair_are_not_taken() {
        let position = |r: &[u16], item: u16| r.iter().position(|&i| i == item).unwrap();
        // Free: the optimum puts item 4 above item 1, and no epoch is trained.
        let (free, epochs) = run(false);
        assert!(position(&free, 4) < position(&free, 1), "{free:?}");
        assert_eq!(epochs, 0);
        // With the pair frozen the optimum's rankings are refused and the run trains.
        let (kept, epochs) = run(true);
        assert!(position(&kept, 1) < position(&kept, 4), "{kept:?}");
        assert!(epochs > 0);
    }
}
