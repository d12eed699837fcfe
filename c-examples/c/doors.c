/*
 * doors: the C door of the same-answer test (tests/bindings.rs). Reads the rows of
 * tests/doors/rows.tsv (qid item score group label, a query's rows contiguous and in their
 * input ranking, the label the utility), re-ranks each query with ppg_engine_rerank under
 * the recommended recipe (METRIC: eel, or ee, the official expected exposure; SESSIONS
 * sessions, 1 to 3, default 3, query k seeded with ppg_query_seed(SEED, k)), and prints what
 * `ppg rerank --metric METRIC --sessions SESSIONS --seed 11` prints: a query expected
 * exposure has no value for (no relevant item) comes back as its input ranking.
 *
 * With a fourth argument, `report`, it prints instead each query's relevance certificate
 * (the report's ndcg, ndcg_bound, ndcg_exact, ndcg_gap; empty where NaN), the last four
 * columns of `ppg rerank --report` (tests/c_api.rs compares them).
 */
#include "ppg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_ITEMS 64
#define MAX_SESSIONS 3
#define SEED 11

static int report_only = 0;

/* A double as the report prints it: empty where NaN, else every digit. */
static void value(double v) {
    if (!isnan(v)) printf("%.17g", v);
}

static int flush(ppg_engine *engine, uint32_t metric, size_t sessions, const char *qid,
                 ppg_item *items, size_t n, uint64_t k) {
    ppg_train_config config;
    ppg_objective_config objective;
    ppg_train_report report;
    ppg_train_config_default(&config);
    ppg_objective_config_default(&objective);
    ppg_train_report_default(&report);
    objective.metric = metric;
    uint64_t out[MAX_ITEMS * MAX_SESSIONS];
    ppg_status status = ppg_engine_rerank(engine, items, n, sessions, &objective, &config,
                                          ppg_query_seed(SEED, k), out, n * sessions, &report);
    if (status != PPG_STATUS_OK) {
        fprintf(stderr, "doors: query %s: %s\n", qid, ppg_status_str(status));
        return 1;
    }
    if (report_only) {
        printf("%s\t", qid);
        value(report.ndcg);
        printf("\t");
        value(report.ndcg_bound);
        printf("\t");
        if (!isnan(report.ndcg)) printf("%d", report.ndcg_exact ? 1 : 0);
        printf("\t");
        value(report.ndcg_gap);
        printf("\n");
        return 0;
    }
    for (size_t s = 0; s < sessions; s++) {
        for (size_t r = 0; r < n; r++) {
            printf("%s\t%zu\t%zu\t%llu\n", qid, s + 1, r + 1, (unsigned long long)out[s * n + r]);
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    size_t sessions = argc >= 4 ? (size_t)(argv[3][0] - '0') : MAX_SESSIONS;
    report_only = argc == 5 && strcmp(argv[4], "report") == 0;
    if (argc < 2 || argc > 5 ||
        (argc >= 3 && strcmp(argv[2], "eel") != 0 && strcmp(argv[2], "ee") != 0) ||
        (argc >= 4 && (strlen(argv[3]) != 1 || sessions < 1 || sessions > MAX_SESSIONS)) ||
        (argc == 5 && !report_only)) {
        fprintf(stderr, "usage: doors ROWS.tsv [eel|ee] [SESSIONS 1-3] [report]\n");
        return 2;
    }
    uint32_t metric = argc >= 3 && strcmp(argv[2], "ee") == 0 ? PPG_METRIC_EXPECTED_EXPOSURE
                                                               : PPG_METRIC_EEL;
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    ppg_engine *engine = NULL;
    if (PPG_CHECK_VERSION() != PPG_STATUS_OK ||
        ppg_engine_new(PPG_METHOD_PPG, MAX_ITEMS, MAX_SESSIONS, 16, 0, &engine) != PPG_STATUS_OK) {
        fprintf(stderr, "doors: no engine\n");
        fclose(f);
        return 1;
    }
    char line[256], qid[64] = "", q[64];
    ppg_item items[MAX_ITEMS];
    size_t n = 0;
    uint64_t k = 0;
    int failed = 0;
    if (!report_only) printf("qid\tsession\trank\titem\n");
    if (!fgets(line, sizeof line, f)) failed = 1; /* the header */
    unsigned long long id;
    double score, label;
    unsigned group;
    while (!failed && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%63s %llu %lf %u %lf", q, &id, &score, &group, &label) != 5) {
            fprintf(stderr, "doors: a malformed row: %s", line);
            failed = 1;
            break;
        }
        if (n > 0 && strcmp(q, qid) != 0) {
            failed = flush(engine, metric, sessions, qid, items, n, k++);
            n = 0;
        }
        if (n == MAX_ITEMS) {
            fprintf(stderr, "doors: a query of more than %d items\n", MAX_ITEMS);
            failed = 1;
            break;
        }
        strcpy(qid, q);
        items[n].id = id;
        items[n].utility = label;
        items[n].group = group;
        n++;
    }
    if (!failed && n > 0) failed = flush(engine, metric, sessions, qid, items, n, k);
    ppg_engine_free(engine);
    fclose(f);
    return failed;
}
