// make_searcher and searcher_names: the strategies by name, and the options each reads.
#include <algorithm>
#include <stdexcept>

#include "search/strategies.hpp"
#include "space/name_list.hpp"

namespace ktune {
namespace detail {

std::int64_t option_int(const SearchContext& context, std::string_view name,
                        std::int64_t fallback) {
  if (!context.options.contains(name)) return fallback;
  try {
    return context.options.integer(name);
  } catch (const std::exception&) {
    throw std::invalid_argument("search option '" + std::string(name) + "' must be an integer");
  }
}

double option_number(const SearchContext& context, std::string_view name, double fallback) {
  if (!context.options.contains(name)) return fallback;
  try {
    return as_number(context.options.at(name));
  } catch (const std::exception&) {
    throw std::invalid_argument("search option '" + std::string(name) + "' must be a number");
  }
}

std::string option_text(const SearchContext& context, std::string_view name, std::string fallback) {
  if (!context.options.contains(name)) return fallback;
  return to_text(context.options.at(name));
}

}  // namespace detail

std::vector<std::string> searcher_names() {
  return {"auto", "random", "exhaustive", "evolutionary", "bayes", "bayes-lcb", "model"};
}

namespace {

std::unique_ptr<Searcher> make_named(std::string_view name, const SearchContext& context) {
  if (name == "auto") return detail::make_auto_searcher(context);
  if (name == "random") return detail::make_random_searcher(context);
  if (name == "exhaustive") return detail::make_exhaustive_searcher(context);
  if (name == "evolutionary") return detail::make_evolutionary_searcher(context);
  if (name == "bayes")
    return detail::make_bayes_searcher(context, detail::option_text(context, "acquisition", "ei"));
  if (name == "bayes-lcb") return detail::make_bayes_searcher(context, "lcb");
  if (name == "model") return detail::make_model_searcher(context);
  throw std::invalid_argument("unknown search strategy '" + std::string(name) +
                              "' (known: " + name_list(searcher_names()) + ")");
}

}  // namespace

std::unique_ptr<Searcher> make_searcher(std::string_view name, const SearchContext& context) {
  return detail::with_objective(make_named(name, context), context);
}

std::vector<std::string> search_option_names(std::string_view strategy) {
  // Read by every strategy (SearcherBase, with_objective).
  std::vector<std::string> names = {"objective", "design"};
  auto add = [&names](std::initializer_list<const char*> more) {
    names.insert(names.end(), more.begin(), more.end());
  };
  auto add_gp = [&add] {
    add({"initial", "pool", "max_train", "fit_points", "fit_slice", "batch", "feasibility",
         "divisibility"});
  };
  auto add_evolutionary = [&add] {
    add({"population", "tournament", "screen", "patience", "knn", "mutation_tail"});
  };
  if (strategy == "bayes" || strategy == "model") {  // model without a cost model: bayes
    add({"acquisition"});
    add_gp();
  }
  if (strategy == "bayes-lcb") add_gp();  // its acquisition is fixed
  if (strategy == "evolutionary") add_evolutionary();
  if (strategy == "auto") {
    add({"acquisition", "stall", "gp_min", "gp_share", "gp_regain"});
    add_gp();
    add_evolutionary();
  }
  const auto known = searcher_names();
  if (std::find(known.begin(), known.end(), strategy) == known.end())
    make_named(strategy, SearchContext{});  // throws, naming the known strategies
  return names;
}

void check_search_options(const std::vector<std::string>& strategies, const ValueMap& options) {
  std::vector<std::string> read;
  for (const std::string& s : strategies)
    for (std::string& n : search_option_names(s)) read.push_back(std::move(n));
  for (const auto& [name, value] : options) {
    if (std::find(read.begin(), read.end(), name) != read.end()) continue;
    std::sort(read.begin(), read.end());
    read.erase(std::unique(read.begin(), read.end()), read.end());
    throw std::invalid_argument("unknown search option '" + name + "' for " +
                                name_list(strategies) + " (they read: " + name_list(read) + ")");
  }
}

}  // namespace ktune
