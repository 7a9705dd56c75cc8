// Factories of the built-in strategies (internal to search/; users call
// make_searcher by name).
#pragma once

#include <memory>

#include "search/searcher_base.hpp"

namespace ktune::detail {

std::unique_ptr<Searcher> make_random_searcher(const SearchContext& context);
std::unique_ptr<Searcher> make_exhaustive_searcher(const SearchContext& context);
std::unique_ptr<Searcher> make_evolutionary_searcher(const SearchContext& context);
/// acquisition: "ei" or "lcb" (overrides context.options["acquisition"]).
std::unique_ptr<Searcher> make_bayes_searcher(const SearchContext& context,
                                              std::string_view acquisition);
std::unique_ptr<Searcher> make_model_searcher(const SearchContext& context);
std::unique_ptr<Searcher> make_auto_searcher(const SearchContext& context);
/// Wraps `inner` so that it minimises the search option objective=time
/// (default: inner itself), energy or edp. Throws std::invalid_argument for
/// another name.
std::unique_ptr<Searcher> with_objective(std::unique_ptr<Searcher> inner,
                                         const SearchContext& context);
/// The value of `objective` ("time", "energy", "edp") for an ok result;
/// throws std::invalid_argument when energy is asked for and r has none.
double objective_value(const Result& r, std::string_view objective);

/// Integer option by name, or the fallback.
std::int64_t option_int(const SearchContext& context, std::string_view name, std::int64_t fallback);
/// Numeric option by name (an integer or a real), or the fallback.
double option_number(const SearchContext& context, std::string_view name, double fallback);
std::string option_text(const SearchContext& context, std::string_view name, std::string fallback);

}  // namespace ktune::detail
