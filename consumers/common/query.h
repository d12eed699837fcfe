/* The query every consumer re-ranks with `ppg rerank --sessions 2 --seed 7`'s settings (its
 * seed: ppg_query_seed(QUERY_SEED, 0)): shared by rerank_query.c (the C and firmware
 * consumers) and ../cmake-cpp/rerank_query.cpp (the C++ one), so that all of them are
 * checked against the CLI on the same rows. C11 and C++17, freestanding (stdint.h only). */
#ifndef PPG_CONSUMER_QUERY_H
#define PPG_CONSUMER_QUERY_H

#include <stdint.h>

#define QUERY_SEED 7u     /* the CLI's --seed */
#define QUERY_SESSIONS 2u /* the CLI's --sessions */
#define QUERY_BATCH 16u   /* the CLI's --batch (default) */
#define QUERY_ROWS 16u

static const char *const QUERY_ID = "q1";
/* Rows in file order: item, score in hundredths (327 is 3.27: the CLI's parse of "3.27"
 * and 327.0 / 100.0 are the same double), group. */
static const struct query_row {
  const char *item;
  uint32_t hundredths;
  const char *group;
} QUERY[QUERY_ROWS] = {
    {"d01", 912, "A"}, {"d02", 887, "A"}, {"d03", 860, "B"}, {"d04", 845, "A"},
    {"d05", 801, "A"}, {"d06", 799, "B"}, {"d07", 754, "A"}, {"d08", 703, "A"},
    {"d09", 688, "B"}, {"d10", 650, "A"}, {"d11", 612, "A"}, {"d12", 590, "B"},
    {"d13", 577, "A"}, {"d14", 530, "B"}, {"d15", 498, "A"}, {"d16", 455, "A"},
};

#endif /* PPG_CONSUMER_QUERY_H */
