// rerank - re-ranks a few built-in queries for group fairness with ppg.hpp, four ways
// (the one call with the recommended recipe, a built-in objective with a constraint, a C++
// lambda objective, and the step-wise sample/update loop),
// and checks its own results: every session of a re-ranked list is a permutation of the
// query, the fairness cost went down from the input ranking's, and constrained pairs kept
// their input order. Exits 0 if every check passed, 1 otherwise.
#include <ppg.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  }
}

struct Query {
  const char* name;
  std::vector<ppg::Item> items;  // in input (ranked) order
  std::size_t sessions;
};

// Ranked by utility, with group 0 ahead of equally useful group 1 items: an input
// ranking that gives group 1 less exposure than its merit.
std::vector<Query> builtin_queries() {
  return {
      {"jobs",
       {{101, 4.0, 0}, {102, 3.0, 0}, {103, 3.0, 1}, {104, 2.0, 0}, {105, 2.0, 1},
        {106, 1.0, 0}, {107, 1.0, 1}, {108, 0.0, 0}},
       4},
      {"news",
       {{7, 1.0, 0}, {3, 1.0, 0}, {9, 1.0, 0}, {1, 1.0, 1}, {4, 1.0, 1}, {2, 0.0, 0},
        {8, 0.0, 1}},
       3},
      {"papers",
       {{0xdead0001, 3.0, 0}, {0xdead0002, 3.0, 1}, {0xdead0003, 2.0, 0},
        {0xdead0004, 2.0, 0}, {0xdead0005, 2.0, 1}, {0xdead0006, 1.0, 1},
        {0xdead0007, 1.0, 0}, {0xdead0008, 0.0, 1}, {0xdead0009, 0.0, 0},
        {0xdead000a, 0.0, 1}},
       5},
  };
}

// The input ranking repeated over every session.
std::vector<std::uint64_t> input_ranking(const Query& q) {
  std::vector<std::uint64_t> r;
  for (std::size_t s = 0; s < q.sessions; ++s) {
    for (const auto& it : q.items) {
      r.push_back(it.id);
    }
  }
  return r;
}

// Each session holds every id of the query exactly once.
bool is_permutation(const Query& q, ppg::Span<const std::uint64_t> ranking) {
  const std::size_t n = q.items.size();
  if (ranking.size() != n * q.sessions) {
    return false;
  }
  std::vector<std::uint64_t> want;
  for (const auto& it : q.items) {
    want.push_back(it.id);
  }
  std::sort(want.begin(), want.end());
  for (std::size_t s = 0; s < q.sessions; ++s) {
    std::vector<std::uint64_t> got(ranking.begin() + s * n, ranking.begin() + (s + 1) * n);
    std::sort(got.begin(), got.end());
    if (got != want) {
      return false;
    }
  }
  return true;
}

// `a` comes before `b` in every session.
bool kept_order(ppg::Span<const std::uint64_t> ranking, std::size_t n, std::uint64_t a,
                std::uint64_t b) {
  for (std::size_t s = 0; s * n < ranking.size(); ++s) {
    const auto first = ranking.begin() + s * n;
    const auto pa = std::find(first, first + n, a);
    const auto pb = std::find(first, first + n, b);
    if (pa >= pb) {
      return false;
    }
  }
  return true;
}

// A caller's own fairness cost: the gap between the two groups' exposure per unit of
// utility, exposure 1/log2(rank + 2) averaged over the sessions.
class ExposureGap {
 public:
  explicit ExposureGap(const Query& q) : n_(q.items.size()) {
    for (const auto& it : q.items) {
      index_[it.id] = {it.group, it.utility};
      merit_[it.group] += it.utility;
    }
  }

  double operator()(ppg::Span<const std::uint64_t> ranking, std::size_t sessions) const {
    double exposure[2] = {0.0, 0.0};
    for (std::size_t k = 0; k < ranking.size(); ++k) {
      const auto& [group, utility] = index_.at(ranking[k]);
      (void)utility;
      exposure[group] += 1.0 / std::log2(static_cast<double>(k % n_) + 2.0);
    }
    return std::fabs(exposure[0] / merit_[0] - exposure[1] / merit_[1]) /
           static_cast<double>(sessions);
  }

 private:
  std::size_t n_;
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, double>> index_;
  double merit_[2] = {0.0, 0.0};
};

// The recommended path: the whole query in one call, the recommended recipe, built-in EEL.
void rerank_one_call(const Query& q, std::uint64_t seed) {
  const std::string where = std::string(q.name) + " (one call): ";
  ppg::Engine engine(ppg::Method::Ppg, q.items.size(), q.sessions, 16, seed);
  const ppg::ObjectiveConfig eel = ppg::default_objective(PPG_METRIC_EEL);
  const ppg::Reranked out =
      engine.rerank(q.items, q.sessions, eel, ppg::default_train_config(), seed);

  const double before = engine.evaluate(eel, input_ranking(q));
  const double after = engine.evaluate(eel, out.ranking);
  std::printf("%-8s EEL     %.3g -> %.3g  (one call, %u samples%s)\n", q.name, before, after,
              out.report.samples, out.report.certified ? ", certified optimal" : "");
  expect(is_permutation(q, out.ranking), where + "every session is a permutation");
  expect(after < before, where + "EEL went down");
  expect(after == out.report.best_cost, where + "the report's cost is the ranking's");
}

// Built-in EEL, the two top items of the input pinned in order.
void rerank_builtin(const Query& q, std::uint64_t seed) {
  const std::string where = std::string(q.name) + " (built-in EEL): ";
  ppg::Engine engine(ppg::Method::Ppg, q.items.size(), q.sessions, 16, seed);
  engine.set_query(q.items, q.sessions);
  const std::uint64_t a = q.items[0].id;
  const std::uint64_t b = q.items[1].id;
  engine.forbid(a, b);

  ppg::TrainConfig config = ppg::default_train_config();
  config.score_input = true;
  const ppg::ObjectiveConfig eel = ppg::default_objective(PPG_METRIC_EEL);
  const ppg::TrainReport report = engine.train_builtin(config, eel);
  const ppg::Best best = engine.best();

  const double before = engine.evaluate(eel, input_ranking(q));
  const double after = engine.evaluate(eel, best.ranking);
  std::printf("%-8s EEL     %.3g -> %.3g  (%u epochs, %u samples)\n", q.name, before, after,
              report.epochs, report.samples);
  expect(is_permutation(q, best.ranking), where + "every session is a permutation");
  expect(after < before, where + "EEL went down");
  expect(std::fabs(after - best.cost) <= 1e-9 * std::max(1.0, std::fabs(after)),
         where + "best() reports the cost evaluate() gives");
  expect(kept_order(best.ranking, q.items.size(), a, b), where + "forbidden pair kept");
}

// A C++ lambda as objective, items of a group kept in their input order.
void rerank_lambda(const Query& q, std::uint64_t seed) {
  const std::string where = std::string(q.name) + " (lambda): ";
  ppg::Engine engine(ppg::Method::Ppg, q.items.size(), q.sessions, 16, seed);
  engine.set_query(q.items, q.sessions);
  engine.keep_order_within_groups();

  const ExposureGap gap(q);
  std::size_t calls = 0;
  ppg::TrainConfig config = ppg::default_train_config();
  config.score_input = true;
  config.baseline = true;
  const ppg::TrainReport report =
      engine.train(config, [&](ppg::Span<const std::uint64_t> ranking, std::size_t sessions) {
        ++calls;
        return gap(ranking, sessions);
      });
  const ppg::Best best = engine.best();

  const double before = gap(input_ranking(q), q.sessions);
  std::printf("%-8s gap     %.3g -> %.3g  (%u samples)\n", q.name, before, best.cost,
              report.samples);
  expect(calls >= report.samples, where + "the lambda scored every sample");
  expect(is_permutation(q, best.ranking), where + "every session is a permutation");
  expect(best.cost < before, where + "exposure gap went down");
  expect(best.cost == gap(best.ranking, q.sessions), where + "best() cost is the lambda's");
  for (std::size_t i = 0; i < q.items.size(); ++i) {
    for (std::size_t j = i + 1; j < q.items.size(); ++j) {
      if (q.items[i].group == q.items[j].group) {
        expect(kept_order(best.ranking, q.items.size(), q.items[i].id, q.items[j].id),
               where + "order within group kept for " + std::to_string(q.items[i].id) +
                   " before " + std::to_string(q.items[j].id));
      }
    }
  }
}

// The step-wise loop: the caller draws, scores and feeds back each batch itself.
void rerank_stepwise(const Query& q, std::uint64_t seed) {
  const std::string where = std::string(q.name) + " (sample/update): ";
  const std::size_t batch = 8;
  ppg::Engine engine(ppg::Method::Ppg, q.items.size(), q.sessions, batch, seed);
  engine.set_query(q.items, q.sessions);
  const std::uint64_t a = q.items[2].id;
  const std::uint64_t b = q.items[q.items.size() - 1].id;
  engine.forbid(a, b);
  engine.set_sampler(ppg::Sampler::Corrected);

  const ppg::ObjectiveConfig dtr = ppg::default_objective(PPG_METRIC_DTR);
  const ppg::TrainConfig config = ppg::default_train_config();  // its batch is ignored here
  const std::size_t len = engine.ranking_len();
  std::vector<double> costs(batch);
  for (int step = 0; step < 40; ++step) {
    const std::vector<std::uint64_t> rankings = engine.sample(batch);
    for (std::size_t k = 0; k < batch; ++k) {
      costs[k] = std::fabs(engine.evaluate(dtr, ppg::Span<const std::uint64_t>(
                                                    rankings.data() + k * len, len)));
    }
    engine.update(rankings, costs, config);
  }
  const ppg::Best best = engine.best();
  const double before = std::fabs(engine.evaluate(dtr, input_ranking(q)));
  std::printf("%-8s |DTR|   %.3g -> %.3g\n", q.name, before, best.cost);
  expect(is_permutation(q, best.ranking), where + "every session is a permutation");
  expect(best.cost < before, where + "|DTR| went down");
  expect(kept_order(best.ranking, q.items.size(), a, b), where + "forbidden pair kept");
}

// Errors come back as ppg::Error with the C status, and leave the engine usable.
void errors(const Query& q) {
  ppg::Engine engine(ppg::Method::Ppg, q.items.size(), q.sessions, 16, 7);

  std::vector<ppg::Item> dup = q.items;
  dup[1].id = dup[0].id;
  try {
    engine.set_query(dup, q.sessions);
    expect(false, "duplicate ids: set_query should throw");
  } catch (const ppg::Error& e) {
    expect(e.status() == PPG_STATUS_DUPLICATE_ITEM, std::string("duplicate ids: ") + e.what());
  }

  engine.set_query(q.items, q.sessions);
  try {
    engine.forbid(q.items[0].id, 123456789);
    expect(false, "unknown id: forbid should throw");
  } catch (const ppg::Error& e) {
    expect(e.status() == PPG_STATUS_UNKNOWN_ITEM, std::string("unknown id: ") + e.what());
  }

  // An exception from the objective comes back out of train() as itself, untouched by C.
  int calls = 0;
  try {
    engine.train(ppg::default_train_config(), [&](ppg::Span<const std::uint64_t>, std::size_t) {
      if (++calls == 5) {
        throw std::domain_error("objective gave up");
      }
      return 1.0;
    });
    expect(false, "throwing objective: train should rethrow");
  } catch (const std::domain_error& e) {
    expect(std::string(e.what()) == "objective gave up", "throwing objective: message kept");
  }
  expect(calls == 5, "throwing objective: training stopped at the throw");
  // The failed run was rolled back: nothing has been scored on this query yet.
  try {
    (void)engine.best();
    expect(false, "rolled back: best() should throw");
  } catch (const ppg::Error& e) {
    expect(e.status() == PPG_STATUS_NO_RESULT, std::string("rolled back: ") + e.what());
  }

  // Move-only ownership: the moved-to engine carries on.
  ppg::Engine moved = std::move(engine);
  expect(engine.get() == nullptr && moved.get() != nullptr, "move transfers the handle");
  const ppg::TrainReport report =
      moved.train_builtin(ppg::default_train_config(), ppg::default_objective());
  expect(report.samples > 0, "moved engine trains");
}

}  // namespace

int main() {
  std::printf("libppg %s\n", ppg::version());
  try {
    std::uint64_t seed = 2022;
    for (const Query& q : builtin_queries()) {
      rerank_one_call(q, seed++);
      rerank_builtin(q, seed++);
      rerank_lambda(q, seed++);
      rerank_stepwise(q, seed++);
    }
    errors(builtin_queries().front());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: unexpected exception: %s\n", e.what());
    return 1;
  }
  if (failures != 0) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("all checks passed\n");
  return 0;
}
