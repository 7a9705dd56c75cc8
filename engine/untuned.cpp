// The untuned choices of a tune (lookup's answer, family's default) and the
// run's best compared with them.
#include "engine/untuned.hpp"

#include <cstdio>
#include <filesystem>

#include "engine/tune_job.hpp"
#include "lookup/lookup_predictor.hpp"
#include "lookup/lookup_validity.hpp"

namespace ktune {
namespace {

/// What `ktune lookup` checks a served configuration against: the family's
/// space for the problem on the device; for a replay, whose results carry
/// the recording's template hash, as for `ktune lookup --hash` (a knob the
/// recorded text lacked counts at its default). Unset when the family or
/// the device's architecture is unknown, or the family cannot serve the
/// problem there: the job's own space still judges the answer.
std::function<bool(const Config&)> lookup_fits(const PreparedTune& job) {
  if (!job.family || job.device.cc_major == 0) return {};
  try {
    return job.recording ? other_version_validator(*job.family, job.problem, job.device)
                         : space_validator(*job.family, job.problem, job.device);
  } catch (const std::exception&) {
    return {};
  }
}

std::optional<Config> family_default(const PreparedTune& job) {
  if (!job.family) return std::nullopt;
  try {
    return job.family->default_config(job.problem, job.device);
  } catch (const std::exception&) {
    return std::nullopt;  // a device the family cannot describe: no default to compare with
  }
}

std::string format_ratio(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

}  // namespace

UntunedLookup::UntunedLookup(const std::vector<std::string>& paths) {
  std::vector<std::string> layers;
  for (const std::string& p : paths)
    if (!p.empty() && std::filesystem::exists(p)) layers.push_back(p);
  if (layers.empty()) return;
  try {
    auto lookup = std::make_unique<Lookup>(Lookup::open_layers(layers));
    lookup->set_predictor(CostModelPredictor::from_databases(layers));
    lookup_ = std::move(lookup);
  } catch (const std::exception& e) {
    open_error_ = e.what();
  }
}

UntunedLookup::UntunedLookup(UntunedLookup&&) noexcept = default;
UntunedLookup::~UntunedLookup() = default;

std::optional<LookupAnswer> UntunedLookup::answer(const PreparedTune& job) const {
  if (!lookup_) return std::nullopt;
  LookupRequest request;
  request.family = job.key.family;
  request.problem = job.problem;
  request.device = job.device.name;
  if (job.device.cc_major > 0) request.arch = job.device.arch();
  request.shape_keys = job.key.shape_keys;
  request.shape_class = job.key.shape_class;
  request.family_hash = job.key.family_hash;
  request.fits = lookup_fits(job);
  request.objective = job.spec.options.objective;
  std::shared_ptr<const LookupAnswer> answer = lookup_->best(request);
  if (!answer || answer->source == LookupSource::default_config) return std::nullopt;
  return *answer;
}

void choose_untuned(PreparedTune& job, const UntunedLookup* lookup) {
  std::vector<std::string>& notes = job.untuned_notes;
  notes.clear();
  std::vector<UntunedChoice> candidates;
  if (std::optional<Config> c = family_default(job)) candidates.push_back({kTheDefault, "", *c});
  if (lookup && !lookup->open_error().empty())
    notes.push_back("the lookup's databases could not be read (" + lookup->open_error() +
                    "): no answer of theirs");
  if (lookup) {
    try {
      if (std::optional<LookupAnswer> a = lookup->answer(job))
        candidates.push_back({kTheLookupsAnswer, std::string(to_string(a->source)), a->config});
    } catch (const std::exception& e) {
      // The tune does not depend on the lookup: it goes on without its answer.
      notes.push_back(std::string("the lookup could not answer: ") + e.what());
    }
  }

  job.untuned.clear();
  for (UntunedChoice& choice : candidates) {
    std::string why;
    if (job.space->is_valid(choice.config, &why))
      job.untuned.push_back(std::move(choice));
    else
      notes.push_back(choice.name + " " + choice.config.key() + " is not in this run's space (" +
                      why + "): not evaluated");
  }
  std::vector<Config> start;
  for (const UntunedChoice& choice : job.untuned) start.push_back(choice.config);
  for (Config& c : start_configs(*job.space, job.spec.start)) start.push_back(std::move(c));
  job.spec.options.start_configs = std::move(start);  // the tuner skips repeats
}

void print_untuned_plan(std::ostream& out, const PreparedTune& job) {
  std::string first;
  for (std::size_t i = 0; i < job.untuned.size(); ++i) {
    const UntunedChoice& c = job.untuned[i];
    const bool repeat = i > 0 && job.untuned[0].config == c.config;  // evaluated once
    first += (first.empty() ? "" : ", ") + c.name +
             (c.source.empty() ? "" : " (" + c.source + ")") +
             (repeat ? ", the same configuration" : " " + c.config.key());
  }
  if (!first.empty())
    out << "  evaluated first, as what a user gets without tuning: " << first << "\n";
  for (const std::string& note : job.untuned_notes) out << "  note: " << note << "\n";
}

std::vector<UntunedComparison> compare_to_untuned(const PreparedTune& job,
                                                  const TuneReport& report) {
  const Objective objective = job.spec.options.objective;
  std::vector<UntunedComparison> out;
  for (const UntunedChoice& choice : job.untuned) {
    UntunedComparison c{choice, std::nullopt, std::nullopt};
    const std::string key = choice.config.key();
    for (const auto* list : {&report.reused, &report.measured})
      for (const Result& r : *list)
        if (r.config.key() == key) c.result = r;
    if (c.result && report.best) {
      std::optional<double> mine = objective_value(*c.result, objective);
      std::optional<double> best = objective_value(*report.best, objective);
      if (mine && best && *best > 0) c.ratio = *mine / *best;
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string describe_untuned(const std::vector<UntunedComparison>& comparisons,
                             Objective objective) {
  std::string ratios, others;
  for (const UntunedComparison& c : comparisons) {
    if (c.ratio) {
      ratios += (ratios.empty() ? "best " : ", ") + format_ratio(*c.ratio) + " " + c.choice.label();
      continue;
    }
    std::string why = !c.result         ? "not evaluated"
                      : !c.result->ok() ? std::string(to_string(c.result->status))
                                        : "without " + std::string(to_string(objective));
    others += "; " + c.choice.label() + " " + why;
  }
  if (!ratios.empty() && objective != Objective::time)
    ratios += " (by " + std::string(to_string(objective)) + ")";
  if (ratios.empty() && !others.empty()) others.erase(0, 2);
  return ratios + others;
}

}  // namespace ktune
