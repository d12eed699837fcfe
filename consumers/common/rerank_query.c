/* One query re-ranked through the C API exactly as `ppg rerank` re-ranks it by default, for
 * the consumer projects (scripts/suites/consumers.sh builds it against dist/ alone, for the
 * host through pkg-config and for the Cortex-M4F; platform.h is c-examples/firmware's).
 *
 * It prints two blocks of tab-separated lines:
 *   input   the query as `ppg rerank`'s input file (qid item score group);
 *   output  its re-ranking as `ppg rerank --sessions 2 --seed 7` prints it
 *           (qid session rank item);
 * and the suite checks that the CLI, given the first block, prints the second.
 *
 * The CLI's default recipe in C calls (ppg-cli/src/rerank.rs, rerank_query.rs,
 * optimise.rs): the starting ranking by score, descending, ties later row first; the
 * score as utility (no label column); groups numbered in order of first appearance; the
 * query's seed derived from --seed and its index (ppg-cli/src/seed.rs, SplitMix64);
 * items of a group held in order for the first part of the run; the input ranking
 * scored; growing over sessions; EEL with 5 grade levels and the exposure counted from
 * rank 1; 50 epochs of 16 samples, learning rate 0.4, patience 20. No C library needed. */
#include <stdint.h>

#include "platform.h"
#include "ppg.h"

#define SEED 7u     /* the CLI's --seed */
#define SESSIONS 2u /* the CLI's --sessions */
#define BATCH 16u   /* the CLI's --batch (default) */
#define N 16u

static const char *const QID = "q1";
/* Rows in file order: item, score in hundredths (327 is 3.27: the CLI's parse of "3.27"
 * and 327.0 / 100.0 are the same double), group. */
static const struct {
  const char *item;
  uint32_t hundredths;
  const char *group;
} ROWS[N] = {
    {"d01", 912, "A"}, {"d02", 887, "A"}, {"d03", 860, "B"}, {"d04", 845, "A"},
    {"d05", 801, "A"}, {"d06", 799, "B"}, {"d07", 754, "A"}, {"d08", 703, "A"},
    {"d09", 688, "B"}, {"d10", 650, "A"}, {"d11", 612, "A"}, {"d12", 590, "B"},
    {"d13", 577, "A"}, {"d14", 530, "B"}, {"d15", 498, "A"}, {"d16", 455, "A"},
};

static _Alignas(16) unsigned char engine_mem[1 << 16];

/* ---- output without a C library ---- */

static void put_u64(uint64_t v) {
  char s[21];
  int n = 20;
  s[n] = '\0';
  do {
    s[--n] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  platform_write(s + n);
}

static void put_hundredths(uint32_t h) {
  put_u64(h / 100);
  char s[4] = {'.', (char)('0' + h / 10 % 10), (char)('0' + h % 10), '\0'};
  platform_write(s);
}

static int fail(const char *what, ppg_status status) {
  platform_write("consumer: ");
  platform_write(what);
  platform_write(": ");
  platform_write(ppg_status_str(status));
  platform_write("\n");
  return 1;
}

static int same(const char *a, const char *b) {
  while (*a != '\0' && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

/* ppg-cli/src/seed.rs: SplitMix64's finaliser, and the seed of query `index`. */
static uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static uint64_t query_seed(uint64_t seed, uint64_t index) { return mix(mix(seed) ^ mix(index)); }

int main(void) {
  ppg_status status = PPG_CHECK_VERSION();
  if (status != PPG_STATUS_OK) {
    platform_write("consumer: built against ppg.h " PPG_VERSION_STRING ", running on ");
    platform_write(ppg_version());
    platform_write("\n");
    return fail("ppg_check_version", status);
  }

  platform_write("input\tqid\titem\tscore\tgroup\n");
  for (uint32_t r = 0; r < N; r++) {
    platform_write("input\t");
    platform_write(QID);
    platform_write("\t");
    platform_write(ROWS[r].item);
    platform_write("\t");
    put_hundredths(ROWS[r].hundredths);
    platform_write("\t");
    platform_write(ROWS[r].group);
    platform_write("\n");
  }

  /* The starting ranking: a stable sort by ascending score, reversed. */
  uint32_t order[N];
  for (uint32_t k = 0; k < N; k++) {
    uint32_t row = k, j = k;
    while (j > 0 && ROWS[order[j - 1]].hundredths > ROWS[row].hundredths) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = row;
  }
  for (uint32_t a = 0, b = N - 1; a < b; a++, b--) {
    uint32_t t = order[a];
    order[a] = order[b];
    order[b] = t;
  }
  /* Groups numbered by first appearance in the file, items named by their row. */
  uint32_t group_of[N], groups = 0;
  for (uint32_t r = 0; r < N; r++) {
    group_of[r] = groups;
    for (uint32_t q = 0; q < r; q++) {
      if (same(ROWS[q].group, ROWS[r].group)) {
        group_of[r] = group_of[q];
        break;
      }
    }
    groups += group_of[r] == groups;
  }
  ppg_item items[N];
  for (uint32_t k = 0; k < N; k++) {
    items[k].id = order[k];
    items[k].utility = (double)ROWS[order[k]].hundredths / 100.0;
    items[k].group = group_of[order[k]];
  }

  size_t size, align;
  status = ppg_engine_layout(PPG_METHOD_PPG, N, SESSIONS, BATCH, &size, &align);
  if (status != PPG_STATUS_OK) return fail("ppg_engine_layout", status);
  if (size > sizeof engine_mem || align > 16) return fail("engine_mem too small", status);
  ppg_engine *engine;
  status = ppg_engine_init(engine_mem, sizeof engine_mem, PPG_METHOD_PPG, N, SESSIONS, BATCH,
                           query_seed(SEED, 0), &engine);
  if (status != PPG_STATUS_OK) return fail("ppg_engine_init", status);
  status = ppg_engine_set_query(engine, items, N, SESSIONS);
  if (status != PPG_STATUS_OK) return fail("ppg_engine_set_query", status);
  status = ppg_engine_hold_order_within_groups(engine);
  if (status != PPG_STATUS_OK) return fail("ppg_engine_hold_order_within_groups", status);

  ppg_train_config config;
  ppg_objective_config objective;
  ppg_train_report report;
  ppg_train_config_default(&config);
  ppg_objective_config_default(&objective); /* EEL, 5 levels, exposure from rank 1 */
  ppg_train_report_default(&report);
  config.score_input = true;
  config.grow = true;
  status = ppg_engine_train_builtin(engine, &config, &objective, &report);
  if (status != PPG_STATUS_OK) return fail("ppg_engine_train_builtin", status);
  uint64_t best[N * SESSIONS];
  status = ppg_engine_best(engine, best, N * SESSIONS, NULL);
  if (status != PPG_STATUS_OK) return fail("ppg_engine_best", status);

  platform_write("output\tqid\tsession\trank\titem\n");
  for (uint32_t s = 0; s < SESSIONS; s++) {
    for (uint32_t rank = 0; rank < N; rank++) {
      platform_write("output\t");
      platform_write(QID);
      platform_write("\t");
      put_u64(s + 1);
      platform_write("\t");
      put_u64(rank + 1);
      platform_write("\t");
      platform_write(ROWS[best[s * N + rank]].item);
      platform_write("\n");
    }
  }
  return 0;
}
