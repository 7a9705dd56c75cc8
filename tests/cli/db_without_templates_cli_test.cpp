// `ktune db query` where the templates cannot be read (a binary installed
// without them): the lenient current-hash resolver (db/current_hash.hpp, also
// the C ABI's) says so in one note, and each family's newest-measured
// template version is served, as before per-path hashes.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

const std::string kShippedDb = std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";

// family -> the template hashes of its rows
std::map<std::string, std::set<std::string>> hashes_of(const std::string& json_rows) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& row : nlohmann::json::parse(json_rows))
    out[row.at("family")].insert(row.at("family_hash").get<std::string>());
  return out;
}

TEST(DbQueryCli, WithoutTemplatesNotesOnceAndServesTheNewestMeasuredVersion) {
  const std::string query =
      test::quote(test::ktune_path()) + " db query --json --db " + test::quote(kShippedDb);
  const std::string no_templates = "KTUNE_KERNEL_DIR=/nonexistent-ktune-templates " + query;
  // (the subshells keep stdout and stderr apart: test::shell merges what they leave)
  const test::ProcessRun with = test::shell("(" + query + " 2>/dev/null)");
  ASSERT_EQ(with.code, 0) << with.output;
  const auto per_path = hashes_of(with.output);

  const test::ProcessRun note = test::shell("(" + no_templates + " 2>&1 >/dev/null)");
  EXPECT_EQ(note.code, 0) << note.output;
  const std::string said = "the newest-measured template version counts as current";
  const auto first = note.output.find(said);
  ASSERT_NE(first, std::string::npos) << note.output;
  EXPECT_EQ(note.output.find(said, first + 1), std::string::npos) << "one note, not one a row";

  const test::ProcessRun without = test::shell("(" + no_templates + " 2>/dev/null)");
  ASSERT_EQ(without.code, 0) << without.output;
  const auto newest = hashes_of(without.output);
  ASSERT_FALSE(newest.empty());
  for (const auto& [family, hashes] : newest) {
    EXPECT_EQ(hashes.size(), 1u) << family << ": one version, the newest-measured";
    EXPECT_EQ(per_path.at(family).count(*hashes.begin()), 1u) << family;
  }
}

}  // namespace
}  // namespace ktune
