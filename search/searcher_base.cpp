// SearcherBase: shared bookkeeping and the source of unseen candidates;
// warm_start.
#include "search/searcher_base.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <Eigen/Core>

namespace ktune {
namespace detail {

double objective(const Result& r) {
  return r.ok() ? r.time.median_s : std::numeric_limits<double>::infinity();
}

SearcherBase::SearcherBase(const SearchContext& context)
    : rng_(context.seed),
      context_(context),
      listing_(context.listing ? context.listing : std::make_shared<SpaceListing>()) {
  if (!context_.space) throw std::invalid_argument("searcher: the search context has no space");
  if (context_.options.contains("design")) {
    const std::string design = to_text(context_.options.at("design"));
    if (design != "spread" && design != "uniform")
      throw std::invalid_argument("search option 'design' must be 'spread' or 'uniform', not '" + design + "'");
    spread_designs_ = design == "spread";
  }
}

void SearcherBase::observe(std::span<const Result> results) {
  for (const auto& r : results) {
    const std::string key = r.config.key();
    seen_.insert(key);
    auto it = observed_.find(key);
    if (it != observed_.end()) {
      // A repeated observation replaces the old one only if it brings a time.
      Result& old = history_[it->second];
      if (r.ok() && (!old.ok() || r.time.median_s < old.time.median_s)) old = r;
      continue;
    }
    observed_.emplace(key, history_.size());
    history_.push_back(r);
    on_observed(history_.back());
  }
}

const PositionListing* SearcherBase::listing() {
  if (!listing_->tried) {
    listing_->tried = true;
    if (space().cartesian_size() <= kEnumerateLimit) listing_->positions = space().list_positions();
  }
  return listing_->positions ? &*listing_->positions : nullptr;
}

std::vector<Config> SearcherBase::sample_unseen(std::size_t n) {
  std::vector<Config> out;
  std::unordered_set<std::string> picked;
  if (const auto* all = listing()) {
    if (all->empty()) return out;
    // Rejection first (cheap while most is unseen), then a scan of the rest.
    std::uniform_int_distribution<std::size_t> pick(0, all->size() - 1);
    for (std::size_t tries = 0; out.size() < n && tries < 4 * n + 32; ++tries) {
      Config c = space().config_at(all->row(pick(rng_)));
      const std::string key = c.key();
      if (!seen_.count(key) && picked.insert(key).second) out.push_back(std::move(c));
    }
    if (out.size() < n) {
      std::vector<std::size_t> rest;
      for (std::size_t i = 0; i < all->size(); ++i) {
        const std::string key = space().config_at(all->row(i)).key();
        if (!seen_.count(key) && !picked.count(key)) rest.push_back(i);
      }
      std::shuffle(rest.begin(), rest.end(), rng_);
      for (std::size_t i = 0; i < rest.size() && out.size() < n; ++i)
        out.push_back(space().config_at(all->row(rest[i])));
    }
    return out;
  }
  // Large space: ask Space::sample for fresh draws a few times. Its draws
  // come in a fixed order for a seed, so asking for a few more than are
  // missing takes the same first ones as asking for twice as many did, at
  // half the cost (the pool of a GP proposal on the gemm family's space).
  for (int round = 0; round < 8 && out.size() < n; ++round) {
    const std::size_t missing = n - out.size();
    const auto batch =
        space().sample(missing + missing / 8 + 8, context_.seed * 1000003ULL + ++sample_round_);
    for (const auto& c : batch) {
      const std::string key = c.key();
      if (!seen_.count(key) && picked.insert(key).second) out.push_back(c);
      if (out.size() == n) break;
    }
  }
  return out;
}

std::vector<Config> SearcherBase::space_filling_unseen(std::size_t n, std::size_t pool) {
  std::vector<Config> cand = sample_unseen(std::max(pool, n));
  // When the design (what was measured plus these n) takes a large share of
  // the space, spreading it only favours whatever the geometry favours (the
  // ends of a single knob, say): a uniform draw is the honest design then.
  if (!spread_designs_ || cand.size() < 10 * (history_.size() + n)) {
    if (cand.size() > n) cand.resize(n);
    return cand;
  }
  const int dims = space().encoded_size();
  const auto m = static_cast<Eigen::Index>(cand.size());
  Eigen::MatrixXd x(m, dims);
  for (Eigen::Index i = 0; i < m; ++i) x.row(i) = space().encode(cand[static_cast<std::size_t>(i)]).transpose();
  // Distance of each candidate to the nearest chosen or observed point.
  Eigen::VectorXd nearest = Eigen::VectorXd::Constant(m, std::numeric_limits<double>::infinity());
  auto account = [&](const Eigen::VectorXd& p) {
    nearest = nearest.cwiseMin((x.rowwise() - p.transpose()).rowwise().squaredNorm());
  };
  for (const auto& r : history_) account(space().encode(r.config));
  std::vector<Config> out;
  // Mitchell's best candidate: each pick is the farthest of a few random
  // unused candidates (a full maximin would crowd the corners of the space,
  // where kernels are rarely at their best).
  std::vector<Eigen::Index> unused(static_cast<std::size_t>(m));
  std::iota(unused.begin(), unused.end(), 0);
  while (out.size() < n) {
    Eigen::Index pick = -1;
    double best = -1;
    const std::size_t tries = history_.empty() && out.empty() ? 1 : 4;
    for (std::size_t t = 0; t < tries && t < unused.size(); ++t) {
      const std::size_t j = std::uniform_int_distribution<std::size_t>(t, unused.size() - 1)(rng_);
      std::swap(unused[t], unused[j]);
      if (nearest(unused[t]) > best) {
        best = nearest(unused[t]);
        pick = unused[t];
      }
    }
    unused.erase(std::find(unused.begin(), unused.end(), pick));
    out.push_back(cand[static_cast<std::size_t>(pick)]);
    account(x.row(pick).transpose());
  }
  return out;
}

std::vector<Config> SearcherBase::unseen_neighbours(const Config& c) const {
  std::vector<Config> out;
  for (auto& nb : space().neighbours(c))
    if (!seen(nb)) out.push_back(std::move(nb));
  return out;
}

void SearcherBase::observe_prior(std::span<const Result> results) {
  for (const auto& r : results)
    if (r.ok()) prior_.push_back(r);
  std::stable_sort(prior_.begin(), prior_.end(),
                   [](const Result& a, const Result& b) { return a.time.median_s < b.time.median_s; });
}

std::vector<Config> SearcherBase::take_prior_hints(std::size_t n) {
  std::vector<Config> out;
  while (out.size() < n && prior_cursor_ < prior_.size()) {
    const Config& c = prior_[prior_cursor_++].config;
    if (!seen(c) && space().is_valid(c)) out.push_back(c);
  }
  return out;
}

std::vector<std::size_t> SearcherBase::ok_by_time() const {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < history_.size(); ++i)
    if (history_[i].ok()) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return history_[a].time.median_s < history_[b].time.median_s;
  });
  return idx;
}

}  // namespace detail

std::size_t warm_start(Searcher& searcher, const Space& space, std::span<const Result> prior) {
  std::unordered_map<std::string, Result> best;
  for (const auto& r : prior) {
    if (!r.ok() || !space.is_valid(r.config)) continue;
    auto [it, inserted] = best.emplace(r.config.key(), r);
    if (!inserted && r.time.median_s < it->second.time.median_s) it->second = r;
  }
  std::vector<Result> used;
  for (auto& [key, r] : best) used.push_back(std::move(r));
  std::sort(used.begin(), used.end(), [](const Result& a, const Result& b) {
    return a.time.median_s < b.time.median_s ||
           (a.time.median_s == b.time.median_s && a.config.key() < b.config.key());
  });
  searcher.observe_prior(used);
  return used.size();
}

}  // namespace ktune
