// The search options each strategy reads (search_option_names) and the check
// that refuses an option no strategy of a run reads, instead of ignoring a
// typo in silence. On a small SYNTHETIC space.
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "search/searcher.hpp"

namespace ktune {
namespace {

Space small_space() {
  Space s;
  s.add(Parameter::int_range("x", 0, 9, 1, 0));
  s.add(Parameter::pow2_range("y", 1, 64, 1));
  s.add(Parameter::categorical("mode", {"a", "b"}, "a"));
  return s;
}

// Each listed option is read: a value that is no integer (for the integer
// options) and no choice (for the others) makes the strategy refuse to start.
TEST(SearchOptions, EveryListedOptionIsReadByItsStrategy) {
  const Space space = small_space();
  for (const std::string& strategy : searcher_names()) {
    for (const std::string& name : search_option_names(strategy)) {
      SearchContext ctx;
      ctx.space = &space;
      ctx.options.set(name, std::string("not-a-value"));
      EXPECT_THROW(make_searcher(strategy, ctx), std::invalid_argument) << strategy << " " << name;
    }
    SearchContext plain;
    plain.space = &space;
    EXPECT_NO_THROW(make_searcher(strategy, plain)) << strategy;
  }
}

TEST(SearchOptions, AnOptionNoStrategyOfTheRunReadsIsRefused) {
  EXPECT_NO_THROW(check_search_options({"auto"}, ValueMap::parse("population=20,stall=30")));
  // Options go to whichever strategies of a run read them.
  EXPECT_NO_THROW(
      check_search_options({"random", "evolutionary"}, ValueMap::parse("population=20")));
  try {
    check_search_options({"auto", "random"}, ValueMap::parse("popluation=20"));
    FAIL() << "a misspelt option was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("unknown search option 'popluation' for auto, random (they read: ", 0), 0u)
        << what;
    EXPECT_NE(what.find("population"), std::string::npos) << what;
  }
  EXPECT_THROW(check_search_options({"random"}, ValueMap::parse("pool=800")),
               std::invalid_argument);
  EXPECT_THROW(check_search_options({"bayes-lcb"}, ValueMap::parse("acquisition=ei")),
               std::invalid_argument);
  EXPECT_THROW(search_option_names("anneal"), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
