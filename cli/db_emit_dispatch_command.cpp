// `ktune db emit-dispatch`: a dependency-free C++ header routing a problem to
// its tuned configuration (exact, shape bucket, default).
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/dispatch_emitter.hpp"
#include "db/partial_file.hpp"
#include "db/store.hpp"
#include "kernels_templated/family.hpp"
#include "lookup/lookup_validity.hpp"
#include "space/value_map.hpp"

namespace ktune::cli {
namespace {

int run_emit(const std::string& path, const std::string& kernel, const std::string& device,
             const std::string& output, const std::string& default_text,
             const std::string& shape_keys) {
  if (kernel.empty() || device.empty())
    throw UsageError("emit-dispatch needs --kernel and --device");
  Store store = Store::open_read_only(path);
  const StoredNames stored = stored_names(store);
  check_family_filter(kernel, stored);
  DispatchOptions o;
  o.family = kernel;
  o.device = device_filter(device, stored);
  if (!default_text.empty()) o.default_config = ValueMap::parse(default_text);
  if (!shape_keys.empty()) o.shape_keys = split_names(shape_keys);
  if (o.shape_keys.empty()) {
    try {
      o.shape_keys = find_family(kernel).shape_keys();
    } catch (const std::invalid_argument&) {
      // not registered in this build: the keys stored with the problems are used
    }
  }
  o.source_label = path;
  o.current = lenient_current_hash();
  try {
    o.condition = dispatch_conditions(find_family(kernel));  // each choice carries when it is valid
  } catch (const std::invalid_argument&) {
    // not registered in this build: no conditions known
  }
  std::string header = emit_dispatch_header(store, o);
  if (output.empty() || output == "-") {
    std::cout << header;
  } else {
    write_file_whole(output, [&](std::ostream& out) { out << header; });
    std::fprintf(stderr, "wrote %s\n", output.c_str());
  }
  return 0;
}

const CommandRegistrar registrar(kDbEmitDispatch, [](CLI::App& app) {
  struct Options {
    std::string db = default_db_path(), kernel, device, output, default_config, shape_keys;
  };
  auto o = std::make_shared<Options>();
  auto* emit = app.get_subcommand("db")->add_subcommand(
      "emit-dispatch",
      "Generate a dependency-free C++ header routing a problem "
      "to its tuned configuration (exact, shape bucket, default)");
  add_db_option(emit, o->db);
  emit->add_option("--kernel", o->kernel, "Kernel family")->required();
  emit->add_option("--device", o->device, "GPU name or arch, e.g. sm_90")->required();
  emit->add_option("-o,--output", o->output, "Header to write ('-' or absent: standard output)");
  emit->add_option("--default", o->default_config,
                   "Configuration served when nothing matches, e.g. 'BLOCK_M=64,...'");
  emit->add_option("--shape-keys", o->shape_keys,
                   "Shape keys in parameter order, e.g. m,n,k (default: the family's)");
  emit->callback([o] {
    set_exit_code(
        run_emit(o->db, o->kernel, o->device, o->output, o->default_config, o->shape_keys));
  });
});

}  // namespace
}  // namespace ktune::cli
