// ppg.hpp - a header-only C++17 wrapper over the C API of PPG search (include/ppg.h).
//
// What it adds to the C API, and nothing else:
//  - ppg::Engine owns a heap engine (ppg_engine_new / ppg_engine_free): move-only RAII.
//  - Errors are exceptions: every failed call throws ppg::Error, which carries the
//    ppg_status, the name of the C function and ppg_status_str's message. The C API's
//    guarantee carries over: a call that throws changed nothing (outputs unwritten,
//    engine and its generator as before), so catching and carrying on is safe.
//    (Exceptions rather than an expected-style result because std::expected is C++23
//    and every error here is a caller bug or a bad input, not a control-flow value.)
//  - Engine::train takes any callable `double(ppg::Span<const std::uint64_t> ranking,
//    std::size_t sessions)` as objective. It is called through the C callback's
//    `void *user`; an exception it throws never unwinds through the library: the
//    trampoline catches it, returns NaN (which makes the library stop and roll the engine
//    back, PPG_STATUS_NOT_FINITE), and train() rethrows the original exception.
//  - Buffers are std::vector or ppg::Span (a pointer and a length; std::span is C++20).
//
// Threads: as the C API. An Engine is used by one thread at a time (it may be moved to
// another thread); distinct engines are independent.
//
// Link: with CMake, `find_package(PkgConfig)`, `pkg_check_modules(PPG REQUIRED
// IMPORTED_TARGET ppg)` and `target_link_libraries(app PkgConfig::PPG)`.
#ifndef PPG_HPP
#define PPG_HPP

#include <ppg.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ppg {

// A failed call: `status()` is the C status (never PPG_STATUS_OK), `what()` reads
// "<C function>: <ppg_status_str(status)>".
class Error : public std::runtime_error {
 public:
  Error(ppg_status status, const char* function)
      : std::runtime_error(std::string(function) + ": " +
                           ppg_status_str(static_cast<std::uint32_t>(status))),
        status_(status),
        function_(function) {}

  ppg_status status() const noexcept { return status_; }
  // The C function that failed, e.g. "ppg_engine_set_query" (a static string).
  const char* function() const noexcept { return function_; }

 private:
  ppg_status status_;
  const char* function_;
};

// Throws ppg::Error unless `status` is PPG_STATUS_OK.
inline void check(ppg_status status, const char* function) {
  if (status != PPG_STATUS_OK) {
    throw Error(status, function);
  }
}

// A read-only view of `size` contiguous `T` (std::span is C++20). It does not own the
// elements: keep them alive while the view is used.
template <class T>
class Span {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;

  constexpr Span() noexcept = default;
  constexpr Span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <class U, class A,
            class = std::enable_if_t<std::is_convertible_v<const U (*)[], T (*)[]>>>
  Span(const std::vector<U, A>& v) noexcept  // NOLINT: implicit on purpose, like std::span
      : data_(v.data()), size_(v.size()) {}

  constexpr T* data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T* begin() const noexcept { return data_; }
  constexpr T* end() const noexcept { return data_ + size_; }
  constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
  // Elements [offset, offset + count) (unchecked, as std::span::subspan).
  constexpr Span subspan(std::size_t offset, std::size_t count) const noexcept {
    return Span(data_ + offset, count);
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

enum class Method : std::uint32_t { Ppg = PPG_METHOD_PPG, PlackettLuce = PPG_METHOD_PL };
enum class Sampler : std::uint32_t {
  Uncorrected = PPG_SAMPLER_UNCORRECTED,
  Corrected = PPG_SAMPLER_CORRECTED,
};

using Item = ppg_item;
using TrainConfig = ppg_train_config;
using ObjectiveConfig = ppg_objective_config;
using TrainReport = ppg_train_report;

// The paper's reference recipe (ppg_train_config_default).
inline TrainConfig default_train_config() {
  TrainConfig c{};
  check(ppg_train_config_default(&c), "ppg_train_config_default");
  return c;
}

// The default objective, EEL (ppg_objective_config_default); `metric` picks another.
inline ObjectiveConfig default_objective(ppg_metric metric = PPG_METRIC_EEL) {
  ObjectiveConfig c{};
  check(ppg_objective_config_default(&c), "ppg_objective_config_default");
  c.metric = static_cast<std::uint32_t>(metric);
  return c;
}

inline const char* version() noexcept { return ppg_version(); }

// The best ranking found so far and its cost.
struct Best {
  std::vector<std::uint64_t> ranking;  // items * sessions ids, session after session
  double cost;
};

// An engine on the heap. Move-only; a moved-from Engine holds nothing and may only be
// destroyed or assigned to.
class Engine {
 public:
  // ppg_engine_new: room for queries of up to `items` items over `sessions` sessions and
  // `batch` samples per step, its generator seeded with `seed`.
  Engine(Method method, std::size_t items, std::size_t sessions, std::size_t batch,
         std::uint64_t seed) {
    check(ppg_engine_new(static_cast<std::uint32_t>(method), items, sessions, batch, seed,
                         &engine_),
          "ppg_engine_new");
  }
  ~Engine() { ppg_engine_free(engine_); }

  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  Engine(Engine&& other) noexcept : engine_(std::exchange(other.engine_, nullptr)) {}
  Engine& operator=(Engine&& other) noexcept {
    if (this != &other) {
      ppg_engine_free(engine_);
      engine_ = std::exchange(other.engine_, nullptr);
    }
    return *this;
  }

  // The C handle, for calls this wrapper does not cover. Still owned by the Engine.
  ppg_engine* get() const noexcept { return engine_; }

  // Starts a query: `items` in ranked order (the input ranking) over `sessions` sessions.
  void set_query(Span<const Item> items, std::size_t sessions = 1) {
    check(ppg_engine_set_query(engine_, items.data(), items.size(), sessions),
          "ppg_engine_set_query");
  }

  // items * sessions of the current query.
  std::size_t ranking_len() const {
    std::size_t len = 0;
    check(ppg_engine_ranking_len(engine_, &len), "ppg_engine_ranking_len");
    return len;
  }

  // Items `a` and `b` (ids) keep their input order in every session.
  void forbid(std::uint64_t a, std::uint64_t b) {
    check(ppg_engine_forbid(engine_, a, b), "ppg_engine_forbid");
  }

  void keep_order_within_groups() {
    check(ppg_engine_keep_order_within_groups(engine_), "ppg_engine_keep_order_within_groups");
  }

  // Items of the same group keep their input order for a first training run, then are
  // free for a second run from the best ranking found.
  void hold_order_within_groups() {
    check(ppg_engine_hold_order_within_groups(engine_), "ppg_engine_hold_order_within_groups");
  }

  // `labels[k]` labels the k-th item of the query.
  void keep_order_between(Span<const std::uint32_t> labels) {
    check(ppg_engine_keep_order_between(engine_, labels.data(), labels.size()),
          "ppg_engine_keep_order_between");
  }

  void set_sampler(Sampler sampler) {
    check(ppg_engine_set_sampler(engine_, static_cast<std::uint32_t>(sampler)),
          "ppg_engine_set_sampler");
  }

  // Draws `count` rankings (count * ranking_len() ids) and keeps them pending for
  // update().
  std::vector<std::uint64_t> sample(std::size_t count) {
    std::vector<std::uint64_t> ids(count * ranking_len());
    check(ppg_engine_sample(engine_, count, ids.data(), ids.size()), "ppg_engine_sample");
    return ids;
  }

  // One training step: `rankings` is what sample() returned, `costs` one per ranking.
  void update(Span<const std::uint64_t> rankings, Span<const double> costs,
              const TrainConfig& config) {
    check(ppg_engine_update(engine_, rankings.data(), rankings.size(), costs.data(),
                            costs.size(), &config),
          "ppg_engine_update");
  }

  // The lowest-cost ranking scored since the query was set (PPG_STATUS_NO_RESULT if none).
  Best best() const {
    Best b{std::vector<std::uint64_t>(ranking_len()), 0.0};
    check(ppg_engine_best(engine_, b.ranking.data(), b.ranking.size(), &b.cost),
          "ppg_engine_best");
    return b;
  }

  // Trains against `objective(ranking, sessions) -> double` (lower is better). The
  // ranking view is valid during the call only. If the objective throws, training stops,
  // the engine is rolled back and the exception is rethrown here.
  template <class F>
  TrainReport train(const TrainConfig& config, F&& objective) {
    using Fn = std::remove_reference_t<F>;
    Context<Fn> ctx{&objective, nullptr};
    TrainReport report{};
    check(ppg_train_report_default(&report), "ppg_train_report_default");
    ppg_status status = ppg_engine_train(engine_, &config, &trampoline<Fn>, &ctx, &report);
    if (ctx.error) {
      std::rethrow_exception(ctx.error);
    }
    check(status, "ppg_engine_train");
    return report;
  }

  // Trains against a built-in objective over the query's utilities and groups.
  TrainReport train_builtin(const TrainConfig& config, const ObjectiveConfig& objective) {
    TrainReport report{};
    check(ppg_train_report_default(&report), "ppg_train_report_default");
    check(ppg_engine_train_builtin(engine_, &config, &objective, &report),
          "ppg_engine_train_builtin");
    return report;
  }

  // The built-in objective's cost of `ranking` (ranking_len() ids).
  double evaluate(const ObjectiveConfig& objective, Span<const std::uint64_t> ranking) const {
    double value = 0.0;
    check(ppg_engine_evaluate(engine_, &objective, ranking.data(), ranking.size(), &value),
          "ppg_engine_evaluate");
    return value;
  }

 private:
  template <class Fn>
  struct Context {
    Fn* objective;
    std::exception_ptr error;
  };

  // The C callback. Nothing may unwind through the library, so it catches everything;
  // NaN makes ppg_engine_train stop and restore the engine.
  template <class Fn>
  static double trampoline(const std::uint64_t* ranking, std::size_t len, std::size_t sessions,
                           void* user) noexcept {
    auto* ctx = static_cast<Context<Fn>*>(user);
    try {
      return static_cast<double>((*ctx->objective)(Span<const std::uint64_t>(ranking, len),
                                                   sessions));
    } catch (...) {
      ctx->error = std::current_exception();
      return std::numeric_limits<double>::quiet_NaN();
    }
  }

  ppg_engine* engine_ = nullptr;
};

}  // namespace ppg

#endif  // PPG_HPP
