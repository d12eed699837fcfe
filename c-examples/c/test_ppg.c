/*
 * test_ppg: the C API's contract, one test per bad input.
 *
 * Each test checks the documented status and that the failed call left the engine as
 * it was: an engine that saw the error and a twin that never did (same seed, same
 * calls otherwise) must go on to draw exactly the same rankings.
 *
 * Build with -DPPG_TEST_HOOKS against a library built with the cargo feature
 * "test-hooks" (the Makefile does) to include the panic test.
 *
 * The file stays whole (over 400 lines): every test uses the same twin-engine check
 * above, and one C file is one test binary the Makefile and the Rust runner build.
 */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno: the panic test watches stderr */
#include "ppg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- harness (after rure's ctest/test.c) ---- */

static int failures = 0;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "\n  %s:%d: check failed: %s", __FILE__, __LINE__, #cond);     \
            return 0;                                                                      \
        }                                                                                  \
    } while (0)

#define CHECK_STATUS(call, expected)                                                       \
    do {                                                                                   \
        ppg_status got_ = (call);                                                          \
        if (got_ != (expected)) {                                                          \
            fprintf(stderr, "\n  %s:%d: %s returned %s (%u), expected %s", __FILE__,       \
                    __LINE__, #call, ppg_status_str(got_), (unsigned)got_, #expected);     \
            return 0;                                                                      \
        }                                                                                  \
    } while (0)

static void run_test(int (*test)(void), const char *name) {
    printf("%-40s ", name);
    fflush(stdout);
    if (test()) {
        printf("ok\n");
    } else {
        printf("\nFAILED %s\n", name);
        failures++;
    }
    fflush(stdout);
}

/* ---- fixtures ---- */

#define ITEMS 8
#define SESSIONS 2
#define BATCH 16
#define N 6 /* items in the test query */
#define LEN (N * SESSIONS)

static const ppg_item QUERY[N] = {
    {501, 3.0, 0}, {77, 3.0, 0}, {9000000000u, 2.0, 1},
    {4, 2.0, 1},   {12, 1.0, 0}, {13, 0.0, 1},
};

/* A heap engine with the test query and the intra-group constraint. */
static ppg_engine *engine_with_query(uint32_t kind, uint64_t seed) {
    ppg_engine *engine = NULL;
    if (ppg_engine_new(kind, ITEMS, SESSIONS, BATCH, seed, &engine) != PPG_STATUS_OK) {
        return NULL;
    }
    if (ppg_engine_set_query(engine, QUERY, N, SESSIONS) != PPG_STATUS_OK ||
        (kind == PPG_METHOD_PPG && ppg_engine_keep_order_within_groups(engine) != PPG_STATUS_OK)) {
        ppg_engine_free(engine);
        return NULL;
    }
    return engine;
}

/* The rest of the lives of `a` and `b` is the same: a few sample/update rounds and a
 * training run draw identical rankings and find the same best. */
static int same_future(ppg_engine *a, ppg_engine *b) {
    uint64_t ra[4 * LEN], rb[4 * LEN];
    ppg_train_config config;
    ppg_train_config_default(&config);
    for (int round = 0; round < 3; round++) {
        ppg_status sa = ppg_engine_sample(a, 4, ra, 4 * LEN);
        ppg_status sb = ppg_engine_sample(b, 4, rb, 4 * LEN);
        CHECK(sa == sb);
        if (sa != PPG_STATUS_OK) {
            return 1; /* both refuse alike (no query): nothing more to compare */
        }
        CHECK(memcmp(ra, rb, sizeof ra) == 0);
        double costs[4];
        for (int k = 0; k < 4; k++) {
            costs[k] = (double)(ra[k * LEN] % 97) + k;
        }
        CHECK_STATUS(ppg_engine_update(a, ra, 4 * LEN, costs, 4, &config), PPG_STATUS_OK);
        CHECK_STATUS(ppg_engine_update(b, rb, 4 * LEN, costs, 4, &config), PPG_STATUS_OK);
    }
    ppg_objective_config objective;
    ppg_objective_config_default(&objective);
    ppg_train_report pa, pb;
    ppg_train_report_default(&pa);
    ppg_train_report_default(&pb);
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, &pa), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_train_builtin(b, &config, &objective, &pb), PPG_STATUS_OK);
    CHECK(pa.epochs == pb.epochs && pa.samples == pb.samples && pa.best_cost == pb.best_cost);
    double ca, cb;
    CHECK_STATUS(ppg_engine_best(a, ra, LEN, &ca), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_best(b, rb, LEN, &cb), PPG_STATUS_OK);
    CHECK(ca == cb);
    CHECK(memcmp(ra, rb, LEN * sizeof ra[0]) == 0);
    return 1;
}

/* Runs `same_future` on the pair and frees both. */
static int same_future_then_free(ppg_engine *a, ppg_engine *b) {
    int ok = same_future(a, b);
    ppg_engine_free(a);
    ppg_engine_free(b);
    return ok;
}

static double zero_cost(const uint64_t *ranking, size_t len, size_t sessions, void *user) {
    (void)ranking;
    (void)len;
    (void)sessions;
    (void)user;
    return 0.0;
}

/* ---- tests ---- */

static int test_version_and_messages(void) {
    CHECK(ppg_version() != NULL && strlen(ppg_version()) > 0);
    CHECK(strcmp(ppg_status_str(PPG_STATUS_OK), "ok") == 0);
    CHECK(strcmp(ppg_status_str(12345), "unknown status") == 0);
    for (uint32_t s = 0; s <= PPG_STATUS_VERSION_MISMATCH; s++) {
        CHECK(strcmp(ppg_status_str(s), "unknown status") != 0);
    }
    return 1;
}

/* The header's version is the library's, and PPG_CHECK_VERSION() accepts it and no newer
 * or other-line header. */
static int test_header_and_library_versions(void) {
    char header[32];
    snprintf(header, sizeof header, "%d.%d.%d", PPG_VERSION_MAJOR, PPG_VERSION_MINOR,
             PPG_VERSION_PATCH);
    CHECK(strcmp(header, PPG_VERSION_STRING) == 0);
    CHECK(strcmp(ppg_version(), PPG_VERSION_STRING) == 0);
    CHECK_STATUS(PPG_CHECK_VERSION(), PPG_STATUS_OK);
    CHECK_STATUS(ppg_check_version(PPG_VERSION_MAJOR, PPG_VERSION_MINOR, PPG_VERSION_PATCH + 1),
                 PPG_STATUS_VERSION_MISMATCH);
    CHECK_STATUS(ppg_check_version(PPG_VERSION_MAJOR + 1, 0, 0), PPG_STATUS_VERSION_MISMATCH);
    return 1;
}

/* A struct_size the library does not know (a newer header's, or an unfilled struct) is
 * refused with nothing read or written: the report keeps its bytes, _init writes nothing.
 * (The structs compared bytewise are filled by memset: the library leaves the padding of
 * what it writes unspecified, as C does.) */
static int test_unknown_struct_size(void) {
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 21);
    CHECK(a != NULL);
    ppg_train_config config;
    ppg_objective_config objective;
    ppg_train_report report;
    ppg_train_config_default(&config);
    ppg_objective_config_default(&objective);
    ppg_train_report_default(&report);
    CHECK(config.struct_size == sizeof config && objective.struct_size == sizeof objective);
    CHECK(report.struct_size == sizeof report && report.best_epoch == -1);
    memset(&report, 0xAB, sizeof report);
    report.struct_size = sizeof report;
    ppg_train_report before;
    memcpy(&before, &report, sizeof report);
    config.struct_size = sizeof config + 8;
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, &report),
                 PPG_STATUS_VERSION_MISMATCH);
    config.struct_size = sizeof config;
    objective.struct_size = 0;
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, &report),
                 PPG_STATUS_VERSION_MISMATCH);
    CHECK(memcmp(&report, &before, sizeof report) == 0);
    ppg_objective_config_default(&objective);
    report.struct_size = 0xABABABAB;
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, &report),
                 PPG_STATUS_VERSION_MISMATCH);
    uint64_t ids[LEN];
    CHECK_STATUS(ppg_engine_best(a, ids, LEN, NULL), PPG_STATUS_NO_RESULT);
    ppg_train_config untouched;
    memset(&config, 0x5A, sizeof config);
    memcpy(&untouched, &config, sizeof config);
    CHECK_STATUS(ppg_train_config_init(&config, sizeof config - 1), PPG_STATUS_VERSION_MISMATCH);
    CHECK(memcmp(&config, &untouched, sizeof config) == 0);
    ppg_engine_free(a);
    return 1;
}

static int test_null_pointers(void) {
    size_t size, align;
    ppg_engine *out = NULL;
    CHECK_STATUS(ppg_engine_layout(PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, NULL, &align),
                 PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_layout(PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, &size, NULL),
                 PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_init(NULL, 1 << 20, PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, 1, &out),
                 PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_new(PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, 1, NULL),
                 PPG_STATUS_NULL_PARAMETER);
    CHECK(out == NULL);
    CHECK_STATUS(ppg_train_config_init(NULL, sizeof(ppg_train_config)), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_objective_config_init(NULL, sizeof(ppg_objective_config)),
                 PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_train_report_init(NULL, sizeof(ppg_train_report)), PPG_STATUS_NULL_PARAMETER);
    ppg_engine_free(NULL); /* a no-op, like free(NULL) */

    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 7);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 7);
    CHECK(a != NULL && b != NULL);
    uint64_t ids[BATCH * LEN];
    double costs[BATCH] = {0};
    double value;
    size_t len;
    ppg_train_config config;
    ppg_objective_config objective;
    ppg_train_report report;
    ppg_train_config_default(&config);
    ppg_objective_config_default(&objective);
    ppg_train_report_default(&report);
    CHECK_STATUS(ppg_engine_set_query(NULL, QUERY, N, SESSIONS), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_set_query(a, NULL, N, SESSIONS), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_ranking_len(a, NULL), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_forbid(NULL, 501, 77), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_keep_order_within_groups(NULL), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_keep_order_between(a, NULL, N), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_set_sampler(NULL, PPG_SAMPLER_CORRECTED), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_sample(a, 1, NULL, LEN), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_sample(NULL, 1, ids, LEN), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_sample(a, 2, ids, 2 * LEN), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_sample(b, 2, ids, 2 * LEN), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_update(a, NULL, 2 * LEN, costs, 2, &config), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_update(a, ids, 2 * LEN, NULL, 2, &config), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_update(a, ids, 2 * LEN, costs, 2, NULL), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_best(a, NULL, LEN, &value), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_train(a, NULL, zero_cost, NULL, &report), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_train(a, &config, NULL, NULL, &report), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, NULL, &report), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_train_builtin(a, NULL, &objective, &report),
                 PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_evaluate(a, &objective, NULL, LEN, &value), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_evaluate(a, &objective, ids, LEN, NULL), PPG_STATUS_NULL_PARAMETER);
    CHECK_STATUS(ppg_engine_evaluate(a, NULL, ids, LEN, &value), PPG_STATUS_NULL_PARAMETER);
    /* Optional outputs may be NULL. */
    CHECK_STATUS(ppg_engine_ranking_len(a, &len), PPG_STATUS_OK);
    CHECK(len == LEN);
    return same_future_then_free(a, b);
}

static int test_memory_too_small_or_misaligned(void) {
    size_t size, align;
    CHECK_STATUS(ppg_engine_layout(PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, &size, &align),
                 PPG_STATUS_OK);
    CHECK(size > 0 && align >= 1 && (align & (align - 1)) == 0);
    /* malloc's alignment suffices for the engine (align is that of uint64_t). */
    unsigned char *block = malloc(size + align);
    CHECK(block != NULL);
    ppg_engine *sentinel = (ppg_engine *)(uintptr_t)0x1234;
    ppg_engine *out = sentinel;
    ppg_status status =
        ppg_engine_init(block, size - 1, PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, 1, &out);
    int ok = status == PPG_STATUS_MEMORY_TOO_SMALL && out == sentinel;
    status = ppg_engine_init(block + 1, size, PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, 1, &out);
    ok = ok && status == PPG_STATUS_MISALIGNED && out == sentinel;
    status = ppg_engine_init(block, size, PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, 1, &out);
    ok = ok && status == PPG_STATUS_OK && out != sentinel;
    /* The block is the engine: it works, and freeing the block is all the cleanup. */
    ok = ok && ppg_engine_set_query(out, QUERY, N, SESSIONS) == PPG_STATUS_OK;
    uint64_t ids[LEN];
    double cost = -1;
    ok = ok && ppg_engine_best(out, ids, LEN, &cost) == PPG_STATUS_NO_RESULT && cost == -1;
    ok = ok && ppg_engine_sample(out, 1, ids, LEN) == PPG_STATUS_OK;
    ppg_engine_free(out); /* not from ppg_engine_new: ignored */
    free(block);
    CHECK(ok);
    return 1;
}

static int test_zero_items(void) {
    size_t size, align;
    CHECK_STATUS(ppg_engine_layout(PPG_METHOD_PPG, 0, SESSIONS, BATCH, &size, &align),
                 PPG_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(ppg_engine_layout(PPG_METHOD_PL, ITEMS, 0, BATCH, &size, &align),
                 PPG_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(ppg_engine_layout(PPG_METHOD_PPG, ITEMS, SESSIONS, 0, &size, &align),
                 PPG_STATUS_INVALID_ARGUMENT);
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 11);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 11);
    CHECK(a != NULL && b != NULL);
    CHECK_STATUS(ppg_engine_set_query(a, QUERY, 0, SESSIONS), PPG_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(ppg_engine_set_query(a, QUERY, N, 0), PPG_STATUS_INVALID_ARGUMENT);
    uint64_t ids[LEN];
    CHECK_STATUS(ppg_engine_sample(a, 0, ids, LEN), PPG_STATUS_INVALID_ARGUMENT);
    return same_future_then_free(a, b);
}

static int test_more_items_than_fit(void) {
    size_t size, align;
    CHECK_STATUS(ppg_engine_layout(PPG_METHOD_PPG, 70000, 1, 1, &size, &align),
                 PPG_STATUS_CAPACITY);
    CHECK_STATUS(ppg_engine_layout(PPG_METHOD_PPG, 60000, SIZE_MAX / 2, 2, &size, &align),
                 PPG_STATUS_CAPACITY);
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 12);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 12);
    CHECK(a != NULL && b != NULL);
    ppg_item many[ITEMS + 1];
    for (size_t k = 0; k < ITEMS + 1; k++) {
        many[k].id = k;
        many[k].utility = 1.0;
        many[k].group = 0;
    }
    CHECK_STATUS(ppg_engine_set_query(a, many, ITEMS + 1, SESSIONS), PPG_STATUS_CAPACITY);
    CHECK_STATUS(ppg_engine_set_query(a, many, ITEMS, SESSIONS + 1), PPG_STATUS_CAPACITY);
    uint64_t ids[(BATCH + 1) * LEN];
    CHECK_STATUS(ppg_engine_sample(a, BATCH + 1, ids, (BATCH + 1) * LEN), PPG_STATUS_CAPACITY);
    /* An output buffer too small is refused before anything is drawn. */
    CHECK_STATUS(ppg_engine_sample(a, 2, ids, 2 * LEN - 1), PPG_STATUS_INVALID_ARGUMENT);
    return same_future_then_free(a, b);
}

static int test_repeated_id(void) {
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 13);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 13);
    CHECK(a != NULL && b != NULL);
    ppg_item twice[N];
    memcpy(twice, QUERY, sizeof twice);
    twice[4].id = twice[1].id;
    CHECK_STATUS(ppg_engine_set_query(a, twice, N, SESSIONS), PPG_STATUS_DUPLICATE_ITEM);
    /* A NaN utility is refused the same way: the old query (and its constraint) stays. */
    memcpy(twice, QUERY, sizeof twice);
    twice[2].utility = NAN;
    CHECK_STATUS(ppg_engine_set_query(a, twice, N, SESSIONS), PPG_STATUS_NOT_FINITE);
    twice[2].utility = INFINITY;
    CHECK_STATUS(ppg_engine_set_query(a, twice, N, SESSIONS), PPG_STATUS_NOT_FINITE);
    return same_future_then_free(a, b);
}

static int test_constraint_with_unknown_item(void) {
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 14);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 14);
    CHECK(a != NULL && b != NULL);
    CHECK_STATUS(ppg_engine_forbid(a, 501, 31337), PPG_STATUS_UNKNOWN_ITEM);
    CHECK_STATUS(ppg_engine_forbid(a, 31337, 501), PPG_STATUS_UNKNOWN_ITEM);
    CHECK_STATUS(ppg_engine_forbid(a, 77, 77), PPG_STATUS_INVALID_ARGUMENT);
    uint32_t labels[N] = {1, 1, 2, 2, 3, 3};
    CHECK_STATUS(ppg_engine_keep_order_between(a, labels, N - 1), PPG_STATUS_INVALID_ARGUMENT);
    /* The same constraints given properly to both keep them twins. */
    CHECK_STATUS(ppg_engine_forbid(a, 501, 13), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_forbid(b, 13, 501), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_keep_order_between(a, labels, N), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_keep_order_between(b, labels, N), PPG_STATUS_OK);
    return same_future_then_free(a, b);
}

static int test_update_with_nan_or_infinite_costs(void) {
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 15);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 15);
    CHECK(a != NULL && b != NULL);
    uint64_t ra[3 * LEN], rb[3 * LEN];
    CHECK_STATUS(ppg_engine_sample(a, 3, ra, 3 * LEN), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_sample(b, 3, rb, 3 * LEN), PPG_STATUS_OK);
    ppg_train_config config;
    ppg_train_config_default(&config);
    double costs[3] = {1.0, NAN, 2.0};
    CHECK_STATUS(ppg_engine_update(a, ra, 3 * LEN, costs, 3, &config), PPG_STATUS_NOT_FINITE);
    costs[1] = -INFINITY;
    CHECK_STATUS(ppg_engine_update(a, ra, 3 * LEN, costs, 3, &config), PPG_STATUS_NOT_FINITE);
    costs[1] = INFINITY;
    CHECK_STATUS(ppg_engine_update(a, ra, 3 * LEN, costs, 3, &config), PPG_STATUS_NOT_FINITE);
    /* A bad recipe is refused too. */
    costs[1] = 0.5;
    config.learning_rate = NAN;
    CHECK_STATUS(ppg_engine_update(a, ra, 3 * LEN, costs, 3, &config),
                 PPG_STATUS_INVALID_ARGUMENT);
    ppg_train_config_default(&config);
    config.gradient = 42;
    CHECK_STATUS(ppg_engine_update(a, ra, 3 * LEN, costs, 3, &config),
                 PPG_STATUS_INVALID_ARGUMENT);
    ppg_train_config_default(&config);
    /* The batch is still pending in both: the same valid update works on both. */
    CHECK_STATUS(ppg_engine_update(a, ra, 3 * LEN, costs, 3, &config), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_update(b, rb, 3 * LEN, costs, 3, &config), PPG_STATUS_OK);
    return same_future_then_free(a, b);
}

typedef struct {
    int calls;
    int nan_at;
} nan_later;

static double cost_then_nan(const uint64_t *ranking, size_t len, size_t sessions, void *user) {
    nan_later *state = user;
    (void)sessions;
    state->calls++;
    if (state->calls >= state->nan_at) {
        return NAN;
    }
    double cost = 0.0;
    for (size_t k = 0; k < len; k++) {
        cost += (double)k * (double)(ranking[k] % 5);
    }
    return cost;
}

static int test_callback_returning_nan(void) {
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 16);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 16);
    CHECK(a != NULL && b != NULL);
    ppg_train_config config;
    ppg_train_config_default(&config);
    config.initial_weight = 0.3; /* moved and moved back by the failed run */
    ppg_train_report report;
    memset(&report, 0xAB, sizeof report);
    report.struct_size = sizeof report; /* all the library reads before writing */
    ppg_train_report untouched = report;
    nan_later state = {0, 100}; /* NaN in the 7th epoch */
    CHECK_STATUS(ppg_engine_train(a, &config, cost_then_nan, &state, &report),
                 PPG_STATUS_NOT_FINITE);
    CHECK(state.calls == 100);
    CHECK(memcmp(&report, &untouched, sizeof report) == 0);
    state.calls = 0;
    state.nan_at = 1;
    CHECK_STATUS(ppg_engine_train(a, &config, cost_then_nan, &state, NULL), PPG_STATUS_NOT_FINITE);
    /* Nothing was scored: no best ranking. */
    uint64_t ids[LEN];
    CHECK_STATUS(ppg_engine_best(a, ids, LEN, NULL), PPG_STATUS_NO_RESULT);
    return same_future_then_free(a, b);
}

static int test_update_with_rankings_not_sampled(void) {
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 17);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 17);
    CHECK(a != NULL && b != NULL);
    ppg_train_config config;
    ppg_train_config_default(&config);
    uint64_t ra[2 * LEN], rb[2 * LEN];
    double costs[2] = {1.0, 2.0};
    CHECK_STATUS(ppg_engine_update(a, ra, 2 * LEN, costs, 2, &config),
                 PPG_STATUS_NO_PENDING_BATCH);
    CHECK_STATUS(ppg_engine_sample(a, 2, ra, 2 * LEN), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_sample(b, 2, rb, 2 * LEN), PPG_STATUS_OK);
    uint64_t other[2 * LEN];
    memcpy(other, ra, sizeof other);
    uint64_t t = other[LEN + 1];
    other[LEN + 1] = other[LEN + 2];
    other[LEN + 2] = t;
    CHECK_STATUS(ppg_engine_update(a, other, 2 * LEN, costs, 2, &config),
                 PPG_STATUS_UNKNOWN_SAMPLE);
    /* One ranking of two, or a length that is not whole rankings. */
    CHECK_STATUS(ppg_engine_update(a, ra, LEN, costs, 1, &config), PPG_STATUS_UNKNOWN_SAMPLE);
    CHECK_STATUS(ppg_engine_update(a, ra, 2 * LEN - 1, costs, 2, &config),
                 PPG_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(ppg_engine_update(a, ra, 2 * LEN, costs, 2, &config), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_update(b, rb, 2 * LEN, costs, 2, &config), PPG_STATUS_OK);
    /* The batch is used up. */
    CHECK_STATUS(ppg_engine_update(a, ra, 2 * LEN, costs, 2, &config),
                 PPG_STATUS_NO_PENDING_BATCH);
    return same_future_then_free(a, b);
}

static int test_train_before_query(void) {
    ppg_engine *a = NULL, *b = NULL;
    CHECK_STATUS(ppg_engine_new(PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, 18, &a), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_new(PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, 18, &b), PPG_STATUS_OK);
    ppg_train_config config;
    ppg_objective_config objective;
    ppg_train_report report;
    ppg_train_config_default(&config);
    ppg_objective_config_default(&objective);
    ppg_train_report_default(&report);
    uint64_t ids[LEN];
    double costs[1] = {0};
    double value;
    size_t len;
    CHECK_STATUS(ppg_engine_train(a, &config, zero_cost, NULL, &report), PPG_STATUS_NO_QUERY);
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, &report), PPG_STATUS_NO_QUERY);
    CHECK_STATUS(ppg_engine_sample(a, 1, ids, LEN), PPG_STATUS_NO_QUERY);
    CHECK_STATUS(ppg_engine_update(a, ids, LEN, costs, 1, &config), PPG_STATUS_NO_QUERY);
    CHECK_STATUS(ppg_engine_best(a, ids, LEN, &value), PPG_STATUS_NO_QUERY);
    CHECK_STATUS(ppg_engine_evaluate(a, &objective, ids, LEN, &value), PPG_STATUS_NO_QUERY);
    CHECK_STATUS(ppg_engine_forbid(a, 1, 2), PPG_STATUS_NO_QUERY);
    CHECK_STATUS(ppg_engine_keep_order_within_groups(a), PPG_STATUS_NO_QUERY);
    CHECK_STATUS(ppg_engine_ranking_len(a, &len), PPG_STATUS_NO_QUERY);
    CHECK_STATUS(ppg_engine_set_query(a, QUERY, N, SESSIONS), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_set_query(b, QUERY, N, SESSIONS), PPG_STATUS_OK);
    return same_future_then_free(a, b);
}

static int test_bad_enumerations_and_config(void) {
    size_t size, align;
    CHECK_STATUS(ppg_engine_layout(7, ITEMS, SESSIONS, BATCH, &size, &align),
                 PPG_STATUS_INVALID_ARGUMENT);
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 19);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 19);
    CHECK(a != NULL && b != NULL);
    CHECK_STATUS(ppg_engine_set_sampler(a, 2), PPG_STATUS_INVALID_ARGUMENT);
    ppg_train_config config;
    ppg_objective_config objective;
    ppg_train_config_default(&config);
    ppg_objective_config_default(&objective);
    config.batch = BATCH + 1;
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, NULL),
                 PPG_STATUS_INVALID_ARGUMENT);
    ppg_train_config_default(&config);
    config.clamp_min = 0.9;
    config.clamp_max = 0.1;
    CHECK_STATUS(ppg_engine_train(a, &config, zero_cost, NULL, NULL), PPG_STATUS_INVALID_ARGUMENT);
    ppg_train_config_default(&config);
    config.initial_weight = 1.5;
    CHECK_STATUS(ppg_engine_train(a, &config, zero_cost, NULL, NULL), PPG_STATUS_INVALID_ARGUMENT);
    ppg_train_config_default(&config);
    objective.metric = 99;
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, NULL),
                 PPG_STATUS_INVALID_ARGUMENT);
    ppg_objective_config_default(&objective);
    objective.eel_levels = 0;
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, NULL),
                 PPG_STATUS_INVALID_ARGUMENT);
    ppg_objective_config_default(&objective);
    objective.rank_start = 2;
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, NULL),
                 PPG_STATUS_INVALID_ARGUMENT);
    return same_future_then_free(a, b);
}

static int test_evaluate_checks_rankings(void) {
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 20);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 20);
    CHECK(a != NULL && b != NULL);
    ppg_objective_config objective;
    ppg_objective_config_default(&objective);
    uint64_t ranking[LEN];
    for (size_t k = 0; k < LEN; k++) {
        ranking[k] = QUERY[k % N].id;
    }
    double value = -1;
    CHECK_STATUS(ppg_engine_evaluate(a, &objective, ranking, LEN, &value), PPG_STATUS_OK);
    CHECK(value >= 0);
    ranking[N + 1] = ranking[N];
    CHECK_STATUS(ppg_engine_evaluate(a, &objective, ranking, LEN, &value),
                 PPG_STATUS_NOT_PERMUTATION);
    ranking[N + 1] = 31337;
    CHECK_STATUS(ppg_engine_evaluate(a, &objective, ranking, LEN, &value), PPG_STATUS_UNKNOWN_ITEM);
    CHECK_STATUS(ppg_engine_evaluate(a, &objective, ranking, LEN - 1, &value),
                 PPG_STATUS_INVALID_ARGUMENT);
    return same_future_then_free(a, b);
}

/* NDCG of utilities near the top of the double range (issue 19, point 3; the fuzz
 * target found it): the gains 2^u - 1 fit, their sums used to overflow, and evaluate
 * returned OK with NaN ({1023.5, 1023.5, 0, 0}) or with cost 1 ({1023, 0, 0, 0}). */
static double ndcg_cost_of_reversed(double top, double second, ppg_status *status) {
    ppg_item items[4] = {{1, top, 0}, {2, second, 1}, {3, 0.0, 0}, {4, 0.0, 1}};
    const uint64_t reversed[8] = {4, 3, 2, 1, 4, 3, 2, 1};
    ppg_engine *e = NULL;
    double value = -1.0;
    *status = ppg_engine_new(PPG_METHOD_PPG, 4, 2, 4, 1, &e);
    if (*status == PPG_STATUS_OK) *status = ppg_engine_set_query(e, items, 4, 2);
    if (*status == PPG_STATUS_OK) {
        ppg_objective_config objective;
        ppg_objective_config_default(&objective);
        objective.metric = PPG_METRIC_NDCG;
        objective.ndcg_k = 4;
        *status = ppg_engine_evaluate(e, &objective, reversed, 8, &value);
        /* Training on the same query agrees: it runs, and its best cost is finite. */
        ppg_train_config config;
        ppg_train_report report;
        ppg_train_config_default(&config);
        ppg_train_report_default(&report);
        config.epochs = 3;
        config.batch = 4;
        if (*status == PPG_STATUS_OK &&
            (ppg_engine_train_builtin(e, &config, &objective, &report) != PPG_STATUS_OK ||
             !isfinite(report.best_cost))) {
            *status = PPG_STATUS_NOT_FINITE;
        }
    }
    ppg_engine_free(e);
    return value;
}

static int test_ndcg_of_utilities_near_the_double_range(void) {
    ppg_status status;
    /* 1 - (1/log2(4) + 1/log2(5)) / (1 + 1/log2(3)) and 1 - 1/log2(5). */
    double v = ndcg_cost_of_reversed(1023.5, 1023.5, &status);
    CHECK_STATUS(status, PPG_STATUS_OK);
    CHECK(fabs(v - 0.4293582810446799) < 1e-12);
    v = ndcg_cost_of_reversed(1023.0, 0.0, &status);
    CHECK_STATUS(status, PPG_STATUS_OK);
    CHECK(fabs(v - 0.5693234419266069) < 1e-12);
    /* Any finite utility: the top item alone carries the list. */
    v = ndcg_cost_of_reversed(1e308, 0.0, &status);
    CHECK_STATUS(status, PPG_STATUS_OK);
    CHECK(fabs(v - 0.5693234419266069) < 1e-12);
    /* Ordinary labels are unchanged: 7 and 3 at the bottom of 2 sessions. */
    v = ndcg_cost_of_reversed(3.0, 2.0, &status);
    CHECK_STATUS(status, PPG_STATUS_OK);
    CHECK(fabs(v - (1.0 - (3.0 / log2(4.0) + 7.0 / log2(5.0)) / (7.0 + 3.0 / log2(3.0)))) <
          1e-12);
    return 1;
}

static int test_sample_update_loop_finds_best(void) {
    ppg_engine *e = engine_with_query(PPG_METHOD_PPG, 21);
    CHECK(e != NULL);
    ppg_train_config config;
    ppg_train_config_default(&config);
    uint64_t batch[BATCH * LEN], best[LEN];
    double lowest = INFINITY;
    uint64_t lowest_ranking[LEN];
    int ok = 1;
    for (int round = 0; round < 5 && ok; round++) {
        ok = ppg_engine_sample(e, BATCH, batch, BATCH * LEN) == PPG_STATUS_OK;
        double costs[BATCH];
        for (size_t k = 0; k < BATCH && ok; k++) {
            /* Cost: the rank of id 13 (the last input item) in session 1, lower first. */
            costs[k] = 0;
            for (size_t j = 0; j < N; j++) {
                if (batch[k * LEN + j] == 13) {
                    costs[k] = (double)j;
                }
            }
            if (costs[k] < lowest) {
                lowest = costs[k];
                memcpy(lowest_ranking, batch + k * LEN, sizeof lowest_ranking);
            }
        }
        ok = ok && ppg_engine_update(e, batch, BATCH * LEN, costs, BATCH, &config) == PPG_STATUS_OK;
    }
    double cost = -1;
    ok = ok && ppg_engine_best(e, best, LEN, &cost) == PPG_STATUS_OK;
    ppg_engine_free(e);
    CHECK(ok);
    CHECK(cost == lowest);
    CHECK(memcmp(best, lowest_ranking, sizeof best) == 0);
    return 1;
}

static int test_pl_through_the_same_calls(void) {
    ppg_engine *a = engine_with_query(PPG_METHOD_PL, 22);
    ppg_engine *b = engine_with_query(PPG_METHOD_PL, 22);
    CHECK(a != NULL && b != NULL);
    CHECK_STATUS(ppg_engine_forbid(a, 501, 77), PPG_STATUS_UNSUPPORTED);
    CHECK_STATUS(ppg_engine_keep_order_within_groups(a), PPG_STATUS_UNSUPPORTED);
    uint64_t ids[LEN];
    CHECK_STATUS(ppg_engine_best(a, ids, LEN, NULL), PPG_STATUS_NO_RESULT);
    ppg_train_config config;
    ppg_train_config_default(&config);
    nan_later state = {0, 5};
    CHECK_STATUS(ppg_engine_train(a, &config, cost_then_nan, &state, NULL), PPG_STATUS_NOT_FINITE);
    return same_future_then_free(a, b);
}

/* DTR over three groups (the largest over the smallest exposure-per-utility ratio): trains
 * the same on two engines, reports a bound at or below its best and certifies against it,
 * and evaluates the best ranking at the reported cost. */
static int test_dtr_over_three_groups(void) {
    ppg_engine *a = engine_with_query(PPG_METHOD_PPG, 23);
    ppg_engine *b = engine_with_query(PPG_METHOD_PPG, 23);
    CHECK(a != NULL && b != NULL);
    ppg_item three[N];
    memcpy(three, QUERY, sizeof three);
    three[5].group = 2;
    CHECK_STATUS(ppg_engine_set_query(a, three, N, SESSIONS), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_set_query(b, three, N, SESSIONS), PPG_STATUS_OK);
    ppg_train_config config;
    ppg_objective_config objective;
    ppg_train_report pa, pb;
    ppg_train_config_default(&config);
    ppg_objective_config_default(&objective);
    ppg_train_report_default(&pa);
    ppg_train_report_default(&pb);
    objective.metric = PPG_METRIC_DTR;
    CHECK_STATUS(ppg_engine_train_builtin(a, &config, &objective, &pa), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_train_builtin(b, &config, &objective, &pb), PPG_STATUS_OK);
    CHECK(pa.best_cost == pb.best_cost && pa.samples == pb.samples);
    /* The bound is the optimum's value from group totals, the cost the ranking's: where
     * the best is that optimum they may differ in the last bits. */
    CHECK(pa.bound == pa.bound && pa.bound >= 0.0 && pa.best_cost >= pa.bound - 1e-12);
    CHECK(pa.certified == (pa.best_cost <= pa.bound + config.certify_tolerance));
    uint64_t best[LEN];
    double cost, value;
    CHECK_STATUS(ppg_engine_best(a, best, LEN, &cost), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_evaluate(a, &objective, best, LEN, &value), PPG_STATUS_OK);
    CHECK(value == cost && cost == pa.best_cost);
    ppg_engine_free(a);
    ppg_engine_free(b);
    return 1;
}

/* Writes `byte` into a bool field as memset would, without a C bool of that value (a
 * load of which would be undefined in C too). */
static void set_bool_byte(bool *field, unsigned char byte) { memcpy(field, &byte, 1); }

/* Re-ranks QUERY under DTR with `config` on a fresh engine; the report into *report and
 * the rankings into out. */
static ppg_status rerank_dtr(const ppg_train_config *config, ppg_train_report *report,
                             uint64_t out[LEN]) {
    ppg_engine *e = NULL;
    ppg_status st = ppg_engine_new(PPG_METHOD_PPG, ITEMS, SESSIONS, BATCH, 7, &e);
    if (st != PPG_STATUS_OK) return st;
    ppg_objective_config objective;
    ppg_objective_config_default(&objective);
    objective.metric = PPG_METRIC_DTR;
    ppg_train_report_default(report);
    st = ppg_engine_rerank(e, QUERY, N, SESSIONS, &objective, config, 31, out, LEN, report);
    ppg_engine_free(e);
    return st;
}

/* A bool field of an input struct holding a byte other than 0 or 1 (a memset struct, a
 * binding whose field is a byte) is read as that byte: non-zero is true. Each recipe is
 * run with its flags as 0/1 and as other bytes, and gives the same status, report and
 * rankings; so does the objective's ee_raw. */
static int test_bool_fields_read_as_bytes(void) {
    static const unsigned char TRUE_BYTES[] = {2, 3, 0x80, 0xff, 0x5a, 0x40};
    for (int flags = 0; flags < 64; flags += 9) {
        ppg_train_config plain, bytes;
        ppg_train_config_default(&plain);
        bool *fields_plain[] = {&plain.baseline, &plain.score_input, &plain.grow,
                                &plain.intra,    &plain.hold,        &plain.certify};
        for (int k = 0; k < 6; k++) *fields_plain[k] = (flags >> k) & 1;
        bytes = plain;
        bool *fields_bytes[] = {&bytes.baseline, &bytes.score_input, &bytes.grow,
                                &bytes.intra,    &bytes.hold,        &bytes.certify};
        for (int k = 0; k < 6; k++) {
            if ((flags >> k) & 1) set_bool_byte(fields_bytes[k], TRUE_BYTES[k]);
        }
        ppg_train_report rp, rb;
        uint64_t op[LEN], ob[LEN];
        CHECK_STATUS(rerank_dtr(&plain, &rp, op), PPG_STATUS_OK);
        CHECK_STATUS(rerank_dtr(&bytes, &rb, ob), PPG_STATUS_OK);
        CHECK(memcmp(op, ob, sizeof op) == 0);
        CHECK(rp.epochs == rb.epochs && rp.samples == rb.samples && rp.best_cost == rb.best_cost);
        CHECK(rp.certified == rb.certified && rp.bound_exact == rb.bound_exact);
        /* certify on: the two-group DTR query is certified (a 3 was once read as false) */
        CHECK(!((flags >> 5) & 1) || rb.certified);
    }
    ppg_engine *e = engine_with_query(PPG_METHOD_PPG, 41);
    CHECK(e != NULL);
    ppg_objective_config plain, bytes;
    ppg_objective_config_default(&plain);
    plain.metric = PPG_METRIC_EXPECTED_EXPOSURE;
    plain.ee_measure = PPG_EE_MEASURE_DISPARITY; /* raw and normalised differ here */
    bytes = plain;
    plain.ee_raw = true;
    set_bool_byte(&bytes.ee_raw, 0x22);
    uint64_t ranking[LEN];
    for (int s = 0; s < SESSIONS; s++) {
        for (int k = 0; k < N; k++) ranking[s * N + k] = QUERY[k].id;
    }
    double vp, vb, normalised;
    CHECK_STATUS(ppg_engine_evaluate(e, &plain, ranking, LEN, &vp), PPG_STATUS_OK);
    CHECK_STATUS(ppg_engine_evaluate(e, &bytes, ranking, LEN, &vb), PPG_STATUS_OK);
    plain.ee_raw = false;
    CHECK_STATUS(ppg_engine_evaluate(e, &plain, ranking, LEN, &normalised), PPG_STATUS_OK);
    ppg_engine_free(e);
    CHECK(vp == vb && vp != normalised);
    return 1;
}

#if defined(PPG_TEST_HOOKS)
/* Runs ppg_debug_panic(e) with stderr sent to a temporary file; returns its status and
 * puts in *printed the bytes the library wrote to stderr meanwhile. */
static ppg_status panic_with_stderr_captured(ppg_engine *e, long *printed) {
    FILE *capture = tmpfile();
    int saved = dup(2);
    *printed = -1;
    if (capture == NULL || saved < 0) return PPG_STATUS_OK; /* fails the caller's CHECK */
    fflush(stderr);
    dup2(fileno(capture), 2);
    ppg_status status = ppg_debug_panic(e);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fseek(capture, 0, SEEK_END);
    *printed = ftell(capture);
    fclose(capture);
    return status;
}

static int test_panic_poisons_the_engine(void) {
    char message[256];
    CHECK_STATUS(ppg_last_panic_message(message, sizeof message), PPG_STATUS_NO_RESULT);
    ppg_engine *e = engine_with_query(PPG_METHOD_PPG, 24);
    ppg_engine *other = engine_with_query(PPG_METHOD_PPG, 24);
    CHECK(e != NULL && other != NULL);
    /* The Makefile runs this with RUST_BACKTRACE=1: still not one byte on stderr. */
    long printed;
    ppg_status status = panic_with_stderr_captured(e, &printed);
    uint64_t ids[LEN];
    size_t len;
    int ok = status == PPG_STATUS_PANIC && printed == 0;
    ok = ok && ppg_engine_sample(e, 1, ids, LEN) == PPG_STATUS_PANIC;
    ok = ok && ppg_engine_ranking_len(e, &len) == PPG_STATUS_PANIC;
    ok = ok && ppg_engine_set_query(e, QUERY, N, SESSIONS) == PPG_STATUS_PANIC;
    /* Other engines are not affected. */
    ok = ok && ppg_engine_sample(other, 1, ids, LEN) == PPG_STATUS_OK;
    ppg_engine_free(e); /* a poisoned engine is still freed */
    ppg_engine_free(other);
    CHECK(ok);
    /* The message is kept instead: whole, or cut to fit and always NUL-terminated. */
    CHECK_STATUS(ppg_last_panic_message(message, sizeof message), PPG_STATUS_OK);
    CHECK(strncmp(message, "ppg_debug_panic: a deliberate panic", 35) == 0);
    CHECK(strstr(message, " at ppg-ffi/src/api/panics.rs:") != NULL);
    char small[9];
    memset(small, 'x', sizeof small);
    CHECK_STATUS(ppg_last_panic_message(small, 8), PPG_STATUS_OK);
    CHECK(strcmp(small, "ppg_deb") == 0 && small[8] == 'x');
    CHECK_STATUS(ppg_last_panic_message(small, 0), PPG_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(ppg_last_panic_message(NULL, 8), PPG_STATUS_NULL_PARAMETER);
    return 1;
}
#endif

int main(void) {
    printf("ppg %s C API tests\n", ppg_version());
    run_test(test_version_and_messages, "version and messages");
    run_test(test_header_and_library_versions, "header and library versions");
    run_test(test_unknown_struct_size, "unknown struct_size");
    run_test(test_null_pointers, "NULL pointers");
    run_test(test_memory_too_small_or_misaligned, "memory too small or misaligned");
    run_test(test_zero_items, "zero items");
    run_test(test_more_items_than_fit, "more items than fit");
    run_test(test_repeated_id, "an item id repeated");
    run_test(test_constraint_with_unknown_item, "constraint naming an unknown item");
    run_test(test_update_with_nan_or_infinite_costs, "NaN or infinite costs in update");
    run_test(test_callback_returning_nan, "callback returning NaN");
    run_test(test_update_with_rankings_not_sampled, "update with rankings not sampled");
    run_test(test_train_before_query, "train before the query is set");
    run_test(test_bad_enumerations_and_config, "bad enumerations and config");
    run_test(test_evaluate_checks_rankings, "evaluate checks rankings");
    run_test(test_ndcg_of_utilities_near_the_double_range, "NDCG of utilities near 2^1024");
    run_test(test_sample_update_loop_finds_best, "sample/update loop tracks the best");
    run_test(test_pl_through_the_same_calls, "PL through the same calls");
    run_test(test_dtr_over_three_groups, "DTR over three groups");
    run_test(test_bool_fields_read_as_bytes, "bool fields read as bytes");
#if defined(PPG_TEST_HOOKS)
    run_test(test_panic_poisons_the_engine, "panic poisons the engine");
#else
    printf("%-40s skipped (build with -DPPG_TEST_HOOKS and feature test-hooks)\n",
           "panic poisons the engine");
#endif
    if (failures) {
        printf("%d test(s) FAILED\n", failures);
        return 1;
    }
    printf("all tests passed\n");
    return 0;
}
