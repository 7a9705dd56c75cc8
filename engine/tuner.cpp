// The tuning loop: resume, propose, filter, evaluate, store per batch, observe, stop.
#include "engine/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <unordered_set>

namespace ktune {

std::vector<Result> ResultLog::warm_start_prior(std::size_t) const { return {}; }

std::string_view to_string(StopReason r) {
  switch (r) {
    case StopReason::budget: return "budget reached";
    case StopReason::time_limit: return "time limit reached";
    case StopReason::patience: return "patience exhausted (no improvement)";
    case StopReason::exhausted: return "search space exhausted";
  }
  return "unknown";
}

bool better_result(const Result& a, const Result& b) { return better_under(a, b, Objective::time); }

bool better_result(const Result& a, const Result& b, Objective objective) {
  return better_under(a, b, objective);
}

namespace {

/// What the searcher observes under the objective: an ok result without the
/// objective's value (no energy measured) as a failure, so that the search
/// goes on without it instead of being handed a figure that does not exist.
std::vector<Result> searcher_view(std::span<const Result> results, Objective objective) {
  std::vector<Result> view(results.begin(), results.end());
  if (objective == Objective::time) return view;
  for (Result& r : view)
    if (r.ok() && !objective_value(r, objective)) {
      r.status = Status::launch_error;
      r.message = "no energy measured (metrics.energy_j), needed by objective " +
                  std::string(to_string(objective));
    }
  return view;
}

}  // namespace

void fill_throughput(Result& r, const KernelFamily& family, const Problem& problem) {
  if (!r.ok() || !(r.time.median_s > 0)) return;
  if (r.tflops <= 0) {
    double flops = family.flops(problem);
    if (flops > 0) r.tflops = flops / r.time.median_s / 1e12;
  }
  if (r.gbps <= 0) {
    double bytes = family.min_bytes(problem);
    if (bytes > 0) r.gbps = bytes / r.time.median_s / 1e9;
  }
}

Tuner::Tuner(TuneInputs inputs, TuneOptions options) : in_(std::move(inputs)), opt_(std::move(options)) {
  if (!in_.space) throw std::invalid_argument("tuner: no search space given");
  if (!in_.searcher) throw std::invalid_argument("tuner: no searcher given");
  if (!in_.evaluator) throw std::invalid_argument("tuner: no evaluator given");
  if (!in_.log) throw std::invalid_argument("tuner: no result log (database) given");
  if (opt_.batch_size == 0) throw std::invalid_argument("tuner: batch size must be at least 1");
  if (!in_.clock) {
    in_.clock = [] {
      using namespace std::chrono;
      return duration<double>(steady_clock::now().time_since_epoch()).count();
    };
  }
}

TuneReport Tuner::run() {
  // A searcher that keeps proposing only what was already measured is treated
  // as exhausted after this many empty rounds, so the loop always ends.
  constexpr int kMaxEmptyRounds = 3;

  const double start = in_.clock();
  TuneReport report;
  std::unordered_set<std::string> measured_keys;
  std::size_t since_improvement = 0;

  auto consider_best = [&](const Result& r) {
    if (!objective_value(r, opt_.objective)) return false;
    if (report.best && !better_result(r, *report.best, opt_.objective)) return false;
    report.best = r;
    return true;
  };
  auto state = [&] {
    ProgressState s;
    s.label = opt_.label;
    s.evaluated = report.measured.size();
    s.budget = opt_.budget;
    s.failures = report.failures;
    s.reused = report.reused.size();
    s.best = report.best;
    s.elapsed_s = in_.clock() - start;
    s.time_limit_s = opt_.time_limit_s;
    return s;
  };

  if (opt_.resume) {
    // Under energy or edp, an ok result stored without energy is no answer:
    // it stays stored, and the configuration may be measured again.
    for (Result& r : in_.log->stored())
      if (!r.ok() || objective_value(r, opt_.objective)) report.reused.push_back(std::move(r));
    for (Result& r : report.reused) {
      if (in_.family) fill_throughput(r, *in_.family, in_.problem);
      measured_keys.insert(r.config.key());
      consider_best(r);
    }
    if (!report.reused.empty()) in_.searcher->observe(report.reused);
  }
  if (in_.progress) in_.progress->started(state());

  // Warm start: what related runs measured, mapped onto this space (repair),
  // shapes the searcher's initial design. The strategy decides how much it
  // trusts such hints (random and exhaustive ignore them on purpose); they
  // cost no evaluation and mark nothing as measured here.
  if (opt_.warm_start) {
    std::vector<Result> prior;
    for (Result r : in_.log->warm_start_prior(opt_.warm_start_limit)) {
      std::optional<Config> fitted = in_.space->repair(r.config);
      if (!fitted || measured_keys.count(fitted->key())) continue;
      r.config = std::move(*fitted);
      prior.push_back(std::move(r));
    }
    if (!prior.empty()) report.warm_started = warm_start(*in_.searcher, *in_.space, prior);
  }

  std::size_t next_start = 0;  // start configurations go first
  int empty_rounds = 0;
  for (;;) {
    const std::size_t evaluated =
        report.measured.size() + (opt_.budget_counts_stored ? report.reused.size() : 0);
    if (opt_.budget > 0 && evaluated >= opt_.budget) {
      report.stop = StopReason::budget;
      break;
    }
    if (opt_.time_limit_s > 0 && in_.clock() - start >= opt_.time_limit_s) {
      report.stop = StopReason::time_limit;
      break;
    }
    if (opt_.patience > 0 && since_improvement >= opt_.patience) {
      report.stop = StopReason::patience;
      break;
    }

    // Never ask for more than the budget or the patience still allows, so
    // both stops are exact rather than rounded up to a batch.
    std::size_t want = opt_.batch_size;
    if (opt_.budget > 0) want = std::min(want, opt_.budget - evaluated);
    if (opt_.patience > 0) want = std::min(want, opt_.patience - since_improvement);

    std::vector<Config> batch;
    std::unordered_set<std::string> batch_keys;
    while (batch.size() < want && next_start < opt_.start_configs.size()) {
      const Config& c = opt_.start_configs[next_start++];
      std::string key = c.key();
      if (measured_keys.count(key) || !batch_keys.insert(key).second) continue;
      batch.push_back(c);
    }
    bool searcher_empty = false;
    if (batch.size() < want) {
      std::vector<Config> proposed = in_.searcher->propose(want - batch.size());
      searcher_empty = proposed.empty();
      std::vector<Result> rejected;
      for (Config& c : proposed) {
        std::string key = c.key();
        if (measured_keys.count(key) || batch_keys.count(key)) continue;
        std::string why;
        if (!in_.space->is_valid(c, &why)) {
          // Not a measurement: never evaluated, stored or counted, but the
          // searcher learns not to propose it again.
          Result r;
          r.config = std::move(c);
          r.status = Status::invalid_config;
          r.message = "rejected by the space: " + why;
          rejected.push_back(std::move(r));
          measured_keys.insert(std::move(key));
          ++report.skipped_invalid;
          continue;
        }
        batch_keys.insert(std::move(key));
        batch.push_back(std::move(c));
      }
      if (!rejected.empty()) in_.searcher->observe(rejected);
    }
    if (batch.empty()) {
      if (searcher_empty || ++empty_rounds >= kMaxEmptyRounds) {
        report.stop = StopReason::exhausted;
        break;
      }
      continue;
    }
    empty_rounds = 0;

    std::vector<Result> results = in_.evaluator->evaluate(batch);
    if (results.size() != batch.size())
      throw std::runtime_error("evaluator returned " + std::to_string(results.size()) +
                               " results for " + std::to_string(batch.size()) + " configurations");
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i].config.empty()) results[i].config = batch[i];
      if (!(results[i].config == batch[i]))
        throw std::runtime_error("evaluator answered for configuration '" + results[i].config.key() +
                                 "' where '" + batch[i].key() + "' was asked");
      if (in_.family) fill_throughput(results[i], *in_.family, in_.problem);
    }

    // An invalid_config answer (not recorded in a replay, ruled out by the
    // device) is no measurement: the searcher learns of it, the budget and the
    // database do not.
    std::vector<Result> measurements;
    measurements.reserve(results.size());
    for (Result& r : results) {
      measured_keys.insert(r.config.key());
      if (r.status == Status::invalid_config) {
        ++report.skipped_invalid;
        continue;
      }
      r.metrics["objective"] = std::string(to_string(opt_.objective));
      measurements.push_back(r);
    }

    // Stored before anything else learns of it: a kill loses at most this batch.
    if (!measurements.empty()) in_.log->append_batch(measurements);

    for (const Result& r : measurements) {
      if (!r.ok()) ++report.failures;
      if (consider_best(r))
        since_improvement = 0;
      else
        ++since_improvement;
      report.measured.push_back(r);
    }
    in_.searcher->observe(searcher_view(results, opt_.objective));
    if (in_.progress) in_.progress->batch_done(state());
  }

  report.elapsed_s = in_.clock() - start;
  if (in_.progress) in_.progress->finished(state());
  return report;
}

}  // namespace ktune
