// ppg.hpp - a header-only C++17 wrapper over the C API of PPG search (ppg.h, installed next
// to it). It covers every call of ppg.h and adds nothing the C API does not do:
//
//  - Two forms of every call. `try_x(...)` returns a ppg::Status (or a ppg::Result<T>, a
//    value or a Status) and throws nothing of its own: it is what a program built with
//    -fno-exceptions uses. `x(...)` returns the value and throws ppg::Error on failure; it
//    is compiled only when exceptions are on (`__cpp_exceptions`, or define
//    PPG_HPP_EXCEPTIONS to 0 or 1 before the include to choose). The C API's guarantee
//    carries over: a call that failed changed nothing (outputs unwritten, the engine and
//    its generator as before), so carrying on after an error is safe.
//  - ppg::Engine owns an engine (ppg_engine_new / ppg_engine_free; or one placed in the
//    caller's memory, ppg_engine_init): move-only, freed when it goes out of scope.
//  - Inputs and outputs are ppg::Span<T>: a pointer and a length, made implicitly from any
//    contiguous range (std::vector, std::array, a C array, std::span, another Span)
//    or explicitly from a pointer and a length; std::span is made from it in turn.
//  - Engine::train takes any callable `double(ppg::Span<const std::uint64_t> ranking,
//    std::size_t sessions)` as objective. An exception it throws never unwinds through the
//    library: the trampoline keeps it, returns NaN (which stops training and rolls the
//    engine back) and train() / try_train() rethrow it (it is the caller's own error).
//  - The version check: the first engine a program makes asks the library, once per
//    process, whether it serves this header (ppg_check_version). When it does not, that
//    call fails with PPG_STATUS_VERSION_MISMATCH and the message names both versions:
//    the header's PPG_VERSION_STRING and the library's ppg_version().
//
// Threads: as the C API. An Engine is used by one thread at a time (it may be moved to
// another thread); distinct engines are independent.
//
// Link: with CMake, `find_package(ppg 0.2 CONFIG REQUIRED)` and
// `target_link_libraries(app PRIVATE ppg::ppg)` (or ppg::ppg_static); with pkg-config,
// `pkg-config --cflags --libs ppg`.
#ifndef PPG_HPP
#define PPG_HPP

// Below C++17 the rest of the header is skipped, so that this message is the only error it
// gives (compilers carry on after #error, and the templates below would add pages of their
// own).
#if (defined(_MSVC_LANG) && _MSVC_LANG < 201703L) || \
    (!defined(_MSVC_LANG) && (!defined(__cplusplus) || __cplusplus < 201703L))
#error "ppg.hpp needs C++17 or later (e.g. -std=c++17); from C or older C++ use ppg.h"
#else

// Quoted: the ppg.h next to this file, never another version found first on the path.
#include "ppg.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef PPG_HPP_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(_CPPUNWIND)
#define PPG_HPP_EXCEPTIONS 1
#else
#define PPG_HPP_EXCEPTIONS 0
#endif
#endif

#if PPG_HPP_EXCEPTIONS
#include <exception>
#include <stdexcept>
#endif

namespace ppg {

// The outcome of a call: `ok()`, or the C status (`code()`) and the C function that gave
// it (`function()`). Marked [[nodiscard]]: a status-returning call whose status is
// dropped is a warning.
class [[nodiscard]] Status {
 public:
  constexpr Status() noexcept = default;  // OK
  constexpr Status(ppg_status code, const char* function) noexcept
      : code_(code), function_(function) {}

  constexpr bool ok() const noexcept { return code_ == PPG_STATUS_OK; }
  constexpr explicit operator bool() const noexcept { return ok(); }
  constexpr ppg_status code() const noexcept { return code_; }
  // The C function that failed, e.g. "ppg_engine_set_query" (a static string), or "" when
  // ok().
  constexpr const char* function() const noexcept { return function_; }
  // ppg_status_str's static message for code().
  const char* message() const noexcept {
    return ppg_status_str(static_cast<std::uint32_t>(code_));
  }
  // "<function>: <message>"; for PPG_STATUS_VERSION_MISMATCH followed by
  // " (ppg.h 0.2.0, libppg 0.2.1)": the header's version and the library's.
  std::string to_string() const {
    std::string s = ok() ? std::string("ok") : std::string(function_) + ": " + message();
    if (code_ == PPG_STATUS_VERSION_MISMATCH) {
      s += std::string(" (ppg.h ") + PPG_VERSION_STRING + ", libppg " + ppg_version() + ")";
    }
    return s;
  }

  friend constexpr bool operator==(const Status& s, ppg_status code) noexcept {
    return s.code_ == code;
  }
  friend constexpr bool operator==(ppg_status code, const Status& s) noexcept {
    return s.code_ == code;
  }
  friend constexpr bool operator!=(const Status& s, ppg_status code) noexcept {
    return s.code_ != code;
  }
  friend constexpr bool operator!=(ppg_status code, const Status& s) noexcept {
    return s.code_ != code;
  }

 private:
  ppg_status code_ = PPG_STATUS_OK;
  const char* function_ = "";
};

#if PPG_HPP_EXCEPTIONS
// A failed call of a throwing form: `status()` is what the try_ form would have returned;
// `what()` is its to_string().
class Error : public std::runtime_error {
 public:
  explicit Error(const Status& status) : std::runtime_error(status.to_string()), status_(status) {}

  const Status& status() const noexcept { return status_; }
  ppg_status code() const noexcept { return status_.code(); }
  const char* function() const noexcept { return status_.function(); }

 private:
  Status status_;
};
#endif

namespace detail {
// Where a throwing form meets a failure: throws ppg::Error; without exceptions (only
// Result::value() gets here then) ends the program, as the standard library does.
[[noreturn]] inline void fail(const Status& status) {
#if PPG_HPP_EXCEPTIONS
  throw Error(status);
#else
  (void)status;
  std::abort();
#endif
}
}  // namespace detail

// A value of type T, or the Status of the call that could not make it. T must be
// default-constructible (a failed Result holds a default T).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) noexcept(std::is_nothrow_move_constructible_v<T>)  // NOLINT: implicit
      : value_(std::move(value)) {}
  Result(Status status) noexcept(std::is_nothrow_default_constructible_v<T>)  // NOLINT
      : status_(status) {}

  bool ok() const noexcept { return status_.ok(); }
  explicit operator bool() const noexcept { return ok(); }
  const Status& status() const noexcept { return status_; }

  // The value. When !ok(): throws ppg::Error, or without exceptions calls std::abort()
  // (check ok() first there).
  T& value() & {
    if (!ok()) detail::fail(status_);
    return value_;
  }
  const T& value() const& {
    if (!ok()) detail::fail(status_);
    return value_;
  }
  T&& value() && {
    if (!ok()) detail::fail(status_);
    return std::move(value_);
  }
  // Unchecked access, for after ok().
  T& operator*() & noexcept { return value_; }
  const T& operator*() const& noexcept { return value_; }
  T&& operator*() && noexcept { return std::move(value_); }
  T* operator->() noexcept { return &value_; }
  const T* operator->() const noexcept { return &value_; }

 private:
  T value_{};
  Status status_;
};

// A view of `size` contiguous `T`: a pointer and a length, like C++20's std::span<T>. It
// does not own the elements: keep them alive while the view is used. Made implicitly
// from any contiguous range whose elements are T (std::vector, std::array, a C array,
// std::span, another Span), or from a pointer and a length. It is itself a contiguous
// range: std::span<T> is made from a Span<T>.
template <class T>
class Span {
  template <class R>
  using element_of = std::remove_pointer_t<decltype(std::data(std::declval<R&>()))>;
  // R is a contiguous range of T (or of a less const-qualified T), and not a temporary
  // unless T is const (writing into a temporary would be lost).
  template <class R, class = void>
  struct is_range_of : std::false_type {};
  template <class R>
  struct is_range_of<R, std::void_t<element_of<R>, decltype(std::size(std::declval<R&>()))>>
      : std::bool_constant<std::is_convertible_v<element_of<R> (*)[], T (*)[]>> {};

 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;

  constexpr Span() noexcept = default;
  constexpr Span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <class R,
            class = std::enable_if_t<
                !std::is_same_v<std::remove_cv_t<std::remove_reference_t<R>>, Span> &&
                is_range_of<std::remove_reference_t<R>>::value &&
                (std::is_const_v<T> || std::is_lvalue_reference_v<R>)>>
  constexpr Span(R&& range) noexcept  // NOLINT: implicit on purpose, like std::span
      : data_(std::data(range)), size_(static_cast<std::size_t>(std::size(range))) {}

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

// The library's version, e.g. "0.2.0" (ppg_version); the header's is PPG_VERSION_STRING.
inline const char* version() noexcept { return ppg_version(); }

// Whether the library this program runs against serves this header (ppg_check_version
// with the header's PPG_VERSION_*), asked once per process. Engine creation checks it.
inline Status check_version() noexcept {
  static const ppg_status status = PPG_CHECK_VERSION();
  return Status(status, "ppg_check_version");
}

// The recommended recipe (ppg_train_config_init): input scored, grown over sessions, order
// within groups held for a first run, certified where the objective has an exact optimum;
// what `ppg rerank` and the Python package run.
inline Result<TrainConfig> try_default_train_config() noexcept {
  TrainConfig c{};
  const Status s(ppg_train_config_init(&c, sizeof c), "ppg_train_config_init");
  if (!s) return s;
  return c;
}

// The paper's reference run (ppg_train_config_init_reference): input not scored, no
// growing, no holding, no certificate.
inline Result<TrainConfig> try_reference_train_config() noexcept {
  TrainConfig c{};
  const Status s(ppg_train_config_init_reference(&c, sizeof c),
                 "ppg_train_config_init_reference");
  if (!s) return s;
  return c;
}

// The seed `ppg rerank --seed seed` and the Python package give the query at `index`
// (0-based, in input order) of a file (ppg_query_seed): with Engine::rerank, their rankings.
inline std::uint64_t query_seed(std::uint64_t seed, std::uint64_t index) noexcept {
  return ppg_query_seed(seed, index);
}

// The default objective, EEL (ppg_objective_config_init); `metric` picks another.
inline Result<ObjectiveConfig> try_default_objective(ppg_metric metric = PPG_METRIC_EEL) noexcept {
  ObjectiveConfig c{};
  const Status s(ppg_objective_config_init(&c, sizeof c), "ppg_objective_config_init");
  if (!s) return s;
  c.metric = static_cast<std::uint32_t>(metric);
  return c;
}

// A report ready to be written (ppg_train_report_init sets its struct_size).
inline Result<TrainReport> try_empty_train_report() noexcept {
  TrainReport r{};
  const Status s(ppg_train_report_init(&r, sizeof r), "ppg_train_report_init");
  if (!s) return s;
  return r;
}

// The memory an engine placed in caller memory needs (ppg_engine_layout).
struct Layout {
  std::size_t size;
  std::size_t align;
};

inline Result<Layout> try_layout(Method method, std::size_t items, std::size_t sessions,
                                 std::size_t batch) noexcept {
  Layout l{0, 0};
  const Status s(ppg_engine_layout(static_cast<std::uint32_t>(method), items, sessions, batch,
                                   &l.size, &l.align),
                 "ppg_engine_layout");
  if (!s) return s;
  return l;
}

// The message of the last panic the library caught on this thread
// (ppg_last_panic_message), or nothing when there was none.
inline std::optional<std::string> last_panic_message() {
  // The library cuts the message to fit; a buffer it filled to the brim may have been
  // cut, so it is retried twice as large.
  for (std::size_t len = 256;; len *= 2) {
    std::string buf(len, '\0');
    if (ppg_last_panic_message(buf.data(), buf.size()) != PPG_STATUS_OK) return std::nullopt;
    const std::size_t used = std::strlen(buf.c_str());
    if (used + 4 < len || len >= (std::size_t{1} << 20)) {
      buf.resize(used);
      return buf;
    }
  }
}

#if PPG_HPP_EXCEPTIONS
inline TrainConfig default_train_config() { return try_default_train_config().value(); }
inline TrainConfig reference_train_config() { return try_reference_train_config().value(); }
inline ObjectiveConfig default_objective(ppg_metric metric = PPG_METRIC_EEL) {
  return try_default_objective(metric).value();
}
inline TrainReport empty_train_report() { return try_empty_train_report().value(); }
inline Layout layout(Method method, std::size_t items, std::size_t sessions, std::size_t batch) {
  return try_layout(method, items, sessions, batch).value();
}
#endif

// The most an engine holds (ppg_engine_capacity): the arguments it was made with.
struct Capacity {
  std::size_t items;     // items per session
  std::size_t sessions;  // sessions of a query
  std::size_t batch;     // samples per step
};

// The best ranking found so far and its cost.
struct Best {
  std::vector<std::uint64_t> ranking;  // items * sessions ids, session after session
  double cost = 0.0;
};

// A query re-ranked in one call: its rankings and what the run did (certificate included).
struct Reranked {
  std::vector<std::uint64_t> ranking;  // items * sessions ids, session after session
  TrainReport report{};
};

// An engine. Move-only; a default-constructed or moved-from Engine holds nothing and may
// only be destroyed or assigned to (`get()` is then nullptr).
class Engine {
 public:
  Engine() noexcept = default;
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

  // An engine on the heap (ppg_engine_new): room for queries of up to `items` items over
  // `sessions` sessions and `batch` samples per step, its generator seeded with `seed`.
  // Checks the library's version first (check_version).
  static Result<Engine> try_create(Method method, std::size_t items, std::size_t sessions,
                                   std::size_t batch, std::uint64_t seed) noexcept {
    if (const Status v = check_version(); !v) return v;
    Engine e;
    const Status s(ppg_engine_new(static_cast<std::uint32_t>(method), items, sessions, batch,
                                  seed, &e.engine_),
                   "ppg_engine_new");
    if (!s) return s;
    return e;
  }

  // An engine placed in `len` bytes at `memory` (ppg_engine_init: no allocation), aligned
  // and sized as layout() says for the same arguments. The memory stays the caller's:
  // keep it alive and untouched while the Engine lives. Checks the version first.
  static Result<Engine> try_place(void* memory, std::size_t len, Method method,
                                  std::size_t items, std::size_t sessions, std::size_t batch,
                                  std::uint64_t seed) noexcept {
    if (const Status v = check_version(); !v) return v;
    Engine e;
    const Status s(ppg_engine_init(memory, len, static_cast<std::uint32_t>(method), items,
                                   sessions, batch, seed, &e.engine_),
                   "ppg_engine_init");
    if (!s) return s;
    return e;
  }

  // The C handle, for passing to C code. Still owned by the Engine.
  ppg_engine* get() const noexcept { return engine_; }

  // Starts a query: `items` in ranked order (the input ranking) over `sessions` sessions.
  Status try_set_query(Span<const Item> items, std::size_t sessions = 1) noexcept {
    return Status(ppg_engine_set_query(engine_, items.data(), items.size(), sessions),
                  "ppg_engine_set_query");
  }

  // The most this engine holds: items per session, sessions, samples per step.
  Result<Capacity> try_capacity() const noexcept {
    Capacity c{0, 0, 0};
    const Status s(ppg_engine_capacity(engine_, &c.items, &c.sessions, &c.batch),
                   "ppg_engine_capacity");
    if (!s) return s;
    return c;
  }

  // items * sessions of the current query.
  Result<std::size_t> try_ranking_len() const noexcept {
    std::size_t len = 0;
    const Status s(ppg_engine_ranking_len(engine_, &len), "ppg_engine_ranking_len");
    if (!s) return s;
    return len;
  }

  // Items `a` and `b` (ids) keep their input order in every session.
  Status try_forbid(std::uint64_t a, std::uint64_t b) noexcept {
    return Status(ppg_engine_forbid(engine_, a, b), "ppg_engine_forbid");
  }

  // Items of the same group keep their input order in every session.
  Status try_keep_order_within_groups() noexcept {
    return Status(ppg_engine_keep_order_within_groups(engine_),
                  "ppg_engine_keep_order_within_groups");
  }

  // Items of the same group keep their input order for a first training run, then are
  // free for a second run from the best ranking found.
  Status try_hold_order_within_groups() noexcept {
    return Status(ppg_engine_hold_order_within_groups(engine_),
                  "ppg_engine_hold_order_within_groups");
  }

  // Items with different labels keep their input order; `labels[k]` labels the k-th
  // item of the query.
  Status try_keep_order_between(Span<const std::uint32_t> labels) noexcept {
    return Status(ppg_engine_keep_order_between(engine_, labels.data(), labels.size()),
                  "ppg_engine_keep_order_between");
  }

  // The sampler sample() draws with (training calls use their config's).
  Status try_set_sampler(Sampler sampler) noexcept {
    return Status(ppg_engine_set_sampler(engine_, static_cast<std::uint32_t>(sampler)),
                  "ppg_engine_set_sampler");
  }

  // Draws `count` rankings into `out` (at least count * ranking_len() ids), kept pending
  // for update(). Allocates nothing.
  Status try_sample(std::size_t count, Span<std::uint64_t> out) noexcept {
    return Status(ppg_engine_sample(engine_, count, out.data(), out.size()),
                  "ppg_engine_sample");
  }
  // The same into a new vector of count * ranking_len() ids. Nothing is allocated for a
  // count above the engine's batch: the library refuses it (PPG_STATUS_CAPACITY) first.
  Result<std::vector<std::uint64_t>> try_sample(std::size_t count) {
    const Result<std::size_t> len = try_ranking_len();
    if (!len) return len.status();
    const Result<Capacity> capacity = try_capacity();
    if (!capacity) return capacity.status();
    if (count > capacity->batch) {
      std::uint64_t none = 0;
      return try_sample(count, Span<std::uint64_t>(&none, 0));
    }
    std::vector<std::uint64_t> ids(count * *len);  // at most the engine's own batch
    if (const Status s = try_sample(count, ids); !s) return s;
    return ids;
  }

  // One training step: `rankings` is what sample() drew, `costs` one per ranking.
  Status try_update(Span<const std::uint64_t> rankings, Span<const double> costs,
                    const TrainConfig& config) noexcept {
    return Status(ppg_engine_update(engine_, rankings.data(), rankings.size(), costs.data(),
                                    costs.size(), &config),
                  "ppg_engine_update");
  }

  // The lowest-cost ranking scored since the query was set, into `out` (at least
  // ranking_len() ids), and its cost. PPG_STATUS_NO_RESULT if none. Allocates nothing.
  Result<double> try_best(Span<std::uint64_t> out) const noexcept {
    double cost = 0.0;
    const Status s(ppg_engine_best(engine_, out.data(), out.size(), &cost), "ppg_engine_best");
    if (!s) return s;
    return cost;
  }
  // The same into a new Best.
  Result<Best> try_best() const {
    const Result<std::size_t> len = try_ranking_len();
    if (!len) return len.status();
    Best b;
    b.ranking.resize(*len);
    const Result<double> cost = try_best(b.ranking);
    if (!cost) return cost.status();
    b.cost = *cost;
    return b;
  }

  // Trains against `objective(ranking, sessions) -> double` (lower is better). The
  // ranking view is valid during the call only. If the objective throws, training
  // stops, the engine is rolled back and the exception is rethrown here: the only
  // exception a try_ form lets through, since it is the caller's own.
  template <class F>
  Result<TrainReport> try_train(const TrainConfig& config, F&& objective) {
    using Fn = std::remove_reference_t<F>;
    static_assert(std::is_invocable_r_v<double, Fn&, Span<const std::uint64_t>, std::size_t>,
                  "ppg::Engine::train: the objective must be callable as "
                  "double(ppg::Span<const std::uint64_t> ranking, std::size_t sessions)");
    Result<TrainReport> report = try_empty_train_report();
    if (!report) return report;
    Context<Fn> ctx{&objective};
    const Status s(ppg_engine_train(engine_, &config, &trampoline<Fn>, &ctx, &*report),
                   "ppg_engine_train");
#if PPG_HPP_EXCEPTIONS
    if (ctx.error) std::rethrow_exception(ctx.error);
#endif
    if (!s) return s;
    return report;
  }

  // Trains against a built-in objective over the query's utilities and groups.
  Result<TrainReport> try_train_builtin(const TrainConfig& config,
                                        const ObjectiveConfig& objective) noexcept {
    Result<TrainReport> report = try_empty_train_report();
    if (!report) return report;
    const Status s(ppg_engine_train_builtin(engine_, &config, &objective, &*report),
                   "ppg_engine_train_builtin");
    if (!s) return s;
    return report;
  }

  // Re-ranks one query in one call (ppg_engine_rerank): `items` in their input ranking
  // become the query, shown in `sessions` sessions, trained with `config` (normally
  // default_train_config(), the recommended recipe) against the built-in `objective`,
  // the generator seeded with `seed` (query_seed() gives ppg rerank's); the rankings go to
  // `out` (exactly items.size() * sessions ids). The same items, objective, recipe and
  // seed give what `ppg rerank` and Python give. Allocates nothing.
  Result<TrainReport> try_rerank(Span<const Item> items, std::size_t sessions,
                                 const ObjectiveConfig& objective, const TrainConfig& config,
                                 std::uint64_t seed, Span<std::uint64_t> out) noexcept {
    Result<TrainReport> report = try_empty_train_report();
    if (!report) return report;
    const Status s(ppg_engine_rerank(engine_, items.data(), items.size(), sessions, &objective,
                                     &config, seed, out.data(), out.size(), &*report),
                   "ppg_engine_rerank");
    if (!s) return s;
    return report;
  }
  // The same into a new Reranked. Nothing is allocated for more items or sessions than
  // the engine holds: the library refuses them (PPG_STATUS_CAPACITY) first.
  Result<Reranked> try_rerank(Span<const Item> items, std::size_t sessions,
                              const ObjectiveConfig& objective, const TrainConfig& config,
                              std::uint64_t seed) {
    const Result<Capacity> capacity = try_capacity();
    if (!capacity) return capacity.status();
    if (items.size() > capacity->items || sessions > capacity->sessions) {
      std::uint64_t none = 0;
      const Result<TrainReport> refused =
          try_rerank(items, sessions, objective, config, seed, Span<std::uint64_t>(&none, 0));
      return refused.status();
    }
    Reranked r;
    r.ranking.resize(items.size() * sessions);  // at most the engine's own layout
    const Result<TrainReport> report =
        try_rerank(items, sessions, objective, config, seed, r.ranking);
    if (!report) return report.status();
    r.report = *report;
    return r;
  }

  // The built-in objective's cost of `ranking` (ranking_len() ids).
  Result<double> try_evaluate(const ObjectiveConfig& objective,
                              Span<const std::uint64_t> ranking) const noexcept {
    double value = 0.0;
    const Status s(ppg_engine_evaluate(engine_, &objective, ranking.data(), ranking.size(),
                                       &value),
                   "ppg_engine_evaluate");
    if (!s) return s;
    return value;
  }

#if PPG_HPP_EXCEPTIONS
  // The throwing forms: as the try_ forms, a failure thrown as ppg::Error.
  Engine(Method method, std::size_t items, std::size_t sessions, std::size_t batch,
         std::uint64_t seed)
      : Engine(try_create(method, items, sessions, batch, seed).value()) {}
  static Engine place(void* memory, std::size_t len, Method method, std::size_t items,
                      std::size_t sessions, std::size_t batch, std::uint64_t seed) {
    return try_place(memory, len, method, items, sessions, batch, seed).value();
  }
  void set_query(Span<const Item> items, std::size_t sessions = 1) {
    check(try_set_query(items, sessions));
  }
  Capacity capacity() const { return try_capacity().value(); }
  std::size_t ranking_len() const { return try_ranking_len().value(); }
  void forbid(std::uint64_t a, std::uint64_t b) { check(try_forbid(a, b)); }
  void keep_order_within_groups() { check(try_keep_order_within_groups()); }
  void hold_order_within_groups() { check(try_hold_order_within_groups()); }
  void keep_order_between(Span<const std::uint32_t> labels) {
    check(try_keep_order_between(labels));
  }
  void set_sampler(Sampler sampler) { check(try_set_sampler(sampler)); }
  void sample(std::size_t count, Span<std::uint64_t> out) { check(try_sample(count, out)); }
  std::vector<std::uint64_t> sample(std::size_t count) { return try_sample(count).value(); }
  void update(Span<const std::uint64_t> rankings, Span<const double> costs,
              const TrainConfig& config) {
    check(try_update(rankings, costs, config));
  }
  double best(Span<std::uint64_t> out) const { return try_best(out).value(); }
  Best best() const { return try_best().value(); }
  template <class F>
  TrainReport train(const TrainConfig& config, F&& objective) {
    return try_train(config, std::forward<F>(objective)).value();
  }
  TrainReport train_builtin(const TrainConfig& config, const ObjectiveConfig& objective) {
    return try_train_builtin(config, objective).value();
  }
  TrainReport rerank(Span<const Item> items, std::size_t sessions,
                     const ObjectiveConfig& objective, const TrainConfig& config,
                     std::uint64_t seed, Span<std::uint64_t> out) {
    return try_rerank(items, sessions, objective, config, seed, out).value();
  }
  Reranked rerank(Span<const Item> items, std::size_t sessions, const ObjectiveConfig& objective,
                  const TrainConfig& config, std::uint64_t seed) {
    return try_rerank(items, sessions, objective, config, seed).value();
  }
  double evaluate(const ObjectiveConfig& objective, Span<const std::uint64_t> ranking) const {
    return try_evaluate(objective, ranking).value();
  }
#endif

 private:
#if PPG_HPP_EXCEPTIONS
  static void check(const Status& s) {
    if (!s) detail::fail(s);
  }
#endif

  template <class Fn>
  struct Context {
    Fn* objective;
#if PPG_HPP_EXCEPTIONS
    std::exception_ptr error{};
#endif
  };

  // The C callback. Nothing may unwind through the library, so it catches everything;
  // NaN makes ppg_engine_train stop and restore the engine.
  template <class Fn>
  static double trampoline(const std::uint64_t* ranking, std::size_t len, std::size_t sessions,
                           void* user) noexcept {
    auto* ctx = static_cast<Context<Fn>*>(user);
    const Span<const std::uint64_t> view(ranking, len);
#if PPG_HPP_EXCEPTIONS
    try {
      return static_cast<double>((*ctx->objective)(view, sessions));
    } catch (...) {
      ctx->error = std::current_exception();
      return std::numeric_limits<double>::quiet_NaN();
    }
#else
    return static_cast<double>((*ctx->objective)(view, sessions));
#endif
  }

  ppg_engine* engine_ = nullptr;
};

}  // namespace ppg

#endif  // C++17
#endif  // PPG_HPP
