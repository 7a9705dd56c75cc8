// bench_cost_model_bench: how well the roofline cost model orders measured
// configurations (Spearman rank correlation, rank of the measured optimum),
// before and after calibration, on recorded spaces of ktune families.
// Usage: bench_cost_model_bench [--out DIR] [RECORDING.json ...]
//   (default: every tuning_db/recorded/*.json of a ktune family)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine/cost_context.hpp"
#include "search/cost_model.hpp"
#include "search/rank_metrics.hpp"
#include "search/recorded_space.hpp"

namespace fs = std::filesystem;
using namespace ktune;

namespace {

struct Sample {
  WorkEstimate work;
  double measured_s;
};

struct Quality {
  double spearman = 0;
  double optimum_percentile = 0;
};

Quality quality(const RooflineModel& model, const std::vector<Sample>& samples) {
  std::vector<double> predicted, measured;
  for (const auto& s : samples) {
    predicted.push_back(model.predict(s.work).time_s);
    measured.push_back(s.measured_s);
  }
  return {spearman(predicted, measured), optimum_rank_percentile(predicted, measured)};
}

RooflineModel calibrated_on(const DeviceSpec& device, const std::vector<Sample>& samples) {
  RooflineModel model(device);
  std::vector<WorkEstimate> work;
  std::vector<double> times;
  for (const auto& s : samples) {
    work.push_back(s.work);
    times.push_back(s.measured_s);
  }
  model.calibrate(work, times);
  return model;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out_dir = argv[++i];
    else if (a.rfind("--", 0) != 0) files.emplace_back(a);
  }
  if (files.empty()) {
    fs::path dir = fs::path(KTUNE_SOURCE_DIR) / "tuning_db" / "recorded";
    if (const char* env = std::getenv("KTUNE_SOURCE_DIR")) dir = fs::path(env) / "tuning_db" / "recorded";
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
  }

  std::string table =
      "| recording | ok configs | Spearman, datasheet | Spearman, calibrated (all) | "
      "Spearman, calibrated (held-out half) | optimum percentile, datasheet | calibrated (all) | "
      "calibrated (held-out half) |\n|---|---|---|---|---|---|---|---|\n";
  int used = 0;
  for (const auto& file : files) {
    RecordedSpace rec = read_recorded_space(file);
    std::optional<RecordingModelInputs> in = model_inputs_of(rec);
    if (!in) continue;
    const KernelFamily& family = *in->family;
    const DeviceSpec& device = in->device;

    std::vector<Sample> samples;
    for (const auto& [key, r] : rec.results)
      if (r.ok()) samples.push_back({family.estimate(rec.problem, r.config, device), r.time.median_s});
    if (samples.size() < 6) continue;
    // Deterministic split into a calibration half and a held-out half.
    std::mt19937_64 rng(7);
    std::shuffle(samples.begin(), samples.end(), rng);
    std::vector<Sample> fit(samples.begin(), samples.begin() + samples.size() / 2);
    std::vector<Sample> held(samples.begin() + samples.size() / 2, samples.end());

    Quality datasheet = quality(RooflineModel(device), samples);
    Quality all = quality(calibrated_on(device, samples), samples);
    Quality held_out = quality(calibrated_on(device, fit), held);
    char row[512];
    std::snprintf(row, sizeof row, "| %s | %zu | %.3f | %.3f | %.3f | %.1f%% | %.1f%% | %.1f%% |\n",
                  file.filename().c_str(), samples.size(), datasheet.spearman, all.spearman,
                  held_out.spearman, datasheet.optimum_percentile, all.optimum_percentile,
                  held_out.optimum_percentile);
    table += row;
    ++used;
  }
  std::printf("%s", table.c_str());
  if (used == 0) {
    std::fprintf(stderr, "no recording of a ktune family found\n");
    return 1;
  }
  if (!out_dir.empty()) std::ofstream(fs::path(out_dir) / "cost_model_bench.md") << table;
  return 0;
}
