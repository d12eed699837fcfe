//! The `extern "C"` functions that run a query: training against a callback or a built-in
//! objective, the recipe in one call (`ppg_engine_rerank`), and a ranking's cost. Each body
//! goes through `ffi_boundary!`, as in the parent module, whose functions come before these
//! in `include/ppg.h`.

use crate::boundary::{
    ffi_boundary, growable, growable_out, input, output, ppg_engine, Callback, GrowableOut,
};
use crate::status::ppg_status;
use crate::types::{ppg_item, ppg_objective_config, ppg_train_config, ppg_train_report};
use core::ffi::c_void;

use super::ppg_cost_fn;

/// Trains against the caller's cost `callback` (see `ppg_cost_fn`), called once per
/// sampled ranking with `user`; the best ranking is then read with `ppg_engine_best`.
///
/// PPG: on the first training call after `ppg_engine_set_query` (no `ppg_engine_update`
/// or training since), every unconstrained pair starts from `config->initial_weight`.
/// PL ignores the PPG-only fields (they are still checked).
///
/// A batch pending from `ppg_engine_sample` is dropped. Transactional: on any failure (a
/// NaN from the callback included) the engine, its generator and pending batch included,
/// is exactly as before the call.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER` (`engine`, `config` or `callback`
/// NULL; `user` and `report` may be NULL); `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_INVALID_ARGUMENT` (a field of `config` out of
/// range); `PPG_STATUS_NOT_FINITE` (the callback returned NaN or an infinity);
/// `PPG_STATUS_VERSION_MISMATCH` (the `struct_size` of `config` or `report` unknown,
/// checked before anything runs); `PPG_STATUS_PANIC`. `*report` (prepared by
/// `ppg_train_report_default`) is written on success only, up to its `struct_size`.
///
/// # Safety
/// `engine` is a live handle; `config` is NULL or a struct of `struct_size` readable
/// bytes; `callback` follows the `ppg_cost_fn` contract; `report` is NULL or a struct of
/// `struct_size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_train(
    engine: *mut ppg_engine,
    config: *const ppg_train_config,
    callback: ppg_cost_fn,
    user: *mut c_void,
    report: *mut ppg_train_report,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(config) => |e| {
        let f = callback.ok_or(ppg_status::NullParameter)?;
        let config: ppg_train_config = growable!(config);
        let report_out = growable_out!(report);
        let callback = Callback { f, user };
        let r = e.train(&config, |ranking, sessions| callback.call(ranking, sessions))?;
        if let Some(out) = report_out {
            out.write(r);
        }
        Ok(())
    })
}

/// Trains against a built-in objective over the query's utilities and groups (see
/// `ppg_objective_config`); otherwise as `ppg_engine_train`. Group labels are arbitrary;
/// EEL and DTR tell up to 16 groups apart. DTR over the group labels of two groups is the
/// paper's, with its exact bound; over 3 to 16 it is the largest over the smallest
/// exposure-per-utility ratio among the groups with utility, minus 1, with its exact
/// optimum where a budgeted search proves it and a proven lower bound where not (the
/// report's `bound_exact` false); with fewer than two groups with utility it is
/// degenerate and costs 0.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER` (`engine`, `config` or
/// `objective` NULL; `report` may be NULL); `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_INVALID_ARGUMENT` (a configuration field out of
/// range, or utilities a metric refuses: negative for DTR or NDCG, for DTR a group's
/// utilities whose sum overflows the `double` range, no item with utility > 0 for AWRF or
/// group-level expected exposure, which have no value then: there is no input ranking
/// to hand back here, unlike `ppg_engine_rerank`); `PPG_STATUS_NOT_FINITE` (a cost that
/// is not finite: DTR when a group's utility sum is so small against the other's that
/// their ratio overflows; EEL's cost is finite for any finite utilities, and NDCG takes
/// any finite utility `>= 0`, its gains scaled so that none overflows);
/// `PPG_STATUS_CAPACITY` (more than 16 groups); `PPG_STATUS_VERSION_MISMATCH` (as `ppg_engine_train`, `objective`
/// included); `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle; `config` and `objective` are NULL or structs of
/// `struct_size` readable bytes; `report` is NULL or a struct of `struct_size` writable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_train_builtin(
    engine: *mut ppg_engine,
    config: *const ppg_train_config,
    objective: *const ppg_objective_config,
    report: *mut ppg_train_report,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(config, objective) => |e| {
        let config: ppg_train_config = growable!(config);
        let objective: ppg_objective_config = growable!(objective);
        let spec = objective.check()?;
        let report_out = growable_out!(report);
        let r = e.train_builtin(&config, &spec)?;
        if let Some(out) = report_out {
            out.write(r);
        }
        Ok(())
    })
}

/// The seed `ppg rerank --seed seed` and the Python package give the query at `index`
/// (0-based, in input order): pass it to `ppg_engine_rerank` to get their rankings.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn ppg_query_seed(seed: u64, index: u64) -> u64 {
    ppg_core::seed::query_seed(seed, index)
}

/// Re-ranks one query in one call with the recipe `config` (normally the recommended one,
/// `ppg_train_config_default`) and the built-in objective `objective`: `items` (`count` of
/// them, in their input ranking) become the engine's query, shown in `sessions` sessions;
/// the engine's generator is seeded with `seed` (`ppg_query_seed` gives the command line's
/// seed of a file's query); the result is written as `sessions` rankings of the items'
/// ids into `out_ids` (`out_len = count * sessions`), and what the run did into `*report`
/// (`certified`, `bound`, `gap` included). The same items, objective, recipe and seed give
/// what `ppg rerank` and `ppg.rerank` give for that query. Where the objective has nothing
/// to optimise (one group; DTR with a group without utility) the input ranking is the
/// answer. The query stays set afterwards (`ppg_engine_best` reads the result).
///
/// A query the objective has no value for (`PPG_METRIC_AWRF`, or
/// `PPG_METRIC_EXPECTED_EXPOSURE` at group level, without an item of utility > 0: their
/// evaluators skip such a query) is passed through, as `ppg rerank` and `ppg.rerank` pass
/// it: `PPG_STATUS_OK`, the input ranking written into `out_ids` for every session, and
/// `report->passed_through` true with `epochs` and `samples` 0 and `best_cost`, `bound`,
/// `gap` NaN. The items are checked as any query's and become the engine's query,
/// untrained (`ppg_engine_best`: `PPG_STATUS_NO_RESULT`). A status would not do: outputs
/// are written on success only, and a caller re-ranking a file of queries wants every
/// query back.
///
/// Returns, by argument:
/// - `PPG_STATUS_NULL_PARAMETER`: `engine`, `items`, `objective`, `config` or `out_ids`
///   NULL (`report` may be NULL); `PPG_STATUS_MISALIGNED`: a pointer misaligned.
/// - `items`, `count`, `sessions`: `PPG_STATUS_INVALID_ARGUMENT` (0 items or sessions, a
///   negative utility for DTR or NDCG), `PPG_STATUS_CAPACITY` (more items or sessions than
///   the engine's layout, more than 16 groups), `PPG_STATUS_DUPLICATE_ITEM` (an id twice),
///   `PPG_STATUS_NOT_FINITE` (a utility or a cost not finite). No item with utility > 0
///   under AWRF or group-level expected exposure is not an error (passed through, above).
/// - `objective`: `PPG_STATUS_INVALID_ARGUMENT` (a field out of range, `ee_measure`
///   included), `PPG_STATUS_UNSUPPORTED` (`PPG_METRIC_NDCG` alone: the recipe's costs are
///   a fairness metric, optionally mixed with NDCG), `PPG_STATUS_VERSION_MISMATCH`
///   (`struct_size`).
/// - `config`: `PPG_STATUS_INVALID_ARGUMENT` (a field out of range, the batch above the
///   layout's), `PPG_STATUS_VERSION_MISMATCH` (`struct_size`).
/// - `out_ids`, `out_len`: `PPG_STATUS_INVALID_ARGUMENT` (`out_len != count * sessions`),
///   checked after `count` and `sessions` against the layout, so that a count the engine
///   cannot hold is `PPG_STATUS_CAPACITY` whatever the buffer (`ppg_engine_capacity`).
/// - `report`: `PPG_STATUS_VERSION_MISMATCH` (`struct_size`; a report of the second
///   layout, without `passed_through`, is written without it).
/// - `engine`: `PPG_STATUS_UNSUPPORTED` (a `PPG_METHOD_PL` engine).
/// - `PPG_STATUS_PANIC` (a bug; see `ppg_last_panic_message`).
///
/// The structs, `out_len`, the engine's kind, the items' shape (count, sessions, ids,
/// finite utilities) and the objective built over them (a negative utility, too many
/// groups, an input ranking that costs NaN or an infinity) are checked
/// before the query is replaced: on those refusals the engine is as it was. One failure is
/// met only once the query is replaced: a sampled ranking that costs NaN or an infinity
/// during the run (`PPG_STATUS_NOT_FINITE`) leaves the engine without a query
/// (`PPG_STATUS_NO_QUERY` until the next `ppg_engine_set_query` or `ppg_engine_rerank`).
/// Both non-finite costs are `PPG_STATUS_NOT_FINITE` (one status, as before): the input
/// ranking's is refused by the core before it starts the query (the engine keeps the old
/// one), a sampled ranking's after (`ppg_engine_ranking_len` then says
/// `PPG_STATUS_NO_QUERY`). `out_ids` and `*report` are written on success only.
///
/// # Safety
/// `engine` is a live handle; `items` points to `count` readable `ppg_item`; `objective`
/// and `config` to structs of `struct_size` readable bytes; `out_ids` to `out_len`
/// writable `uint64_t`; `report` is NULL or a struct of `struct_size` writable bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn ppg_engine_rerank(
    engine: *mut ppg_engine,
    items: *const ppg_item,
    count: usize,
    sessions: usize,
    objective: *const ppg_objective_config,
    config: *const ppg_train_config,
    seed: u64,
    out_ids: *mut u64,
    out_len: usize,
    report: *mut ppg_train_report,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(items, objective, config, out_ids) => |e| {
        let config: ppg_train_config = growable!(config);
        let objective: ppg_objective_config = growable!(objective);
        let spec = objective.check()?;
        let report_out = growable_out!(report);
        let items = input!(items, count);
        let out = output!(out_ids, out_len);
        // The relevance certificate is computed only for a report that has its fields.
        let relevance = report_out.as_ref().is_some_and(GrowableOut::holds_relevance);
        let r = e.rerank(items, sessions, &spec, &config, seed, out, relevance)?;
        if let Some(slot) = report_out {
            slot.write(r);
        }
        Ok(())
    })
}

/// The built-in objective's cost of `ranking` (`len = items * sessions` ids, each session
/// a permutation of the query's ids) into `*value`: what `ppg_engine_train_builtin`
/// minimises (DTR: the ratio minus 1; NDCG: 1 - NDCG@k). Changes nothing in the engine.
/// `*value` is finite whenever the call returns `PPG_STATUS_OK`: a value that is not is
/// `PPG_STATUS_NOT_FINITE`, as the same cost stops `ppg_engine_train_builtin`.
///
/// Returns `PPG_STATUS_OK`; `PPG_STATUS_NULL_PARAMETER`; `PPG_STATUS_MISALIGNED`;
/// `PPG_STATUS_NO_QUERY`; `PPG_STATUS_INVALID_ARGUMENT` (`len` wrong, or as
/// `ppg_engine_train_builtin`); `PPG_STATUS_UNKNOWN_ITEM`; `PPG_STATUS_NOT_PERMUTATION`
/// (an id twice in a session); `PPG_STATUS_NOT_FINITE`, `PPG_STATUS_CAPACITY`,
/// `PPG_STATUS_VERSION_MISMATCH` as `ppg_engine_train_builtin`;
/// `PPG_STATUS_PANIC`.
///
/// # Safety
/// `engine` is a live handle; `objective` is NULL or a struct of `struct_size` readable
/// bytes; `ranking` is NULL or
/// points to `len` readable `uint64_t`; `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn ppg_engine_evaluate(
    engine: *mut ppg_engine,
    objective: *const ppg_objective_config,
    ranking: *const u64,
    len: usize,
    value: *mut f64,
) -> ppg_status {
    ffi_boundary!(engine(engine), nonnull(objective, ranking, value) => |e| {
        let objective: ppg_objective_config = growable!(objective);
        let spec = objective.check()?;
        let out = output!(value, 1);
        out[0].write(e.evaluate(&spec, input!(ranking, len))?);
        Ok(())
    })
}
