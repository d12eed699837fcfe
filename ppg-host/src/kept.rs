//! An engine kept on each worker thread from one query to the next. Laying an engine out
//! zeroes its memory and builds its sampler's tables; on a query of 20 items with nothing
//! to optimise (one group) that was 27 % of `ppg rerank`'s instructions (docs/performance.md,
//! "Reading and writing"). A query re-ranked on a kept engine gets the rankings a new one
//! gives: the recipe reseeds it with the query's seed and restarts it
//! ([`Ppg::start`](ppg_core::Ppg::start)), as the Python package's chunks of queries on one
//! engine rely on too.
//!
//! The engine is kept only when its bytes are at most the caller's `keep`: `ppg rerank`
//! keeps at most 1/64 of `--memory` over its threads outside the memory budget, as its
//! reader's longest line is.

use std::cell::RefCell;

use ppg_core::{Dims, Ppg};

/// Why no engine could be had ([`Failure`](crate::rerank_query::Failure) says it to the
/// request's caller; this module stays below the request).
#[derive(Debug)]
pub(crate) enum NoEngine {
    /// The engine's `bytes` could not be allocated.
    Allocation {
        bytes: usize,
        error: std::collections::TryReserveError,
    },
    /// The core refused the shape.
    Engine(ppg_core::Error),
}

/// An engine with the memory it borrows (ouroboros writes the self-borrowing struct).
#[ouroboros::self_referencing]
struct Cell {
    dims: Dims,
    seed: u64,
    /// `Ppg::bytes(dims)`, worked out once (it walks the sampler's layout).
    bytes: usize,
    memory: Vec<u8>,
    #[borrows(mut memory)]
    #[not_covariant]
    engine: Ppg<'this>,
}

thread_local! {
    /// This thread's engine, between its queries.
    static KEPT: RefCell<Option<Cell>> = const { RefCell::new(None) };
}

/// Runs `f` on an engine of shape `dims` seeded with `seed` ([`Ppg::new`]): this thread's
/// kept one when it has that shape and seed, a new one otherwise, kept afterwards when its
/// `bytes` are at most `keep` (`keep` 0 keeps none and drops any kept).
///
/// # Errors
/// [`NoEngine::Allocation`] when the memory cannot be had, [`NoEngine::Engine`] when the
/// core refuses the shape.
pub(crate) fn with_engine<T>(
    dims: Dims,
    seed: u64,
    keep: usize,
    f: impl FnOnce(&mut Ppg) -> T,
) -> Result<T, NoEngine> {
    let kept = KEPT.with(|k| k.borrow_mut().take()).filter(|c| {
        *c.borrow_dims() == dims && *c.borrow_seed() == seed && *c.borrow_bytes() <= keep
    });
    let mut cell = match kept {
        Some(cell) => cell,
        None => {
            let bytes = Ppg::bytes(dims);
            // A failed allocation is an error of this run, not an abort.
            let mut memory = Vec::new();
            memory
                .try_reserve_exact(bytes)
                .map_err(|error| NoEngine::Allocation { bytes, error })?;
            memory.resize(bytes, 0);
            CellTryBuilder {
                dims,
                seed,
                bytes,
                memory,
                engine_builder: |m: &mut Vec<u8>| Ppg::new(m, dims, seed),
            }
            .try_build()
            .map_err(NoEngine::Engine)?
        }
    };
    let out = cell.with_engine_mut(f);
    if *cell.borrow_bytes() <= keep {
        KEPT.with(|k| *k.borrow_mut() = Some(cell));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::cost::{CostSpec, Metric};
    use crate::rerank_query::{Method, RerankSpec, Reranker, Rows};
    use ppg_core::objective::RankStart;
    use ppg_core::Recipe;

    type Columns = (Vec<f64>, Vec<f64>, Vec<u8>);

    fn rows((score, utility, group): &Columns) -> Rows<'_> {
        Rows {
            score,
            utility,
            group,
        }
    }

    /// Queries of two lengths, one or two groups, in turn on one thread: every query's
    /// outcome on the kept engine (used before by other queries) is the one a new engine
    /// gives it.
    #[test]
    fn a_kept_engine_reranks_as_a_new_one() {
        for (metric, sessions) in [(Metric::Eel, 1), (Metric::Eel, 4), (Metric::Dtr, 3)] {
            let spec = RerankSpec {
                cost: CostSpec::new(metric, 2, None),
                recipe: Recipe::recommended(),
                sessions,
                seed: 11,
                method: Method::Ppg,
                rank_start: RankStart::One,
                attributes: None,
            };
            let reranker = Reranker::new(spec, 32);
            let queries: Vec<Columns> = (0..12usize)
                .map(|query| {
                    let n = if query % 5 == 0 { 9 } else { 14 };
                    let score: Vec<f64> = (0..n).map(|k| ((k * 7 + query) % 11) as f64).collect();
                    let utility = score.iter().map(|s| s / 10.0 + 0.05).collect();
                    let group = (0..n)
                        .map(|k| u8::from(query % 4 != 1 && k % 3 == 0))
                        .collect();
                    (score, utility, group)
                })
                .collect();
            let new: Vec<_> = (0..queries.len())
                .map(|q| reranker.rerank_alone(&rows(&queries[q]), reranker.seed(q)))
                .map(Result::unwrap)
                .collect();
            for (q, want) in new.iter().enumerate() {
                let kept = reranker.rerank_kept(&rows(&queries[q]), reranker.seed(q), usize::MAX);
                assert_eq!(
                    &kept.unwrap(),
                    want,
                    "{metric:?}, {sessions} sessions, query {q}"
                );
            }
        }
    }
}
