/* One query re-ranked through the C API exactly as `ppg rerank` re-ranks it by default, for
 * the consumer projects (scripts/suites/consumers.sh builds it against dist/ alone, for the
 * host through pkg-config and for the Cortex-M4F; platform.h is c-examples/firmware's).
 *
 * The query and its seed are query.h's (the C++ consumer re-ranks the same). It prints two
 * blocks of tab-separated lines:
 *   input   the query as `ppg rerank`'s input file (qid item score group);
 *   output  its re-ranking as `ppg rerank --sessions 2 --seed 7` prints it
 *           (qid session rank item);
 * and the suite checks that the CLI, given the first block, prints the second.
 *
 * The CLI's default recipe in C calls (ppg-cli/src/rerank.rs, ppg-host/src/rerank_query.rs,
 * optimise.rs): the starting ranking by score, descending, ties later row first; the
 * score as utility (no label column); groups numbered in order of first appearance; the
 * query's seed derived from --seed and its index (ppg_query_seed, as ppg rerank's); then
 * ppg_engine_rerank, the recipe in one call with the library's defaults (the step-wise
 * calls train but do not take the recipe's last step, the most relevant of the rankings as
 * fair as the one found). No C library needed. */
#include <stdint.h>

#include "platform.h"
#include "ppg.h"
#include "query.h"

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

int main(void) {
  ppg_status status = PPG_CHECK_VERSION();
  if (status != PPG_STATUS_OK) {
    platform_write("consumer: built against ppg.h " PPG_VERSION_STRING ", running on ");
    platform_write(ppg_version());
    platform_write("\n");
    return fail("ppg_check_version", status);
  }

  platform_write("input\tqid\titem\tscore\tgroup\n");
  for (uint32_t r = 0; r < QUERY_ROWS; r++) {
    platform_write("input\t");
    platform_write(QUERY_ID);
    platform_write("\t");
    platform_write(QUERY[r].item);
    platform_write("\t");
    put_hundredths(QUERY[r].hundredths);
    platform_write("\t");
    platform_write(QUERY[r].group);
    platform_write("\n");
  }

  /* The starting ranking: a stable sort by ascending score, reversed. */
  uint32_t order[QUERY_ROWS];
  for (uint32_t k = 0; k < QUERY_ROWS; k++) {
    uint32_t row = k, j = k;
    while (j > 0 && QUERY[order[j - 1]].hundredths > QUERY[row].hundredths) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = row;
  }
  for (uint32_t a = 0, b = QUERY_ROWS - 1; a < b; a++, b--) {
    uint32_t t = order[a];
    order[a] = order[b];
    order[b] = t;
  }
  /* Groups numbered by first appearance in the file, items named by their row. */
  uint32_t group_of[QUERY_ROWS], groups = 0;
  for (uint32_t r = 0; r < QUERY_ROWS; r++) {
    group_of[r] = groups;
    for (uint32_t q = 0; q < r; q++) {
      if (same(QUERY[q].group, QUERY[r].group)) {
        group_of[r] = group_of[q];
        break;
      }
    }
    groups += group_of[r] == groups;
  }
  ppg_item items[QUERY_ROWS];
  for (uint32_t k = 0; k < QUERY_ROWS; k++) {
    items[k].id = order[k];
    items[k].utility = (double)QUERY[order[k]].hundredths / 100.0;
    items[k].group = group_of[order[k]];
  }

  size_t size, align;
  status = ppg_engine_layout(PPG_METHOD_PPG, QUERY_ROWS, QUERY_SESSIONS, QUERY_BATCH, &size,
                             &align);
  if (status != PPG_STATUS_OK) return fail("ppg_engine_layout", status);
  if (size > sizeof engine_mem || align > 16) return fail("engine_mem too small", status);
  ppg_engine *engine;
  status = ppg_engine_init(engine_mem, sizeof engine_mem, PPG_METHOD_PPG, QUERY_ROWS,
                           QUERY_SESSIONS, QUERY_BATCH, ppg_query_seed(QUERY_SEED, 0),
                           &engine);
  if (status != PPG_STATUS_OK) return fail("ppg_engine_init", status);
  /* The recipe in one call, as `ppg rerank` runs it: the library's defaults are the CLI's
   * (EEL with 5 grade levels, the order within groups held, growing over sessions, the
   * certificate, and the most relevant of the rankings as fair as the one found). */
  ppg_train_config config;
  ppg_objective_config objective;
  ppg_train_report report;
  ppg_train_config_default(&config);
  ppg_objective_config_default(&objective);
  ppg_train_report_default(&report);
  uint64_t best[QUERY_ROWS * QUERY_SESSIONS];
  status = ppg_engine_rerank(engine, items, QUERY_ROWS, QUERY_SESSIONS, &objective, &config,
                             ppg_query_seed(QUERY_SEED, 0), best, QUERY_ROWS * QUERY_SESSIONS,
                             &report);
  if (status != PPG_STATUS_OK) return fail("ppg_engine_rerank", status);

  platform_write("output\tqid\tsession\trank\titem\n");
  for (uint32_t s = 0; s < QUERY_SESSIONS; s++) {
    for (uint32_t rank = 0; rank < QUERY_ROWS; rank++) {
      platform_write("output\t");
      platform_write(QUERY_ID);
      platform_write("\t");
      put_u64(s + 1);
      platform_write("\t");
      put_u64(rank + 1);
      platform_write("\t");
      platform_write(QUERY[best[s * QUERY_ROWS + rank]].item);
      platform_write("\n");
    }
  }
  return 0;
}
