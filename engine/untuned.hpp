// Untuned: what a user runs for a problem without tuning it (the lookup's
// answer and the family's default). Every tune evaluates them first, so its
// best is never slower than either, and reports the best's ratio over them.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "db/lookup.hpp"
#include "engine/tuner.hpp"

namespace ktune {

struct PreparedTune;

/// The names of the untuned choices.
inline constexpr const char* kTheDefault = "the default";
inline constexpr const char* kTheLookupsAnswer = "the lookup's answer";

/// One configuration a user would run without tuning.
struct UntunedChoice {
  std::string name;    ///< kTheDefault or kTheLookupsAnswer
  std::string source;  ///< where the lookup's answer came from ("nearest"); empty for the default
  Config config;
  /// For the summary: "the default (BLOCK_M=...)", "the lookup's answer (nearest)".
  std::string label() const { return name + " (" + (source.empty() ? config.key() : source) + ")"; }
};

/// The lookup a tune consults, as `ktune lookup` answers by default: the
/// databases in precedence order (the user's over the system one; paths that
/// do not exist are skipped) with the cost-model predictor. Opened once (a
/// sweep asks it for every item): it answers from what the databases held
/// when it was opened.
class UntunedLookup {
 public:
  /// A database that cannot be read leaves the lookup without answers
  /// (open_error() says why): a tune does not depend on it.
  explicit UntunedLookup(const std::vector<std::string>& paths);
  UntunedLookup(UntunedLookup&&) noexcept;
  ~UntunedLookup();

  /// The lookup's measured or predicted answer for the job's problem on its
  /// device, under its objective and template hash (the recording's, for a
  /// replay); nullopt when the databases have none (the family's default is
  /// not an answer here: the tune evaluates it anyway).
  std::optional<LookupAnswer> answer(const PreparedTune& job) const;
  /// Why the databases could not be opened; empty when they were (or none exists).
  const std::string& open_error() const { return open_error_; }

 private:
  std::unique_ptr<Lookup> lookup_;  ///< null: none of the paths exists, or opening failed
  std::string open_error_;
};

/// Sets the job's untuned choices (PreparedTune::untuned): the family's
/// default (none for a foreign recording) and the lookup's answer (`lookup`
/// may be null: none), in that order, and makes them its first start
/// configurations, before the user's (TuneSpec::start). prepare_tune calls
/// it without a lookup; calling it again replaces the choices. A choice the
/// job's (sub-)space rules out is left out, with one line in
/// PreparedTune::untuned_notes saying so.
void choose_untuned(PreparedTune& job, const UntunedLookup* lookup);

/// Lines for a run's plan, each starting with two spaces: which untuned
/// choices are evaluated first (with their keys) and the notes on those left
/// out. Nothing when there are neither.
void print_untuned_plan(std::ostream& out, const PreparedTune& job);

/// How the run's best compares with one untuned choice.
struct UntunedComparison {
  UntunedChoice choice;
  /// Its result in this run (measured, or reused from the database); empty
  /// when it was not evaluated (the budget ran out first, or a replay had
  /// not recorded it).
  std::optional<Result> result;
  /// The choice's objective value over the best's (>= 1: the best is at
  /// least as good); empty unless both have one.
  std::optional<double> ratio;
};

/// One comparison per choice (PreparedTune::untuned) against report.best.
std::vector<UntunedComparison> compare_to_untuned(const PreparedTune& job,
                                                  const TuneReport& report);

/// "best 1.23x the default (BLOCK_M=...), 1.05x the lookup's answer
/// (predicted)", then each choice without a ratio and why ("; the default
/// (...) not evaluated"); under energy or edp, "(by energy)". Empty for no
/// comparisons.
std::string describe_untuned(const std::vector<UntunedComparison>& comparisons,
                             Objective objective);

}  // namespace ktune
