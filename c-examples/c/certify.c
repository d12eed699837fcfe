/*
 * certify: the certificate through the C one-call (issue 37: every production-shaped file
 * meets its target through `ppg rerank` and through `ppg_engine_rerank`). Reads a file of
 * `ppg_lab::shapes` (header `qid item score group label`, a query's rows contiguous and in
 * their input ranking, groups written `g0`, `g1`, ...), re-ranks each query with
 * ppg_engine_rerank under the recommended recipe (METRIC dtr or eel, SESSIONS 1 to 32, the
 * label the utility or, in a file without labels, the score; the input ranking the rows by
 * descending score, ties the later row first, as `ppg rerank` orders them; query k seeded
 * with ppg_query_seed(0, k): `ppg rerank`'s default seed)
 * and prints per query what `ppg rerank --report` prints in its columns qid, bound,
 * bound_exact, certified and gap (bound and gap empty where NaN), then on stderr the
 * share certified and the largest gap, as `ppg rerank` says them.
 *
 *   certify ROWS.tsv dtr|eel SESSIONS
 */
#include "ppg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 64
#define MAX_SESSIONS 32

/* A row of the query: its item and its score, which orders the input ranking. */
struct row {
    ppg_item item;
    double score;
};

struct tally {
    unsigned long queries, bounded, certified;
    double largest_gap;
};

/* A double as the report prints it: empty where NaN, else every digit. */
static void value(double v) {
    if (!isnan(v)) printf("%.17g", v);
}

/* Descending score, the later row first among equal scores: `ppg rerank`'s input ranking
 * (the stable ascending sort reversed). The row's place is its item id. */
static int by_score(const void *a, const void *b) {
    const struct row *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? 1 : -1;
    return x->item.id < y->item.id ? 1 : -1;
}

static int flush(ppg_engine *engine, uint32_t metric, size_t sessions, const char *qid,
                 struct row *rows, size_t n, uint64_t k, struct tally *tally) {
    static uint64_t out[MAX_ITEMS * MAX_SESSIONS];
    ppg_item items[MAX_ITEMS];
    qsort(rows, n, sizeof *rows, by_score);
    for (size_t i = 0; i < n; i++) items[i] = rows[i].item;
    ppg_train_config config;
    ppg_objective_config objective;
    ppg_train_report report;
    ppg_train_config_default(&config);
    ppg_objective_config_default(&objective);
    ppg_train_report_default(&report);
    objective.metric = metric;
    ppg_status status = ppg_engine_rerank(engine, items, n, sessions, &objective, &config,
                                          ppg_query_seed(0, k), out, n * sessions, &report);
    if (status != PPG_STATUS_OK) {
        fprintf(stderr, "certify: query %s: %s\n", qid, ppg_status_str(status));
        return 1;
    }
    /* `ppg rerank` passes a query of one item through without a report line's bound. */
    printf("%s\t", qid);
    value(report.bound);
    printf("\t%d\t%d\t", report.bound_exact ? 1 : 0, report.certified ? 1 : 0);
    value(report.gap);
    printf("\n");
    tally->queries++;
    if (!isnan(report.bound)) tally->bounded++;
    if (report.certified) tally->certified++;
    if (!isnan(report.gap) && report.gap > tally->largest_gap) tally->largest_gap = report.gap;
    return 0;
}

int main(int argc, char **argv) {
    char *end = NULL;
    long sessions = argc == 4 ? strtol(argv[3], &end, 10) : 0;
    if (argc != 4 || (strcmp(argv[2], "dtr") != 0 && strcmp(argv[2], "eel") != 0) ||
        *end != '\0' || sessions < 1 || sessions > MAX_SESSIONS) {
        fprintf(stderr, "usage: certify ROWS.tsv dtr|eel SESSIONS(1-%d)\n", MAX_SESSIONS);
        return 2;
    }
    uint32_t metric = strcmp(argv[2], "dtr") == 0 ? PPG_METRIC_DTR : PPG_METRIC_EEL;
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    ppg_engine *engine = NULL;
    if (PPG_CHECK_VERSION() != PPG_STATUS_OK ||
        ppg_engine_new(PPG_METHOD_PPG, MAX_ITEMS, (size_t)sessions, 16, 0, &engine) !=
            PPG_STATUS_OK) {
        fprintf(stderr, "certify: no engine\n");
        fclose(f);
        return 1;
    }
    char line[256], qid[64] = "", q[64], item[64];
    struct row rows[MAX_ITEMS];
    size_t n = 0;
    uint64_t k = 0;
    int failed = 0;
    struct tally tally = {0, 0, 0, 0.0};
    unsigned long line_no = 1;
    if (!fgets(line, sizeof line, f)) failed = 1; /* the header */
    double score, label;
    unsigned group;
    int fields = 0;
    while (!failed && fgets(line, sizeof line, f)) {
        line_no++;
        int read = sscanf(line, "%63s %63s %lf g%u %lf", q, item, &score, &group, &label);
        if (fields == 0) fields = read; /* 5 with labels, 4 without: the same for every row */
        if (read != fields || (read != 4 && read != 5)) {
            fprintf(stderr, "certify: %s line %lu: a malformed row: %s", argv[1], line_no, line);
            failed = 1;
            break;
        }
        if (n > 0 && strcmp(q, qid) != 0) {
            /* A query of one item has nothing to re-rank: `ppg rerank` passes it through. */
            if (n > 1) failed = flush(engine, metric, (size_t)sessions, qid, rows, n, k, &tally);
            k++;
            n = 0;
        }
        if (n == MAX_ITEMS) {
            fprintf(stderr, "certify: %s line %lu: a query of more than %d items\n", argv[1],
                    line_no, MAX_ITEMS);
            failed = 1;
            break;
        }
        strcpy(qid, q);
        rows[n].item.id = n; /* the row's place in its query: unique within the query */
        rows[n].item.utility = fields == 5 ? label : score;
        rows[n].item.group = group;
        rows[n].score = score;
        n++;
    }
    if (!failed && n > 1) failed = flush(engine, metric, (size_t)sessions, qid, rows, n, k, &tally);
    ppg_engine_free(engine);
    fclose(f);
    if (!failed)
        fprintf(stderr, "certify: certified %lu of %lu queries (%lu with a bound), largest gap %.17g\n",
                tally.certified, tally.queries, tally.bounded, tally.largest_gap);
    return failed;
}
