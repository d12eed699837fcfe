// doors: the C++ door of the same-answer test (tests/bindings.rs), built with
// -fno-exceptions: ppg.hpp's status forms only. Reads the rows of tests/doors/rows.tsv (qid
// item score group label, a query's rows contiguous and in their input ranking, the label
// the utility), re-ranks each query with Engine::try_rerank under the recommended recipe
// (METRIC: eel, or ee, the official expected exposure; SESSIONS sessions, 1 to
// kMaxSessions, default kMaxSessions, query k seeded with ppg::query_seed(kSeed, k)), and
// prints what `ppg rerank --metric METRIC --sessions SESSIONS --seed 11` prints.
#include <ppg.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kMaxItems = 64;
constexpr std::size_t kMaxSessions = 3;
constexpr std::uint64_t kSeed = 11;

// Re-ranks the query `qid` (its `index` in the file) and prints its rankings.
bool flush(ppg::Engine& engine, ppg_metric metric, std::size_t sessions, const std::string& qid,
           const std::vector<ppg::Item>& items, std::uint64_t index) {
  const ppg::Result<ppg::TrainConfig> config = ppg::try_default_train_config();
  const ppg::Result<ppg::ObjectiveConfig> objective = ppg::try_default_objective(metric);
  if (!config || !objective) return false;
  const ppg::Result<ppg::Reranked> out =
      engine.try_rerank(items, sessions, *objective, *config, ppg::query_seed(kSeed, index));
  if (!out) {
    std::fprintf(stderr, "doors: query %s: %s\n", qid.c_str(), out.status().to_string().c_str());
    return false;
  }
  const std::size_t n = items.size();
  for (std::size_t s = 0; s < sessions; ++s) {
    for (std::size_t r = 0; r < n; ++r) {
      std::printf("%s\t%zu\t%zu\t%llu\n", qid.c_str(), s + 1, r + 1,
                  static_cast<unsigned long long>(out->ranking[s * n + r]));
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc >= 3 ? argv[2] : "eel";
  const std::string count = argc == 4 ? argv[3] : std::to_string(kMaxSessions);
  const std::size_t sessions = count.size() == 1 ? static_cast<std::size_t>(count[0] - '0') : 0;
  if (argc < 2 || argc > 4 || (name != "eel" && name != "ee") || sessions < 1 ||
      sessions > kMaxSessions) {
    std::fprintf(stderr, "usage: doors ROWS.tsv [eel|ee] [SESSIONS 1-3]\n");
    return 2;
  }
  const ppg_metric metric = name == "ee" ? PPG_METRIC_EXPECTED_EXPOSURE : PPG_METRIC_EEL;
  std::ifstream file(argv[1]);
  std::string line;
  if (!file || !std::getline(file, line)) {  // the header
    std::fprintf(stderr, "doors: cannot read %s\n", argv[1]);
    return 2;
  }
  auto made = ppg::Engine::try_create(ppg::Method::Ppg, kMaxItems, kMaxSessions, 16, 0);
  if (!made) {
    std::fprintf(stderr, "doors: %s\n", made.status().to_string().c_str());
    return 1;
  }
  ppg::Engine engine = std::move(*made);

  std::printf("qid\tsession\trank\titem\n");
  std::string qid;
  std::vector<ppg::Item> items;
  std::uint64_t index = 0;
  while (std::getline(file, line)) {
    std::istringstream row(line);
    std::string q;
    ppg::Item item{};
    double score = 0.0;
    if (!(row >> q >> item.id >> score >> item.group >> item.utility)) {
      std::fprintf(stderr, "doors: a malformed row: %s\n", line.c_str());
      return 1;
    }
    if (!items.empty() && q != qid) {
      if (!flush(engine, metric, sessions, qid, items, index++)) return 1;
      items.clear();
    }
    if (items.size() == kMaxItems) {
      std::fprintf(stderr, "doors: a query of more than %zu items\n", kMaxItems);
      return 1;
    }
    qid = q;
    items.push_back(item);
  }
  if (!items.empty() && !flush(engine, metric, sessions, qid, items, index)) return 1;
  return 0;
}
