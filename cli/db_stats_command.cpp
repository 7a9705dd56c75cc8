// `ktune db stats`: counts of results by status, family version and device,
// noisy timings, and stale results (measured with older template text).
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/current_hash.hpp"
#include "db/store.hpp"
#include "measure/timing.hpp"

namespace ktune::cli {
namespace {

/// ok results whose repetitions missed the spread target: marked noisy
/// (metrics.timing.noisy, measure/timing.hpp), and older ones stored before the
/// mark existed whose spread is above the default target.
struct NoisyCount {
  std::int64_t marked = 0, unmarked_over_target = 0;
};

NoisyCount count_noisy(const Store& store) {
  NoisyCount n;
  const double target = TimingOptions{}.target_spread;
  store.for_each([&](const Measurement& m) {
    const Result& r = m.result;
    if (!r.ok()) return true;
    const auto timing = r.metrics.find("timing");
    if (timing != r.metrics.end() && timing->is_object() && timing->contains("noisy")) {
      if (timing->at("noisy").is_boolean() && timing->at("noisy").get<bool>()) ++n.marked;
    } else if (r.time.spread > target) {
      ++n.unmarked_over_target;
    }
    return true;
  });
  return n;
}

int run_stats(const std::string& path, bool as_json) {
  Store store = Store::open_read_only(path);
  StoreStats s = store.stats();
  auto stale = stale_results(store, "", lenient_current_hash());
  const NoisyCount noisy = count_noisy(store);
  if (as_json) {
    nlohmann::json j{{"database", path},       {"schema_version", store.schema_version()},
                     {"devices", s.devices},   {"families", s.families},
                     {"problems", s.problems}, {"configs", s.configs},
                     {"results", s.results}};
    for (const auto& [k, v] : s.by_status) j["by_status"][k] = v;
    for (const auto& [k, v] : s.by_family) j["by_family"][k] = v;
    for (const auto& [k, v] : s.by_device) j["by_device"][k] = v;
    j["noisy"] = {{"marked", noisy.marked}, {"unmarked_over_target", noisy.unmarked_over_target}};
    j["stale"] = nlohmann::json::array();
    for (const auto& st : stale)
      j["stale"].push_back(
          {{"family", st.family}, {"family_hash", st.family_hash}, {"results", st.results}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("%s (schema v%d)\n", path.c_str(), store.schema_version());
  std::printf(
      "  %lld results, %lld configurations, %lld problems, %lld devices, %lld family versions\n",
      (long long)s.results, (long long)s.configs, (long long)s.problems, (long long)s.devices,
      (long long)s.families);
  std::printf("  by status:");
  for (const auto& [k, v] : s.by_status) std::printf(" %s %lld", k.c_str(), (long long)v);
  std::printf(
      "\n  noisy timings (ok results that missed the spread target): %lld marked, %lld older "
      "unmarked above %g\n",
      (long long)noisy.marked, (long long)noisy.unmarked_over_target,
      TimingOptions{}.target_spread);
  std::printf("  by family version:\n");
  for (const auto& [k, v] : s.by_family) std::printf("    %-40s %lld\n", k.c_str(), (long long)v);
  std::printf("  by device:\n");
  for (const auto& [k, v] : s.by_device) std::printf("    %-40s %lld\n", k.c_str(), (long long)v);
  if (!stale.empty()) {
    std::printf(
        "  stale (older template text, never served; `ktune db prune --stale --kernel F`):\n");
    for (const auto& st : stale)
      std::printf("    %s@%s: %lld results\n", st.family.c_str(), st.family_hash.c_str(),
                  (long long)st.results);
    std::printf(
        "  (where an edit left their code unchanged, `ktune db rehash --kernel F --compare-cubins "
        "OLD/kernels_templated` keeps them)\n");
  }
  return 0;
}

const CommandRegistrar registrar(kDbStats, [](CLI::App& app) {
  struct Options {
    std::string db = default_db_path();
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  auto* stats = app.get_subcommand("db")->add_subcommand(
      "stats", "Counts of results by status, family version and device; stale results");
  add_db_option(stats, o->db);
  stats->add_flag("--json", o->json, "Print JSON");
  stats->callback([o] { set_exit_code(run_stats(o->db, o->json)); });
});

}  // namespace
}  // namespace ktune::cli
