//! The C functions called from Rust: what the C tests (c-examples/c/test_ppg.c) cannot
//! reach as easily. The cross-language contract itself is tested in C.

use crate::*;
use core::mem::size_of;
use core::ptr;

extern crate std;
use std::vec;
use std::vec::Vec;

const ITEMS: usize = 6;
const SESSIONS: usize = 2;
const BATCH: usize = 16;

fn items(groups: &[u32]) -> Vec<ppg_item> {
    groups
        .iter()
        .enumerate()
        .map(|(k, &group)| ppg_item {
            id: 1000 + 7 * k as u64,
            utility: (groups.len() - k) as f64,
            group,
        })
        .collect()
}

/// An engine in a Vec-backed block (the firmware path), with its block.
fn engine(kind: ppg_method, items: usize) -> (Vec<u64>, *mut ppg_engine) {
    let (mut size, mut align) = (0, 0);
    let st =
        unsafe { ppg_engine_layout(kind as u32, items, SESSIONS, BATCH, &mut size, &mut align) };
    assert_eq!(st, ppg_status::Ok);
    assert!(align <= 8);
    let mut block = vec![0u64; size.div_ceil(8)];
    let mut handle = ptr::null_mut();
    let st = unsafe {
        ppg_engine_init(
            block.as_mut_ptr().cast(),
            size,
            kind as u32,
            items,
            SESSIONS,
            BATCH,
            9,
            &mut handle,
        )
    };
    assert_eq!(st, ppg_status::Ok);
    (block, handle)
}

/// The defaults as C gets them (`_init` with the struct's size).
fn defaults() -> (ppg_train_config, ppg_objective_config) {
    let mut config = ppg_train_config::reference();
    let mut objective = ppg_objective_config::reference();
    config.epochs = 0;
    objective.eel_levels = 0;
    let st = unsafe { ppg_train_config_init(&mut config, size_of::<ppg_train_config>()) };
    assert_eq!(st, ppg_status::Ok);
    let size = size_of::<ppg_objective_config>();
    assert_eq!(
        unsafe { ppg_objective_config_init(&mut objective, size) },
        ppg_status::Ok
    );
    assert_eq!(
        (config, objective),
        (
            ppg_train_config::recommended(),
            ppg_objective_config::reference()
        )
    );
    (config, objective)
}

/// A report's fields, the floating-point ones as bits (a report of no bound holds NaN).
type ReportBits = (u32, u32, u32, u64, i64, bool, bool, u64, u64);

fn bits(r: &ppg_train_report) -> ReportBits {
    (
        r.struct_size,
        r.epochs,
        r.samples,
        r.best_cost.to_bits(),
        r.best_epoch,
        r.certified,
        r.bound_exact,
        r.bound.to_bits(),
        r.gap.to_bits(),
    )
}

/// A report as C prepares it.
fn fresh_report() -> ppg_train_report {
    let mut report = ppg_train_report {
        struct_size: 0,
        epochs: 7,
        samples: 7,
        best_cost: 0.0,
        best_epoch: 7,
        certified: true,
        bound_exact: true,
        bound: 0.0,
        gap: 0.0,
        passed_through: true,
        ndcg: 0.0,
        ndcg_bound: 0.0,
        ndcg_gap: 0.0,
        ndcg_exact: true,
    };
    let st = unsafe { ppg_train_report_init(&mut report, size_of::<ppg_train_report>()) };
    assert_eq!(st, ppg_status::Ok);
    assert_eq!(
        (report.epochs, report.best_cost, report.best_epoch),
        (0, f64::INFINITY, -1)
    );
    assert!(!report.passed_through);
    assert!(report.ndcg.is_nan() && report.ndcg_bound.is_nan() && report.ndcg_gap.is_nan());
    assert!(!report.ndcg_exact);
    report
}

#[test]
fn a_refused_query_keeps_the_previous_one() {
    let (_block, e) = engine(ppg_method::Ppg, ITEMS);
    let good = items(&[0, 0, 1, 1, 0, 1]);
    assert_eq!(
        unsafe { ppg_engine_set_query(e, good.as_ptr(), 4, SESSIONS) },
        ppg_status::Ok
    );
    let mut bad = items(&[0, 1, 0, 1, 0, 1]);
    bad[5].id = bad[0].id;
    let st = unsafe { ppg_engine_set_query(e, bad.as_ptr(), ITEMS, SESSIONS) };
    assert_eq!(st, ppg_status::DuplicateItem);
    let mut len = 0;
    assert_eq!(
        unsafe { ppg_engine_ranking_len(e, &mut len) },
        ppg_status::Ok
    );
    assert_eq!(len, 4 * SESSIONS);
    // The old ids are still known, the refused query's extra ones are not.
    assert_eq!(unsafe { ppg_engine_forbid(e, 1000, 1007) }, ppg_status::Ok);
    assert_eq!(
        unsafe { ppg_engine_forbid(e, 1000, 1035) },
        ppg_status::UnknownItem
    );
}

#[test]
fn more_than_sixteen_groups_is_capacity_for_eel() {
    let groups: Vec<u32> = (0..17).map(|g| g * 1000).collect();
    let (_block, e) = engine(ppg_method::Ppg, 17);
    let query = items(&groups);
    assert_eq!(
        unsafe { ppg_engine_set_query(e, query.as_ptr(), query.len(), 1) },
        ppg_status::Ok
    );
    let (config, objective) = defaults();
    let st = unsafe { ppg_engine_train_builtin(e, &config, &objective, ptr::null_mut()) };
    assert_eq!(st, ppg_status::Capacity);
    // Sixteen arbitrary labels are fine.
    assert_eq!(
        unsafe { ppg_engine_set_query(e, query.as_ptr(), 16, 1) },
        ppg_status::Ok
    );
    let st = unsafe { ppg_engine_train_builtin(e, &config, &objective, ptr::null_mut()) };
    assert_eq!(st, ppg_status::Ok);
}

/// The statuses `ppg.h` names for utilities at the edges (issue 28, point 18): EEL takes
/// negative and huge utilities (a negative one grades as 0) and its cost stays finite; DTR
/// refuses utility sums that overflow with INVALID_ARGUMENT, and stops with NOT_FINITE when
/// a group's utility is so small against the other's that its ratio overflows.
#[test]
fn utilities_at_the_edges_give_the_documented_statuses() {
    let (_block, e) = engine(ppg_method::Ppg, ITEMS);
    let (config, mut objective) = defaults();
    let train = |utility: [f64; ITEMS], objective: &ppg_objective_config| {
        let mut query = items(&[0, 1, 0, 1, 0, 1]);
        for (item, u) in query.iter_mut().zip(utility) {
            item.utility = u;
        }
        let st = unsafe { ppg_engine_set_query(e, query.as_ptr(), ITEMS, SESSIONS) };
        assert_eq!(st, ppg_status::Ok);
        let mut value = f64::NAN;
        let ranking: Vec<u64> = (0..SESSIONS)
            .flat_map(|_| query.iter().map(|i| i.id))
            .collect();
        let evaluated = unsafe {
            ppg_engine_evaluate(e, objective, ranking.as_ptr(), ranking.len(), &mut value)
        };
        let trained = unsafe { ppg_engine_train_builtin(e, &config, objective, ptr::null_mut()) };
        (evaluated, trained, value)
    };
    for utility in [
        [-1.0, -5.0, 0.0, 2.0, -3.0, 1.0],
        [1e308, 1e308, 1e308, 1e308, 0.0, 1.0],
    ] {
        let (evaluated, trained, value) = train(utility, &objective);
        assert_eq!(
            (evaluated, trained),
            (ppg_status::Ok, ppg_status::Ok),
            "{utility:?}"
        );
        assert!(value.is_finite(), "{utility:?}");
    }
    objective.metric = ppg_metric::Dtr as u32;
    let overflow = [1e308, 1.0, 1e308, 1.0, 0.0, 1.0];
    let (evaluated, trained, _) = train(overflow, &objective);
    assert_eq!(evaluated, ppg_status::InvalidArgument);
    assert_eq!(trained, ppg_status::InvalidArgument);
    let apart = [1e10, 1e-320, 1.0, 0.0, 1.0, 0.0];
    let (evaluated, trained, _) = train(apart, &objective);
    assert_eq!(evaluated, ppg_status::NotFinite);
    assert_eq!(trained, ppg_status::NotFinite);
}

#[test]
fn pl_refuses_utilities_beyond_float_and_constraints() {
    let (_block, e) = engine(ppg_method::Pl, ITEMS);
    let mut query = items(&[0, 1, 0, 1, 0, 1]);
    query[2].utility = 1e300;
    let st = unsafe { ppg_engine_set_query(e, query.as_ptr(), ITEMS, SESSIONS) };
    assert_eq!(st, ppg_status::NotFinite);
    query[2].utility = 1.0;
    let st = unsafe { ppg_engine_set_query(e, query.as_ptr(), ITEMS, SESSIONS) };
    assert_eq!(st, ppg_status::Ok);
    let labels = [1u32; ITEMS];
    let st = unsafe { ppg_engine_keep_order_between(e, labels.as_ptr(), ITEMS) };
    assert_eq!(st, ppg_status::Unsupported);
    let (config, mut objective) = defaults();
    objective.metric = ppg_metric::EelNdcgMix as u32;
    objective.mix_weight = 0.5;
    let mut report = fresh_report();
    let st = unsafe { ppg_engine_train_builtin(e, &config, &objective, &mut report) };
    assert_eq!(st, ppg_status::Ok);
    assert!(report.samples > 0 && report.best_cost.is_finite());
    let mut best = [0u64; ITEMS * SESSIONS];
    let mut cost = 0.0;
    let st = unsafe { ppg_engine_best(e, best.as_mut_ptr(), best.len(), &mut cost) };
    assert_eq!(st, ppg_status::Ok);
    assert_eq!(cost, report.best_cost);
    let mut value = -1.0;
    let st = unsafe { ppg_engine_evaluate(e, &objective, best.as_ptr(), best.len(), &mut value) };
    assert_eq!(st, ppg_status::Ok);
    assert_eq!(value, cost);
}

unsafe extern "C" fn count_calls(
    ranking: *const u64,
    len: usize,
    sessions: usize,
    user: *mut core::ffi::c_void,
) -> f64 {
    let calls = unsafe { &mut *user.cast::<usize>() };
    *calls += 1;
    let ranking = unsafe { core::slice::from_raw_parts(ranking, len) };
    assert_eq!(len, ITEMS * sessions);
    // The position of the last input item in the first session: move it up.
    ranking.iter().position(|&id| id == 1035).unwrap_or(len) as f64
}

/// A PPG engine holding the query of groups `[0, 0, 1, 1, 0, 1]` (ids 1000, 1007, ...,
/// 1035), with its block.
fn ppg_with_query() -> (Vec<u64>, *mut ppg_engine) {
    let (block, e) = engine(ppg_method::Ppg, ITEMS);
    let query = items(&[0, 0, 1, 1, 0, 1]);
    assert_eq!(
        unsafe { ppg_engine_set_query(e, query.as_ptr(), ITEMS, SESSIONS) },
        ppg_status::Ok
    );
    (block, e)
}

/// Trains `e` against `count_calls`; the report must count every call.
fn train_counting(e: *mut ppg_engine, config: &ppg_train_config) -> ppg_train_report {
    let mut calls = 0usize;
    let mut report = fresh_report();
    let st = unsafe {
        ppg_engine_train(
            e,
            config,
            Some(count_calls),
            (&mut calls as *mut usize).cast(),
            &mut report,
        )
    };
    assert_eq!(st, ppg_status::Ok);
    assert_eq!(calls as u32, report.samples);
    report
}

#[test]
fn callback_sees_caller_ids_and_the_best_is_reported() {
    let (_block, e) = ppg_with_query();
    let (mut config, _) = defaults();
    config.initial_weight = 0.3;
    config.score_input = true.into();
    let report = train_counting(e, &config);
    assert_eq!(report.best_cost, 0.0, "id 1035 brought to the top");
    let mut best = [0u64; ITEMS * SESSIONS];
    let st = unsafe { ppg_engine_best(e, best.as_mut_ptr(), best.len(), ptr::null_mut()) };
    assert_eq!(st, ppg_status::Ok);
    assert_eq!(best[0], 1035);
}

/// `grow` reaches the engine from C: on by default (the recommended recipe), off in the
/// reference run; on, the run is repeated at 1 session before the query's 2, so the
/// callback sees more calls, and the best is never worse than the single run's.
#[test]
fn grow_in_the_c_config_trains_over_growing_sessions() {
    let (defaults, _) = defaults();
    assert!(defaults.grow.get());
    let mut reference = defaults;
    let size = size_of::<ppg_train_config>();
    let st = unsafe { ppg_train_config_init_reference(&mut reference, size) };
    assert_eq!(st, ppg_status::Ok);
    assert_eq!(reference, ppg_train_config::reference());
    assert!(
        !reference.grow.get()
            && !reference.hold.get()
            && !reference.certify.get()
            && !reference.score_input.get()
    );
    let [single, grown] = [false, true].map(|grow| {
        let (_block, e) = ppg_with_query();
        let config = ppg_train_config {
            grow: grow.into(),
            score_input: true.into(),
            ..defaults
        };
        train_counting(e, &config)
    });
    assert!(grown.samples > single.samples, "{single:?} {grown:?}");
    assert!(grown.best_cost <= single.best_cost, "{single:?} {grown:?}");
}

/// Held from C: the first run keeps the group order, as `keep_order_within_groups` does
/// (the last item of group 1 can rise no higher than position 2), then the second run frees
/// it; a PL engine refuses, a NULL handle is reported.
#[test]
fn hold_order_within_groups_trains_held_then_free() {
    let (defaults, _) = defaults();
    let config = ppg_train_config {
        score_input: true.into(),
        ..defaults
    };
    let [kept, held] = [
        ppg_engine_keep_order_within_groups,
        ppg_engine_hold_order_within_groups,
    ]
    .map(|constrain| {
        let (_block, e) = ppg_with_query();
        assert_eq!(unsafe { constrain(e) }, ppg_status::Ok);
        train_counting(e, &config)
    });
    assert_eq!(kept.best_cost, 2.0, "{kept:?}");
    assert!(held.best_cost < kept.best_cost, "{kept:?} {held:?}");
    assert!(held.samples > kept.samples, "{kept:?} {held:?}");
    let (_block, pl) = engine(ppg_method::Pl, ITEMS);
    let query = items(&[0, 0, 1, 1, 0, 1]);
    assert_eq!(
        unsafe { ppg_engine_set_query(pl, query.as_ptr(), ITEMS, SESSIONS) },
        ppg_status::Ok
    );
    assert_eq!(
        unsafe { ppg_engine_hold_order_within_groups(pl) },
        ppg_status::Unsupported
    );
    assert_eq!(
        unsafe { ppg_engine_hold_order_within_groups(ptr::null_mut()) },
        ppg_status::NullParameter
    );
}

unsafe extern "C" fn nan_at_fifth_call(
    _ranking: *const u64,
    _len: usize,
    _sessions: usize,
    user: *mut core::ffi::c_void,
) -> f64 {
    let calls = unsafe { &mut *user.cast::<usize>() };
    *calls += 1;
    if *calls == 5 {
        f64::NAN
    } else {
        1.0
    }
}

/// The first training run of a query moves the weights to `initial_weight`, which drops a
/// pending batch in the core; when the run fails, the weights move back and the batch is
/// drawn again: `update` still takes it, and the generator is where a twin's is.
#[test]
fn a_failed_first_run_keeps_the_batch_pending() {
    let ((_a, e), (_b, twin)) = (ppg_with_query(), ppg_with_query());
    let (mut mine, mut theirs) = ([0u64; 3 * ITEMS * SESSIONS], [0u64; 3 * ITEMS * SESSIONS]);
    let sample = |engine, out: &mut [u64]| {
        let st = unsafe { ppg_engine_sample(engine, 3, out.as_mut_ptr(), out.len()) };
        assert_eq!(st, ppg_status::Ok);
    };
    sample(e, &mut mine);
    sample(twin, &mut theirs);
    let (mut config, _) = defaults();
    config.initial_weight = 0.3;
    let mut calls = 0usize;
    let st = unsafe {
        ppg_engine_train(
            e,
            &config,
            Some(nan_at_fifth_call),
            (&mut calls as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    assert_eq!((st, calls), (ppg_status::NotFinite, 5));
    let costs = [1.0, 2.0, 3.0];
    for (engine, ids) in [(e, &mine), (twin, &theirs)] {
        let st = unsafe {
            ppg_engine_update(engine, ids.as_ptr(), ids.len(), costs.as_ptr(), 3, &config)
        };
        assert_eq!(st, ppg_status::Ok);
    }
    sample(e, &mut mine);
    sample(twin, &mut theirs);
    assert_eq!(mine, theirs);
}

#[test]
fn status_strings_are_static_and_distinct() {
    let message = |s: u32| unsafe { core::ffi::CStr::from_ptr(ppg_status_str(s)) };
    let known: Vec<_> = (0..=ppg_status::VersionMismatch as u32)
        .map(message)
        .collect();
    for (i, a) in known.iter().enumerate() {
        assert!(known[i + 1..].iter().all(|b| a != b));
    }
    assert_eq!(message(999).to_str(), Ok("unknown status"));
    let version = unsafe { core::ffi::CStr::from_ptr(ppg_version()) };
    assert_eq!(version.to_str(), Ok(env!("CARGO_PKG_VERSION")));
}

/// A `struct_size` the library does not know is refused before anything is read or
/// written (engine, report and `_init`'s target included); a known older layout reads
/// its prefix, the rest at the defaults.
#[test]
fn an_unknown_struct_size_changes_nothing() {
    let (_block, e) = ppg_with_query();
    let (config, objective) = defaults();
    for size in [0, 4, size_of::<ppg_train_config>() + 8, u32::MAX as usize] {
        let mut untouched = ppg_train_config {
            epochs: 3,
            ..config
        };
        let st = unsafe { ppg_train_config_init(&mut untouched, size) };
        assert_eq!((st, untouched.epochs), (ppg_status::VersionMismatch, 3));
        let wrong = ppg_train_config {
            struct_size: size as u32,
            ..config
        };
        let mut report = fresh_report();
        let before = report;
        let st = unsafe { ppg_engine_train_builtin(e, &wrong, &objective, &mut report) };
        assert_eq!(
            (st, bits(&report)),
            (ppg_status::VersionMismatch, bits(&before))
        );
        let wrong = ppg_objective_config {
            struct_size: size as u32,
            ..objective
        };
        let st = unsafe { ppg_engine_train_builtin(e, &config, &wrong, &mut report) };
        assert_eq!(
            (st, bits(&report)),
            (ppg_status::VersionMismatch, bits(&before))
        );
        report.struct_size = size as u32;
        let st = unsafe { ppg_engine_train_builtin(e, &config, &objective, &mut report) };
        assert_eq!(st, ppg_status::VersionMismatch);
    }
    // Nothing trained above: no ranking has been scored.
    let mut best = [0u64; ITEMS * SESSIONS];
    let st = unsafe { ppg_engine_best(e, best.as_mut_ptr(), best.len(), ptr::null_mut()) };
    assert_eq!(st, ppg_status::NoResult);
    assert_eq!(
        ppg_check_version(PPG_VERSION_MAJOR, PPG_VERSION_MINOR, PPG_VERSION_PATCH),
        ppg_status::Ok
    );
}

/// `PPG_METRIC_EXPECTED_EXPOSURE` and `PPG_METRIC_AWRF` evaluate as the core computes
/// them; a caller of the first 0.2 layout gets the new fields' defaults (the official
/// cascade at group level); a patience out of range or an unknown model is refused.
#[test]
fn expected_exposure_and_awrf_as_the_core() {
    use ppg_core::objective::{
        Awrf, AwrfCost, AwrfTarget, Browse, ExpectedExposure, Level, Measure,
    };
    let (_block, e) = ppg_with_query();
    let (_, objective) = defaults();
    // Ids 1000 + 7k, utilities 6..1, groups [0, 0, 1, 1, 0, 1]; the reverse order twice.
    let ranking: Vec<u64> = (0..SESSIONS)
        .flat_map(|_| (0..ITEMS as u64).rev().map(|k| 1000 + 7 * k))
        .collect();
    let local: Vec<u16> = (0..SESSIONS)
        .flat_map(|_| (0..ITEMS as u16).rev())
        .collect();
    let utility: Vec<f64> = (0..ITEMS).map(|k| (ITEMS - k) as f64).collect();
    let group = [0u8, 0, 1, 1, 0, 1];
    let evaluate = |o: &ppg_objective_config| {
        let mut value = f64::NAN;
        let st = unsafe { ppg_engine_evaluate(e, o, ranking.as_ptr(), ranking.len(), &mut value) };
        (st, value)
    };

    let ee = |browse, level| {
        let mut scratch = [0.0; 3 * ITEMS];
        let mut ee = ExpectedExposure::new(
            &utility,
            &group,
            browse,
            level,
            Measure::Loss,
            true,
            &mut scratch[..],
        )
        .unwrap();
        ee.report(&local, SESSIONS).unwrap().normalised.loss
    };
    let official = ppg_objective_config {
        metric: ppg_metric::ExpectedExposure as u32,
        ..objective
    };
    let want = ee(Browse::DEFAULT, Level::Group);
    assert!(want > 0.0);
    assert_eq!(evaluate(&official), (ppg_status::Ok, want));
    let rbp_items = ppg_objective_config {
        browse: ppg_browse::Rbp as u32,
        patience: 0.8,
        ee_level: ppg_ee_level::Item as u32,
        ..official
    };
    let want = ee(Browse::Rbp { patience: 0.8 }, Level::Item);
    assert_eq!(evaluate(&rbp_items), (ppg_status::Ok, want));
    // The first 0.2 layout ends at `rank_start`: the rest takes the defaults.
    let old = ppg_objective_config {
        struct_size: <ppg_objective_config as crate::growable::Growable>::size_of_layout(
            core::mem::offset_of!(ppg_objective_config, rank_start) + size_of::<u32>(),
        ) as u32,
        ..rbp_items
    };
    assert_eq!(
        evaluate(&old),
        (ppg_status::Ok, ee(Browse::DEFAULT, Level::Group))
    );
    for bad in [
        ppg_objective_config {
            patience: 0.0,
            ..official
        },
        ppg_objective_config {
            patience: 1.5,
            ..official
        },
        ppg_objective_config {
            patience: f64::NAN,
            ..official
        },
        ppg_objective_config {
            cascade_utility: -1.0,
            ..official
        },
        ppg_objective_config {
            // 3 is PPG_BROWSE_CASCADE_JUDGED.
            browse: 4,
            ..official
        },
        ppg_objective_config {
            ee_level: 2,
            ..official
        },
        ppg_objective_config {
            metric: 7,
            ..official
        },
    ] {
        let (st, value) = evaluate(&bad);
        assert_eq!(st, ppg_status::InvalidArgument);
        assert!(value.is_nan(), "the output is written only on success");
    }

    let awrf = ppg_objective_config {
        metric: ppg_metric::Awrf as u32,
        ..objective
    };
    let mut attention = [0.0; ITEMS];
    Awrf::discount(&mut attention);
    let target = AwrfTarget::Trec {
        population: &[1.0, 1.0],
    };
    let core = Awrf::new(&utility, &group, target, &attention, AwrfCost::Product).unwrap();
    let want = 1.0 - core.report(&local, SESSIONS).unwrap().product;
    assert_eq!(evaluate(&awrf), (ppg_status::Ok, want));
}

/// `ppg_engine_rerank` with `PPG_METRIC_EXPECTED_EXPOSURE` (EE-L, EE-D, raw EE-R) and
/// `PPG_METRIC_AWRF` is the core's recipe over the same costs (their memory taken from the
/// engine's layout), and a query without a relevant item is passed through for both: the
/// input ranking in every session, `passed_through` and a NaN cost in the report.
#[test]
fn rerank_in_one_call_takes_expected_exposure_and_awrf() {
    use ppg_core::objective::{Awrf, Measure};
    use ppg_core::recipe::cost::EeScore;
    use ppg_core::recipe::{cost, CostSpec, Metric, Query, Recipe, Tables, Workspace};
    let (_block, e) = engine(ppg_method::Ppg, ITEMS);
    let (config, objective) = defaults();
    let query = items(&[7, 7, 3, 3, 7, 3]);
    let seed = ppg_query_seed(42, 5);
    let call = |query: &[ppg_item],
                out: &mut [u64],
                objective: &ppg_objective_config,
                report: &mut ppg_train_report| unsafe {
        ppg_engine_rerank(
            e,
            query.as_ptr(),
            ITEMS,
            SESSIONS,
            objective,
            &config,
            seed,
            out.as_mut_ptr(),
            out.len(),
            report,
        )
    };
    let utility: Vec<f64> = query.iter().map(|i| i.utility).collect();
    let group: Vec<u8> = query.iter().map(|i| u8::from(i.group == 3)).collect();
    let score: Vec<f64> = (0..ITEMS).map(|k| (ITEMS - k) as f64).collect();
    let mut attention = [0.0; ITEMS];
    Awrf::discount(&mut attention);
    let ee = |measure, normalised| EeScore {
        measure,
        normalised,
    };
    for (metric, core_metric, score_of) in [
        (ppg_metric::ExpectedExposure, Metric::Ee, EeScore::OFFICIAL),
        (
            ppg_metric::ExpectedExposure,
            Metric::Ee,
            ee(Measure::Disparity, true),
        ),
        (
            ppg_metric::ExpectedExposure,
            Metric::Ee,
            ee(Measure::Relevance, false),
        ),
        (ppg_metric::Awrf, Metric::Awrf, EeScore::OFFICIAL),
    ] {
        let objective = ppg_objective_config {
            metric: metric as u32,
            ee_measure: match score_of.measure {
                Measure::Loss => ppg_ee_measure::Loss,
                Measure::Disparity => ppg_ee_measure::Disparity,
                Measure::Relevance => ppg_ee_measure::Relevance,
            } as u32,
            ee_raw: (!score_of.normalised).into(),
            ..objective
        };
        let mut out = [0u64; ITEMS * SESSIONS];
        let mut report = fresh_report();
        assert_eq!(
            call(&query, &mut out, &objective, &mut report),
            ppg_status::Ok
        );
        assert!(!report.passed_through && report.best_cost >= 0.0);
        // The relevance certificate is there: an NDCG, a bound at least as high, their gap.
        assert!((0.0..=1.0 + 1e-12).contains(&report.ndcg), "{report:?}");
        assert!(report.ndcg_bound + 1e-12 >= report.ndcg, "{report:?}");
        assert_eq!(report.ndcg_gap, (report.ndcg_bound - report.ndcg).max(0.0));
        let dims = ppg_core::Dims::new(ITEMS, SESSIONS, BATCH);
        let mut mem = vec![0u8; ppg_core::Ppg::bytes(dims)];
        let mut ppg = ppg_core::Ppg::new(&mut mem, dims, 0).unwrap();
        let (mut order, mut u, mut g) = ([0u16; ITEMS], [0.0; ITEMS], [0u8; ITEMS]);
        let mut scratch = [0.0; cost::SCRATCH_PER_ITEM * ITEMS];
        let mut rows = [0u16; ITEMS * SESSIONS];
        ppg.rerank(
            &Query {
                score: &score,
                utility: &utility,
                group: &group,
                sessions: SESSIONS,
                seed,
            },
            &CostSpec {
                ee: score_of,
                ..CostSpec::new(core_metric, 5, None)
            },
            &Tables {
                exposure: &[],
                discount: &[],
                attention: &attention,
            },
            &Recipe::recommended(),
            Workspace {
                order: &mut order,
                utility: &mut u,
                group: &mut g,
                scratch: &mut scratch,
            },
            &mut rows,
        )
        .unwrap();
        let ids: Vec<u64> = rows.iter().map(|&r| 1000 + 7 * u64::from(r)).collect();
        assert_eq!(&out[..], &ids[..], "{metric:?}");

        let irrelevant: Vec<ppg_item> = query
            .iter()
            .map(|&i| ppg_item { utility: 0.0, ..i })
            .collect();
        let mut report = fresh_report();
        assert_eq!(
            call(&irrelevant, &mut out, &objective, &mut report),
            ppg_status::Ok
        );
        let input: Vec<u64> = (0..SESSIONS)
            .flat_map(|_| query.iter().map(|i| i.id))
            .collect();
        assert_eq!(&out[..], &input[..], "{metric:?}");
        assert!(
            report.passed_through && report.best_cost.is_nan() && report.ndcg.is_nan(),
            "{report:?}"
        );
        assert_eq!((report.epochs, report.samples), (0, 0));
        // The other built-in calls have no input ranking to give back: they refuse it.
        let st = unsafe { ppg_engine_train_builtin(e, &config, &objective, ptr::null_mut()) };
        assert_eq!(st, ppg_status::InvalidArgument);
    }
    // Passed through or not, an unknown measure is refused before anything is read.
    let bad = ppg_objective_config {
        metric: ppg_metric::ExpectedExposure as u32,
        ee_measure: 3,
        ..objective
    };
    let mut report = fresh_report();
    let mut untouched = [9u64; ITEMS * SESSIONS];
    assert_eq!(
        call(&query, &mut untouched, &bad, &mut report),
        ppg_status::InvalidArgument
    );
    assert_eq!(untouched, [9; ITEMS * SESSIONS]);
}

/// `ppg_engine_rerank` is the core's recipe (`Ppg::rerank`) in one call: the same rankings
/// from the same seed, certified on a two-group EEL; its refusals change nothing.
#[test]
fn rerank_in_one_call_is_the_core_recipe() {
    use ppg_core::objective::{exposure, RankStart};
    use ppg_core::recipe::{CostSpec, Metric, Query, Recipe, Tables, Workspace};
    let (_block, e) = engine(ppg_method::Ppg, ITEMS);
    let (config, objective) = defaults();
    let query = items(&[7, 7, 3, 3, 7, 3]);
    let seed = ppg_query_seed(42, 3);
    let mut out = [0u64; ITEMS * SESSIONS];
    let mut report = fresh_report();
    let call =
        |out: &mut [u64], report: &mut ppg_train_report, objective: &ppg_objective_config| unsafe {
            ppg_engine_rerank(
                e,
                query.as_ptr(),
                ITEMS,
                SESSIONS,
                objective,
                &config,
                seed,
                out.as_mut_ptr(),
                out.len(),
                report,
            )
        };
    assert_eq!(call(&mut out, &mut report, &objective), ppg_status::Ok);
    assert!(report.certified && report.gap <= 1e-8, "{report:?}");

    // The core's recipe on the same rows: ids are 1000 + 7k for row k.
    let utility: Vec<f64> = query.iter().map(|i| i.utility).collect();
    let group: Vec<u8> = query.iter().map(|i| u8::from(i.group == 3)).collect();
    let score: Vec<f64> = (0..ITEMS).map(|k| (ITEMS - k) as f64).collect();
    let (mut e_table, mut d_table) = ([0.0; ITEMS], [0.0; ITEMS]);
    exposure::fill(RankStart::One, &mut e_table);
    exposure::fill(RankStart::Zero, &mut d_table);
    let dims = ppg_core::Dims::new(ITEMS, SESSIONS, BATCH);
    let mut mem = vec![0u8; ppg_core::Ppg::bytes(dims)];
    let mut ppg = ppg_core::Ppg::new(&mut mem, dims, 0).unwrap();
    let (mut order, mut u, mut g) = ([0u16; ITEMS], [0.0; ITEMS], [0u8; ITEMS]);
    let mut rows = [0u16; ITEMS * SESSIONS];
    let outcome = ppg
        .rerank(
            &Query {
                score: &score,
                utility: &utility,
                group: &group,
                sessions: SESSIONS,
                seed,
            },
            &CostSpec::new(Metric::Eel, 5, None),
            &Tables {
                exposure: &e_table,
                discount: &d_table,
                attention: &[],
            },
            &Recipe::recommended(),
            Workspace {
                order: &mut order,
                utility: &mut u,
                group: &mut g,
                scratch: &mut [],
            },
            &mut rows,
        )
        .unwrap();
    let ids: Vec<u64> = rows.iter().map(|&r| 1000 + 7 * u64::from(r)).collect();
    assert_eq!(&out[..], &ids[..]);
    assert_eq!(report.best_cost, outcome.after);

    // Refusals: the output and report untouched.
    let before = (out, bits(&report));
    let ndcg = ppg_objective_config {
        metric: ppg_metric::Ndcg as u32,
        ..objective
    };
    assert_eq!(call(&mut out, &mut report, &ndcg), ppg_status::Unsupported);
    assert_eq!(
        call(&mut out[..5], &mut report, &objective),
        ppg_status::InvalidArgument
    );
    assert_eq!((out, bits(&report)), before);
    let (_pl_block, pl) = engine(ppg_method::Pl, ITEMS);
    let st = unsafe {
        ppg_engine_rerank(
            pl,
            query.as_ptr(),
            ITEMS,
            SESSIONS,
            &objective,
            &config,
            seed,
            out.as_mut_ptr(),
            out.len(),
            ptr::null_mut(),
        )
    };
    assert_eq!(st, ppg_status::Unsupported);
}

/// What the objective finds over the new items (a negative utility for DTR, 17 groups, an
/// input ranking that costs NaN) refuses `ppg_engine_rerank` before the query is replaced: the engine that saw the
/// refusal samples, updates on its pending batch and keeps the best ranking as a twin that
/// did not.
#[test]
fn a_rerank_the_objective_refuses_changes_nothing() {
    const CAPACITY: usize = 17;
    let ((_a, e), (_b, twin)) = (
        engine(ppg_method::Ppg, CAPACITY),
        engine(ppg_method::Ppg, CAPACITY),
    );
    let (config, objective) = defaults();
    let dtr = ppg_objective_config {
        metric: ppg_metric::Dtr as u32,
        ..objective
    };
    let rerank = |engine, query: &[ppg_item], objective: &ppg_objective_config| {
        let mut out = vec![0u64; query.len() * SESSIONS];
        let st = unsafe {
            ppg_engine_rerank(
                engine,
                query.as_ptr(),
                query.len(),
                SESSIONS,
                objective,
                &config,
                ppg_query_seed(42, 3),
                out.as_mut_ptr(),
                out.len(),
                ptr::null_mut(),
            )
        };
        (st, out)
    };
    let query = items(&[7, 7, 3, 3, 7, 3]);
    let total = ITEMS * SESSIONS;
    let (mut mine, mut theirs) = (vec![0u64; 3 * total], vec![0u64; 3 * total]);
    let sample = |engine, out: &mut [u64]| {
        let st = unsafe { ppg_engine_sample(engine, 3, out.as_mut_ptr(), out.len()) };
        assert_eq!(st, ppg_status::Ok);
    };
    for engine in [e, twin] {
        assert_eq!(rerank(engine, &query, &objective).0, ppg_status::Ok);
    }
    sample(e, &mut mine);
    sample(twin, &mut theirs);

    let mut negative = query.clone();
    negative[2].utility = -1.0;
    let groups: Vec<u32> = (0..CAPACITY as u32).collect();
    // Finite utilities so small that exposure over utility overflows: the input costs NaN.
    let mut overflowing = query.clone();
    for item in &mut overflowing {
        item.utility = 5e-324;
    }
    let refused = [
        (negative, dtr, ppg_status::InvalidArgument),
        (items(&groups), objective, ppg_status::Capacity),
        (overflowing, dtr, ppg_status::NotFinite),
    ];
    for (bad, objective, status) in &refused {
        assert_eq!(rerank(e, bad, objective).0, *status);
    }

    let best = |engine| {
        let (mut out, mut cost) = ([0u64; ITEMS * SESSIONS], 0.0);
        let st = unsafe { ppg_engine_best(engine, out.as_mut_ptr(), out.len(), &mut cost) };
        assert_eq!(st, ppg_status::Ok);
        (out, cost.to_bits())
    };
    assert_eq!(best(e), best(twin));
    let costs = [1.0, 2.0, 3.0];
    for (engine, ids) in [(e, &mine), (twin, &theirs)] {
        let st = unsafe {
            ppg_engine_update(engine, ids.as_ptr(), ids.len(), costs.as_ptr(), 3, &config)
        };
        assert_eq!(st, ppg_status::Ok);
    }
    sample(e, &mut mine);
    sample(twin, &mut theirs);
    assert_eq!(mine, theirs);
    assert_eq!(rerank(e, &query, &dtr), rerank(twin, &query, &dtr));
}

/// DTR over three groups (issue 32, point 2): the built-in trains, evaluates and re-ranks
/// with the largest over the smallest exposure-per-utility ratio, with a bound that no
/// ranking beats and a certificate against it; seventeen groups stay CAPACITY.
#[test]
fn dtr_over_three_groups_trains_and_evaluates() {
    use ppg_core::objective::{exposure, DtrGroups, Objective, RankStart};
    let (_block, e) = engine(ppg_method::Ppg, ITEMS);
    let (config, mut objective) = defaults();
    objective.metric = ppg_metric::Dtr as u32;
    let query = items(&[5, 9, 12, 5, 9, 12]);
    let st = unsafe { ppg_engine_set_query(e, query.as_ptr(), ITEMS, SESSIONS) };
    assert_eq!(st, ppg_status::Ok);
    let input: Vec<u64> = (0..SESSIONS)
        .flat_map(|_| query.iter().map(|i| i.id))
        .collect();
    let mut before = f64::NAN;
    let st =
        unsafe { ppg_engine_evaluate(e, &objective, input.as_ptr(), input.len(), &mut before) };
    assert_eq!(st, ppg_status::Ok);
    // The same ratio from the core's DtrGroups over the dense groups 0, 1, 2.
    let utility: Vec<f64> = query.iter().map(|i| i.utility).collect();
    let mut table = [0.0; ITEMS];
    exposure::fill(RankStart::One, &mut table);
    let dtr = DtrGroups::new(&utility, &[0, 1, 2, 0, 1, 2], &table).unwrap();
    let rows: Vec<u16> = (0..SESSIONS).flat_map(|_| 0..ITEMS as u16).collect();
    assert!((before - (dtr.ratio(&rows, SESSIONS) - 1.0)).abs() < 1e-12);
    assert!(before > 0.1, "{before}");

    let mut report = fresh_report();
    let st = unsafe { ppg_engine_train_builtin(e, &config, &objective, &mut report) };
    assert_eq!(st, ppg_status::Ok);
    // The bound is DtrGroups' own, at the query's sessions, in cost units.
    let mut work = [0.0; ITEMS + 1];
    let bound = dtr.lower_bound(SESSIONS, &mut work).unwrap();
    assert_eq!(
        (report.bound, report.bound_exact),
        (bound.value, bound.exact)
    );
    assert!(bound.exact && bound.value > 0.0, "{bound:?}");
    assert!(
        report.best_cost <= before && report.best_cost >= bound.value,
        "{report:?}"
    );
    assert_eq!(
        report.certified,
        report.best_cost <= bound.value + config.certify_tolerance
    );
    let mut best = [0u64; ITEMS * SESSIONS];
    let mut cost = f64::NAN;
    let st = unsafe { ppg_engine_best(e, best.as_mut_ptr(), best.len(), &mut cost) };
    assert_eq!(st, ppg_status::Ok);
    let mut value = f64::NAN;
    let st = unsafe { ppg_engine_evaluate(e, &objective, best.as_ptr(), best.len(), &mut value) };
    assert_eq!((st, value), (ppg_status::Ok, cost));

    let mut out = [0u64; ITEMS * SESSIONS];
    let mut report = fresh_report();
    let st = unsafe {
        ppg_engine_rerank(
            e,
            query.as_ptr(),
            ITEMS,
            SESSIONS,
            &objective,
            &config,
            7,
            out.as_mut_ptr(),
            out.len(),
            &mut report,
        )
    };
    assert_eq!(st, ppg_status::Ok);
    assert!(report.best_cost <= before, "{report:?}");
    assert!(report.certified && report.gap <= 1e-8, "{report:?}");

    let groups: Vec<u32> = (0..17).collect();
    let (_block, e) = engine(ppg_method::Ppg, 17);
    let many = items(&groups);
    let st = unsafe { ppg_engine_set_query(e, many.as_ptr(), many.len(), 1) };
    assert_eq!(st, ppg_status::Ok);
    let st = unsafe { ppg_engine_train_builtin(e, &config, &objective, ptr::null_mut()) };
    assert_eq!(st, ppg_status::Capacity);
}

/// `ppg_engine_capacity` gives the layout; `ppg_engine_rerank` refuses more items or
/// sessions than it with `PPG_STATUS_CAPACITY` before it looks at the output buffer, so a
/// binding that checked the capacity first never sizes a buffer from a refused count.
#[test]
fn capacity_is_the_layout_and_rerank_checks_it_before_the_buffer() {
    let (_block, e) = engine(ppg_method::Ppg, ITEMS);
    let (mut n, mut s, mut b) = (0, 0, 0);
    assert_eq!(
        unsafe { ppg_engine_capacity(e, &mut n, &mut s, &mut b) },
        ppg_status::Ok
    );
    assert_eq!((n, s, b), (ITEMS, SESSIONS, BATCH));
    assert_eq!(
        unsafe { ppg_engine_capacity(e, &mut n, ptr::null_mut(), &mut b) },
        ppg_status::NullParameter
    );
    let (config, objective) = defaults();
    let query = items(&[0, 0, 1, 1, 0, 1, 0]);
    let mut none = [0u64; 1];
    for (count, sessions) in [
        (ITEMS + 1, SESSIONS),
        (ITEMS, SESSIONS + 1),
        (ITEMS, 1 << 40),
    ] {
        let st = unsafe {
            ppg_engine_rerank(
                e,
                query.as_ptr(),
                count,
                sessions,
                &objective,
                &config,
                1,
                none.as_mut_ptr(),
                0,
                ptr::null_mut(),
            )
        };
        assert_eq!(
            st,
            ppg_status::Capacity,
            "{count} items, {sessions} sessions"
        );
    }
}

/// `ppg_engine_rerank` of the query `groups` (ids as the caller has them; 3 is group 1)
/// under `objective`, and the core's recipe under `spec` on the same query: both rankings
/// (the core's as the caller's ids), the C report and the core's outcome.
fn awrf_both_doors(
    e: *mut ppg_engine,
    groups: &[u32],
    seed: u64,
    objective: &ppg_objective_config,
    spec: &ppg_core::recipe::CostSpec,
) -> (
    Vec<u64>,
    Vec<u64>,
    ppg_train_report,
    ppg_core::recipe::Outcome,
) {
    use ppg_core::objective::Awrf;
    use ppg_core::recipe::{Query, Recipe, Tables, Workspace};
    let (config, _) = defaults();
    let query = items(groups);
    let utility: Vec<f64> = query.iter().map(|i| i.utility).collect();
    let group: Vec<u8> = query.iter().map(|i| u8::from(i.group == 3)).collect();
    let score: Vec<f64> = (0..ITEMS).map(|k| (ITEMS - k) as f64).collect();
    let mut attention = [0.0; ITEMS];
    Awrf::discount(&mut attention);
    let mut out = vec![0u64; ITEMS * SESSIONS];
    let mut report = fresh_report();
    let st = unsafe {
        ppg_engine_rerank(
            e,
            query.as_ptr(),
            ITEMS,
            SESSIONS,
            objective,
            &config,
            seed,
            out.as_mut_ptr(),
            out.len(),
            &mut report,
        )
    };
    assert_eq!(st, ppg_status::Ok);
    let dims = ppg_core::Dims::new(ITEMS, SESSIONS, BATCH);
    let mut mem = vec![0u8; ppg_core::Ppg::bytes(dims)];
    let mut ppg = ppg_core::Ppg::new(&mut mem, dims, 0).unwrap();
    let (mut order, mut u, mut g) = ([0u16; ITEMS], [0.0; ITEMS], [0u8; ITEMS]);
    let mut rows = [0u16; ITEMS * SESSIONS];
    let outcome = ppg
        .rerank(
            &Query {
                score: &score,
                utility: &utility,
                group: &group,
                sessions: SESSIONS,
                seed,
            },
            spec,
            &Tables {
                exposure: &[],
                discount: &[],
                attention: &attention,
            },
            &Recipe::recommended(),
            Workspace {
                order: &mut order,
                utility: &mut u,
                group: &mut g,
                scratch: &mut [],
            },
            &mut rows,
        )
        .unwrap();
    let ids = rows.iter().map(|&r| 1000 + 7 * u64::from(r)).collect();
    (out, ids, report, outcome)
}

/// `ppg_objective_config.awrf_depth` (issue 42, point 5): `ppg_engine_rerank` under
/// `PPG_METRIC_AWRF` scores the first `awrf_depth` positions, as the core's recipe does
/// with `CostSpec::awrf_depth`: the same rankings and cost; 0 is the whole list, whose
/// cost differs; the report carries AWRF's lower bound.
#[test]
fn rerank_takes_awrfs_depth_from_the_caller() {
    use ppg_core::recipe::{CostSpec, Metric};
    let (_block, e) = engine(ppg_method::Ppg, ITEMS);
    let (_, objective) = defaults();
    let mut costs = Vec::new();
    for (depth, core_depth) in [(2usize, Some(2usize)), (0, None)] {
        let objective = ppg_objective_config {
            metric: ppg_metric::Awrf as u32,
            awrf_depth: depth,
            ..objective
        };
        let spec = CostSpec {
            awrf_depth: core_depth,
            ..CostSpec::new(Metric::Awrf, 5, None)
        };
        let seed = ppg_query_seed(42, 6);
        let (out, ids, report, outcome) =
            awrf_both_doors(e, &[7, 7, 3, 3, 7, 3], seed, &objective, &spec);
        assert_eq!(out, ids, "depth {depth}");
        assert_eq!(report.best_cost, outcome.after, "depth {depth}");
        assert!(
            report.bound.is_finite() && report.bound <= report.best_cost,
            "{report:?}"
        );
        costs.push(outcome.before);
    }
    assert!((costs[0] - costs[1]).abs() > 1e-3, "{costs:?}");
}

/// `ppg_objective_config.awrf_groups` (issue 38, point 8): `ppg_engine_rerank` under
/// `PPG_METRIC_AWRF` takes the caller's count of groups as its population, as the core's
/// recipe does with `CostSpec::awrf_groups` (and `ppg rerank` with a file's groups): the
/// same rankings, and a cost that is TREC 2021's over those groups; 0 is the query's
/// groups; a count above 16 is refused, and one below the query's groups too.
#[test]
fn rerank_takes_awrfs_population_from_the_caller() {
    use ppg_core::recipe::{CostSpec, Metric};
    let (_block, e) = engine(ppg_method::Ppg, ITEMS);
    let (config, objective) = defaults();
    // Two groups of a three-group attribute (ids 7 and 3 as the caller has them).
    let query = items(&[7, 7, 3, 3, 7, 3]);
    let seed = ppg_query_seed(42, 5);
    let group: Vec<u8> = query.iter().map(|i| u8::from(i.group == 3)).collect();
    let mut costs = Vec::new();
    for (groups, core_groups) in [(3usize, Some(3usize)), (0, None)] {
        let objective = ppg_objective_config {
            metric: ppg_metric::Awrf as u32,
            awrf_groups: groups,
            ..objective
        };
        let spec = CostSpec {
            awrf_groups: core_groups,
            ..CostSpec::new(Metric::Awrf, 5, None)
        };
        let (out, ids, report, outcome) =
            awrf_both_doors(e, &[7, 7, 3, 3, 7, 3], seed, &objective, &spec);
        assert_eq!(out, ids, "{groups} groups");
        assert_eq!(report.best_cost, outcome.after, "{groups} groups");
        costs.push(outcome.before);
    }
    // The input (utility descending: rows in order) as TREC scores it over three groups,
    // written out: attention 1 / log2(max(r, 2)); every item relevant, so NDCG is 1 and
    // the target is the mean of the relevant items' distribution and the population's.
    let attention_of = |r: usize| 1.0 / ((r + 1).max(2) as f64).log2();
    let all: f64 = (0..ITEMS).map(attention_of).sum();
    let mut dist = [0.0; 3];
    for (r, &g) in group.iter().enumerate() {
        dist[usize::from(g)] += attention_of(r) / all;
    }
    let target = [0.5 * (0.5 + 1.0 / 3.0), 0.5 * (0.5 + 1.0 / 3.0), 0.5 / 3.0];
    let kl = |p: &[f64; 3], m: &[f64; 3]| -> f64 {
        (0..3)
            .filter(|&i| p[i] > 0.0)
            .map(|i| p[i] * (p[i] / m[i]).ln())
            .sum()
    };
    let m: [f64; 3] = core::array::from_fn(|i| 0.5 * (dist[i] + target[i]));
    let trec = 1.0 - 0.5 * (kl(&dist, &m) + kl(&target, &m));
    assert!((costs[0] - (1.0 - trec)).abs() < 1e-12, "{costs:?} {trec}");
    assert!((costs[0] - costs[1]).abs() > 1e-3, "{costs:?}");
    // Refused: more than 16, and fewer than the query's two groups.
    for groups in [17usize, 1] {
        let objective = ppg_objective_config {
            metric: ppg_metric::Awrf as u32,
            awrf_groups: groups,
            ..objective
        };
        let mut out = [0u64; ITEMS * SESSIONS];
        let mut report = fresh_report();
        let st = unsafe {
            ppg_engine_rerank(
                e,
                query.as_ptr(),
                ITEMS,
                SESSIONS,
                &objective,
                &config,
                seed,
                out.as_mut_ptr(),
                out.len(),
                &mut report,
            )
        };
        assert_ne!(st, ppg_status::Ok, "{groups} groups");
    }
}
