// bench_cost_model_bench: how well the cost model orders measured
// configurations (Spearman rank correlation, rank of the measured optimum)
// on recorded spaces of ktune families: the datasheet roofline, the roofline
// with its efficiency factors calibrated, and the term model (one weight per
// cost term, calibrated by non-negative least squares), each scored in-sample
// and on configurations the calibration did not see.
// Usage: bench_cost_model_bench [--out FILE.md] [--folds 5] [--seed 7] [RECORDING.json ...]
//   (default: every tuning_db/recorded/*.json of a ktune family)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

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

struct Recording {
  std::string name;
  std::string group;  ///< family + device: calibrations transfer within a group
  DeviceSpec device;
  std::vector<Sample> samples;
};

struct Quality {
  double spearman = 0;
  double optimum_percentile = 0;
};

Quality quality(const std::vector<double>& predicted, const std::vector<Sample>& samples) {
  std::vector<double> measured;
  for (const auto& s : samples) measured.push_back(s.measured_s);
  return {spearman(predicted, measured), optimum_rank_percentile(predicted, measured)};
}

std::vector<double> predictions(const RooflineModel& model, const std::vector<Sample>& samples) {
  std::vector<double> out;
  for (const auto& s : samples) out.push_back(model.predict(s.work).time_s);
  return out;
}

enum class Kind { roofline, terms };

/// A model calibrated on `fit`: the roofline's factors only (work without its
/// main loop), or the term model.
RooflineModel calibrated_on(const DeviceSpec& device, const std::vector<Sample>& fit, Kind kind) {
  RooflineModel model(device);
  std::vector<WorkEstimate> work;
  std::vector<double> times;
  for (const auto& s : fit) {
    WorkEstimate w = s.work;
    if (kind == Kind::roofline) w.loop_iterations = 0;
    work.push_back(w);
    times.push_back(s.measured_s);
  }
  model.calibrate(work, times);
  return model;
}

/// Out-of-fold predictions: each sample predicted by a model calibrated on
/// the other folds (seeded assignment).
std::vector<double> cross_validated(const DeviceSpec& device, const std::vector<Sample>& samples, Kind kind,
                                    int folds, std::uint64_t seed) {
  std::vector<std::size_t> order(samples.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<double> out(samples.size(), 0.0);
  for (int f = 0; f < folds; ++f) {
    std::vector<Sample> fit;
    std::vector<std::size_t> held;
    for (std::size_t i = 0; i < order.size(); ++i)
      (static_cast<int>(i % static_cast<std::size_t>(folds)) == f ? held.push_back(order[i])
                                                                  : fit.push_back(samples[order[i]]));
    const RooflineModel model = calibrated_on(device, fit, kind);
    for (std::size_t i : held) out[i] = model.predict(samples[i].work).time_s;
  }
  return out;
}

/// Held-out quality over many seeded halves (calibrated on one half, scored
/// on the other): one split can be lucky or unlucky.
struct SplitSummary {
  double mean_spearman = 0, min_spearman = 0;
  double median_percentile = 0, max_percentile = 0;
  int within_5_percent = 0, splits = 0;
};

SplitSummary repeated_halves(const DeviceSpec& device, const std::vector<Sample>& samples, int splits,
                             std::uint64_t seed) {
  SplitSummary s;
  std::vector<double> sp, pc;
  for (int i = 0; i < splits; ++i) {
    std::vector<Sample> shuffled = samples;
    std::mt19937_64 rng(seed * 1000003ULL + static_cast<std::uint64_t>(i));
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const auto mid = static_cast<std::ptrdiff_t>(shuffled.size() / 2);
    const std::vector<Sample> fit(shuffled.begin(), shuffled.begin() + mid);
    const std::vector<Sample> held(shuffled.begin() + mid, shuffled.end());
    const Quality q = quality(predictions(calibrated_on(device, fit, Kind::terms), held), held);
    sp.push_back(q.spearman);
    pc.push_back(q.optimum_percentile);
    if (q.optimum_percentile <= 5.0) ++s.within_5_percent;
  }
  s.splits = splits;
  s.mean_spearman = std::accumulate(sp.begin(), sp.end(), 0.0) / static_cast<double>(splits);
  s.min_spearman = *std::min_element(sp.begin(), sp.end());
  std::sort(pc.begin(), pc.end());
  s.median_percentile = pc[pc.size() / 2];
  s.max_percentile = pc.back();
  return s;
}

std::string cell(const Quality& q) {
  char c[64];
  std::snprintf(c, sizeof c, "%.3f / %.1f%%", q.spearman, q.optimum_percentile);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"How well the cost model orders measured configurations of recorded spaces"};
  std::string out_file;
  int folds = 5;
  int splits = 50;
  std::uint64_t seed = 7;
  std::vector<std::string> inputs;
  app.add_option("--out", out_file, "Also write the markdown tables to this file");
  app.add_option("--folds", folds, "Folds of the within-recording cross-validation")->check(CLI::Range(2, 100));
  app.add_option("--seed", seed, "Seed of the held-out splits");
  app.add_option("--splits", splits, "Random halves for the repeated held-out figures")->check(CLI::Range(1, 10000));
  app.add_option("recordings", inputs, "Recorded spaces (default: tuning_db/recorded/*.json)");
  CLI11_PARSE(app, argc, argv);

  std::vector<fs::path> files(inputs.begin(), inputs.end());
  if (files.empty()) {
    fs::path dir = fs::path(KTUNE_SOURCE_DIR) / "tuning_db" / "recorded";
    if (const char* env = std::getenv("KTUNE_SOURCE_DIR")) dir = fs::path(env) / "tuning_db" / "recorded";
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
  }

  std::vector<Recording> recordings;
  for (const auto& file : files) {
    RecordedSpace rec = read_recorded_space(file);
    std::optional<RecordingModelInputs> in = model_inputs_of(rec);
    if (!in) continue;
    Recording r;
    r.name = file.filename().string();
    r.group = rec.family + " on " + in->device.name;
    r.device = in->device;
    for (const auto& [key, result] : rec.results) {
      if (!result.ok()) continue;
      const WorkEstimate w = in->family->estimate(rec.problem, result.config, in->device);
      r.samples.push_back({w, result.time.median_s});
    }
    if (r.samples.size() >= 6) recordings.push_back(std::move(r));
  }
  if (recordings.empty()) {
    std::fprintf(stderr, "no recording of a ktune family found\n");
    return 1;
  }

  std::string text;
  text +=
      "Each cell: Spearman rank correlation (predicted vs measured time) / percentile of the measured optimum in "
      "the model's order (0% = the model's first pick).\n\n";
  text +=
      "| recording | ok configs | datasheet roofline | roofline factors, in-sample | roofline factors, held-out "
      "half | term model, in-sample | term model, held-out half | term model, " +
      std::to_string(folds) +
      "-fold CV | term model, other recordings | term model, all recordings |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  std::string split_table =
      "\nTerm model calibrated on a random half, scored on the other half, over " + std::to_string(splits) +
      " seeded halves:\n\n| recording | Spearman mean (min) | optimum percentile median (max) | halves with the "
      "optimum in the top 5% |\n|---|---|---|---|\n";
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < recordings.size(); ++i) groups[recordings[i].group].push_back(i);

  for (std::size_t ri = 0; ri < recordings.size(); ++ri) {
    const Recording& r = recordings[ri];
    // Seeded halves (as in the first version of this bench).
    std::vector<Sample> shuffled = r.samples;
    std::mt19937_64 rng(seed);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const std::vector<Sample> fit(shuffled.begin(), shuffled.begin() + static_cast<std::ptrdiff_t>(shuffled.size() / 2));
    const std::vector<Sample> held(shuffled.begin() + static_cast<std::ptrdiff_t>(shuffled.size() / 2), shuffled.end());

    const Quality datasheet = quality(predictions(RooflineModel(r.device), r.samples), r.samples);
    const Quality roof_in = quality(predictions(calibrated_on(r.device, r.samples, Kind::roofline), r.samples), r.samples);
    const Quality roof_half = quality(predictions(calibrated_on(r.device, fit, Kind::roofline), held), held);
    const Quality term_in = quality(predictions(calibrated_on(r.device, r.samples, Kind::terms), r.samples), r.samples);
    const Quality term_half = quality(predictions(calibrated_on(r.device, fit, Kind::terms), held), held);
    const Quality term_cv = quality(cross_validated(r.device, r.samples, Kind::terms, folds, seed), r.samples);
    // Transfer: calibrated on the other recordings of the same family and
    // device (other shapes), never on this one.
    std::vector<Sample> others, everything;
    for (std::size_t oi : groups[r.group]) {
      everything.insert(everything.end(), recordings[oi].samples.begin(), recordings[oi].samples.end());
      if (oi != ri) others.insert(others.end(), recordings[oi].samples.begin(), recordings[oi].samples.end());
    }
    std::string transfer = "-";
    if (others.size() >= 12)
      transfer = cell(quality(predictions(calibrated_on(r.device, others, Kind::terms), r.samples), r.samples));
    const Quality pooled = quality(predictions(calibrated_on(r.device, everything, Kind::terms), r.samples), r.samples);
    const SplitSummary halves = repeated_halves(r.device, r.samples, splits, seed);
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %.3f (%.3f) | %.1f%% (%.1f%%) | %d / %d |\n", r.name.c_str(),
                  halves.mean_spearman, halves.min_spearman, halves.median_percentile, halves.max_percentile,
                  halves.within_5_percent, halves.splits);
    split_table += line;
    text += "| " + r.name + " | " + std::to_string(r.samples.size()) + " | " + cell(datasheet) + " | " + cell(roof_in) +
            " | " + cell(roof_half) + " | " + cell(term_in) + " | " + cell(term_half) + " | " + cell(term_cv) + " | " +
            transfer + " | " + cell(pooled) + " |\n";
  }

  text += split_table;
  // The weights of each group's calibration on all its recordings.
  text += "\nTerm weights calibrated on all recordings of a family and device (0 = not used by the fit):\n\n";
  for (const auto& [group, members] : groups) {
    std::vector<Sample> everything;
    for (std::size_t i : members)
      everything.insert(everything.end(), recordings[i].samples.begin(), recordings[i].samples.end());
    const RooflineModel model = calibrated_on(recordings[members.front()].device, everything, Kind::terms);
    text += "- " + group + " (" + std::to_string(everything.size()) + " points):";
    const auto& w = model.calibration().term_weights;
    for (CostTerm t : default_loop_terms()) {
      char c[96];
      std::snprintf(c, sizeof c, " %s %.3g;", std::string(to_string(t)).c_str(),
                    w.empty() ? 0.0 : w[static_cast<std::size_t>(t)]);
      text += c;
    }
    text += "\n";
  }
  std::printf("%s", text.c_str());
  if (!out_file.empty()) std::ofstream(out_file) << text;
  return 0;
}
