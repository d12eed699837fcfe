//! A training call with held pairs ([`crate::Ppg::hold_order_within`]): first a run with
//! the held pairs frozen, then, from the best ranking so far, a run with them free; grown
//! over sessions ([`crate::TrainConfig::grow`]), both parts at every stage.
//!
//! Why hold: without the intra-group constraint, a run over a long list spends its samples
//! on swaps within a group, and with the paper's budget it stops far from the optimum
//! (TREC 2020, true labels, DTR: 1.858 against the exact optimum's 1.810 at one session,
//! and no better with 16 times the epochs). With those swaps held first, the search runs in
//! the smaller space where the constrained rows reach the optimum, and the free run after
//! it can only improve on that: the trainer's best carries over. The objective stays a
//! black box; which pairs to hold is the caller's choice.
//!
//! Why both parts at every stage: where the held order is far from every good ranking
//! (expected exposure and AWRF want items of one group interleaved across sessions), the
//! free part is what finds the answer, and a free part run only once at the full count
//! spends the fixed budget on all sessions at once, as an ungrown run does. Grown over the
//! held part alone, TREC 2020's normalised EE-L was 0.049 at 1 session, 0.066 at 4 and
//! 0.226 at 32. At every stage the free part starts from the better of the held part's
//! best and the previous stage's answer dealt out again ([`super::grow`]), so with a cost
//! that averages over sessions no stage ends worse than the one before.

use super::{grow, Run, Trainer};
use crate::{Error, TrainConfig, TrainReport};

/// Trains the run's distribution (started, with held pairs): [`stage`] at the run's
/// session count, or, grown, at every count of [`grow::stages`]. On return the held pairs
/// are free and the weights are the last free part's. When holding would leave no pair
/// free, only the free run is made, as [`Run::run`].
///
/// # Errors
/// [`Error::NotFinite`] when the objective returns NaN or an infinity; the held pairs may
/// still be frozen, and the caller unholds them and undoes the partial run.
pub(crate) fn train(run: &mut Run) -> Result<TrainReport, Error> {
    if !run.dist.free_while_held() {
        // Held, every pair would be fixed and the first run could only draw the reference
        // again and again (one group): only the free run is worth its samples.
        return run.run();
    }
    if run.config.grow && run.dist.sessions > 1 {
        grow::train(run, stage)
    } else {
        stage(run, f64::INFINITY)
    }
}

/// One held run at the distribution's current session count: the run's recipe with the
/// held pairs frozen at weight 0, then the held pairs released at weight
/// `config.clamp_min` (the least weight the trainer keeps: they were never inverted) and
/// one run more, from the best ranking so far as every session's reference: the held
/// part's, or the ranking in the trainer's `kept` scratch when its cost `carried` is lower
/// (a grown run's previous stage dealt out; +infinity for none), or the objective's
/// optimum rankings at this count when the call starts from them and they cost less
/// still. The free part does not score the input again. When the best is certified, the
/// free part makes no epoch.
///
/// # Errors
/// As [`train`].
fn stage(run: &mut Run, carried: f64) -> Result<TrainReport, Error> {
    // Where the call starts from the objective's optimum, its rankings at this count are a
    // candidate too ([`super::optimum::carry`]).
    let (carried, scored) = match (run.from_optimum, run.config.certify) {
        (Some(from), Some(_)) => {
            (from.carry)(run.trainer, run.dist, run.sampler, run.objective, carried)?
        }
        _ => (carried, false),
    };
    run.dist.hold();
    run.sampler.invalidate();
    let config = *run.config;
    let first = run.train(&config)?;
    run.dist.release(run.config.clamp_min);
    let total = run.dist.n * run.dist.sessions;
    let trainer = &mut *run.trainer;
    if carried < trainer.state.best_cost {
        let Trainer { state, kept, .. } = trainer;
        state.best[..total].copy_from_slice(&kept[..total]);
        state.best_cost = carried;
    }
    if trainer.best(total).is_some() {
        trainer.rereference(run.dist, run.sampler);
    }
    run.sampler.invalidate();
    let free = TrainConfig {
        score_input: false,
        grow: false,
        ..config
    };
    let second = run.train(&free)?;
    Ok(TrainReport {
        epochs: first.epochs + second.epochs,
        samples: first.samples + second.samples + u32::from(scored),
        best_cost: second.best_cost,
        best_epoch: match second.best_epoch {
            Some(e) => Some(first.epochs + e),
            None => first.best_epoch,
        },
        bound: None,
        certified: false,
    })
}
