/*
 * rerank: fair re-ranking of a few built-in queries with the C API of ppg.
 *
 * For each query (items in ranked order, each with a utility and a fairness group) it
 * optimises the expected exposure loss (EEL) over 4 sessions with PPG, keeping the
 * order of the items within each group (intra-group constraint), and prints EEL and
 * NDCG@10 (averaged over sessions) of the input ranking and of the best ranking found.
 *
 * The engine lives in a static buffer (ppg_engine_layout + ppg_engine_init): no heap,
 * as on a microcontroller. The program checks its own output and exits non-zero if
 * a ranking is not a permutation, an intra-group order was broken, or EEL did not go
 * down from the input ranking.
 *
 * Build and run: make run   (C99, warnings are errors)
 */
#include "ppg.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SESSIONS 4
#define MAX_ITEMS 16
#define BATCH 16
#define SEED 2022u

typedef struct {
    const char *name;
    size_t count;
    /* In ranked order: the input ranking. */
    double utility[MAX_ITEMS];
    uint32_t group[MAX_ITEMS];
} query;

/* Unfair inputs: among equally useful items, one group comes first. */
static const query QUERIES[] = {
    {"ties favour one group", 8, {3, 3, 3, 3, 3, 3, 0, 0}, {7, 7, 7, 3, 3, 3, 7, 3}},
    {"binary labels", 10, {1, 1, 1, 1, 0, 1, 0, 1, 0, 0}, {0, 0, 0, 0, 0, 1, 1, 1, 1, 1}},
    {"three groups", 12,
     {4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 0, 0},
     {1, 1, 1, 2, 2, 1, 2, 9, 9, 9, 9, 9}},
};

/* Engine memory for every query above (checked against ppg_engine_layout). */
static union {
    uint64_t align_u64;
    double align_double;
    unsigned char bytes[512 * 1024];
} arena;

static int failed(const char *what, ppg_status status) {
    fprintf(stderr, "rerank: %s: %s\n", what, ppg_status_str(status));
    return 1;
}

/* Each session of `ranking` is a permutation of the query's ids. */
static int is_permutation(const uint64_t *ranking, const uint64_t *ids, size_t n) {
    for (size_t s = 0; s < SESSIONS; s++) {
        unsigned char seen[MAX_ITEMS] = {0};
        for (size_t k = 0; k < n; k++) {
            size_t local = n;
            for (size_t j = 0; j < n; j++) {
                if (ids[j] == ranking[s * n + k]) {
                    local = j;
                }
            }
            if (local == n || seen[local]) {
                return 0;
            }
            seen[local] = 1;
        }
    }
    return 1;
}

/* Items of the same group appear in their input order in every session. */
static int keeps_group_order(const uint64_t *ranking, const uint64_t *ids, const query *q) {
    size_t n = q->count;
    for (size_t s = 0; s < SESSIONS; s++) {
        size_t pos[MAX_ITEMS];
        for (size_t k = 0; k < n; k++) {
            for (size_t j = 0; j < n; j++) {
                if (ids[j] == ranking[s * n + k]) {
                    pos[j] = k;
                }
            }
        }
        for (size_t a = 0; a < n; a++) {
            for (size_t b = a + 1; b < n; b++) {
                if (q->group[a] == q->group[b] && pos[a] > pos[b]) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

static int evaluate(ppg_engine *engine, uint32_t metric, const uint64_t *ranking, size_t len,
                    double *value) {
    ppg_objective_config objective;
    ppg_objective_config_default(&objective);
    objective.metric = metric;
    ppg_status status = ppg_engine_evaluate(engine, &objective, ranking, len, value);
    return status == PPG_STATUS_OK ? 0 : failed("ppg_engine_evaluate", status);
}

static int rerank(ppg_engine *engine, const query *q) {
    size_t n = q->count;
    size_t len = n * SESSIONS;
    ppg_item items[MAX_ITEMS];
    uint64_t ids[MAX_ITEMS];
    uint64_t input[MAX_ITEMS * SESSIONS];
    uint64_t best[MAX_ITEMS * SESSIONS];
    ppg_status status;

    for (size_t k = 0; k < n; k++) {
        /* Any unique ids will do: the engine maps them to ranks. */
        ids[k] = 1000003u * (uint64_t)(k + 1);
        items[k].id = ids[k];
        items[k].utility = q->utility[k];
        items[k].group = q->group[k];
    }
    for (size_t i = 0; i < len; i++) {
        input[i] = ids[i % n];
    }
    status = ppg_engine_set_query(engine, items, n, SESSIONS);
    if (status != PPG_STATUS_OK) {
        return failed("ppg_engine_set_query", status);
    }
    status = ppg_engine_keep_order_within_groups(engine);
    if (status != PPG_STATUS_OK) {
        return failed("ppg_engine_keep_order_within_groups", status);
    }

    double eel_before, eel_after, ndcg_before, ndcg_after;
    if (evaluate(engine, PPG_METRIC_EEL, input, len, &eel_before) ||
        evaluate(engine, PPG_METRIC_NDCG, input, len, &ndcg_before)) {
        return 1;
    }

    ppg_train_config config;
    ppg_objective_config objective;
    ppg_train_config_default(&config);
    ppg_objective_config_default(&objective); /* EEL, 5 levels, reference exposure */
    config.score_input = true;                 /* never worse than the input */
    ppg_train_report report;
    ppg_train_report_default(&report);
    status = ppg_engine_train_builtin(engine, &config, &objective, &report);
    if (status != PPG_STATUS_OK) {
        return failed("ppg_engine_train_builtin", status);
    }
    double cost;
    status = ppg_engine_best(engine, best, len, &cost);
    if (status != PPG_STATUS_OK) {
        return failed("ppg_engine_best", status);
    }
    if (evaluate(engine, PPG_METRIC_EEL, best, len, &eel_after) ||
        evaluate(engine, PPG_METRIC_NDCG, best, len, &ndcg_after)) {
        return 1;
    }

    printf("%-24s %5zu %10.4f %10.4f %9.3f %9.3f %7u\n", q->name, n, eel_before, eel_after,
           1.0 - ndcg_before, 1.0 - ndcg_after, report.epochs);
    printf("  session 1:");
    for (size_t k = 0; k < n; k++) {
        for (size_t j = 0; j < n; j++) {
            if (ids[j] == best[k]) {
                printf(" %zu%c", j, (int)('A' + q->group[j] % 26));
            }
        }
    }
    printf("   (input rank + group)\n");

    int bad = 0;
    if (!is_permutation(best, ids, n)) {
        fprintf(stderr, "rerank: %s: a session is not a permutation\n", q->name);
        bad = 1;
    }
    if (!keeps_group_order(best, ids, q)) {
        fprintf(stderr, "rerank: %s: an intra-group order was broken\n", q->name);
        bad = 1;
    }
    if (!(eel_after < eel_before)) {
        fprintf(stderr, "rerank: %s: EEL did not go down (%g -> %g)\n", q->name, eel_before,
                eel_after);
        bad = 1;
    }
    if (cost != eel_after) {
        fprintf(stderr, "rerank: %s: best cost %g differs from its EEL %g\n", q->name, cost,
                eel_after);
        bad = 1;
    }
    return bad;
}

int main(void) {
    /* The library must serve this header's version (a newer header would be refused). */
    ppg_status status = PPG_CHECK_VERSION();
    if (status != PPG_STATUS_OK) {
        fprintf(stderr, "rerank: built against ppg.h %s, running on libppg %s\n",
                PPG_VERSION_STRING, ppg_version());
        return failed("ppg_check_version", status);
    }
    size_t size, align;
    status =
        ppg_engine_layout(PPG_METHOD_PPG, MAX_ITEMS, SESSIONS, BATCH, &size, &align);
    if (status != PPG_STATUS_OK) {
        return failed("ppg_engine_layout", status);
    }
    if (size > sizeof arena.bytes || (uintptr_t)arena.bytes % align != 0) {
        fprintf(stderr, "rerank: the static arena (%zu bytes) cannot hold %zu bytes\n",
                sizeof arena.bytes, size);
        return 1;
    }
    ppg_engine *engine;
    status = ppg_engine_init(arena.bytes, sizeof arena.bytes, PPG_METHOD_PPG, MAX_ITEMS,
                             SESSIONS, BATCH, SEED, &engine);
    if (status != PPG_STATUS_OK) {
        return failed("ppg_engine_init", status);
    }
    printf("ppg %s: engine of %zu bytes in a static buffer, %d sessions, EEL + intra-group\n",
           ppg_version(), size, SESSIONS);
    printf("%-24s %5s %10s %10s %9s %9s %7s\n", "query", "items", "EEL in", "EEL out",
           "NDCG in", "NDCG out", "epochs");
    int bad = 0;
    for (size_t i = 0; i < sizeof QUERIES / sizeof QUERIES[0]; i++) {
        bad |= rerank(engine, &QUERIES[i]);
    }
    /* The engine lives in `arena`: nothing to free. */
    if (bad) {
        fprintf(stderr, "rerank: FAILED\n");
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
