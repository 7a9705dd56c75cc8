// make_searcher and searcher_names: the strategies by name.
#include <stdexcept>

#include "search/strategies.hpp"

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
  std::string known;
  for (const auto& n : searcher_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown search strategy '" + std::string(name) +
                              "' (known: " + known + ")");
}

}  // namespace

std::unique_ptr<Searcher> make_searcher(std::string_view name, const SearchContext& context) {
  return detail::with_objective(make_named(name, context), context);
}

}  // namespace ktune
