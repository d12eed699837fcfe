/*
 * libFuzzer target over the C API (include/ppg.h): one input is an engine shape and a
 * sequence of calls with hostile arguments (NULL, short and misaligned buffers, NaN and
 * infinities, unknown and repeated ids, calls out of order, callbacks returning NaN).
 *
 * Oracles (a violation prints "FINDING: ..." and aborts, which libFuzzer saves as a
 * crash file):
 *  - no crash (ASan and UBSan on this harness; the Rust side is instrumented for
 *    coverage, its writes are caught by the canaries below);
 *  - every status is one of those the header documents for that function, and never
 *    PPG_STATUS_PANIC (the library has no panic path on caller input);
 *  - a failed call changes nothing: a shadow engine (same shape, same seed) gets only
 *    the calls that succeeded on the fuzzed engine; both must then give the same outputs
 *    for every call, and the same future (samples, training) at the end;
 *  - outputs are not written on failure: every output buffer sits between canaries, and
 *    on failure none of its bytes change; on success nothing past the written part does;
 *  - whenever ppg_engine_evaluate (or training) returns OK its value is finite, and a
 *    plain NDCG value equals an independent long-double computation;
 *  - a cost callback only ever sees permutations of the query's ids;
 *  - a bool field of a config holding any byte reads as "non-zero is true": the shadow
 *    engine gets the same struct with those fields as 0 or 1.
 *
 * The file stays whole (over 400 lines): one operation per C function, each checked
 * against the shared oracles above, and libFuzzer takes one translation unit per target.
 */
#include "ppg.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 24
#define MAX_SESSIONS 4
#define MAX_BATCH 8
#define MAX_OPS 64
#define GUARD 64
#define CANARY 0xA5

/* ---- findings ---- */

static void finding(const char *what, int line) {
    fprintf(stderr, "FINDING (fuzz_c_api.c:%d): %s\n", line, what);
    abort();
}
#define REQUIRE(cond, what)                                                                \
    do {                                                                                   \
        if (!(cond)) finding(what, __LINE__);                                              \
    } while (0)

/* ---- the input as a stream (reads past the end give zeros) ---- */

typedef struct {
    const uint8_t *p;
    size_t n;
} input;

static uint8_t u8(input *in) {
    if (in->n == 0) return 0;
    in->n--;
    return *in->p++;
}

static uint64_t u64(input *in) {
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) v = v << 8 | u8(in);
    return v;
}

/* Doubles: mostly small whole labels, often a boundary value, sometimes raw bits. */
static const double SPECIAL[] = {
    0.0,  -0.0,   1.0,     -1.0,    0.5,          2.0,       NAN,     INFINITY,
    -INFINITY,    1023.0,  1023.5,  1024.0,       2000.0,    1e308,   DBL_MAX,
    DBL_MIN,      4.9e-324, 52.0,   53.0,         1e-300,    0.95,    0.05,
    1.5,  64.0,   1000.0,  1e9,     -1e308,       1022.999,  960.0,   961.5,
};
#define N_SPECIAL (sizeof SPECIAL / sizeof SPECIAL[0])

static double dbl(input *in) {
    uint8_t b = u8(in);
    if (b < 160) return (double)(b % 8);
    if (b < 250) return SPECIAL[(b - 160) % N_SPECIAL];
    uint64_t bits = u64(in);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* ---- buffers between canaries ---- */

typedef struct {
    unsigned char *raw;
    size_t total;
    unsigned char *p; /* what the library gets (may be misaligned) */
    size_t bytes;
} guarded;

/* `mode`: 0 gives NULL, 1 a pointer misaligned by 1..7 bytes, else an aligned one. */
static guarded guard_new(size_t bytes, unsigned mode, unsigned shift) {
    guarded g;
    size_t mis = mode == 1 ? 1 + shift % 7 : 0;
    g.total = GUARD + mis + bytes + GUARD;
    g.raw = malloc(g.total);
    REQUIRE(g.raw != NULL, "harness out of memory");
    memset(g.raw, CANARY, g.total);
    g.p = mode == 0 ? NULL : g.raw + GUARD + mis;
    g.bytes = bytes;
    return g;
}

/* Every byte outside [written start, start + written) still holds the canary. */
static int guard_intact(const guarded *g, size_t written) {
    size_t start = g->p ? (size_t)(g->p - g->raw) : g->total;
    for (size_t k = 0; k < g->total; k++) {
        if (k >= start && k < start + written) continue;
        if (g->raw[k] != CANARY) return 0;
    }
    return 1;
}

static void guard_free(guarded *g) { free(g->raw); }

static unsigned pointer_mode(input *in) {
    unsigned b = u8(in) % 16;
    return b < 2 ? b : 2;
}

/* ---- documented statuses ---- */

#define S(x) (1u << PPG_STATUS_##x)
#define BASE (S(OK) | S(NULL_PARAMETER) | S(MISALIGNED))
#define ON_ENGINE (BASE | S(NO_QUERY))

static void check_status(ppg_status st, uint32_t allowed, const char *call) {
    if ((uint32_t)st > PPG_STATUS_VERSION_MISMATCH) {
        fprintf(stderr, "%s returned %u\n", call, (unsigned)st);
        finding("status outside the enumeration", __LINE__);
    }
    if (st == PPG_STATUS_PANIC) {
        fprintf(stderr, "%s returned PPG_STATUS_PANIC\n", call);
        finding("a panic on caller input", __LINE__);
    }
    if (!(allowed & (1u << st))) {
        fprintf(stderr, "%s returned %s (%u)\n", call, ppg_status_str(st), (unsigned)st);
        finding("a status the header does not document for this call", __LINE__);
    }
}

/* ---- what the harness knows of the fuzzed engine ---- */

typedef struct {
    uint32_t kind;
    size_t items, sessions, batch;
    int has_query;
    ppg_item query[MAX_ITEMS];
    size_t count, q_sessions;
    /* The last batch sampled (what ppg_engine_update expects). */
    uint64_t pending[MAX_BATCH * MAX_ITEMS * MAX_SESSIONS];
    size_t pending_count;
} model;

static size_t ranking_len(const model *m) { return m->count * m->q_sessions; }

/* An id for a constraint or a ranking: mostly one of the query's, sometimes not. */
static uint64_t some_id(input *in, const model *m) {
    uint8_t b = u8(in);
    if (m->has_query && b < 224) return m->query[b % m->count].id;
    return b < 240 ? (uint64_t)b : u64(in);
}

/* ---- the cost callback ---- */

typedef struct {
    const model *m;
    const uint8_t *script; /* bytes decoded as costs, one per call, then a hash */
    size_t script_len;
    size_t calls;
} callback_state;

static int is_permutation_of_query(const model *m, const uint64_t *block) {
    for (size_t k = 0; k < m->count; k++) {
        size_t seen = 0;
        for (size_t j = 0; j < m->count; j++) seen += block[j] == m->query[k].id;
        if (seen != 1) return 0;
    }
    return 1;
}

static double cost(const uint64_t *ranking, size_t len, size_t sessions, void *user) {
    callback_state *cb = user;
    const model *m = cb->m;
    /* A grown run (the recommended recipe's default) scores 1, 2, ... sessions before the
     * query's count: any count up to the query's, each a whole ranking of the items. */
    REQUIRE(ranking != NULL && sessions >= 1 && sessions <= m->q_sessions &&
                len == m->count * sessions,
            "callback called with the wrong shape");
    for (size_t s = 0; s < sessions; s++)
        REQUIRE(is_permutation_of_query(m, ranking + s * m->count),
                "callback given a ranking that is not a permutation of the query");
    size_t call = cb->calls++;
    if (call < cb->script_len) {
        input in = {cb->script + call, cb->script_len - call};
        return dbl(&in);
    }
    /* Afterwards a cost that depends on the ranking, so training has something to find. */
    double c = 0.0;
    for (size_t k = 0; k < len; k++) c += (double)(ranking[k] % 7) * (double)(k + 1);
    return c;
}

/* ---- configurations ---- */

/* A bool field gets any byte, as a memset struct or a binding's byte field gives it; the
 * library reads non-zero as true. Written with memcpy: a C bool holding another byte
 * must not be loaded here either. */
static void bool_byte(bool *field, input *in) {
    uint8_t b = u8(in);
    if (b >= 128) b &= 1; /* half the time a plain 0 or 1 */
    memcpy(field, &b, 1);
}

/* The same field as 0 or 1: what the shadow engine gets, so that a byte the library read
 * otherwise than "non-zero is true" makes the two engines differ. */
static void bool_01(bool *field) {
    uint8_t b;
    memcpy(&b, field, 1);
    b = b != 0;
    memcpy(field, &b, 1);
}

static ppg_train_config train_config_01(ppg_train_config c) {
    bool_01(&c.baseline);
    bool_01(&c.score_input);
    bool_01(&c.grow);
    bool_01(&c.intra);
    bool_01(&c.hold);
    bool_01(&c.certify);
    return c;
}

static ppg_objective_config objective_config_01(ppg_objective_config o) {
    bool_01(&o.ee_raw);
    return o;
}

static ppg_train_config train_config(input *in, const model *m) {
    ppg_train_config c;
    REQUIRE(ppg_train_config_default(&c) == PPG_STATUS_OK, "train_config_default failed");
    c.epochs = u8(in) % 4;
    c.batch = 1 + u8(in) % m->batch;
    c.patience = u8(in) % 3;
    unsigned edits = u8(in) % 4;
    for (unsigned k = 0; k < edits; k++) {
        switch (u8(in) % 16) {
        case 0: c.learning_rate = dbl(in); break;
        case 1: c.epochs = u8(in); break;
        case 2: c.batch = u8(in) % (MAX_BATCH + 2); break;
        case 3: c.patience = u8(in); break;
        case 4: c.clamp_min = dbl(in); break;
        case 5: c.clamp_max = dbl(in); break;
        case 6: c.sampler = u8(in) % 3; break;
        case 7: c.gradient = u8(in) % 3; break;
        case 8: bool_byte(&c.baseline, in); break;
        case 9: bool_byte(&c.score_input, in); break;
        case 10: c.initial_weight = dbl(in); break;
        case 11: bool_byte(&c.grow, in); break;
        case 12: bool_byte(&c.intra, in); break;
        case 13: bool_byte(&c.hold, in); break;
        case 14: bool_byte(&c.certify, in); break;
        default: c.pl_learning_rate = dbl(in); break;
        }
    }
    if (c.epochs > 6) c.epochs = 6; /* keep an execution short */
    return c;
}

static ppg_objective_config objective_config(input *in) {
    ppg_objective_config o;
    REQUIRE(ppg_objective_config_default(&o) == PPG_STATUS_OK, "objective default failed");
    o.metric = u8(in) % 6;
    unsigned edits = u8(in) % 4;
    for (unsigned k = 0; k < edits; k++) {
        switch (u8(in) % 6) {
        case 0: o.metric = u8(in) % 2 ? u8(in) : (uint32_t)u64(in); break;
        case 1: o.eel_levels = u8(in) % 70; break;
        case 2: o.ndcg_k = u8(in) % 2 ? u8(in) % (MAX_ITEMS + 3) : (size_t)u64(in); break;
        case 3: o.mix_weight = dbl(in); break;
        case 4: bool_byte(&o.ee_raw, in); break;
        default: o.rank_start = u8(in) % 3; break;
        }
    }
    return o;
}

/* ---- rankings given to update and evaluate ---- */

/* Writes up to `cap` ids: a ranking (or batch) built from the model, maybe damaged. */
static size_t make_ranking(input *in, const model *m, uint64_t *out, size_t cap) {
    size_t len = ranking_len(m), n = 0;
    uint8_t how = u8(in) % 4;
    if (how == 0 && m->pending_count > 0) {
        n = m->pending_count * len;
        memcpy(out, m->pending, n * sizeof *out);
    } else if (m->has_query) {
        for (size_t s = 0; s < m->q_sessions; s++) {
            uint64_t *block = out + s * m->count;
            for (size_t k = 0; k < m->count; k++)
                block[k] = m->query[how == 2 ? m->count - 1 - k : k].id;
            if (how == 3) /* a shuffle driven by the input */
                for (size_t k = m->count; k > 1; k--) {
                    size_t j = u8(in) % k;
                    uint64_t t = block[k - 1];
                    block[k - 1] = block[j];
                    block[j] = t;
                }
        }
        n = len;
    }
    unsigned damage = u8(in) % 8;
    for (unsigned k = 0; k < damage && n > 0 && k < 3; k++) out[u8(in) % n] = some_id(in, m);
    /* The length passed: right, or off by a little. */
    uint8_t off = u8(in) % 16;
    if (off == 1 && n > 0) n--;
    if (off == 2 && n < cap) out[n++] = some_id(in, m);
    return n;
}

/* NDCG@k of one ranking, averaged over sessions, in long double. The gains are scaled by
 * 2^-max (NDCG is a ratio of sums of gains), so no utility overflows them. */
static long double reference_ndcg(const model *m, const uint64_t *ranking, size_t k) {
    size_t n = m->count, top = k < n ? k : n;
    long double gain[MAX_ITEMS], ideal[MAX_ITEMS], most = 0.0L;
    for (size_t i = 0; i < n; i++)
        if ((long double)m->query[i].utility > most) most = m->query[i].utility;
    for (size_t i = 0; i < n; i++)
        gain[i] = exp2l((long double)m->query[i].utility - most) - exp2l(-most);
    memcpy(ideal, gain, sizeof gain);
    for (size_t i = 0; i < n; i++) /* sort descending */
        for (size_t j = i + 1; j < n; j++)
            if (ideal[j] > ideal[i]) {
                long double t = ideal[i];
                ideal[i] = ideal[j];
                ideal[j] = t;
            }
    long double idcg = 0.0L, sum = 0.0L;
    for (size_t r = 0; r < top; r++) idcg += ideal[r] / log2l((long double)r + 2.0L);
    if (idcg == 0.0L) return 1.0L;
    for (size_t s = 0; s < m->q_sessions; s++) {
        long double dcg = 0.0L;
        for (size_t r = 0; r < top; r++) {
            uint64_t id = ranking[s * n + r];
            for (size_t i = 0; i < n; i++)
                if (m->query[i].id == id) dcg += gain[i] / log2l((long double)r + 2.0L);
        }
        sum += dcg / idcg;
    }
    return sum / (long double)m->q_sessions;
}

/* ---- calls on both engines ---- */

typedef struct {
    ppg_engine *e; /* fuzzed: every call */
    ppg_engine *s; /* shadow: only the calls that succeeded on `e` */
    model m;
} pair;

/* After a failed call: what can be read without changing either engine agrees. */
static void same_now(pair *p) {
    size_t a = 0, b = 0;
    ppg_status sa = ppg_engine_ranking_len(p->e, &a), sb = ppg_engine_ranking_len(p->s, &b);
    REQUIRE(sa == sb && a == b, "a failed call changed the ranking length");
    size_t cap = MAX_ITEMS * MAX_SESSIONS;
    uint64_t ia[MAX_ITEMS * MAX_SESSIONS], ib[MAX_ITEMS * MAX_SESSIONS];
    double ca = 0, cb = 0;
    sa = ppg_engine_best(p->e, ia, cap, &ca);
    sb = ppg_engine_best(p->s, ib, cap, &cb);
    REQUIRE(sa == sb, "a failed call changed whether there is a best ranking");
    if (sa == PPG_STATUS_OK)
        REQUIRE(memcmp(ia, ib, a * sizeof *ia) == 0 && memcmp(&ca, &cb, sizeof ca) == 0,
                "a failed call changed the best ranking");
}

static void after(pair *p, ppg_status st) {
    if (st != PPG_STATUS_OK) same_now(p);
}

static void op_set_query(pair *p, input *in) {
    model *m = &p->m;
    size_t count = u8(in) % (MAX_ITEMS + 2);
    size_t sessions = u8(in) % (MAX_SESSIONS + 2);
    if (u8(in) % 32 == 0) count = (size_t)u64(in); /* hostile counts: never read past */
    size_t real = count < MAX_ITEMS + 2 ? count : 0;
    unsigned mode = pointer_mode(in);
    guarded g = guard_new(real * sizeof(ppg_item), mode, u8(in));
    ppg_item items[MAX_ITEMS + 2];
    for (size_t k = 0; k < real; k++) {
        uint8_t b = u8(in);
        items[k].id = b < 200 ? 100 + k : (b < 240 ? 100 + b % 4 : u64(in));
        items[k].utility = dbl(in);
        items[k].group = u8(in) % 4;
    }
    if (g.p) memcpy(g.p, items, real * sizeof(ppg_item));
    if (real == 0 && count != 0 && g.p) { /* a huge count with a short buffer: skip */
        guard_free(&g);
        return;
    }
    ppg_status st = ppg_engine_set_query(p->e, (const ppg_item *)(void *)g.p, count, sessions);
    check_status(st,
                 ON_ENGINE | S(INVALID_ARGUMENT) | S(CAPACITY) | S(NOT_FINITE) |
                     S(DUPLICATE_ITEM),
                 "set_query");
    REQUIRE(g.p == NULL || memcmp(g.p, items, real * sizeof(ppg_item)) == 0,
            "set_query wrote to its input");
    if (st == PPG_STATUS_OK) {
        REQUIRE(ppg_engine_set_query(p->s, items, count, sessions) == PPG_STATUS_OK,
                "shadow refused a query the fuzzed engine took");
        memcpy(m->query, items, count * sizeof(ppg_item));
        m->count = count;
        m->q_sessions = sessions;
        m->has_query = 1;
        m->pending_count = 0;
    }
    guard_free(&g);
    after(p, st);
}

/* ppg_engine_capacity with its three outputs made as `mode` and `shift` say (the bytes
 * op_ranking_len read: no input of its own, so the corpus keeps its meaning). */
static void capacity_too(pair *p, unsigned mode, unsigned shift) {
    guarded g[3];
    for (int k = 0; k < 3; k++) g[k] = guard_new(sizeof(size_t), k == 1 ? mode : 2, shift);
    ppg_status st = ppg_engine_capacity(p->e, (size_t *)(void *)g[0].p,
                                        (size_t *)(void *)g[1].p, (size_t *)(void *)g[2].p);
    /* NO_QUERY is not among them: the capacity is the layout's, with or without a query. */
    check_status(st, BASE, "capacity");
    size_t want[3] = {p->m.items, p->m.sessions, p->m.batch};
    for (int k = 0; k < 3; k++) {
        size_t got;
        if (st == PPG_STATUS_OK) {
            memcpy(&got, g[k].p, sizeof got);
            REQUIRE(got == want[k], "capacity is not the layout");
        }
        REQUIRE(guard_intact(&g[k], st == PPG_STATUS_OK ? sizeof(size_t) : 0),
                "capacity wrote outside its outputs or on failure");
        guard_free(&g[k]);
    }
    after(p, st);
}

static void op_ranking_len(pair *p, input *in) {
    unsigned mode = pointer_mode(in), shift = u8(in);
    capacity_too(p, mode, shift);
    guarded g = guard_new(sizeof(size_t), mode, shift);
    ppg_status st = ppg_engine_ranking_len(p->e, (size_t *)(void *)g.p);
    check_status(st, ON_ENGINE, "ranking_len");
    if (st == PPG_STATUS_OK) {
        size_t got, want = 0;
        memcpy(&got, g.p, sizeof got);
        REQUIRE(ppg_engine_ranking_len(p->s, &want) == PPG_STATUS_OK && got == want &&
                    got == ranking_len(&p->m),
                "ranking_len disagrees");
    }
    REQUIRE(guard_intact(&g, st == PPG_STATUS_OK ? sizeof(size_t) : 0),
            "ranking_len wrote outside its output or on failure");
    guard_free(&g);
    after(p, st);
}

static void op_forbid(pair *p, input *in) {
    uint64_t a = some_id(in, &p->m), b = u8(in) % 8 == 0 ? a : some_id(in, &p->m);
    ppg_status st = ppg_engine_forbid(p->e, a, b);
    check_status(st, ON_ENGINE | S(UNKNOWN_ITEM) | S(INVALID_ARGUMENT) | S(UNSUPPORTED),
                 "forbid");
    if (st == PPG_STATUS_OK) {
        REQUIRE(ppg_engine_forbid(p->s, a, b) == PPG_STATUS_OK, "shadow refused forbid");
        p->m.pending_count = 0; /* a change of the distribution drops the pending batch */
    }
    after(p, st);
}

static void op_keep_within(pair *p) {
    ppg_status st = ppg_engine_keep_order_within_groups(p->e);
    check_status(st, ON_ENGINE | S(UNSUPPORTED), "keep_order_within_groups");
    if (st == PPG_STATUS_OK) {
        REQUIRE(ppg_engine_keep_order_within_groups(p->s) == PPG_STATUS_OK,
                "shadow refused keep_order_within_groups");
        p->m.pending_count = 0;
    }
    after(p, st);
}

static void op_keep_between(pair *p, input *in) {
    size_t count = p->m.count;
    uint8_t off = u8(in) % 8;
    if (off == 1) count = u8(in) % (MAX_ITEMS + 2);
    uint32_t labels[MAX_ITEMS + 2];
    for (size_t k = 0; k < count; k++) labels[k] = u8(in) % 3;
    guarded g = guard_new(count * sizeof(uint32_t), pointer_mode(in), u8(in));
    if (g.p) memcpy(g.p, labels, count * sizeof(uint32_t));
    ppg_status st =
        ppg_engine_keep_order_between(p->e, (const uint32_t *)(void *)g.p, count);
    check_status(st, ON_ENGINE | S(INVALID_ARGUMENT) | S(UNSUPPORTED), "keep_order_between");
    if (st == PPG_STATUS_OK) {
        REQUIRE(ppg_engine_keep_order_between(p->s, labels, count) == PPG_STATUS_OK,
                "shadow refused keep_order_between");
        p->m.pending_count = 0;
    }
    REQUIRE(guard_intact(&g, g.p ? count * sizeof(uint32_t) : 0),
            "keep_order_between wrote around its input");
    guard_free(&g);
    after(p, st);
}

static void op_set_sampler(pair *p, input *in) {
    uint32_t v = u8(in) % 4 == 0 ? (uint32_t)u64(in) : u8(in) % 3;
    ppg_status st = ppg_engine_set_sampler(p->e, v);
    check_status(st, BASE | S(INVALID_ARGUMENT), "set_sampler");
    if (st == PPG_STATUS_OK)
        REQUIRE(ppg_engine_set_sampler(p->s, v) == PPG_STATUS_OK, "shadow refused sampler");
    after(p, st);
}

static void op_sample(pair *p, input *in) {
    model *m = &p->m;
    size_t count = u8(in) % (MAX_BATCH + 2);
    size_t need = count * ranking_len(m);
    size_t cap = need;
    uint8_t off = u8(in) % 8;
    if (off == 1 && cap > 0) cap -= 1 + u8(in) % cap;
    if (off == 2) cap += u8(in) % 8;
    guarded g = guard_new(cap * sizeof(uint64_t), pointer_mode(in), u8(in));
    ppg_status st = ppg_engine_sample(p->e, count, (uint64_t *)(void *)g.p, cap);
    check_status(st, ON_ENGINE | S(INVALID_ARGUMENT) | S(CAPACITY), "sample");
    if (st == PPG_STATUS_OK) {
        REQUIRE(m->has_query && need <= cap, "sample succeeded with too short a buffer");
        uint64_t mine[MAX_BATCH * MAX_ITEMS * MAX_SESSIONS];
        REQUIRE(ppg_engine_sample(p->s, count, mine, need) == PPG_STATUS_OK &&
                    memcmp(mine, g.p, need * sizeof *mine) == 0,
                "shadow sampled differently: an earlier failed call changed the engine");
        for (size_t r = 0; r < count * m->q_sessions; r++)
            REQUIRE(is_permutation_of_query(m, mine + r * m->count),
                    "sample wrote a ranking that is not a permutation of the query");
        memcpy(m->pending, mine, need * sizeof *mine);
        m->pending_count = count;
    }
    REQUIRE(guard_intact(&g, st == PPG_STATUS_OK ? need * sizeof(uint64_t) : 0),
            "sample wrote past its count, outside its buffer, or on failure");
    guard_free(&g);
    after(p, st);
}

static void op_update(pair *p, input *in) {
    model *m = &p->m;
    uint64_t rankings[MAX_BATCH * MAX_ITEMS * MAX_SESSIONS + 1];
    size_t len = make_ranking(in, m, rankings, sizeof rankings / sizeof *rankings);
    size_t count = m->pending_count;
    uint8_t off = u8(in) % 8;
    if (off == 1) count = u8(in) % (MAX_BATCH + 2);
    double costs[MAX_BATCH + 2];
    for (size_t k = 0; k < count; k++) costs[k] = u8(in) % 4 == 0 ? dbl(in) : (double)k;
    ppg_train_config c = train_config(in, m), c01 = train_config_01(c);
    guarded gr = guard_new(len * sizeof(uint64_t), pointer_mode(in), u8(in));
    guarded gc = guard_new(count * sizeof(double), pointer_mode(in), u8(in));
    guarded gk = guard_new(sizeof c, pointer_mode(in), u8(in));
    if (gr.p) memcpy(gr.p, rankings, len * sizeof(uint64_t));
    if (gc.p) memcpy(gc.p, costs, count * sizeof(double));
    if (gk.p) memcpy(gk.p, &c, sizeof c);
    ppg_status st = ppg_engine_update(p->e, (const uint64_t *)(void *)gr.p, len,
                                      (const double *)(void *)gc.p, count,
                                      (const ppg_train_config *)(void *)gk.p);
    check_status(st,
                 ON_ENGINE | S(INVALID_ARGUMENT) | S(NO_PENDING_BATCH) | S(UNKNOWN_SAMPLE) |
                     S(NOT_FINITE),
                 "update");
    if (st == PPG_STATUS_OK)
        REQUIRE(ppg_engine_update(p->s, rankings, len, costs, count, &c01) == PPG_STATUS_OK,
                "shadow refused an update the fuzzed engine took");
    guard_free(&gr);
    guard_free(&gc);
    guard_free(&gk);
    after(p, st);
}

static void op_best(pair *p, input *in) {
    size_t need = ranking_len(&p->m), cap = need;
    uint8_t off = u8(in) % 8;
    if (off == 1 && cap > 0) cap -= 1 + u8(in) % cap;
    if (off == 2) cap += u8(in) % 8;
    guarded g = guard_new(cap * sizeof(uint64_t), pointer_mode(in), u8(in));
    unsigned cost_mode = pointer_mode(in);
    int no_cost = u8(in) % 4 == 0;
    guarded gc = guard_new(sizeof(double), no_cost ? 0 : cost_mode, u8(in));
    ppg_status st = ppg_engine_best(p->e, (uint64_t *)(void *)g.p, cap, (double *)(void *)gc.p);
    check_status(st, ON_ENGINE | S(NO_RESULT) | S(INVALID_ARGUMENT), "best");
    if (st == PPG_STATUS_OK) {
        uint64_t mine[MAX_ITEMS * MAX_SESSIONS];
        double c;
        REQUIRE(ppg_engine_best(p->s, mine, need, &c) == PPG_STATUS_OK &&
                    memcmp(mine, g.p, need * sizeof *mine) == 0,
                "shadow has another best ranking");
        REQUIRE(gc.p == NULL || memcmp(&c, gc.p, sizeof c) == 0, "best cost differs");
        REQUIRE(!isnan(c), "the best cost is NaN");
    }
    REQUIRE(guard_intact(&g, st == PPG_STATUS_OK ? need * sizeof(uint64_t) : 0),
            "best wrote past its ranking, outside its buffer, or on failure");
    REQUIRE(guard_intact(&gc, st == PPG_STATUS_OK && gc.p ? sizeof(double) : 0),
            "best wrote its cost on failure");
    guard_free(&g);
    guard_free(&gc);
    after(p, st);
}

/* Two doubles alike: equal, or both NaN (the bound and gap of an uncertified run). */
static int same_double(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Two reports field by field: the library, like C, leaves a struct's padding unspecified,
 * so their bytes may differ where no field is. */
static int same_report(const ppg_train_report *a, const ppg_train_report *b) {
    return a->struct_size == b->struct_size && a->epochs == b->epochs &&
           a->samples == b->samples && same_double(a->best_cost, b->best_cost) &&
           a->best_epoch == b->best_epoch && a->certified == b->certified &&
           a->bound_exact == b->bound_exact && same_double(a->bound, b->bound) &&
           same_double(a->gap, b->gap) && a->passed_through == b->passed_through;
}

static void check_report(const ppg_train_report *r) {
    REQUIRE(!isnan(r->best_cost) && r->best_cost != -INFINITY, "report best_cost NaN or -inf");
    REQUIRE(r->best_epoch >= -1 && (r->best_epoch < 0 || (uint64_t)r->best_epoch < r->epochs),
            "report best_epoch out of range");
    REQUIRE(r->samples == 0 || isfinite(r->best_cost), "report best_cost not finite");
}

static void op_train(pair *p, input *in, int builtin) {
    model *m = &p->m;
    ppg_train_config c = train_config(in, m), c01 = train_config_01(c);
    ppg_objective_config o = objective_config(in), o01 = objective_config_01(o);
    size_t script_len = u8(in) % 4 == 0 ? u8(in) % 16 : 0;
    if (script_len > in->n) script_len = in->n;
    callback_state cb = {m, in->p, script_len, 0};
    in->p += script_len;
    in->n -= script_len;
    guarded gk = guard_new(sizeof c, pointer_mode(in), u8(in));
    guarded go = guard_new(sizeof o, pointer_mode(in), u8(in));
    int no_report = u8(in) % 4 == 0;
    guarded gr = guard_new(sizeof(ppg_train_report), no_report ? 0 : 2, 0);
    int no_callback = u8(in) % 32 == 0;
    if (gk.p) memcpy(gk.p, &c, sizeof c);
    if (go.p) memcpy(go.p, &o, sizeof o);
    /* A report is prepared by its _default before a call (its struct_size is read). */
    ppg_train_report prepared;
    ppg_train_report_default(&prepared);
    if (gr.p) memcpy(gr.p, &prepared, sizeof prepared);
    ppg_status st;
    ppg_train_report mine = prepared;
    if (builtin) {
        st = ppg_engine_train_builtin(p->e, (const ppg_train_config *)(void *)gk.p,
                                      (const ppg_objective_config *)(void *)go.p,
                                      (ppg_train_report *)(void *)gr.p);
        check_status(st,
                     ON_ENGINE | S(INVALID_ARGUMENT) | S(NOT_FINITE) | S(CAPACITY) |
                         S(UNSUPPORTED),
                     "train_builtin");
        if (st == PPG_STATUS_OK)
            REQUIRE(ppg_engine_train_builtin(p->s, &c01, &o01, &mine) == PPG_STATUS_OK,
                    "shadow refused train_builtin");
    } else {
        st = ppg_engine_train(p->e, (const ppg_train_config *)(void *)gk.p,
                              no_callback ? NULL : cost, &cb, (ppg_train_report *)(void *)gr.p);
        check_status(st, ON_ENGINE | S(INVALID_ARGUMENT) | S(NOT_FINITE), "train");
        if (st == PPG_STATUS_OK) {
            size_t calls = cb.calls;
            cb.calls = 0;
            REQUIRE(ppg_engine_train(p->s, &c01, cost, &cb, &mine) == PPG_STATUS_OK &&
                        cb.calls == calls,
                    "shadow trained differently");
        }
    }
    if (st == PPG_STATUS_OK) {
        check_report(&mine);
        REQUIRE(gr.p == NULL || same_report((const ppg_train_report *)(void *)gr.p, &mine),
                "shadow's training report differs");
        m->pending_count = 0; /* training replaces any pending batch */
    }
    REQUIRE(guard_intact(&gr, gr.p ? sizeof(ppg_train_report) : 0) &&
                (st == PPG_STATUS_OK || !gr.p || memcmp(gr.p, &prepared, sizeof prepared) == 0),
            "training wrote its report on failure, or outside it");
    guard_free(&gk);
    guard_free(&go);
    guard_free(&gr);
    after(p, st);
}

static void op_evaluate(pair *p, input *in) {
    model *m = &p->m;
    ppg_objective_config o = objective_config(in), o01 = objective_config_01(o);
    uint64_t ranking[MAX_BATCH * MAX_ITEMS * MAX_SESSIONS + 1];
    size_t len = make_ranking(in, m, ranking, sizeof ranking / sizeof *ranking);
    if (len > ranking_len(m) + 1) len = ranking_len(m); /* one ranking of a batch */
    guarded go = guard_new(sizeof o, pointer_mode(in), u8(in));
    guarded gr = guard_new(len * sizeof(uint64_t), pointer_mode(in), u8(in));
    guarded gv = guard_new(sizeof(double), pointer_mode(in), u8(in));
    if (go.p) memcpy(go.p, &o, sizeof o);
    if (gr.p) memcpy(gr.p, ranking, len * sizeof(uint64_t));
    ppg_status st = ppg_engine_evaluate(p->e, (const ppg_objective_config *)(void *)go.p,
                                        (const uint64_t *)(void *)gr.p, len,
                                        (double *)(void *)gv.p);
    check_status(st,
                 ON_ENGINE | S(INVALID_ARGUMENT) | S(UNKNOWN_ITEM) | S(NOT_PERMUTATION) |
                     S(NOT_FINITE) | S(CAPACITY) | S(UNSUPPORTED),
                 "evaluate");
    if (st == PPG_STATUS_OK) {
        double v, w = 0;
        memcpy(&v, gv.p, sizeof v);
        if (!isfinite(v)) {
            fprintf(stderr, "evaluate: metric %u, k %zu, value %g\n", (unsigned)o.metric,
                    (size_t)o.ndcg_k, v);
            finding("ppg_engine_evaluate returned OK with a value that is not finite",
                    __LINE__);
        }
        REQUIRE(ppg_engine_evaluate(p->s, &o01, ranking, len, &w) == PPG_STATUS_OK &&
                    memcmp(&v, &w, sizeof v) == 0,
                "shadow evaluates differently");
        if (o.metric == PPG_METRIC_NDCG) {
            long double want = 1.0L - reference_ndcg(m, ranking, o.ndcg_k);
            if (fabsl((long double)v - want) > 1e-9L) {
                fprintf(stderr, "evaluate NDCG cost %.17g, reference %.17Lg\n", v, want);
                finding("ppg_engine_evaluate returned a wrong NDCG", __LINE__);
            }
        }
    }
    REQUIRE(guard_intact(&gv, st == PPG_STATUS_OK ? sizeof(double) : 0),
            "evaluate wrote its value on failure");
    guard_free(&go);
    guard_free(&gr);
    guard_free(&gv);
    after(p, st);
}

/* Calls that take no engine: layouts of hostile shapes, too small or misaligned memory. */
static void op_no_engine(input *in) {
    uint32_t kind = u8(in) % 4 == 0 ? (uint32_t)u64(in) : u8(in) % 3;
    size_t dims[3];
    for (int k = 0; k < 3; k++) {
        uint8_t b = u8(in);
        dims[k] = b < 192 ? b % 40 : (b < 224 ? (size_t)65535 + b % 3 : (size_t)u64(in));
    }
    guarded gs = guard_new(sizeof(size_t), pointer_mode(in), u8(in));
    guarded ga = guard_new(sizeof(size_t), pointer_mode(in), u8(in));
    ppg_status st = ppg_engine_layout(kind, dims[0], dims[1], dims[2], (size_t *)(void *)gs.p,
                                      (size_t *)(void *)ga.p);
    check_status(st, BASE | S(INVALID_ARGUMENT) | S(CAPACITY), "layout");
    REQUIRE(guard_intact(&gs, st == PPG_STATUS_OK ? sizeof(size_t) : 0) &&
                guard_intact(&ga, st == PPG_STATUS_OK ? sizeof(size_t) : 0),
            "layout wrote on failure or outside its outputs");
    if (st == PPG_STATUS_OK) {
        size_t size, align;
        memcpy(&size, gs.p, sizeof size);
        memcpy(&align, ga.p, sizeof align);
        REQUIRE(align > 0 && (align & (align - 1)) == 0 && align <= GUARD,
                "layout gave an odd alignment");
        if (size <= (1u << 20)) {
            size_t len = size;
            uint8_t how = u8(in) % 4;
            if (how == 1) len -= 1 + u8(in) % size;
            guarded gm = guard_new(len, how == 2 ? 1 : 2, u8(in));
            guarded go = guard_new(sizeof(ppg_engine *), pointer_mode(in), u8(in));
            ppg_status si = ppg_engine_init(gm.p, len, kind, dims[0], dims[1], dims[2],
                                            u64(in), (ppg_engine **)(void *)go.p);
            check_status(si, BASE | S(MEMORY_TOO_SMALL) | S(INVALID_ARGUMENT) | S(CAPACITY),
                         "init");
            REQUIRE(si != PPG_STATUS_OK || (len >= size && how != 2),
                    "init took too small or misaligned memory");
            REQUIRE(guard_intact(&go, si == PPG_STATUS_OK ? sizeof(ppg_engine *) : 0),
                    "init wrote its handle on failure");
            REQUIRE(guard_intact(&gm, si == PPG_STATUS_OK ? len : 0),
                    "init wrote outside its block or on failure");
            guard_free(&go);
            guard_free(&gm);
        }
    }
    guard_free(&gs);
    guard_free(&ga);
    /* No call panics (that is a finding), so there is never a panic message to copy. */
    size_t plen = u8(in) % 4 == 0 ? 0 : u8(in);
    guarded gp = guard_new(plen, pointer_mode(in), u8(in));
    ppg_status sp = ppg_last_panic_message((char *)gp.p, plen);
    check_status(sp, S(NULL_PARAMETER) | S(INVALID_ARGUMENT) | S(NO_RESULT),
                 "last_panic_message");
    REQUIRE(guard_intact(&gp, 0), "last_panic_message wrote on failure");
    guard_free(&gp);
    const char *msg = ppg_status_str((uint32_t)u64(in));
    REQUIRE(msg != NULL && msg[0] != '\0', "ppg_status_str gave NULL or an empty message");
}

/* The end of a sequence: both engines must have the same future. */
static void same_future(pair *p, input *in) {
    same_now(p);
    for (int round = 0; round < 2; round++) {
        uint64_t a[MAX_BATCH * MAX_ITEMS * MAX_SESSIONS], b[MAX_BATCH * MAX_ITEMS * MAX_SESSIONS];
        size_t count = p->m.batch, need = count * ranking_len(&p->m);
        ppg_status sa = ppg_engine_sample(p->e, count, a, sizeof a / sizeof *a);
        ppg_status sb = ppg_engine_sample(p->s, count, b, sizeof b / sizeof *b);
        REQUIRE(sa == sb && (sa != PPG_STATUS_OK || memcmp(a, b, need * sizeof *a) == 0),
                "the engines sample differently: a failed call changed the fuzzed one");
    }
    ppg_train_config c = train_config(in, &p->m);
    ppg_objective_config o;
    ppg_objective_config_default(&o);
    ppg_train_report ra, rb;
    ppg_train_report_default(&ra);
    ppg_train_report_default(&rb);
    ppg_status sa = ppg_engine_train_builtin(p->e, &c, &o, &ra);
    ppg_status sb = ppg_engine_train_builtin(p->s, &c, &o, &rb);
    REQUIRE(sa == sb && (sa != PPG_STATUS_OK || same_report(&ra, &rb)),
            "the engines train differently: a failed call changed the fuzzed one");
    same_now(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
    input in = {data, length};
    pair p;
    memset(&p, 0, sizeof p);
    uint8_t k = u8(&in);
    p.m.kind = k % 8 == 7 ? (uint32_t)u64(&in) : k % 2;
    p.m.items = 1 + u8(&in) % MAX_ITEMS;
    p.m.sessions = 1 + u8(&in) % MAX_SESSIONS;
    p.m.batch = 1 + u8(&in) % MAX_BATCH;
    uint64_t seed = u8(&in);

    /* The fuzzed engine lives in caller memory (canaries after it), the shadow on the heap. */
    size_t size = 0, align = 0;
    ppg_status st = ppg_engine_layout(p.m.kind, p.m.items, p.m.sessions, p.m.batch, &size,
                                      &align);
    check_status(st, BASE | S(INVALID_ARGUMENT), "layout");
    if (st != PPG_STATUS_OK) {
        ppg_engine *none = NULL;
        REQUIRE(ppg_engine_new(p.m.kind, p.m.items, p.m.sessions, p.m.batch, seed, &none) ==
                        st &&
                    none == NULL,
                "new and layout disagree");
        return 0;
    }
    guarded block = guard_new(size, 2, 0);
    REQUIRE(ppg_engine_init(block.p, size, p.m.kind, p.m.items, p.m.sessions, p.m.batch, seed,
                            &p.e) == PPG_STATUS_OK,
            "init refused what layout sized");
    REQUIRE(ppg_engine_new(p.m.kind, p.m.items, p.m.sessions, p.m.batch, seed, &p.s) ==
                PPG_STATUS_OK,
            "new refused what layout sized");

    for (int ops = 0; ops < MAX_OPS && in.n > 0; ops++) {
        switch (u8(&in) % 13) {
        case 0: op_set_query(&p, &in); break;
        case 1: op_ranking_len(&p, &in); break;
        case 2: op_forbid(&p, &in); break;
        case 3: op_keep_within(&p); break;
        case 4: op_keep_between(&p, &in); break;
        case 5: op_set_sampler(&p, &in); break;
        case 6: op_sample(&p, &in); break;
        case 7: op_update(&p, &in); break;
        case 8: op_best(&p, &in); break;
        case 9: op_train(&p, &in, 0); break;
        case 10: op_train(&p, &in, 1); break;
        case 11: op_evaluate(&p, &in); break;
        default: op_no_engine(&in); break;
        }
        REQUIRE(guard_intact(&block, size), "a call wrote past the engine's block");
    }
    same_future(&p, &in);
    REQUIRE(guard_intact(&block, size), "a call wrote past the engine's block");
    ppg_engine_free(p.e); /* ignored: caller memory */
    ppg_engine_free(p.s);
    guard_free(&block);
    return 0;
}
