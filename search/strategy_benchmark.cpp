// Strategy benchmark: replay loop, statistics, the random-search baseline
// computed exactly, and the table / JSON / SVG outputs.
#include "search/strategy_benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include <time.h>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "search/searcher_base.hpp"

namespace ktune {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kReachLevels[] = {0.90, 0.95, 0.99};

double log_choose(double n, double k) {
  if (k < 0 || k > n) return -kInf;
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

/// P(the best of k draws without replacement from N is the i-th smallest), i = 0..N-1.
std::vector<double> min_rank_probabilities(std::size_t n, std::size_t k) {
  std::vector<double> p(n, 0.0);
  if (n == 0) return p;
  if (k >= n) {
    p[0] = 1.0;
    return p;
  }
  const double total = log_choose(static_cast<double>(n), static_cast<double>(k));
  for (std::size_t i = 0; i < n; ++i) {
    // the i-th smallest is drawn, the other k-1 come from the n-1-i larger ones
    const double lc = log_choose(static_cast<double>(n - 1 - i), static_cast<double>(k - 1));
    p[i] = std::isfinite(lc) ? std::exp(lc - total) : 0.0;
  }
  return p;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

/// CPU time of the calling thread: a proposal's cost, not the machine's load.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return 1e3 * static_cast<double>(ts.tv_sec) + 1e-6 * static_cast<double>(ts.tv_nsec);
}

/// One propose() + observe() round: its thread CPU time per configuration
/// and how many evaluations had been counted before it.
struct ProposalCost {
  std::size_t evaluations_before = 0;
  double cpu_ms = 0;
};

/// Best-so-far objective after each counted evaluation of one run. An
/// evaluation is a distinct recorded configuration, failures included (as
/// Kernel Tuner counts `max_fevals`): a configuration the strategy hands
/// back again is not measured twice and not counted.
std::vector<double> run_once(const RecordedSpace& rec, const ReplayOracle& oracle,
                             const std::string& strategy, const StrategyBenchmarkOptions& options,
                             std::uint64_t seed, std::size_t max_budget, double& seconds,
                             std::size_t& proposals, std::vector<ProposalCost>& costs) {
  SearchContext ctx;
  ctx.space = &rec.space;
  ctx.seed = seed;
  ctx.options = options.search_options;
  if (options.cost_model) options.cost_model(rec, ctx);
  const auto t0 = std::chrono::steady_clock::now();
  auto searcher = make_searcher(strategy, ctx);
  std::vector<double> trace;
  trace.reserve(max_budget);
  std::unordered_set<std::string> evaluated;
  double best = kInf;
  std::size_t uncounted_in_a_row = 0;
  while (trace.size() < max_budget) {
    const double cpu0 = thread_cpu_ms();
    const std::size_t before = trace.size();
    const auto batch = searcher->propose(std::min(options.batch, max_budget - trace.size()));
    if (batch.empty()) break;
    proposals += batch.size();
    const auto results = oracle.evaluate(batch);
    for (const auto& r : results) {
      // Unrecorded configurations are not measurements: never counted.
      if (r.status == Status::invalid_config && r.message == ReplayOracle::kNotRecorded) {
        ++uncounted_in_a_row;
        continue;
      }
      if (!evaluated.insert(r.config.key()).second) {
        ++uncounted_in_a_row;
        continue;
      }
      uncounted_in_a_row = 0;
      if (trace.size() < max_budget) {
        best = std::min(best, detail::objective(r));
        trace.push_back(best);
      }
    }
    searcher->observe(results);
    costs.push_back({before, (thread_cpu_ms() - cpu0) / static_cast<double>(batch.size())});
    if (uncounted_in_a_row > 10000) break;  // a strategy stuck outside the recording
  }
  seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Space exhausted early: the best stays what it was.
  while (trace.size() < max_budget) trace.push_back(best);
  return trace;
}

}  // namespace

std::vector<double> expected_random_best(std::vector<double> values, std::size_t max_k) {
  std::sort(values.begin(), values.end());
  std::vector<double> out(max_k, 0.0);
  for (std::size_t k = 1; k <= max_k; ++k) {
    const auto p = min_rank_probabilities(values.size(), k);
    double e = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
      if (p[i] > 0) e += p[i] * values[i];
    out[k - 1] = e;
  }
  return out;
}

PairedComparison compare_paired(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("paired comparison: samples of different sizes");
  PairedComparison c;
  const auto n = static_cast<double>(a.size());
  if (a.empty()) return c;
  for (std::size_t i = 0; i < a.size(); ++i) c.mean_difference += (a[i] - b[i]) / n;
  if (a.size() < 2) return c;
  double var = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    var += std::pow(a[i] - b[i] - c.mean_difference, 2) / (n - 1);
  c.stderr_difference = std::sqrt(var / n);
  return c;
}

double expected_first_hit(std::size_t total, std::size_t good) {
  if (good == 0) return 0.0;
  return (static_cast<double>(total) + 1.0) / (static_cast<double>(good) + 1.0);
}

StrategyBenchmarkReport run_strategy_benchmark(
    const std::vector<std::shared_ptr<const RecordedSpace>>& spaces,
    const StrategyBenchmarkOptions& options) {
  if (options.budgets.empty()) throw std::invalid_argument("strategy benchmark: no budgets given");
  if (options.repeats == 0)
    throw std::invalid_argument("strategy benchmark: repeats must be at least 1");
  if (options.batch == 0)
    throw std::invalid_argument("strategy benchmark: batch must be at least 1");
  // Throws the factory's message for an unknown strategy, one line for an unread option.
  check_search_options(options.strategies, options.search_options);
  StrategyBenchmarkReport report;
  report.options = options;
  std::sort(report.options.budgets.begin(), report.options.budgets.end());
  const std::size_t max_budget = report.options.budgets.back();

  for (const auto& rec_ptr : spaces) {
    const RecordedSpace& rec = *rec_ptr;
    ReplayOracle oracle(rec_ptr);
    const auto opt = rec.optimum();
    if (!opt)
      throw std::invalid_argument(rec.source +
                                  ": no configuration was measured ok; nothing to find");
    SpaceBenchmark sb;
    sb.source = rec.source;
    sb.family = rec.family;
    sb.device_name = rec.device_name;
    sb.format = std::string(to_string(rec.format));
    sb.synthetic = rec.provenance.is_object() && rec.provenance.value("synthetic", false);
    sb.optimum_s = opt->time.median_s;

    // The random baseline draws from what a searcher may propose: the
    // recorded configurations valid in the space.
    std::vector<double> objective_values, fractions;
    double worst_ok = sb.optimum_s;
    for (const auto& c : rec.proposable()) {
      if (!rec.space.is_valid(c)) continue;
      const Result* r = rec.find(c);
      if (r->ok()) worst_ok = std::max(worst_ok, r->time.median_s);
    }
    for (const auto& c : rec.proposable()) {
      if (!rec.space.is_valid(c)) continue;
      const Result* r = rec.find(c);
      ++sb.proposable;
      if (r->ok()) ++sb.ok;
      // A failure counts as the worst ok time in the methodology's curves
      // (it found nothing better) and as fraction 0 in ours.
      objective_values.push_back(r->ok() ? r->time.median_s : worst_ok);
      fractions.push_back(r->ok() ? sb.optimum_s / r->time.median_s : 0.0);
    }
    for (double level : kReachLevels) {
      ReachStats rs;
      rs.level = level;
      const auto good = static_cast<std::size_t>(std::count_if(
          fractions.begin(), fractions.end(), [level](double f) { return f >= level - 1e-12; }));
      rs.mean_evaluations = expected_first_hit(fractions.size(), good);
      rs.reached = good;  // here: how many configurations are at that level
      rs.runs = fractions.size();
      sb.random_reach.push_back(rs);
    }
    const auto random_best = expected_random_best(objective_values, max_budget);
    std::vector<double> sorted_values = objective_values;
    std::sort(sorted_values.begin(), sorted_values.end());
    const double median_value =
        sorted_values.empty() ? sb.optimum_s : sorted_values[sorted_values.size() / 2];
    const double cutoff_gap = std::max(0.05 * (median_value - sb.optimum_s), 1e-12 * sb.optimum_s);
    {
      // E[fraction] uses the same order statistics, over values sorted by time.
      std::vector<std::size_t> idx(objective_values.size());
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return objective_values[a] < objective_values[b] ||
               (objective_values[a] == objective_values[b] && fractions[a] > fractions[b]);
      });
      sb.random_fraction_curve.assign(max_budget, 0.0);
      for (std::size_t k = 1; k <= max_budget; ++k) {
        const auto p = min_rank_probabilities(idx.size(), k);
        double e = 0;
        for (std::size_t i = 0; i < idx.size(); ++i) e += p[i] * fractions[idx[i]];
        sb.random_fraction_curve[k - 1] = e;
      }
    }

    for (std::size_t si = 0; si < report.options.strategies.size(); ++si) {
      const std::string& strategy = report.options.strategies[si];
      const std::size_t repeats = report.options.repeats;
      std::vector<std::vector<double>> traces(repeats);
      std::vector<double> seconds(repeats, 0.0);
      std::vector<std::size_t> proposals(repeats, 0);
      std::vector<std::vector<ProposalCost>> costs(repeats);
      auto one = [&](std::size_t rep) {
        const std::uint64_t seed = report.options.seed * 1000003ULL + rep * 7919ULL + 1;
        // Isolated: while a proposal waits in its own parallel loop (listing
        // the space), this thread must not pick up another repeat, whose
        // work would be timed as this proposal's.
        tbb::this_task_arena::isolate([&] {
          traces[rep] = run_once(rec, oracle, strategy, report.options, seed, max_budget,
                                 seconds[rep], proposals[rep], costs[rep]);
        });
      };
      if (report.options.parallel)
        tbb::parallel_for(std::size_t(0), repeats, one);
      else
        for (std::size_t rep = 0; rep < repeats; ++rep) one(rep);

      StrategyRun run;
      run.strategy = strategy;
      run.seconds = std::accumulate(seconds.begin(), seconds.end(), 0.0);
      run.proposals = std::accumulate(proposals.begin(), proposals.end(), std::size_t(0));
      auto fraction_at = [&](std::size_t rep, std::size_t evals) {
        const double b = traces[rep][evals - 1];
        return std::isfinite(b) ? sb.optimum_s / b : 0.0;
      };
      run.mean_fraction_curve.assign(max_budget, 0.0);
      std::vector<double> mean_best(max_budget, 0.0);
      for (std::size_t e = 1; e <= max_budget; ++e) {
        double f = 0, m = 0;
        for (std::size_t rep = 0; rep < repeats; ++rep) {
          f += fraction_at(rep, e);
          const double b = traces[rep][e - 1];
          m += std::isfinite(b) ? b : worst_ok;
        }
        run.mean_fraction_curve[e - 1] = f / static_cast<double>(repeats);
        mean_best[e - 1] = m / static_cast<double>(repeats);
      }
      for (std::size_t budget : report.options.budgets) {
        BudgetStats bs;
        bs.budget = budget;
        std::vector<double> fr(repeats);
        for (std::size_t rep = 0; rep < repeats; ++rep) fr[rep] = fraction_at(rep, budget);
        bs.mean_fraction =
            std::accumulate(fr.begin(), fr.end(), 0.0) / static_cast<double>(repeats);
        double var = 0;
        for (double f : fr) var += (f - bs.mean_fraction) * (f - bs.mean_fraction);
        bs.stddev_fraction = repeats > 1 ? std::sqrt(var / static_cast<double>(repeats - 1)) : 0;
        bs.stderr_fraction = bs.stddev_fraction / std::sqrt(static_cast<double>(repeats));
        bs.p10_fraction = quantile(fr, 0.1);
        bs.median_fraction = quantile(fr, 0.5);
        bs.p90_fraction = quantile(fr, 0.9);
        double sum = 0;
        std::size_t points = 0;
        for (std::size_t e = 1; e <= budget; ++e) {
          const double denom = random_best[e - 1] - sb.optimum_s;
          // As in the methodology, the curve ends where random search is
          // expected within 5% of the way from the median to the optimum:
          // beyond, the denominator is tiny and the ratio is noise.
          if (denom <= cutoff_gap) continue;
          sum += (random_best[e - 1] - mean_best[e - 1]) / denom;
          ++points;
        }
        bs.score = points ? sum / static_cast<double>(points) : 0.0;
        std::vector<double> cpu;
        for (std::size_t rep = 0; rep < costs.size(); ++rep)
          for (std::size_t i = 0; i < costs[rep].size(); ++i) {
            const ProposalCost& c = costs[rep][i];
            if (c.evaluations_before >= budget) break;
            if (i == 0) {
              bs.first_proposal_cpu_ms_max = std::max(bs.first_proposal_cpu_ms_max, c.cpu_ms);
              continue;
            }
            cpu.push_back(c.cpu_ms);
            if (c.cpu_ms > bs.proposal_cpu_ms_max) {
              bs.proposal_cpu_ms_max = c.cpu_ms;
              bs.proposal_cpu_ms_max_repeat = rep;
              bs.proposal_cpu_ms_max_evaluations = c.evaluations_before;
            }
          }
        bs.proposal_cpu_ms_median = quantile(cpu, 0.5);
        bs.proposal_cpu_ms_p99 = quantile(cpu, 0.99);
        bs.fractions = std::move(fr);
        run.budgets.push_back(std::move(bs));
      }
      for (double level : kReachLevels) {
        ReachStats rs;
        rs.level = level;
        rs.runs = repeats;
        double total = 0;
        for (std::size_t rep = 0; rep < repeats; ++rep)
          for (std::size_t e = 1; e <= max_budget; ++e)
            if (fraction_at(rep, e) >= level - 1e-12) {
              total += static_cast<double>(e);
              ++rs.reached;
              break;
            }
        rs.mean_evaluations = rs.reached ? total / static_cast<double>(rs.reached) : 0.0;
        run.reach.push_back(rs);
      }
      sb.runs.push_back(std::move(run));
    }
    for (std::size_t i = 0; i < sb.runs.size(); ++i)
      for (std::size_t j = i + 1; j < sb.runs.size(); ++j)
        for (std::size_t bi = 0; bi < report.options.budgets.size(); ++bi) {
          PairedComparison c =
              compare_paired(sb.runs[i].budgets[bi].fractions, sb.runs[j].budgets[bi].fractions);
          c.a = sb.runs[i].strategy;
          c.b = sb.runs[j].strategy;
          c.budget = report.options.budgets[bi];
          sb.comparisons.push_back(std::move(c));
        }
    report.spaces.push_back(std::move(sb));
  }
  return report;
}

std::string format_table(const StrategyBenchmarkReport& report) {
  std::ostringstream o;
  char line[512];
  for (const auto& sb : report.spaces) {
    o << "space " << sb.source << (sb.synthetic ? "  [SYNTHETIC]" : "") << "\n";
    std::snprintf(
        line, sizeof line,
        "  %s, family %s, device %s: %zu proposable configurations (%zu ok), optimum %.4g us\n",
        sb.format.c_str(), sb.family.c_str(), sb.device_name.empty() ? "?" : sb.device_name.c_str(),
        sb.proposable, sb.ok, sb.optimum_s * 1e6);
    o << line;
    std::snprintf(line, sizeof line, "  %-13s %7s  %-16s %6s  %-20s %7s  %-17s %8s\n", "strategy",
                  "budget", "fraction mean+-se", "sd", "p10 / median / p90", "random",
                  "minus random, 95%", "score");
    o << line;
    for (const auto& run : sb.runs)
      for (const auto& b : run.budgets) {
        const double random = sb.random_fraction_curve[b.budget - 1];
        // Random search's value is exact: the interval is the strategy's alone.
        const double diff = b.mean_fraction - random, half = 1.96 * b.stderr_fraction;
        std::snprintf(line, sizeof line,
                      "  %-13s %7zu  %6.3f +- %-6.3f %6.3f  %5.3f / %5.3f / %5.3f  %7.3f  %+6.3f "
                      "+- %-5.3f%s %7.3f\n",
                      run.strategy.c_str(), b.budget, b.mean_fraction, b.stderr_fraction,
                      b.stddev_fraction, b.p10_fraction, b.median_fraction, b.p90_fraction, random,
                      diff, half, diff - half > 0 ? "+" : (diff + half < 0 ? "-" : " "), b.score);
        o << line;
      }
    if (!sb.comparisons.empty()) {
      o << "  paired over seeds, a - b: mean +- 1.96 se ('+' a better, '-' worse with 95% "
           "confidence)\n";
      std::snprintf(line, sizeof line, "  %-27s", "a - b");
      o << line;
      for (std::size_t budget : report.options.budgets) {
        std::snprintf(line, sizeof line, " %17zu", budget);
        o << line;
      }
      o << "\n";
      for (std::size_t k = 0; k < sb.comparisons.size(); k += report.options.budgets.size()) {
        const std::string pair = sb.comparisons[k].a + " - " + sb.comparisons[k].b;
        std::snprintf(line, sizeof line, "  %-27s", pair.c_str());
        o << line;
        for (std::size_t bi = 0; bi < report.options.budgets.size(); ++bi) {
          const auto& c = sb.comparisons[k + bi];
          const int v = c.verdict();
          std::snprintf(line, sizeof line, " %+7.3f +- %5.3f%s", c.mean_difference,
                        1.96 * c.stderr_difference, v > 0 ? "+" : (v < 0 ? "-" : " "));
          o << line;
        }
        o << "\n";
      }
    }
    std::snprintf(line, sizeof line, "  %-13s %-18s %-18s %-18s %12s\n", "strategy", "evals to 90%",
                  "evals to 95%", "evals to 99%", "ms/proposal");
    o << line;
    {
      std::string cells[3];
      for (std::size_t i = 0; i < sb.random_reach.size() && i < 3; ++i) {
        char c[64];
        std::snprintf(c, sizeof c, "%.1f [%zu good]", sb.random_reach[i].mean_evaluations,
                      sb.random_reach[i].reached);
        cells[i] = c;
      }
      std::snprintf(line, sizeof line, "  %-13s %-18s %-18s %-18s %12s\n", "random exact",
                    cells[0].c_str(), cells[1].c_str(), cells[2].c_str(), "-");
      o << line;
    }
    for (const auto& run : sb.runs) {
      std::string cells[3];
      for (std::size_t i = 0; i < run.reach.size() && i < 3; ++i) {
        char c[64];
        if (run.reach[i].reached)
          std::snprintf(c, sizeof c, "%.1f (%zu/%zu)", run.reach[i].mean_evaluations,
                        run.reach[i].reached, run.reach[i].runs);
        else
          std::snprintf(c, sizeof c, "- (0/%zu)", run.reach[i].runs);
        cells[i] = c;
      }
      std::snprintf(line, sizeof line, "  %-13s %-18s %-18s %-18s %12.3f\n", run.strategy.c_str(),
                    cells[0].c_str(), cells[1].c_str(), cells[2].c_str(),
                    run.proposals ? 1e3 * run.seconds / static_cast<double>(run.proposals) : 0.0);
      o << line;
    }
    o << "\n";
  }
  if (report.spaces.size() > 1) {
    o << "mean methodology score over " << report.spaces.size() << " spaces\n";
    for (std::size_t si = 0; si < report.options.strategies.size(); ++si) {
      o << "  " << report.options.strategies[si];
      for (std::size_t bi = 0; bi < report.options.budgets.size(); ++bi) {
        double s = 0;
        for (const auto& sb : report.spaces) s += sb.runs[si].budgets[bi].score;
        char c[64];
        std::snprintf(c, sizeof c, "  @%zu: %.3f", report.options.budgets[bi],
                      s / static_cast<double>(report.spaces.size()));
        o << c;
      }
      o << "\n";
    }
  }
  return o.str();
}

nlohmann::json to_json(const StrategyBenchmarkReport& report) {
  nlohmann::json j;
  j["options"] = {{"strategies", report.options.strategies},
                  {"budgets", report.options.budgets},
                  {"repeats", report.options.repeats},
                  {"seed", report.options.seed},
                  {"batch", report.options.batch},
                  {"search_options", report.options.search_options.to_json()}};
  j["score_definition"] =
      "mean over evaluations 1..budget of (E[random best] - mean strategy best) / (E[random best] "
      "- optimum), "
      "over the evaluations where E[random best] - optimum > 5% of (median - optimum); failures "
      "count as the "
      "worst ok time";
  nlohmann::json spaces = nlohmann::json::array();
  for (const auto& sb : report.spaces) {
    nlohmann::json s{{"source", sb.source},
                     {"family", sb.family},
                     {"device", sb.device_name},
                     {"format", sb.format},
                     {"synthetic", sb.synthetic},
                     {"proposable", sb.proposable},
                     {"ok", sb.ok},
                     {"optimum_s", sb.optimum_s},
                     {"random_fraction_curve", sb.random_fraction_curve}};
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& run : sb.runs) {
      nlohmann::json r{{"strategy", run.strategy},
                       {"seconds", run.seconds},
                       {"proposals", run.proposals},
                       {"mean_fraction_curve", run.mean_fraction_curve}};
      for (const auto& b : run.budgets)
        r["budgets"].push_back(
            {{"budget", b.budget},
             {"mean_fraction", b.mean_fraction},
             {"stddev_fraction", b.stddev_fraction},
             {"stderr_fraction", b.stderr_fraction},
             {"p10_fraction", b.p10_fraction},
             {"median_fraction", b.median_fraction},
             {"p90_fraction", b.p90_fraction},
             {"random_mean_fraction", sb.random_fraction_curve[b.budget - 1]},
             {"score", b.score},
             {"proposal_cpu_ms_median", b.proposal_cpu_ms_median},
             {"proposal_cpu_ms_p99", b.proposal_cpu_ms_p99},
             {"proposal_cpu_ms_max", b.proposal_cpu_ms_max},
             {"proposal_cpu_ms_max_repeat", b.proposal_cpu_ms_max_repeat},
             {"proposal_cpu_ms_max_evaluations", b.proposal_cpu_ms_max_evaluations},
             {"first_proposal_cpu_ms_max", b.first_proposal_cpu_ms_max},
             {"fractions", b.fractions}});
      for (const auto& rs : run.reach)
        r["reach"].push_back({{"level", rs.level},
                              {"mean_evaluations", rs.mean_evaluations},
                              {"reached", rs.reached},
                              {"runs", rs.runs}});
      runs.push_back(std::move(r));
    }
    for (const auto& rs : sb.random_reach)
      s["random_reach_exact"].push_back({{"level", rs.level},
                                         {"mean_evaluations", rs.mean_evaluations},
                                         {"configurations_at_level", rs.reached}});
    s["strategies"] = std::move(runs);
    for (const auto& c : sb.comparisons)
      s["paired_comparisons"].push_back({{"a", c.a},
                                         {"b", c.b},
                                         {"budget", c.budget},
                                         {"mean_difference", c.mean_difference},
                                         {"stderr_difference", c.stderr_difference},
                                         {"ci95", {c.low(), c.high()}}});
    spaces.push_back(std::move(s));
  }
  j["spaces"] = std::move(spaces);
  return j;
}

std::string render_svg(const StrategyBenchmarkReport& report) {
  static const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                   "#ff7f0e", "#8c564b", "#e377c2"};
  const double w = 720, panel_h = 340, left = 60, right = 170, top = 40, bottom = 45;
  const double h = panel_h * static_cast<double>(std::max<std::size_t>(1, report.spaces.size()));
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
       "fill=\"white\"/>\n";
  auto escape = [](const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '<')
        out += "&lt;";
      else if (c == '>')
        out += "&gt;";
      else if (c == '&')
        out += "&amp;";
      else
        out += c;
    }
    return out;
  };
  for (std::size_t si = 0; si < report.spaces.size(); ++si) {
    const auto& sb = report.spaces[si];
    const double y0 = panel_h * static_cast<double>(si);
    const double pw = w - left - right, ph = panel_h - top - bottom;
    const std::size_t n = sb.random_fraction_curve.size();
    auto px = [&](std::size_t e) {
      return left + pw * (n > 1 ? static_cast<double>(e - 1) / static_cast<double>(n - 1) : 0.0);
    };
    auto py = [&](double f) { return y0 + top + ph * (1.0 - std::clamp(f, 0.0, 1.0)); };
    o << "<text x=\"" << left << "\" y=\"" << y0 + 22 << "\" font-size=\"13\">"
      << escape((sb.synthetic ? "[SYNTHETIC] " : "") + sb.family + " on " +
                (sb.device_name.empty() ? "?" : sb.device_name) + " (" + sb.format + ", " +
                std::to_string(sb.proposable) + " configs)")
      << "</text>\n";
    o << "<rect x=\"" << left << "\" y=\"" << y0 + top << "\" width=\"" << pw << "\" height=\""
      << ph << "\" fill=\"none\" stroke=\"#444\"/>\n";
    for (int t = 0; t <= 5; ++t) {
      const double f = t / 5.0;
      o << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << py(f) << "\" y2=\""
        << py(f) << "\" stroke=\"#ddd\"/><text x=\"" << left - 6 << "\" y=\"" << py(f) + 4
        << "\" text-anchor=\"end\">" << f << "</text>\n";
    }
    for (std::size_t b : report.options.budgets)
      if (b >= 1 && b <= n)
        o << "<text x=\"" << px(b) << "\" y=\"" << y0 + top + ph + 16
          << "\" text-anchor=\"middle\">" << b << "</text>\n";
    o << "<text x=\"" << left + pw / 2 << "\" y=\"" << y0 + panel_h - 8
      << "\" text-anchor=\"middle\">evaluations (failures count)</text>\n";
    o << "<text x=\"14\" y=\"" << y0 + top + ph / 2 << "\" transform=\"rotate(-90 14 "
      << y0 + top + ph / 2 << ")\" text-anchor=\"middle\">mean t_opt / t_best</text>\n";
    auto polyline = [&](const std::vector<double>& curve, const char* colour, bool dashed) {
      o << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.8\""
        << (dashed ? " stroke-dasharray=\"6 4\"" : "") << " points=\"";
      for (std::size_t e = 1; e <= curve.size(); ++e) o << px(e) << "," << py(curve[e - 1]) << " ";
      o << "\"/>\n";
    };
    polyline(sb.random_fraction_curve, "#777", true);
    double ly = y0 + top + 10;
    o << "<line x1=\"" << left + pw + 12 << "\" x2=\"" << left + pw + 36 << "\" y1=\"" << ly
      << "\" y2=\"" << ly
      << "\" stroke=\"#777\" stroke-dasharray=\"6 4\" stroke-width=\"1.8\"/><text x=\""
      << left + pw + 42 << "\" y=\"" << ly + 4 << "\">random (exact)</text>\n";
    for (std::size_t ri = 0; ri < sb.runs.size(); ++ri) {
      const char* colour = kColours[ri % (sizeof kColours / sizeof *kColours)];
      polyline(sb.runs[ri].mean_fraction_curve, colour, false);
      ly += 18;
      o << "<line x1=\"" << left + pw + 12 << "\" x2=\"" << left + pw + 36 << "\" y1=\"" << ly
        << "\" y2=\"" << ly << "\" stroke=\"" << colour << "\" stroke-width=\"1.8\"/><text x=\""
        << left + pw + 42 << "\" y=\"" << ly + 4 << "\">" << escape(sb.runs[ri].strategy)
        << "</text>\n";
    }
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace ktune
