//! A training call with held pairs ([`crate::Ppg::hold_order_within`]): first a run with
//! the held pairs frozen, then, from the best ranking that run found, a run with them free.
//!
//! Why: without the intra-group constraint, a run over a long list spends its samples on
//! swaps within a group, and with the paper's budget it stops far from the optimum (TREC
//! 2020, true labels, DTR: 1.858 against the exact optimum's 1.810 at one session, and no
//! better with 16 times the epochs). With those swaps held first, the search runs in the
//! smaller space where the constrained rows reach the optimum, and the free run after it
//! can only improve on that: the trainer's best carries over. The objective stays a black
//! box; which pairs to hold is the caller's choice.

use super::Run;
use crate::{Error, TrainConfig, TrainReport};

/// Trains the run's distribution (started, with held pairs): the first run as [`Run::run`]
/// with the held pairs frozen at weight 0, then the held pairs released at weight
/// `config.clamp_min` (the least weight the trainer keeps: they were never inverted) and
/// one run more, not grown, from the best ranking so far as every session's reference. On
/// return the held pairs are free and the weights are the second run's. When holding would
/// leave no pair free, only the free run is made, as [`Run::run`]. When the first run is
/// certified, the second makes no epoch.
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
    run.dist.hold();
    run.sampler.invalidate();
    let first = run.run()?;
    run.dist.release(run.config.clamp_min);
    if run.trainer.best(run.dist.n * run.dist.sessions).is_some() {
        run.trainer.rereference(run.dist, run.sampler);
    }
    run.sampler.invalidate();
    let free = TrainConfig {
        score_input: false,
        grow: false,
        ..*run.config
    };
    let second = run.train(&free)?;
    Ok(TrainReport {
        epochs: first.epochs + second.epochs,
        samples: first.samples + second.samples,
        best_cost: second.best_cost,
        best_epoch: match second.best_epoch {
            Some(e) => Some(first.epochs + e),
            None => first.best_epoch,
        },
        bound: None,
        certified: false,
    })
}
