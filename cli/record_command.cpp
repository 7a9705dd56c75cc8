// `ktune record`: writes what a tuning database holds for one problem as a
// recorded space (ktune recording format), for replay and strategy benchmarks.
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "cli/recording_export.hpp"
#include "compile/family_hash.hpp"
#include "kernels_templated/family.hpp"

namespace ktune::cli {
namespace {

struct RecordOptions {
  std::string db = default_db_path();
  std::string kernel;
  std::string problem;
  std::string device;
  std::string output;
  std::string note;
};

int run_record(const RecordOptions& o) {
  const KernelFamily& family = find_family(o.kernel);
  // Only measurements of the current text of the kernel path each device takes.
  Store store = Store::open_read_only(o.db);
  RecordingSelection sel{o.kernel, parse_problem(family, o.problem),
                         device_filter(o.device, stored_names(store)), "", current_hash_resolver()};
  RecordedSpace r = recording_from_store(store, sel);
  if (!o.note.empty()) r.provenance["note"] = o.note;
  write_recorded_space(r, o.output);
  auto counts = r.status_counts();
  std::fprintf(stderr, "recorded %zu configurations of %s %s on %s into %s (ok: %zu)\n",
               r.results.size(), o.kernel.c_str(), sel.problem.key().c_str(), r.device_name.c_str(),
               o.output.c_str(), counts.count("ok") ? counts["ok"] : 0);
  return 0;
}

const CommandRegistrar registrar(65, [](CLI::App& app) {
  auto o = std::make_shared<RecordOptions>();
  auto* cmd = app.add_subcommand(
      "record",
      "Write the measurements a database holds for one problem as a recorded space "
      "(ktune recording format; the space is exactly the recorded configurations), "
      "for --replay and bench-strategies");
  cmd->add_option("--db", o->db, std::string("Tuning database to read (") + kDefaultDbHelp + ")");
  cmd->add_option("--kernel", o->kernel, "Kernel family")->required();
  cmd->add_option("--problem", o->problem, "Problem keys, e.g. \"m=4096,n=4096,k=4096,dtype=bf16\"")
      ->required();
  cmd->add_option("--device", o->device, "GPU name or arch, when the DB holds several");
  cmd->add_option("-o,--output", o->output, "Recording file to write")->required();
  cmd->add_option("--note", o->note, "Free text stored in the recording's provenance");
  cmd->callback([o] { set_exit_code(run_record(*o)); });
});

}  // namespace
}  // namespace ktune::cli
