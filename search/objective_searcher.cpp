// The objective a search minimises (search option objective=time|energy|edp):
// a view that hands the wrapped strategy results whose time is the chosen
// objective, so every strategy optimises it without knowing. Energy is the
// result's metrics["energy_j"] (joules per launch, over the timed launches);
// EDP is energy x median time. The results the caller stores are untouched.
#include <stdexcept>

#include "search/strategies.hpp"
#include "space/objective.hpp"

namespace ktune::detail {
namespace {

class ObjectiveSearcher final : public Searcher {
 public:
  ObjectiveSearcher(std::unique_ptr<Searcher> inner, std::string objective)
      : inner_(std::move(inner)), objective_(std::move(objective)) {}
  std::string_view name() const override { return inner_->name(); }
  std::vector<Config> propose(std::size_t count) override { return inner_->propose(count); }
  void observe(std::span<const Result> results) override {
    const auto view = as_objective(results);
    inner_->observe(view);
  }
  void observe_prior(std::span<const Result> results) override {
    const auto view = as_objective(results);
    inner_->observe_prior(view);
  }

 private:
  std::vector<Result> as_objective(std::span<const Result> results) const {
    std::vector<Result> out(results.begin(), results.end());
    for (auto& r : out)
      if (r.ok()) r.time.median_s = r.time.min_s = r.time.max_s = objective_value(r, objective_);
    return out;
  }

  std::unique_ptr<Searcher> inner_;
  std::string objective_;
};

}  // namespace

double objective_value(const Result& r, std::string_view objective) {
  const Objective o = objective_from_string(objective);
  if (o == Objective::time) return r.time.median_s;
  const std::optional<double> value = ktune::objective_value(r, o);
  if (!value)
    throw std::invalid_argument("objective " + std::string(objective) + ": the result of " +
                                r.config.key() + " carries no energy (metrics.energy_j)");
  return *value;
}

std::unique_ptr<Searcher> with_objective(std::unique_ptr<Searcher> inner,
                                         const SearchContext& context) {
  const std::string objective = option_text(context, "objective", "time");
  if (objective != "time" && objective != "energy" && objective != "edp")
    throw std::invalid_argument("search option 'objective' must be time, energy or edp, not '" +
                                objective + "'");
  if (objective == "time") return inner;
  return std::make_unique<ObjectiveSearcher>(std::move(inner), objective);
}

}  // namespace ktune::detail
