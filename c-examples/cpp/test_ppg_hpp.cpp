// test_ppg_hpp - the tests of the C++ wrapper itself (include/ppg.hpp), built and run by
// tests/bindings.rs with and without exceptions (-fno-exceptions), and compiled there with
// g++ and clang++, C++17 and C++20, under -Wall -Wextra -pedantic -Wconversion -Wshadow
// -Werror. Exits 0 when every check passed, 1 otherwise.
//
// Built with -DPPG_TEST_EXPECT_MISMATCH against a copy of ppg.h whose version is newer
// than the library's, it checks instead that the first engine is refused with
// PPG_STATUS_VERSION_MISMATCH and a message naming both versions.
#include <ppg.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#if __cplusplus >= 202002L
#include <span>
#endif

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAIL: %s\n", what);
  }
}

[[maybe_unused]] bool contains(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

constexpr std::size_t kItems = 6;
constexpr std::size_t kSessions = 3;
constexpr std::size_t kBatch = 16;  // the default recipe's batch
constexpr std::uint64_t kSeed = 2022;

const std::array<ppg::Item, kItems> kQuery = {{{11, 3.0, 0},
                                              {12, 2.0, 0},
                                              {13, 2.0, 1},
                                              {14, 1.0, 0},
                                              {15, 1.0, 1},
                                              {16, 0.0, 1}}};

#ifdef PPG_TEST_EXPECT_MISMATCH
// Built against a header newer than the library: the first engine is refused, naming both
// versions.
void mismatch() {
  const ppg::Status status = ppg::check_version();
  const std::string message = status.to_string();
  std::printf("%s\n", message.c_str());
  expect(status == PPG_STATUS_VERSION_MISMATCH, "a newer header is refused");
  expect(contains(message, PPG_VERSION_STRING) && contains(message, ppg_version()),
         "the message names both versions");
  expect(ppg::Engine::try_create(ppg::Method::Ppg, kQuery.size(), kSessions, kBatch, kSeed).status() ==
             PPG_STATUS_VERSION_MISMATCH,
         "no engine is made against an older library");
#if PPG_HPP_EXCEPTIONS
  try {
    ppg::Engine engine(ppg::Method::Ppg, kQuery.size(), kSessions, kBatch, kSeed);
    expect(false, "the constructor should throw");
  } catch (const ppg::Error& e) {
    expect(e.code() == PPG_STATUS_VERSION_MISMATCH && contains(e.what(), PPG_VERSION_STRING) &&
               contains(e.what(), ppg_version()),
           "the exception names both versions");
  }
#endif
}
#else

// `status` failed with `code` from the C function `function`.
void expect_status(const ppg::Status& status, ppg_status code, const char* function,
                   const char* what) {
  const bool ok = status == code && std::strcmp(status.function(), function) == 0 &&
                  status.to_string().find(status.message()) != std::string::npos;
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAIL: %s: got %s\n", what, status.to_string().c_str());
  }
}

// Trains the built-in EEL on a fresh engine whose query came through `items`, and returns
// its best ranking (empty on a failure, which is reported).
std::vector<std::uint64_t> rerank(ppg::Span<const ppg::Item> items, const char* what) {
  auto made = ppg::Engine::try_create(ppg::Method::Ppg, kItems, kSessions, kBatch, kSeed);
  expect(made.ok(), what);
  if (!made) return {};
  ppg::Engine engine = std::move(made).value();
  const ppg::Result<ppg::TrainConfig> config = ppg::try_default_train_config();
  const ppg::Result<ppg::ObjectiveConfig> eel = ppg::try_default_objective(PPG_METRIC_EEL);
  expect(config.ok() && eel.ok(), "default configurations");
  expect(engine.try_set_query(items, kSessions).ok(), what);
  const ppg::Result<ppg::TrainReport> report = engine.try_train_builtin(*config, *eel);
  expect(report.ok() && report->samples > 0, what);
  const ppg::Result<ppg::Best> best = engine.try_best();
  expect(best.ok() && best->ranking.size() == kItems * kSessions, what);
  return best.ok() ? best->ranking : std::vector<std::uint64_t>();
}

// Every kind of contiguous range makes the same query, hence the same ranking.
void ranges() {
  const std::vector<std::uint64_t> want = rerank(kQuery, "std::array");
  expect(!want.empty(), "std::array gives a ranking");

  const std::vector<ppg::Item> vec(kQuery.begin(), kQuery.end());
  expect(rerank(vec, "std::vector") == want, "std::vector gives std::array's ranking");

  ppg::Item c_array[kItems];
  std::copy(kQuery.begin(), kQuery.end(), c_array);
  expect(rerank(c_array, "C array") == want, "C array gives std::array's ranking");

  const ppg::Item* data = vec.data();
  expect(rerank(ppg::Span<const ppg::Item>(data, vec.size()), "pointer + length") == want,
         "pointer + length gives std::array's ranking");

  const ppg::Span<ppg::Item> mutable_view(c_array);
  expect(rerank(mutable_view, "Span<T> to Span<const T>") == want,
         "a mutable Span converts to a const one");
#ifdef __cpp_lib_span
  const std::span<const ppg::Item> std_span(vec);
  expect(rerank(std_span, "std::span") == want, "std::span gives std::array's ranking");
  const ppg::Span<const ppg::Item> view(vec);
  const std::span<const ppg::Item> back(view);
  expect(back.data() == vec.data() && back.size() == vec.size(), "std::span from a Span");
#endif
  // A view of elements of another type, or a writable view of a temporary, is not made.
  static_assert(!std::is_constructible_v<ppg::Span<const ppg::Item>, std::vector<int>&>);
  static_assert(!std::is_constructible_v<ppg::Span<std::uint64_t>, std::vector<std::uint64_t>>);
  static_assert(!std::is_constructible_v<ppg::Span<std::uint64_t>,
                                         const std::vector<std::uint64_t>&>);
  static_assert(std::is_constructible_v<ppg::Span<const std::uint64_t>,
                                        std::vector<std::uint64_t>>);
}

// The status forms: every failure names its C function and changes nothing.
void statuses() {
  auto made = ppg::Engine::try_create(ppg::Method::Ppg, kItems, kSessions, kBatch, kSeed);
  expect(made.ok(), "try_create");
  if (!made) return;
  ppg::Engine engine = std::move(*made);

  expect_status(engine.try_ranking_len().status(), PPG_STATUS_NO_QUERY,
                "ppg_engine_ranking_len", "ranking_len before a query");
  expect(engine.try_set_query(kQuery, kSessions).ok(), "set_query");

  std::array<ppg::Item, kItems> dup = kQuery;
  dup[1].id = dup[0].id;
  expect_status(engine.try_set_query(dup, kSessions), PPG_STATUS_DUPLICATE_ITEM,
                "ppg_engine_set_query", "duplicate id");
  // The previous query stayed.
  const ppg::Result<std::size_t> len = engine.try_ranking_len();
  expect(len.ok() && *len == kItems * kSessions, "previous query kept after a failure");

  expect_status(engine.try_forbid(11, 99), PPG_STATUS_UNKNOWN_ITEM, "ppg_engine_forbid",
                "unknown id");
  expect_status(engine.try_best().status(), PPG_STATUS_NO_RESULT, "ppg_engine_best",
                "best before training");
  const std::array<std::uint32_t, 2> short_labels = {{0, 1}};
  expect_status(engine.try_keep_order_between(short_labels), PPG_STATUS_INVALID_ARGUMENT,
                "ppg_engine_keep_order_between", "labels of the wrong length");
  const std::array<std::uint32_t, kItems> labels = {{0, 0, 0, 1, 1, 1}};
  expect(engine.try_keep_order_between(labels).ok(), "keep_order_between");
  expect(engine.try_keep_order_within_groups().ok(), "keep_order_within_groups");
  expect(engine.try_hold_order_within_groups().ok(), "hold_order_within_groups");
  expect(engine.try_set_sampler(ppg::Sampler::Corrected).ok(), "set_sampler");

  // The allocation-free loop: sample into a caller array, score, update, best.
  const ppg::Result<ppg::ObjectiveConfig> dtr = ppg::try_default_objective(PPG_METRIC_DTR);
  const ppg::Result<ppg::TrainConfig> config = ppg::try_default_train_config();
  std::array<std::uint64_t, kBatch * kItems * kSessions> rankings{};
  std::array<double, kBatch> costs{};
  std::array<std::uint64_t, kItems * kSessions - 1> too_small{};
  expect_status(engine.try_sample(kBatch, too_small), PPG_STATUS_INVALID_ARGUMENT,
                "ppg_engine_sample", "sample into a short array");
  for (int step = 0; step < 10; ++step) {
    expect(engine.try_sample(kBatch, rankings).ok(), "sample");
    for (std::size_t k = 0; k < kBatch; ++k) {
      const ppg::Span<const std::uint64_t> one(rankings.data() + k * kItems * kSessions,
                                               kItems * kSessions);
      const ppg::Result<double> cost = engine.try_evaluate(*dtr, one);
      expect(cost.ok(), "evaluate");
      costs[k] = std::fabs(*cost);
    }
    expect(engine.try_update(rankings, costs, *config).ok(), "update");
  }
  expect_status(engine.try_update(rankings, costs, *config), PPG_STATUS_NO_PENDING_BATCH,
                "ppg_engine_update", "update twice");
  std::array<std::uint64_t, kItems * kSessions> best{};
  const ppg::Result<double> cost = engine.try_best(best);
  expect(cost.ok() && *cost >= 0.0, "best into an array");
  const ppg::Result<ppg::Best> copy = engine.try_best();
  expect(copy.ok() && copy->cost == *cost &&
             std::equal(best.begin(), best.end(), copy->ranking.begin()),
         "best into a vector is best into an array");

  // A NaN from the objective stops training and rolls the engine back.
  expect(engine.try_set_query(kQuery, kSessions).ok(), "set_query again");
  int calls = 0;
  const ppg::Result<ppg::TrainReport> nan_run =
      engine.try_train(*config, [&](ppg::Span<const std::uint64_t>, std::size_t) {
        return ++calls == 3 ? std::nan("") : 1.0;
      });
  expect_status(nan_run.status(), PPG_STATUS_NOT_FINITE, "ppg_engine_train", "NaN objective");
  expect(calls == 3, "training stopped at the NaN");
  expect_status(engine.try_best().status(), PPG_STATUS_NO_RESULT, "ppg_engine_best",
                "rolled back after the NaN");

  // A callable objective sees each ranking and its session count.
  std::size_t seen = 0;
  const ppg::Result<ppg::TrainReport> run = engine.try_train(
      *config, [&](ppg::Span<const std::uint64_t> ranking, std::size_t sessions) {
        seen += ranking.size() == kItems * sessions ? 1 : 0;
        return static_cast<double>(ranking[0] % 7);
      });
  expect(run.ok() && seen == run->samples, "the objective saw every sample, whole");

  // The Plackett-Luce engine refuses constraints.
  auto pl = ppg::Engine::try_create(ppg::Method::PlackettLuce, kItems, 1, kBatch, kSeed);
  expect(pl.ok() && pl->try_set_query(kQuery).ok(), "PL engine");
  expect_status(pl->try_forbid(11, 12), PPG_STATUS_UNSUPPORTED, "ppg_engine_forbid",
                "PL has no constraints");

  // Bad sizes, and an engine that holds nothing.
  expect_status(ppg::Engine::try_create(ppg::Method::Ppg, 0, 1, 1, 1).status(),
                PPG_STATUS_INVALID_ARGUMENT, "ppg_engine_new", "zero items");
  ppg::Engine empty;
  expect(empty.get() == nullptr, "a default Engine holds nothing");
  expect_status(empty.try_set_query(kQuery), PPG_STATUS_NULL_PARAMETER, "ppg_engine_set_query",
                "set_query on an empty Engine");
  ppg::Engine moved = std::move(engine);
  expect(engine.get() == nullptr && moved.get() != nullptr, "move transfers the handle");

  expect(!ppg::last_panic_message().has_value(), "no panic caught on this thread");
}

// The one call: the recommended recipe re-ranks a query, the same seed gives the same
// rankings, and the query stays set for best().
void one_call() {
  const ppg::Result<ppg::TrainConfig> recommended = ppg::try_default_train_config();
  const ppg::Result<ppg::TrainConfig> reference = ppg::try_reference_train_config();
  expect(recommended.ok() && reference.ok(), "both recipes");
  expect(recommended->score_input && recommended->grow && !reference->score_input &&
             !reference->grow,
         "the recommended recipe scores the input and grows, the reference run does neither");
  const ppg::Result<ppg::ObjectiveConfig> eel = ppg::try_default_objective(PPG_METRIC_EEL);
  expect(ppg::query_seed(kSeed, 0) != ppg::query_seed(kSeed, 1), "queries get their own seeds");

  std::vector<std::uint64_t> first;
  for (int run = 0; run < 2; ++run) {
    // A different engine seed each time: rerank reseeds with its own.
    auto made = ppg::Engine::try_create(ppg::Method::Ppg, kItems, kSessions, kBatch,
                                        kSeed + static_cast<std::uint64_t>(run));
    expect(made.ok(), "try_create for rerank");
    if (!made) return;
    std::array<std::uint64_t, kItems * kSessions> out{};
    const ppg::Result<ppg::TrainReport> report =
        made->try_rerank(kQuery, kSessions, *eel, *recommended, ppg::query_seed(kSeed, 0), out);
    expect(report.ok() && report->samples > 0, "try_rerank into an array");
    const ppg::Result<ppg::Best> best = made->try_best();
    expect(best.ok() && std::equal(out.begin(), out.end(), best->ranking.begin()),
           "best() reads what rerank wrote");
    const ppg::Result<ppg::Reranked> again =
        made->try_rerank(kQuery, kSessions, *eel, *recommended, ppg::query_seed(kSeed, 0));
    expect(again.ok() && std::equal(out.begin(), out.end(), again->ranking.begin()),
           "try_rerank into a vector gives the same rankings");
    if (run == 0) {
      first.assign(out.begin(), out.end());
    } else {
      expect(std::equal(out.begin(), out.end(), first.begin()),
             "the same rows and seed give the same rankings whatever the engine's seed");
    }
    std::array<std::uint64_t, kItems * kSessions + 1> too_long{};
    expect_status(made->try_rerank(kQuery, kSessions, *eel, *recommended, 1, too_long).status(),
                  PPG_STATUS_INVALID_ARGUMENT, "ppg_engine_rerank", "out of the wrong length");
  }
  auto pl = ppg::Engine::try_create(ppg::Method::PlackettLuce, kItems, kSessions, kBatch, kSeed);
  expect(pl.ok(), "PL engine for rerank");
  if (!pl) return;
  expect_status(pl->try_rerank(kQuery, kSessions, *eel, *recommended, 1).status(),
                PPG_STATUS_UNSUPPORTED, "ppg_engine_rerank", "PL does not rerank");
}

// Counts beyond the engine are the library's refusal, with nothing allocated for them
// first: 2^40 rankings or sessions would be terabytes (std::bad_alloc, or an abort
// without exceptions), 2^25 sessions gigabytes.
void counts_beyond_the_engine() {
  auto made = ppg::Engine::try_create(ppg::Method::Ppg, kItems, kSessions, kBatch, kSeed);
  expect(made.ok(), "try_create");
  if (!made) return;
  const ppg::Result<ppg::Capacity> capacity = made->try_capacity();
  expect(capacity.ok() && capacity->items == kItems && capacity->sessions == kSessions &&
             capacity->batch == kBatch,
         "capacity() is what the engine was made with");
  expect(made->try_set_query(kQuery, kSessions).ok(), "set_query");
  const std::size_t huge = std::size_t{1} << 40;
  expect_status(made->try_sample(huge).status(), PPG_STATUS_CAPACITY, "ppg_engine_sample",
                "2^40 samples");
  expect_status(made->try_sample(kBatch + 1).status(), PPG_STATUS_CAPACITY,
                "ppg_engine_sample", "one sample more than the batch");
  expect(made->try_sample(kBatch).ok(), "the whole batch");
  const ppg::Result<ppg::ObjectiveConfig> eel = ppg::try_default_objective(PPG_METRIC_EEL);
  const ppg::Result<ppg::TrainConfig> config = ppg::try_default_train_config();
  for (const std::size_t sessions : {huge, std::size_t{1} << 25, kSessions + 1}) {
    expect_status(made->try_rerank(kQuery, sessions, *eel, *config, 1).status(),
                  PPG_STATUS_CAPACITY, "ppg_engine_rerank", "more sessions than the engine's");
  }
  std::vector<ppg::Item> many(kQuery.begin(), kQuery.end());
  many.push_back(ppg::Item{99, 1.0, 0});
  expect_status(made->try_rerank(many, kSessions, *eel, *config, 1).status(),
                PPG_STATUS_CAPACITY, "ppg_engine_rerank", "more items than the engine's");
  expect(made->try_rerank(kQuery, kSessions, *eel, *config, 1).ok(),
         "the engine still re-ranks what it holds");
}

// An engine in caller memory trains as the heap engine of the same seed does.
void placed() {
  const ppg::Result<ppg::Layout> layout =
      ppg::try_layout(ppg::Method::Ppg, kItems, kSessions, kBatch);
  expect(layout.ok() && layout->size > 0 && layout->align > 0, "layout");
  if (!layout) return;
  std::vector<unsigned char> block(layout->size + layout->align);
  void* memory = block.data();
  std::size_t space = block.size();
  expect(std::align(layout->align, layout->size, memory, space) != nullptr, "aligned block");
  expect_status(ppg::Engine::try_place(memory, layout->size - 1, ppg::Method::Ppg, kItems,
                                       kSessions, kBatch, kSeed)
                    .status(),
                PPG_STATUS_MEMORY_TOO_SMALL, "ppg_engine_init", "block one byte short");
  auto made = ppg::Engine::try_place(memory, layout->size, ppg::Method::Ppg, kItems, kSessions,
                                     kBatch, kSeed);
  expect(made.ok() && made->get() == memory, "the placed engine lives in the block");
  if (!made) return;
  expect(made->try_set_query(kQuery, kSessions).ok(), "placed set_query");
  const auto config = ppg::try_default_train_config();
  const auto eel = ppg::try_default_objective();
  expect(made->try_train_builtin(*config, *eel).ok(), "placed training");
  const ppg::Result<ppg::Best> best = made->try_best();
  expect(best.ok() && best->ranking == rerank(kQuery, "heap engine"),
         "placed and heap engines of one seed agree");
}

#if PPG_HPP_EXCEPTIONS
// The throwing forms: each failure is a ppg::Error carrying the try_ form's status.
void exceptions() {
  ppg::Engine engine(ppg::Method::Ppg, kItems, kSessions, kBatch, kSeed);
  try {
    (void)engine.ranking_len();
    expect(false, "ranking_len before a query should throw");
  } catch (const ppg::Error& e) {
    expect(e.code() == PPG_STATUS_NO_QUERY && contains(e.what(), "ppg_engine_ranking_len: "),
           "ranking_len throws NO_QUERY naming its function");
  }
  engine.set_query(kQuery, kSessions);
  try {
    engine.forbid(11, 99);
    expect(false, "forbid of an unknown id should throw");
  } catch (const ppg::Error& e) {
    expect(e.status() == PPG_STATUS_UNKNOWN_ITEM, "forbid throws UNKNOWN_ITEM");
  }
  try {
    (void)ppg::Engine(ppg::Method::Ppg, 0, 1, 1, 1);
    expect(false, "zero items should throw");
  } catch (const ppg::Error& e) {
    expect(e.code() == PPG_STATUS_INVALID_ARGUMENT && std::strcmp(e.function(), "ppg_engine_new") == 0,
           "constructor throws INVALID_ARGUMENT from ppg_engine_new");
  }
  // The objective's own exception comes out of both forms as itself.
  struct Gave_up {};
  for (int form = 0; form < 2; ++form) {
    int calls = 0;
    auto objective = [&](ppg::Span<const std::uint64_t>, std::size_t) -> double {
      if (++calls == 4) throw Gave_up{};
      return 1.0;
    };
    try {
      if (form == 0) {
        (void)engine.train(ppg::default_train_config(), objective);
      } else {
        (void)engine.try_train(ppg::default_train_config(), objective);
      }
      expect(false, "a throwing objective should rethrow");
    } catch (const Gave_up&) {
      expect(calls == 4, "training stopped at the throw");
    }
    expect_status(engine.try_best().status(), PPG_STATUS_NO_RESULT, "ppg_engine_best",
                  "rolled back after the throw");
  }
  std::array<std::uint64_t, kItems * kSessions + 1> too_long{};
  try {
    (void)engine.rerank(kQuery, kSessions, ppg::default_objective(),
                        ppg::reference_train_config(), 1, too_long);
    expect(false, "rerank into the wrong length should throw");
  } catch (const ppg::Error& e) {
    expect(e.code() == PPG_STATUS_INVALID_ARGUMENT, "rerank throws INVALID_ARGUMENT");
  }
  const ppg::Reranked reranked = engine.rerank(kQuery, kSessions, ppg::default_objective(),
                                               ppg::default_train_config(), 5);
  expect(reranked.ranking.size() == kItems * kSessions && reranked.report.samples > 0,
         "rerank trains");
  engine.set_query(kQuery, kSessions);
  const ppg::TrainReport report =
      engine.train_builtin(ppg::default_train_config(), ppg::default_objective());
  const ppg::Best best = engine.best();
  expect(report.samples > 0 && best.cost == report.best_cost, "throwing forms train");
  expect(engine.evaluate(ppg::default_objective(), best.ranking) == best.cost,
         "evaluate gives best()'s cost");
}
#endif
#endif  // PPG_TEST_EXPECT_MISMATCH

}  // namespace

int main() {
  std::printf("ppg.h %s, libppg %s, exceptions %s\n", PPG_VERSION_STRING, ppg::version(),
              PPG_HPP_EXCEPTIONS ? "on" : "off");
#ifdef PPG_TEST_EXPECT_MISMATCH
  mismatch();
#else
  expect(ppg::check_version().ok(), "this library serves this header");
  ranges();
  statuses();
  one_call();
  counts_beyond_the_engine();
  placed();
#if PPG_HPP_EXCEPTIONS
  exceptions();
#endif
#endif
  if (failures != 0) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("all checks passed\n");
  return 0;
}
