/*
 * header_versions: one program compiled against three copies of ppg.h, run against the
 * current library (tests/c_api.rs builds them):
 *   -DPPG_HEADER_OLD     a copy without ppg_train_config's newest fields (`intra`, `hold`,
 *                        `certify`, `certify_tolerance`: the previous 0.2 layout);
 *   (nothing)            the current header;
 *   -DPPG_HEADER_NEWER   a copy with a field appended to ppg_train_config.
 * Every byte after the caller's structs is set to 1 first, so a library that read past
 * the caller's struct_size would see `hold` and `certify` true, and one that wrote past it
 * would change a byte: both are checked. Prints the training's report, which the test
 * compares across the copies: the fields the old header lacks read as off, so the current
 * header turns them off to compare; `header_versions hold` turns hold on (current header
 * only).
 */
#include "ppg.h"

#include <stdio.h>
#include <string.h>

#define N 12
#define SESSIONS 4

#define FAIL(...)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "header_versions: " __VA_ARGS__);                                  \
        fputc('\n', stderr);                                                               \
        return 1;                                                                          \
    } while (0)

static int untouched(const unsigned char *bytes, size_t len) {
    for (size_t k = 0; k < len; k++) {
        if (bytes[k] != 1) return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    int hold = argc > 1 && strcmp(argv[1], "hold") == 0;
    if (PPG_CHECK_VERSION() != PPG_STATUS_OK) FAIL("PPG_CHECK_VERSION refused");
    struct {
        ppg_train_config config;
        unsigned char after[16];
    } c;
    struct {
        ppg_train_report report;
        unsigned char after[16];
    } r;
    memset(&c, 1, sizeof c);
    memset(&r, 1, sizeof r);
    ppg_status status = ppg_train_config_default(&c.config);
#ifdef PPG_HEADER_NEWER
    /* A header newer than the library: refused, nothing written, and so is a struct
     * carrying its size into a training call. */
    (void)hold;
    if (status != PPG_STATUS_VERSION_MISMATCH) FAIL("_default took a newer struct_size");
    if (!untouched((const unsigned char *)&c, sizeof c)) FAIL("_default wrote a newer struct");
    ppg_engine *engine = NULL;
    ppg_objective_config objective;
    ppg_objective_config_default(&objective);
    if (ppg_engine_new(PPG_METHOD_PPG, N, SESSIONS, 16, 7, &engine) != PPG_STATUS_OK) {
        FAIL("ppg_engine_new");
    }
    c.config.struct_size = sizeof c.config;
    status = ppg_engine_train_builtin(engine, &c.config, &objective, NULL);
    ppg_engine_free(engine);
    if (status != PPG_STATUS_VERSION_MISMATCH) FAIL("train took a newer struct_size");
    printf("newer header refused: %s\n", ppg_status_str(status));
    return 0;
#else
    if (status != PPG_STATUS_OK) FAIL("ppg_train_config_default: %s", ppg_status_str(status));
    if (c.config.struct_size != sizeof c.config) FAIL("struct_size is not the caller's");
    if (!untouched(c.after, sizeof c.after)) FAIL("_default wrote past the caller's struct");
    c.config.score_input = true;
#ifndef PPG_HEADER_OLD
    c.config.hold = hold;
    c.config.certify = false;
#else
    if (hold) FAIL("the old header has no hold");
#endif
    ppg_objective_config objective;
    ppg_objective_config_default(&objective);
    if (ppg_train_report_default(&r.report) != PPG_STATUS_OK) FAIL("ppg_train_report_default");
    ppg_item items[N];
    for (int k = 0; k < N; k++) {
        items[k].id = 100 + (uint64_t)k;
        items[k].utility = (double)(N - k);
        items[k].group = k < N / 3 ? 0u : 1u;
    }
    ppg_engine *engine = NULL;
    if (ppg_engine_new(PPG_METHOD_PPG, N, SESSIONS, 16, 7, &engine) != PPG_STATUS_OK) {
        FAIL("ppg_engine_new");
    }
    status = ppg_engine_set_query(engine, items, N, SESSIONS);
    if (status == PPG_STATUS_OK) {
        status = ppg_engine_train_builtin(engine, &c.config, &objective, &r.report);
    }
    ppg_engine_free(engine);
    if (status != PPG_STATUS_OK) FAIL("training: %s", ppg_status_str(status));
    if (!untouched(c.after, sizeof c.after)) FAIL("training wrote past the config");
    if (!untouched(r.after, sizeof r.after)) FAIL("training wrote past the report");
    printf("config %zu bytes: epochs %u samples %u best %.17g\n", sizeof c.config,
           r.report.epochs, r.report.samples, r.report.best_cost);
    return 0;
#endif
}
