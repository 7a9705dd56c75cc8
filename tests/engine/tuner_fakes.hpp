// Test doubles for the tuning loop: a one-knob space, a searcher walking a
// fixed list, an evaluator with scripted (synthetic) times and failures, and
// an in-memory result log that counts its transactions.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/tuner.hpp"

namespace ktune::testing {

/// x = 0..n-1, with x == forbidden ruled out by a constraint (when >= 0).
inline Space line_space(int n, int forbidden = -1) {
  Space s;
  s.add(Parameter::int_range("x", 0, n - 1, 1, 0, "the only knob"));
  if (forbidden >= 0)
    s.require("x is not " + std::to_string(forbidden), {"x"},
              [forbidden](const Assignment& a) { return a.i("x") != forbidden; });
  return s;
}

/// Options with a budget and a batch size; tests set the rest by name.
inline TuneOptions options(std::size_t budget, std::size_t batch_size) {
  TuneOptions o;
  o.budget = budget;
  o.batch_size = batch_size;
  return o;
}

/// The tuner's inputs from these four: no family, no progress output, the steady clock.
inline TuneInputs inputs(const Space& space, Searcher& searcher, Evaluator& evaluator,
                         ResultLog& log) {
  TuneInputs in;
  in.space = &space;
  in.searcher = &searcher;
  in.evaluator = &evaluator;
  in.log = &log;
  return in;
}

inline Config cfg(int x) { return Config{{"x", std::int64_t{x}}}; }
/// A verified result of x taking `seconds` (synthetic).
inline Result ok_at(int x, double seconds) {
  Result r;
  r.config = cfg(x);
  r.status = Status::ok;
  r.time.median_s = seconds;
  r.time.repetitions = 1;
  return r;
}
inline int x_of(const Config& c) { return static_cast<int>(c.integer("x")); }

/// Proposes the configurations of `order` front to back, skipping what it has
/// proposed or observed. `repeat_measured` makes it re-propose observed ones
/// (a misbehaving strategy the loop must filter).
class ListSearcher final : public Searcher {
 public:
  explicit ListSearcher(std::vector<int> order, bool repeat_measured = false)
      : order_(std::move(order)), repeat_measured_(repeat_measured) {}
  std::string_view name() const override { return "list"; }
  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    for (int x : order_) {
      if (out.size() >= count) break;
      if (proposed_.count(x)) continue;
      if (!repeat_measured_ && observed_.count(x)) continue;
      proposed_.insert(x);
      out.push_back(cfg(x));
    }
    return out;
  }
  void observe(std::span<const Result> results) override {
    for (const Result& r : results) {
      observed_.insert(x_of(r.config));
      ++observed_count;
    }
  }
  void observe_prior(std::span<const Result> results) override {
    for (const Result& r : results) priors.push_back(x_of(r.config));
  }
  std::size_t observed_count = 0;
  std::vector<int> priors;  ///< configurations received as warm-start hints

 private:
  std::vector<int> order_;
  bool repeat_measured_;
  std::set<int> proposed_, observed_;
};

/// Synthetic times: time_of(x) seconds, or a failure status where fail_of says
/// so. Throws on call number throw_on_call (1-based) to simulate a crash.
class ScriptedEvaluator final : public Evaluator {
 public:
  std::function<double(int)> time_of = [](int x) { return 1e-3 * (100 - x); };
  std::function<std::optional<Status>(int)> fail_of = [](int) { return std::nullopt; };
  int throw_on_call = 0;
  /// Advanced by seconds_per_config for every configuration (a fake clock).
  double* clock = nullptr;
  double seconds_per_config = 0;
  std::vector<std::vector<int>> calls;

  std::vector<Result> evaluate(std::span<const Config> configs) override {
    calls.emplace_back();
    if (throw_on_call > 0 && static_cast<int>(calls.size()) == throw_on_call)
      throw std::runtime_error("simulated crash of the evaluator");
    std::vector<Result> out;
    for (const Config& c : configs) {
      int x = x_of(c);
      calls.back().push_back(x);
      if (clock) *clock += seconds_per_config;
      Result r;
      r.config = c;
      if (auto failure = fail_of(x)) {
        r.status = *failure;
        r.message = "synthetic failure";
      } else {
        r.status = Status::ok;
        r.time.median_s = r.time.min_s = r.time.max_s = time_of(x);
        r.time.repetitions = 1;
      }
      out.push_back(std::move(r));
    }
    return out;
  }
  const DeviceSpec& device() const override { return device_; }
  std::vector<int> all_evaluated() const {
    std::vector<int> all;
    for (const auto& c : calls) all.insert(all.end(), c.begin(), c.end());
    return all;
  }

 private:
  DeviceSpec device_ = [] {
    DeviceSpec d;
    d.name = "synthetic device";
    return d;
  }();
};

/// Batches kept in memory; each append_batch is one "transaction".
class MemoryLog final : public ResultLog {
 public:
  std::vector<std::vector<Result>> batches;
  std::vector<Result> preloaded;
  std::vector<Result> warm;

  std::vector<Result> stored() const override {
    std::vector<Result> all = preloaded;
    for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
    return all;
  }
  void append_batch(std::span<const Result> batch) override { batches.emplace_back(batch.begin(), batch.end()); }
  std::vector<Result> warm_start_prior(std::size_t limit) const override {
    return {warm.begin(), warm.begin() + std::min(limit, warm.size())};
  }
  std::size_t stored_count() const { return stored().size(); }
};

}  // namespace ktune::testing
