// `ktune db diff`: compare the best configurations of two databases.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/query.hpp"
#include "db/store.hpp"

namespace ktune::cli {
namespace {

int run_diff(const std::string& a, const std::string& b, const std::string& kernel,
             const std::string& device, bool as_json) {
  const Store store_a = Store::open_read_only(a), store_b = Store::open_read_only(b);
  // A name either database stores is a filter, not a typo.
  StoredNames stored = stored_names(store_a);
  stored.merge(stored_names(store_b));
  check_family_filter(kernel, stored);
  BestDiff d = diff_best(store_a, store_b,
                         {kernel, device_filter(device, stored), "", lenient_current_hash()});
  if (as_json) {
    nlohmann::json j{{"same", d.same},
                     {"only_a", nlohmann::json::array()},
                     {"only_b", nlohmann::json::array()},
                     {"changed", nlohmann::json::array()}};
    for (const auto& r : d.only_a) j["only_a"].push_back(best_row_json(r));
    for (const auto& r : d.only_b) j["only_b"].push_back(best_row_json(r));
    for (const auto& c : d.changed)
      j["changed"].push_back({{"a", best_row_json(c.a)}, {"b", best_row_json(c.b)}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  for (const auto& r : d.only_a)
    std::printf("- only in A: %s %s %s: %s (%s)\n", r.device.c_str(), r.family.c_str(),
                r.problem_key.c_str(), r.config_key.c_str(), format_time(r.median_s).c_str());
  for (const auto& r : d.only_b)
    std::printf("+ only in B: %s %s %s: %s (%s)\n", r.device.c_str(), r.family.c_str(),
                r.problem_key.c_str(), r.config_key.c_str(), format_time(r.median_s).c_str());
  for (const auto& c : d.changed)
    std::printf("~ %s %s %s: A %s (%s, hash %s) / B %s (%s, hash %s)\n", c.a.device.c_str(),
                c.a.family.c_str(), c.a.problem_key.c_str(), c.a.config_key.c_str(),
                format_time(c.a.median_s).c_str(), c.a.family_hash.c_str(), c.b.config_key.c_str(),
                format_time(c.b.median_s).c_str(), c.b.family_hash.c_str());
  std::printf("%zu only in A, %zu only in B, %zu with another best, %lld the same\n",
              d.only_a.size(), d.only_b.size(), d.changed.size(), (long long)d.same);
  return 0;
}

const CommandRegistrar registrar(kDbDiff, [](CLI::App& app) {
  struct Options {
    std::string kernel, device;
    std::vector<std::string> inputs;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  auto* diff = app.get_subcommand("db")->add_subcommand(
      "diff", "Compare the best configurations of two databases");
  diff->add_option("databases", o->inputs, "The two databases A and B")->required()->expected(2);
  diff->add_option("--kernel", o->kernel, "Only this kernel family");
  diff->add_option("--device", o->device, "Only this GPU name or arch");
  diff->add_flag("--json", o->json, "Print JSON");
  diff->callback(
      [o] { set_exit_code(run_diff(o->inputs[0], o->inputs[1], o->kernel, o->device, o->json)); });
});

}  // namespace
}  // namespace ktune::cli
