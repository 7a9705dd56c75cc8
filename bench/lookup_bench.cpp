// bench_lookup_bench: latency of the runtime lookup on the shipped database
// with the cost-model predictor installed, as `ktune lookup` serves: exact
// hits (repeated), predicted answers for shapes far from every measured one
// (first ask, then cached). The validator of each request (the family's
// space) is built before timing: an application builds it once per problem.
// Usage: bench_lookup_bench [--db tuning_db/ktune.db] [--device "NVIDIA H200"] [--shapes 200]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "compile/compiler.hpp"
#include "db/lookup.hpp"
#include "db/store.hpp"
#include "lookup/lookup_predictor.hpp"
#include "lookup/lookup_validity.hpp"

using namespace ktune;
using Clock = std::chrono::steady_clock;

namespace {

struct Percentiles {
  double p50 = 0, p99 = 0;
};

Percentiles percentiles(std::vector<double> ns) {
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) {
    return ns[static_cast<std::size_t>(q * static_cast<double>(ns.size() - 1))];
  };
  return {at(0.5), at(0.99)};
}

template <class F>
double nanoseconds(F&& f) {
  const auto t = Clock::now();
  f();
  return std::chrono::duration<double, std::nano>(Clock::now() - t).count();
}

LookupRequest request_for(const KernelFamily& gemm, const Problem& p, const DeviceSpec& device) {
  LookupRequest r;
  r.family = "gemm";
  r.problem = p;
  r.device = device.name;
  r.arch = device.arch();
  r.shape_keys = gemm.shape_keys();
  r.shape_class = gemm.shape_class(p);
  r.family_hash = family_source_hash(gemm, p, device);
  r.default_config = gemm.default_config(p, device);
  r.fits = space_validator(gemm, p, device);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Lookup latency: exact hits, predicted answers first asked and cached");
  std::string db = std::string(KTUNE_SOURCE_DIR) + "/tuning_db/ktune.db";
  std::string device_name = "NVIDIA H200";
  std::size_t shapes = 200;
  app.add_option("--db", db, "Tuning database")->capture_default_str();
  app.add_option("--device", device_name, "GPU name")->capture_default_str();
  app.add_option("--shapes", shapes, "Far shapes asked (each a new problem)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const KernelFamily& gemm = find_family("gemm");
  auto device = find_builtin_device(device_name);
  if (!device) {
    std::fprintf(stderr, "unknown device '%s'\n", device_name.c_str());
    return 2;
  }
  Lookup lookup = Lookup::open(db);
  auto t0 = Clock::now();
  lookup.set_predictor(CostModelPredictor::from_databases({db}));
  const double calibrate_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  // Exact: every gemm problem measured on this GPU (at its stored template
  // version), asked 200 times each.
  std::map<std::string, LookupRequest> measured_by_key;
  Store::open_read_only(db).for_each([&](const Measurement& m) {
    if (m.key.family != "gemm" || m.key.device.name != device_name) return true;
    const std::string key = m.key.problem.key() + m.key.family_hash;
    if (measured_by_key.count(key)) return true;
    try {
      LookupRequest r = request_for(gemm, gemm.normalize(m.key.problem), *device);
      r.family_hash = m.key.family_hash;
      measured_by_key.emplace(key, std::move(r));
    } catch (const std::exception&) {
      // a problem this build's family no longer serves
    }
    return true;
  });
  std::vector<LookupRequest> measured;
  for (auto& [key, r] : measured_by_key) measured.push_back(std::move(r));
  std::vector<double> exact_ns;
  std::size_t exact = 0;
  for (const auto& r : measured) lookup.best(r);
  for (int round = 0; round < 200; ++round)
    for (const auto& r : measured) {
      std::shared_ptr<const LookupAnswer> a;
      exact_ns.push_back(nanoseconds([&] { a = lookup.best(r); }));
      exact += a && a->source == LookupSource::exact;
    }

  // Predicted: bf16 nt shapes 2^6..2^16 per key, far from the measured ones.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> log_size(6.0, 16.0);
  std::vector<LookupRequest> far;
  while (far.size() < shapes) {
    auto dim = [&] { return static_cast<std::int64_t>(std::llround(std::exp2(log_size(rng)))); };
    Problem p = gemm.normalize(Problem{{"m", dim()},
                                       {"n", dim()},
                                       {"k", dim()},
                                       {"dtype", std::string("bf16")},
                                       {"layout", std::string("nt")}});
    far.push_back(request_for(gemm, p, *device));
  }
  std::vector<double> first_ns, cached_ns;
  std::size_t predicted = 0;
  for (const auto& r : far) {
    std::shared_ptr<const LookupAnswer> a;
    first_ns.push_back(nanoseconds([&] { a = lookup.best(r); }));
    predicted += a && a->source == LookupSource::predicted;
  }
  for (int round = 0; round < 100; ++round)
    for (const auto& r : far) cached_ns.push_back(nanoseconds([&] { lookup.best(r); }));

  const auto e = percentiles(exact_ns), f = percentiles(first_ns), c = percentiles(cached_ns);
  std::printf("database %s, %zu entries; predictor calibrated in %.1f ms\n", db.c_str(),
              lookup.indexed_entries(), calibrate_ms);
  std::printf("| lookup | p50 | p99 | target |\n|---|---|---|---|\n");
  std::printf(
      "| exact hit, repeated (%zu problems x 200, %zu exact) | %.2f us | %.2f us | p50 < 1 us |\n",
      measured.size(), exact, e.p50 / 1e3, e.p99 / 1e3);
  std::printf(
      "| far shape, first ask (%zu shapes, %zu predicted) | %.1f us | %.1f us | p50 < 50 us |\n",
      far.size(), predicted, f.p50 / 1e3, f.p99 / 1e3);
  std::printf("| far shape, asked again (cached, x 100) | %.2f us | %.2f us | p50 < 1 us |\n",
              c.p50 / 1e3, c.p99 / 1e3);
  return 0;
}
