// StoreLog: the tuning loop's view of the database under one RunKey, and its
// warm-start priors (best results of related runs).
// (Apart from tuner.cpp so that the loop links without the SQLite store.)
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "db/query.hpp"
#include "engine/tuner.hpp"

namespace ktune {

StoreLog::StoreLog(Store& store, RunKey key, Provenance provenance)
    : store_(store), key_(std::move(key)), provenance_(std::move(provenance)) {}

std::vector<Result> StoreLog::stored() const { return store_.results(key_); }

void StoreLog::append_batch(std::span<const Result> batch) { store_.record(key_, batch, provenance_); }

namespace {

/// log2-space distance over the shape keys both problems have as positive numbers.
double shape_distance(const Problem& a, const Problem& b, const std::vector<std::string>& keys) {
  double sum = 0;
  for (const std::string& k : keys) {
    if (!a.contains(k) || !b.contains(k)) continue;
    try {
      double x = as_number(a.at(k)), y = as_number(b.at(k));
      if (x > 0 && y > 0) sum += std::pow(std::log2(x) - std::log2(y), 2);
    } catch (const std::invalid_argument&) {
    }
  }
  return std::sqrt(sum);
}

}  // namespace

std::vector<Result> StoreLog::warm_start_prior(std::size_t limit) const {
  BestQuery query;
  query.family = key_.family;
  query.family_hash = key_.family_hash;
  std::vector<BestRow> rows = best_per_problem(store_, query);

  const std::string problem_key = key_.problem.key();
  const std::string arch = key_.device.arch();
  struct Candidate {
    int device_rank;  // 0 same GPU, 1 same arch, 2 another arch
    double distance;
    const BestRow* row;
  };
  std::vector<Candidate> candidates;
  for (const BestRow& row : rows) {
    if (row.device == key_.device.name && row.problem_key == problem_key) continue;  // resume's business
    // A configuration transfers only within a shape class (dtype, layout, ...).
    if (!key_.shape_class.empty() && !row.shape_class.empty() && row.shape_class != key_.shape_class) continue;
    int rank = row.device == key_.device.name ? 0 : row.arch == arch ? 1 : 2;
    candidates.push_back({rank, shape_distance(row.problem, key_.problem, key_.shape_keys), &row});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.distance != b.distance) return a.distance < b.distance;
    return a.device_rank < b.device_rank;
  });
  std::vector<Result> out;
  std::unordered_set<std::string> seen;
  for (const Candidate& c : candidates) {
    if (out.size() >= limit) break;
    if (!seen.insert(c.row->config_key).second) continue;
    Result r;
    r.config = c.row->config;
    r.status = Status::ok;
    r.time.median_s = c.row->median_s;
    r.tflops = c.row->tflops;
    r.gbps = c.row->gbps;
    r.message = "measured on " + c.row->device + " for " + c.row->problem_key;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ktune
