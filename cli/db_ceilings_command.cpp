// `ktune db ceilings`: show or store the measured ceilings (copy bandwidth,
// best GEMM rates) of a GPU in a tuning database; they override the
// datasheet for the cost model wherever that database is used.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/store.hpp"
#include "space/name_list.hpp"
#include "space/value_map.hpp"

namespace ktune::cli {
namespace {

/// The ceiling fields a user may set, as DeviceSpec members.
double* ceiling_field(DeviceSpec& d, const std::string& key) {
  if (key == "dram_gbps") return &d.dram_gbps;
  if (key == "peak_tflops_simt_fp32") return &d.peak_tflops_simt_fp32;
  if (key == "peak_tflops_tf32") return &d.peak_tflops_tf32;
  if (key == "peak_tflops_bf16") return &d.peak_tflops_bf16;
  if (key == "peak_tflops_fp16") return &d.peak_tflops_fp16;
  return nullptr;
}

constexpr const char* kFields =
    "dram_gbps, peak_tflops_simt_fp32, peak_tflops_tf32, peak_tflops_bf16, peak_tflops_fp16";

/// Parses "dram_gbps=4196,peak_tflops_bf16=830.8" into a spec holding just those ceilings.
DeviceSpec parse_ceilings(const std::string& text) {
  DeviceSpec d;
  const ValueMap values = ValueMap::parse(text);
  if (values.begin() == values.end())
    throw UsageError("--set names no ceiling (" + std::string(kFields) + ")");
  for (const auto& [key, value] : values) {
    double* field = ceiling_field(d, key);
    if (!field) throw UsageError("--set: unknown ceiling '" + key + "' (known: " + kFields + ")");
    double v = 0;
    try {
      v = values.real(key);
    } catch (const std::exception&) {
      throw UsageError("--set: '" + key + "' must be a number");
    }
    if (!(v > 0)) throw UsageError("--set: '" + key + "' must be > 0");
    *field = v;
  }
  return d;
}

void print_ceilings(const DeviceSpec& d) {
  const std::string origin = d.measured_ceilings
                                 ? "measured figures from: " + d.ceilings_source +
                                       "; a figure that source does not give is the datasheet's"
                                 : "datasheet";
  std::printf("%s: copy %.0f GB/s; peak TFLOP/s fp32 %.1f, tf32 %.1f, bf16 %.1f, fp16 %.1f (%s)\n",
              d.name.c_str(), d.dram_gbps, d.peak_tflops_simt_fp32, d.peak_tflops_tf32,
              d.peak_tflops_bf16, d.peak_tflops_fp16, origin.c_str());
}

/// The stored GPU that `--device` names (a short name resolves as `ktune
/// lookup --device` reads it). Ceilings belong to one GPU with results here:
/// an arch, or a GPU the database does not hold, is a UsageError.
std::string stored_gpu(const std::string& path, const std::string& device) {
  const StoredNames stored = stored_names(Store::open_read_only(path));
  const std::string name = device_filter(device, stored);
  if (std::find(stored.devices.begin(), stored.devices.end(), name) == stored.devices.end()) {
    throw UsageError(path + " holds no GPU named '" + device +
                     "' (it stores: " + name_list(stored.devices) +
                     "; ceilings are stored with a GPU that has results here)");
  }
  return name;
}

int run_ceilings(const std::string& path, const std::string& asked, const std::string& set,
                 const std::string& source, bool as_json) {
  const std::string device = stored_gpu(path, asked);
  if (set.empty()) {
    Store store = Store::open_read_only(path);
    const auto stored = store.measured_ceilings(device);
    if (!stored) {
      std::fprintf(stderr, "ktune db ceilings: no measured ceilings for '%s' in %s\n",
                   device.c_str(), path.c_str());
      return 1;
    }
    if (as_json)
      std::cout << stored->to_json().dump(2) << "\n";
    else
      print_ceilings(*stored);
    return 0;
  }
  if (source.empty())
    throw UsageError("--set needs --source: where the figures were measured (file, run, date)");
  DeviceSpec ceilings = parse_ceilings(set);
  ceilings.ceilings_source = source;
  Store store = Store::open(path);
  store.set_measured_ceilings(device, ceilings);
  print_ceilings(*store.measured_ceilings(device));
  return 0;
}

const CommandRegistrar registrar(kDbCeilings, [](CLI::App& app) {
  CLI::App* db = app.get_subcommand("db");
  struct Options {
    std::string db, device, set, source;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  o->db = default_db_path();
  auto* cmd = db->add_subcommand(
      "ceilings",
      "Show or store a GPU's measured ceilings (copy bandwidth, best GEMM rates), which "
      "override the datasheet for the cost model");
  add_db_option(cmd, o->db);
  cmd->add_option("--device", o->device, "GPU name as stored, e.g. 'NVIDIA H200'")->required();
  cmd->add_option(
      "--set", o->set,
      "Store these measured figures, e.g. 'dram_gbps=4196,peak_tflops_bf16=830.8' (GB/s read + "
      "written; TFLOP/s)");
  cmd->add_option("--source", o->source, "Where the figures were measured (required with --set)");
  cmd->add_flag("--json", o->json, "Print the stored device spec as JSON");
  cmd->callback([o] { set_exit_code(run_ceilings(o->db, o->device, o->set, o->source, o->json)); });
});

}  // namespace
}  // namespace ktune::cli
