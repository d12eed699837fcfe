//! Training grown over sessions ([`TrainConfig::grow`]): the same training run at 1 session,
//! then at each larger count up to the query's, each time from the state before the call,
//! keeping the better of that count's best and the previous count's best dealt out again.
//!
//! Why: a fresh run over `S` sessions draws every session block at once, and with the
//! paper's fixed budget it falls away from the optimum as `S` grows (TREC 2020, DTR:
//! 1.81 at 4 sessions, 2.12 at 32). A `p`-session solution copied into `S` sessions is a
//! feasible `S`-session one, and for a cost that averages over sessions (the protocol's
//! DTR and EEL, expected exposure, AWRF, their NDCG mixes) it costs the same, so keeping
//! the better of the two never loses what a smaller count found. The copy is only scored
//! through the objective: the objective stays a black box.
//!
//! What a stage trains is the caller's: the plain run ([`Run::run`]), or a held run's two
//! parts ([`super::hold`]), whose free part starts from the copy when it is the better.
//!
//! It uses the trainer's loop and the distribution, the sampler and the generator that the
//! engine lends it, and the state before the call, which the engine keeps anyway to undo a
//! failed run.
//!
//! [`TrainConfig::grow`]: crate::TrainConfig::grow

use super::{Run, Saved, Trainer};
use crate::{Error, Rng, TrainReport};

/// The state before the call: every stage starts from it.
pub(crate) struct Before<'s> {
    pub reference: &'s [u16],
    pub weights: &'s [f32],
    pub train: &'s Saved<'s>,
    pub rng: &'s Rng,
}

/// The session counts a grown run trains, in order, ending at `sessions`: 1, then the odd
/// part of `sessions` doubled until it is `sessions` (12: 1, 3, 6, 12; 8: 1, 2, 4, 8;
/// 7: 1, 7). Halving while even keeps every count a multiple of the one before, so a copy
/// deals whole sessions out evenly.
pub(crate) fn stages(sessions: usize) -> impl Iterator<Item = usize> {
    let sessions = sessions.max(1);
    let doublings = sessions.trailing_zeros();
    let odd = sessions >> doublings;
    let from = u32::from(odd == 1);
    core::iter::once(1).chain((from..=doublings).map(move |k| odd << k))
}

/// What a stage trains, at the distribution's session count, from the state before the call
/// (the last stage with the caller's best): the run's stage, given the cost of the kept
/// copy in the trainer's `kept` scratch (+infinity at the first stage, where there is
/// none), which it may take as its best. A function, not a generic, so that the loop below
/// is compiled once for the plain and the held run (a firmware image's flash).
pub(crate) type Stage = fn(&mut Run, f64) -> Result<TrainReport, Error>;

/// Trains the run's distribution (started, `sessions` of them) grown over [`stages`], each
/// stage trained by `stage`. On return the distribution is the last stage's, which is the
/// same run as without growing, and the trainer's best is the better of that run's best
/// and the kept copy. A stage whose kept copy is already certified ([`Run::target`]) is
/// not trained: no sample can improve on it.
///
/// # Errors
/// [`Error::NotFinite`] when the objective returns NaN or an infinity, for a sample or a
/// copy; the caller undoes the partial run.
pub(crate) fn train(run: &mut Run, stage: Stage) -> Result<TrainReport, Error> {
    let (n, sessions) = (run.dist.n, run.dist.sessions);
    let mut report = TrainReport {
        epochs: 0,
        samples: 0,
        best_cost: f64::INFINITY,
        best_epoch: None,
        bound: None,
        certified: false,
    };
    // The kept ranking lives in the trainer's `kept` scratch; `kept_sessions == 0` while
    // nothing is kept.
    let (mut kept_sessions, mut kept_cost) = (0, f64::INFINITY);
    for s in stages(sessions) {
        let before = &run.before;
        run.dist.reference.copy_from_slice(before.reference);
        run.dist.weights.copy_from_slice(before.weights);
        run.dist.sessions = s;
        run.dist.zero_frozen();
        *run.rng = before.rng.clone();
        // The last stage is exactly the run without growing, the caller's best included;
        // the smaller ones start with none.
        if s == sessions {
            run.trainer.restart_from(before.train);
        } else {
            run.trainer.reset();
        }
        run.sampler.invalidate();

        let total = n * s;
        let mut copy_cost = f64::INFINITY;
        if kept_sessions > 0 {
            let p = kept_sessions;
            for j in p..s {
                let from = (j % p) * n;
                run.trainer.kept.copy_within(from..from + n, j * n);
            }
            copy_cost = run.objective.cost(&run.trainer.kept[..total], s);
            report.samples += 1;
            if !copy_cost.is_finite() {
                return Err(Error::NotFinite { index: 0 });
            }
        }
        // Only a copy can be certified here: at the first stage there is none (its cost is
        // +infinity, which a bound of +infinity would have passed).
        if copy_cost.is_finite() && copy_cost <= run.target() {
            kept_cost = copy_cost;
            kept_sessions = s;
            continue;
        }
        let stage = stage(run, copy_cost)?;
        let offset = report.epochs;
        report.epochs += stage.epochs;
        report.samples += stage.samples;

        let trainer = &mut *run.trainer;
        // A held stage's free part may have started from the copy: then its best is the
        // copy or better.
        match trainer.best(total) {
            Some((_, fresh)) if fresh <= copy_cost => {
                let Trainer { state, kept, .. } = trainer;
                kept[..total].copy_from_slice(&state.best[..total]);
                kept_cost = fresh;
                report.best_epoch = stage.best_epoch.map(|e| e + offset);
            }
            _ if copy_cost.is_finite() => kept_cost = copy_cost,
            // Nothing scored at this count (no epochs, input not scored) and nothing kept.
            _ => kept_cost = f64::INFINITY,
        }
        kept_sessions = if kept_cost.is_finite() { s } else { 0 };
    }
    let total = n * sessions;
    let trainer = &mut *run.trainer;
    if kept_cost < trainer.state.best_cost {
        let Trainer { state, kept, .. } = trainer;
        state.best[..total].copy_from_slice(&kept[..total]);
        state.best_cost = kept_cost;
    }
    report.best_cost = trainer.state.best_cost;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::stages;

    fn list(sessions: usize) -> [usize; 8] {
        let mut out = [0; 8];
        for (slot, s) in out.iter_mut().zip(stages(sessions)) {
            *slot = s;
        }
        out
    }

    #[test]
    fn stages_halve_while_even_from_one() {
        assert_eq!(list(1), [1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(list(2), [1, 2, 0, 0, 0, 0, 0, 0]);
        assert_eq!(list(8), [1, 2, 4, 8, 0, 0, 0, 0]);
        assert_eq!(list(12), [1, 3, 6, 12, 0, 0, 0, 0]);
        assert_eq!(list(7), [1, 7, 0, 0, 0, 0, 0, 0]);
        assert_eq!(list(32), [1, 2, 4, 8, 16, 32, 0, 0]);
        assert_eq!(stages(65_535).count(), 2);
    }
}
