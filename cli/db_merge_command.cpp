// `ktune db merge`: the union of databases, de-duplicated, every source kept.
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/merge.hpp"

namespace ktune::cli {
namespace {

int run_merge(const std::vector<std::string>& inputs, const std::string& output) {
  if (inputs.size() < 1) throw UsageError("merge needs at least one input database");
  MergeSummary m = merge_databases(inputs, output);
  std::printf("read %lld measurements from %zu databases, %lld new; %s holds %lld\n",
              (long long)m.read, inputs.size(), (long long)m.added, output.c_str(),
              (long long)m.output_total);
  return 0;
}

const CommandRegistrar registrar(kDbMerge, [](CLI::App& app) {
  struct Options {
    std::string output;
    std::vector<std::string> inputs;
  };
  auto o = std::make_shared<Options>();
  auto* merge = app.get_subcommand("db")->add_subcommand(
      "merge", "Union of databases, de-duplicated, every source kept");
  merge->add_option("inputs", o->inputs, "Databases to merge")->required()->expected(1, -1);
  merge->add_option("-o,--output", o->output, "Output database (created, or added to)")->required();
  merge->callback([o] { set_exit_code(run_merge(o->inputs, o->output)); });
});

}  // namespace
}  // namespace ktune::cli
