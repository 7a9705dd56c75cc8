// test_faulty's descriptor: problem checks, space, work and NVRTC source.
#include "kernels_templated/faulty/faulty_family.hpp"

#include <algorithm>
#include <iterator>

#include "space/space.hpp"

namespace ktune {
namespace {

int mode_index(const std::string& mode) {
  for (int i = 0; i < static_cast<int>(std::size(kFaultyModes)); ++i)
    if (mode == kFaultyModes[i]) return i;
  throw std::invalid_argument("test_faulty: unknown mode '" + mode + "'");
}

class FaultyFamily final : public KernelFamily {
 public:
  std::string_view name() const override { return "test_faulty"; }
  std::string_view description() const override {
    return "test family: y = a*x + b over n floats, with configurations that fault on purpose "
           "(illegal address, endless loop, wrong values) to exercise the engine's error handling";
  }
  std::vector<std::string> template_files() const override { return {"faulty/faulty.cuh"}; }

  Problem normalize(const Problem& p) const override {
    for (const auto& [key, value] : p)
      if (key != "n") throw ProblemError("unknown problem key '" + key + "' for family test_faulty (expected n>=1)");
    if (!p.contains("n")) throw ProblemError("missing problem key 'n' (expected n>=1)");
    std::int64_t n;
    try {
      n = p.integer("n");
    } catch (const std::invalid_argument&) {
      throw ProblemError("problem key 'n' must be an integer");
    }
    if (n < 1) throw ProblemError("problem key 'n' must be >= 1, got " + std::to_string(n));
    if (n > (1LL << 34)) throw ProblemError("problem key 'n' must be <= 2^34");
    return Problem{{"n", n}};
  }
  std::string_view problem_help() const override { return "n>=1 (floats)"; }
  std::vector<std::string> shape_keys() const override { return {"n"}; }
  std::string shape_class(const Problem&) const override { return "fp32"; }

  Space space(const Problem& raw, const DeviceSpec& d) const override {
    const Problem p = normalize(raw);
    ValueMap constants;
    constants.set("n", p.integer("n"));
    constants.set("max_threads", static_cast<std::int64_t>(d.max_threads_per_block > 0 ? d.max_threads_per_block : 1024));
    constants.set("smem_max", static_cast<std::int64_t>(d.smem_per_block_optin > 0 ? d.smem_per_block_optin : 48 * 1024));
    Space s(constants);
    s.add(Parameter::pow2_range("threads", 64, 1024, 256, "threads per block"));
    s.add(Parameter::pow2_range("items", 1, 16, 4, "elements per thread"));
    s.add(Parameter::categorical("mode", std::vector<std::string>(std::begin(kFaultyModes), std::end(kFaultyModes)),
                                 "normal",
                                 "normal, or a deliberate fault: oob_write | hang | wrong | drop_ktile | wrong_row | nan_one"));
    s.add(Parameter::boolean("smem_stage", false, "stage x through threads*items*4 bytes of dynamic shared memory"));
    s.require("threads <= max_threads", {"threads", "max_threads"},
              [](const Assignment& a) { return a.i("threads") <= a.i("max_threads"); });
    s.require("staged tile fits in shared memory", {"threads", "items", "smem_stage", "smem_max"},
              [](const Assignment& a) { return !a.b("smem_stage") || a.i("threads") * a.i("items") * 4 <= a.i("smem_max"); });
    return s;
  }

  Config default_config(const Problem&, const DeviceSpec&) const override {
    return Config{{"threads", std::int64_t{256}}, {"items", std::int64_t{4}}, {"mode", std::string("normal")},
                  {"smem_stage", false}};
  }

  double flops(const Problem& p) const override { return 2.0 * static_cast<double>(p.integer("n")); }
  double min_bytes(const Problem& p) const override { return 8.0 * static_cast<double>(p.integer("n")); }

  WorkEstimate estimate(const Problem& p, const Config& c, const DeviceSpec&) const override {
    const long long n = p.integer("n");
    const long long per_block = c.integer("threads") * c.integer("items");
    WorkEstimate w;
    w.flops = w.executed_flops = flops(p);
    w.unit = ComputeUnit::simt_fp32;
    w.dram_bytes = w.min_bytes = min_bytes(p);
    w.blocks = (n + per_block - 1) / per_block;
    w.threads_per_block = static_cast<int>(c.integer("threads"));
    w.smem_per_block = c.boolean("smem_stage") ? static_cast<int>(per_block * 4) : 0;
    w.kernels = 1;
    return w;
  }

  KernelSource source(const Problem&, const Config& c) const override {
    KernelSource s;
    s.program_name = "test_faulty.cu";
    s.source = "#include \"kernels_templated/faulty/faulty.cuh\"\n";
    s.kernels = {"ktune_faulty::affine<" + std::to_string(c.integer("threads")) + ", " +
                 std::to_string(c.integer("items")) + ", " + std::to_string(mode_index(c.text("mode"))) + ", " +
                 (c.boolean("smem_stage") ? "true" : "false") + ">"};
    return s;
  }
};

}  // namespace

const KernelFamily& faulty_descriptor() {
  static const FaultyFamily family;
  return family;
}

}  // namespace ktune
