// One query re-ranked through ppg.hpp as `ppg rerank` re-ranks it by default, in one call
// (Engine::rerank, the recommended recipe): the C++ consumer (see CMakeLists.txt). The
// query and its seed are those of ../common/rerank_query.c (the C and firmware consumers,
// which spell the recipe out call by call), and so is the output: the
// query's rows ("input" lines, the CLI's input file) and its re-ranking ("output" lines,
// as `ppg rerank --sessions 2 --seed 7` prints it), which the suite compares with the
// CLI's. Exits 1 with the wrapper's message on a failure.
#include <ppg.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <numeric>

#include "query.h"

namespace {

constexpr std::size_t kRows = QUERY_ROWS;
constexpr std::size_t kSessions = QUERY_SESSIONS;

double score(std::size_t row) { return static_cast<double>(QUERY[row].hundredths) / 100.0; }

// The CLI's starting ranking: by score, descending, ties the later row first (a stable
// ascending sort, reversed).
std::array<std::size_t, kRows> starting_order() {
  std::array<std::size_t, kRows> order{};
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [](std::size_t a, std::size_t b) { return score(a) < score(b); });
  std::reverse(order.begin(), order.end());
  return order;
}

// Groups numbered in order of first appearance in the file, as the CLI numbers them.
std::array<std::uint32_t, kRows> group_numbers() {
  std::array<std::uint32_t, kRows> number{};
  std::uint32_t groups = 0;
  for (std::size_t r = 0; r < kRows; ++r) {
    number[r] = groups;
    for (std::size_t q = 0; q < r; ++q) {
      if (std::strcmp(QUERY[q].group, QUERY[r].group) == 0) {
        number[r] = number[q];
        break;
      }
    }
    if (number[r] == groups) ++groups;
  }
  return number;
}

}  // namespace

int main() {
  std::printf("input\tqid\titem\tscore\tgroup\n");
  for (const query_row& row : QUERY) {
    std::printf("input\t%s\t%s\t%u.%02u\t%s\n", QUERY_ID, row.item,
                static_cast<unsigned>(row.hundredths / 100),
                static_cast<unsigned>(row.hundredths % 100), row.group);
  }

  const std::array<std::size_t, kRows> order = starting_order();
  const std::array<std::uint32_t, kRows> group = group_numbers();
  std::array<ppg::Item, kRows> items{};
  for (std::size_t k = 0; k < kRows; ++k) {
    items[k] = ppg::Item{order[k], score(order[k]), group[order[k]]};
  }

  try {
    // The one call with the recommended recipe and the CLI's seed of the file's first
    // query: what `ppg rerank` does with these rows.
    ppg::Engine engine(ppg::Method::Ppg, kRows, kSessions, QUERY_BATCH, 0);
    std::array<std::uint64_t, kRows * kSessions> best{};
    engine.rerank(items, kSessions, ppg::default_objective(PPG_METRIC_EEL),
                  ppg::default_train_config(), ppg::query_seed(QUERY_SEED, 0), best);

    std::printf("output\tqid\tsession\trank\titem\n");
    for (std::size_t s = 0; s < kSessions; ++s) {
      for (std::size_t rank = 0; rank < kRows; ++rank) {
        std::printf("output\t%s\t%zu\t%zu\t%s\n", QUERY_ID, s + 1, rank + 1,
                    QUERY[best[s * kRows + rank]].item);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
