// Example: two teams' tuning databases merged into one, then the best
// configuration per problem listed from the merged view.
//
//   example_merge_team_databases A.db B.db OUT.db
#include <cstdio>

#include "db/merge.hpp"
#include "db/query.hpp"
#include "db/store.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s A.db B.db OUT.db\n", argv[0]);
    return 2;
  }
  try {
    // Union, de-duplicated; measurements of one configuration by both teams are both kept.
    ktune::MergeSummary s = ktune::merge_databases({argv[1], argv[2]}, argv[3]);
    std::printf("%lld measurements read, %lld new, %lld in %s\n", static_cast<long long>(s.read),
                static_cast<long long>(s.added), static_cast<long long>(s.output_total), argv[3]);
    // The best view chooses among verified results only.
    ktune::Store merged = ktune::Store::open_read_only(argv[3]);
    for (const auto& row : ktune::best_per_problem(merged))
      std::printf("%s %s %s -> %s (%.4g ms, from '%s')\n", row.family.c_str(), row.device.c_str(),
                  row.problem_key.c_str(), row.config_key.c_str(), row.median_s * 1e3,
                  row.provenance.source.c_str());
    return 0;
  } catch (const ktune::DatabaseError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
