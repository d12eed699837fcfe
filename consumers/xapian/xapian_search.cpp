// A search engine with ppg inside (see CMakeLists.txt): Xapian indexes a generated corpus
// whose documents carry a group (value slot 0), searches it, and each query's top k results
// are re-ranked through ppg.hpp and given back to the caller with monotone weights.
//
// What it prints, for scripts/suites/consumers.sh:
// - "input" and "output" lines: the rows of the first kChecked queries (top 20, Xapian's
//   weights as scores, `ppg rerank`'s input) and their rankings over 2 sessions, seeded as
//   `ppg rerank --sessions 2 --seed 7` seeds a file's queries, which the suite compares
//   with the CLI's;
// - "paging" lines: page 2 (ranks 11-20), served by a second search and re-ranking, continues
//   page 1 of the same query (the seed is the query's: ppg_query_seed(7, query)), and the
//   weights written back fall with the new order; the program fails (exit 1) otherwise;
// - "timing" lines: over kQueries queries, the median and p99 per query of Xapian's search
//   (get_mset) and of ppg's re-ranking (one session, the recommended recipe), top 20 and
//   top 100, in microseconds (steady_clock; what the suite prints, never asserted).
#include <xapian.h>

#include <ppg.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kDocs = 20000;
constexpr std::uint64_t kVocabulary = 400;
constexpr std::size_t kQueries = 1000;
constexpr std::size_t kChecked = 5;
constexpr std::size_t kPage = 10;
constexpr std::uint64_t kSeed = 7;  // the CLI's --seed
constexpr std::size_t kSessions = 2;
constexpr std::size_t kBatch = 16;
constexpr std::size_t kMaxTop = 100;

// splitmix64: the same corpus and queries on every platform.
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Skewed towards small values: a few frequent terms, many rare ones.
  std::uint64_t skewed(std::uint64_t n) { return (next() % n) * (next() % n) / n; }
};

std::string term(std::uint64_t t) { return "t" + std::to_string(t); }

// Three groups of unequal size, the largest holding the documents richest in frequent
// terms (so that BM25's top results over-represent it).
const char* group_of(std::size_t doc) {
  const std::size_t r = doc % 10;
  return r < 6 ? "A" : (r < 9 ? "B" : "C");
}

Xapian::WritableDatabase build_index() {
  Xapian::WritableDatabase db(std::string(), Xapian::DB_BACKEND_INMEMORY);
  Random random{12345};
  for (std::size_t d = 0; d < kDocs; ++d) {
    Xapian::Document doc;
    const char* group = group_of(d);
    const std::size_t length = 20 + random.next() % 40 + (group[0] == 'A' ? 20 : 0);
    for (std::size_t k = 0; k < length; ++k) doc.add_term(term(random.skewed(kVocabulary)));
    char name[16];
    std::snprintf(name, sizeof name, "d%05zu", d);
    doc.set_data(name);
    doc.add_value(0, group);
    db.add_document(doc);
  }
  db.commit();
  return db;
}

Xapian::Query query_of(std::size_t q) {
  Random random{1000 + q};
  const std::array<std::string, 3> terms = {term(random.skewed(kVocabulary / 4)),
                                            term(random.skewed(kVocabulary / 2)),
                                            term(random.next() % kVocabulary)};
  return Xapian::Query(Xapian::Query::OP_OR, terms.begin(), terms.end());
}

// One query's results: Xapian's order, names, weights and groups.
struct Results {
  std::vector<std::string> names;
  std::vector<double> weights;
  std::vector<std::string> groups;
};

Results search(const Xapian::Database& db, std::size_t q, std::size_t top) {
  Xapian::Enquire enquire(db);
  enquire.set_query(query_of(q));
  const Xapian::MSet mset = enquire.get_mset(0, static_cast<Xapian::doccount>(top));
  Results r;
  for (Xapian::MSetIterator it = mset.begin(); it != mset.end(); ++it) {
    const Xapian::Document doc = it.get_document();
    r.names.push_back(doc.get_data());
    r.weights.push_back(it.get_weight());
    r.groups.push_back(doc.get_value(0));
  }
  return r;
}

// Group numbers in order of first appearance over everything re-ranked, as `ppg rerank`
// numbers a file's groups.
struct GroupNumbers {
  std::map<std::string, std::uint32_t> number;
  std::uint32_t of(const std::string& g) {
    return number.emplace(g, static_cast<std::uint32_t>(number.size())).first->second;
  }
};

// The results re-ranked in `sessions` sessions: row indices, session after session. The
// starting ranking is the CLI's: by weight descending, ties the later row first.
std::vector<std::uint64_t> rerank(ppg::Engine& engine, GroupNumbers& groups, const Results& r,
                                  std::size_t sessions, std::uint64_t seed) {
  const std::size_t n = r.names.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return r.weights[a] < r.weights[b]; });
  std::reverse(order.begin(), order.end());
  std::vector<ppg::Item> items(n);
  for (std::size_t row = 0; row < n; ++row) groups.of(r.groups[row]);
  for (std::size_t k = 0; k < n; ++k) {
    items[k] = ppg::Item{order[k], r.weights[order[k]], groups.of(r.groups[order[k]])};
  }
  std::vector<std::uint64_t> ranking(n * sessions);
  engine.rerank(items, sessions, ppg::default_objective(PPG_METRIC_EEL),
                ppg::default_train_config(), seed, ranking);
  return ranking;
}

// The weights written back: Xapian's weights, largest first, given to the new order, so
// that a caller sorting by weight sees ppg's order at Xapian's scale.
std::vector<double> written_back(const Results& r) {
  std::vector<double> w = r.weights;
  std::sort(w.begin(), w.end(), [](double a, double b) { return a > b; });
  return w;
}

bool check_paging(const Xapian::Database& db, ppg::Engine& engine, GroupNumbers& groups,
                  std::size_t q) {
  const std::uint64_t seed = ppg::query_seed(kSeed, q);
  // One request per page: each searches and re-ranks again with the query's seed.
  std::vector<std::string> pages;
  for (std::size_t page = 0; page < 2; ++page) {
    const Results r = search(db, q, 2 * kPage);
    const std::vector<std::uint64_t> ranking = rerank(engine, groups, r, 1, seed);
    const std::vector<double> weights = written_back(r);
    for (std::size_t k = 1; k < weights.size(); ++k) {
      if (weights[k] > weights[k - 1]) return false;
    }
    for (std::size_t k = page * kPage; k < (page + 1) * kPage && k < ranking.size(); ++k) {
      pages.push_back(r.names[ranking[k]]);
    }
  }
  const Results r = search(db, q, 2 * kPage);
  const std::vector<std::uint64_t> whole = rerank(engine, groups, r, 1, seed);
  for (std::size_t k = 0; k < pages.size(); ++k) {
    if (pages[k] != r.names[whole[k]]) return false;
  }
  std::printf("paging\tq%zu\t%zu results over 2 pages continue one ranking\n", q, pages.size());
  return true;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main() {
  try {
    const Xapian::WritableDatabase db = build_index();
    ppg::Engine engine(ppg::Method::Ppg, kMaxTop, kSessions, kBatch, 0);
    GroupNumbers groups;

    // The rows and rankings `ppg rerank --sessions 2 --seed 7` must reproduce: query q is
    // the file's q-th, seeded ppg_query_seed(7, q).
    std::printf("input\tqid\titem\tscore\tgroup\n");
    std::vector<Results> checked;
    for (std::size_t q = 0; q < kChecked; ++q) {
      checked.push_back(search(db, q, 2 * kPage));
      const Results& r = checked.back();
      for (std::size_t row = 0; row < r.names.size(); ++row) {
        std::printf("input\tq%zu\t%s\t%.17g\t%s\n", q, r.names[row].c_str(), r.weights[row],
                    r.groups[row].c_str());
      }
    }
    std::printf("output\tqid\tsession\trank\titem\n");
    for (std::size_t q = 0; q < kChecked; ++q) {
      const Results& r = checked[q];
      const std::vector<std::uint64_t> ranking =
          rerank(engine, groups, r, kSessions, ppg::query_seed(kSeed, q));
      const std::size_t n = r.names.size();
      for (std::size_t s = 0; s < kSessions; ++s) {
        for (std::size_t k = 0; k < n; ++k) {
          std::printf("output\tq%zu\t%zu\t%zu\t%s\n", q, s + 1, k + 1,
                      r.names[ranking[s * n + k]].c_str());
        }
      }
    }
    for (std::size_t q = 0; q < kChecked; ++q) {
      if (!check_paging(db, engine, groups, q)) {
        std::fprintf(stderr, "consumer: query q%zu: page 2 does not continue page 1\n", q);
        return 1;
      }
    }

    using Clock = std::chrono::steady_clock;
    for (const std::size_t top : {std::size_t{20}, kMaxTop}) {
      std::vector<double> searching, reranking;
      for (std::size_t q = 0; q < kQueries; ++q) {
        const Clock::time_point t0 = Clock::now();
        const Results r = search(db, q, top);
        const Clock::time_point t1 = Clock::now();
        rerank(engine, groups, r, 1, ppg::query_seed(kSeed, q));
        const Clock::time_point t2 = Clock::now();
        searching.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        reranking.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
      }
      std::printf("timing\ttop %zu\t%zu queries\tXapian median %.0f us p99 %.0f us\t"
                  "ppg median %.0f us p99 %.0f us\n",
                  top, kQueries, percentile(searching, 0.5), percentile(searching, 0.99),
                  percentile(reranking, 0.5), percentile(reranking, 0.99));
    }
  } catch (const Xapian::Error& e) {
    std::fprintf(stderr, "consumer: Xapian: %s\n", e.get_msg().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
