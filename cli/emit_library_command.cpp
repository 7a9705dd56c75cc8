// `ktune emit-library`: writes a CUDA source tree that nvcc builds into a
// static library of the database's tuned kernels (emit/emit_library.hpp).
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/store.hpp"
#include "emit/emit_library.hpp"
#include "kernels_templated/family.hpp"

namespace ktune::cli {
namespace {

struct EmitLibraryArgs {
  std::string db;
  std::string device = "sm_90";
  std::vector<std::string> kernels;
  std::string out;
};

int run_emit_library(const EmitLibraryArgs& a) {
  EmitLibraryOptions o;
  o.database = a.db.empty() ? default_db_path() : a.db;
  o.device = device_filter(a.device, stored_names(Store::open_read_only(o.database)));
  o.families = a.kernels;
  o.out_dir = a.out;
  EmitLibrarySummary s;
  try {
    s = emit_library(o);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  for (const std::string& note : s.notes) std::cout << note << "\n";
  std::cout << "wrote " << a.out << ": " << s.kernels << " kernel source(s), " << s.routes
            << " route(s); from " << o.database << " (" << s.template_hashes << ")\n"
            << "build: cmake -S " << a.out << " -B " << a.out
            << "/build -Dktune_DIR=<prefix>/lib/cmake/ktune && "
            << "cmake --build " << a.out << "/build\n";
  return 0;
}

const CommandRegistrar registrar(66, [](CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "emit-library",
      "Write a CUDA source tree (explicit instantiations of the configurations the\n"
      "kernel splitter chose, the router, a CMakeLists.txt) that nvcc builds into a\n"
      "static library with libktune_runtime's call API (ktune::Library)");
  auto args = std::make_shared<EmitLibraryArgs>();
  cmd->add_option("--db", args->db, "Tuning database (default $KTUNE_DB, else ./ktune.db)");
  cmd->add_option("--device", args->device, "Arch or GPU name the results were measured on")
      ->capture_default_str();
  cmd->add_option("--kernel", args->kernels,
                  "Comma-separated families (" + family_names_text() + ")")
      ->delimiter(',')
      ->required();
  cmd->add_option("-o,--out", args->out,
                  "Output folder (created; its kernels/ and include/ are replaced)")
      ->required();
  cmd->callback([args] { set_exit_code(run_emit_library(*args)); });
});

}  // namespace
}  // namespace ktune::cli
