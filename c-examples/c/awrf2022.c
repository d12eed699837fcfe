/*
 * awrf2022: TREC 2022's AWRF x NDCG from C, through the cost callback (ppg_engine_train).
 *
 * The C API has no built-in AWRF-2022: its side data (each item's sparse distribution per
 * attribute, the target) are per query and variable-sized, and the callback already takes
 * any cost (docs/c-api.md, "TREC 2022's AWRF from C"). This program scores one small
 * list with a given marginal target (the joint target their product), laying the joint
 * space out (2 attributes: 3 x 3 cells; fine at this size, not at TREC's 11 million: use
 * `ppg rerank --metric awrf2022` or Python there), prints the input ranking's cost to 17
 * digits and the best found, and fails if the best is worse than the input.
 *
 * The same list as `ppg rerank` files (tests/c_api.rs checks the costs agree to 1e-12):
 *   rows: qid item score group label, items d0..d5 with scores 6..1, labels below;
 *   --attributes: the rows of A and B below (B's third level is @UNKNOWN);
 *   --attribute-target: A l0/l1/l2 1 1 1, B m0/m1/@UNKNOWN 0.4 0.4 0.2.
 *
 * Build: cc -std=c99 -I include awrf2022.c libppg.a -lm -lpthread -ldl
 */
#include "ppg.h"

#include <math.h>
#include <stdio.h>

#define N 6
#define LA 3 /* attribute A: l0, l1, l2 */
#define LB 3 /* attribute B: m0, m1, @UNKNOWN */

typedef struct {
    double utility[N];
    double a[N][LA]; /* each item's row of A (sums to 1) */
    double b[N][LB]; /* and of B; an item missing from B is all @UNKNOWN */
    double qa[LA], qb[LB];
} list;

static const list LIST = {
    {1, 0, 1, 1, 0, 1},
    {{1, 0, 0}, {1, 0, 0}, {0.5, 0.5, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 1}},
    {{1, 0, 0}, {0.5, 0.5, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}, {0, 0, 1}},
    {1.0 / 3, 1.0 / 3, 1.0 / 3},
    {0.4, 0.4, 0.2},
};

/* TREC's attention at 0-based position r: 1 / log2(max(r + 1, 2)). */
static double attention(size_t r) { return 1.0 / log2(r + 1 < 2 ? 2.0 : (double)(r + 1)); }

/* x ln(x / m), 0 at x = 0 (scipy's rel_entr). */
static double rel(double x, double m) { return x > 0 ? x * log(x / m) : 0.0; }

/* 1 - mean over sessions of AWRF x NDCG; ids are the items' indices. */
static double cost(const uint64_t *ranking, size_t len, size_t sessions, void *user) {
    const list *l = user;
    size_t n = len / sessions, relevant = 0;
    double ideal = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        relevant += l->utility[i] > 0;
    }
    for (size_t r = 0; r < relevant; r++) {
        ideal += attention(r);
    }
    for (size_t s = 0; s < sessions; s++) {
        double p[LA][LB] = {{0}}, mass = 0, dcg = 0, js = 0;
        for (size_t r = 0; r < n; r++) {
            size_t i = (size_t)ranking[s * n + r];
            double d = attention(r);
            dcg += l->utility[i] > 0 ? d : 0;
            for (size_t x = 0; x < LA; x++) {
                for (size_t y = 0; y < LB; y++) {
                    p[x][y] += d * l->a[i][x] * l->b[i][y];
                    mass += d * l->a[i][x] * l->b[i][y];
                }
            }
        }
        for (size_t x = 0; x < LA; x++) {
            for (size_t y = 0; y < LB; y++) {
                double pv = p[x][y] / mass, qv = l->qa[x] * l->qb[y], m = 0.5 * (pv + qv);
                js += 0.5 * (rel(pv, m) + rel(qv, m));
            }
        }
        sum += (1.0 - js) * dcg / ideal;
    }
    return 1.0 - sum / (double)sessions;
}

int main(void) {
    ppg_status status = PPG_CHECK_VERSION();
    ppg_engine *engine = NULL;
    ppg_item items[N];
    uint64_t input[N], best[N];
    if (status == PPG_STATUS_OK) {
        status = ppg_engine_new(PPG_METHOD_PPG, N, 1, 16, 2022, &engine);
    }
    for (size_t i = 0; i < N; i++) {
        items[i].id = input[i] = i;
        items[i].utility = LIST.utility[i];
        items[i].group = 0; /* the callback scores the attributes, not groups */
    }
    if (status == PPG_STATUS_OK) {
        status = ppg_engine_set_query(engine, items, N, 1);
    }
    ppg_train_config config;
    ppg_train_report report;
    ppg_train_config_default(&config);
    ppg_train_report_default(&report);
    config.score_input = true; /* never worse than the input */
    double after = NAN, before = cost(input, N, 1, (void *)&LIST);
    if (status == PPG_STATUS_OK) {
        status = ppg_engine_train(engine, &config, cost, (void *)&LIST, &report);
    }
    if (status == PPG_STATUS_OK) {
        status = ppg_engine_best(engine, best, N, &after);
    }
    ppg_engine_free(engine);
    if (status != PPG_STATUS_OK) {
        fprintf(stderr, "awrf2022: %s\n", ppg_status_str(status));
        return 1;
    }
    printf("input cost %.17g\nbest cost %.17g\nbest ranking", before, after);
    for (size_t r = 0; r < N; r++) {
        printf(" d%u", (unsigned)best[r]);
    }
    printf("\n");
    return after <= before ? 0 : 1;
}
