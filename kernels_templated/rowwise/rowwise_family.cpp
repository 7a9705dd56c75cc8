// RowwiseFamily: problem checks, constrained spaces, work estimates and
// NVRTC sources of the row-wise families, asking each family's RowwiseSpec
// what only it knows.
#include "kernels_templated/rowwise/rowwise_family.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels_templated/rowwise/shape_group.hpp"
#include "space/space.hpp"

namespace ktune::rowwise {
namespace {

long long next_pow2(long long v) {
  long long p = 1;
  while (p < v) p <<= 1;
  return p;
}

std::int64_t positive_integer(const Problem& p, const char* key) {
  if (!p.contains(key)) throw ProblemError(std::string("missing problem key '") + key + "'");
  std::int64_t v;
  try {
    v = p.integer(key);
  } catch (const std::invalid_argument&) {
    throw ProblemError(std::string("problem key '") + key + "' must be an integer");
  }
  if (v < 1) throw ProblemError(std::string("problem key '") + key + "' must be >= 1, got " + std::to_string(v));
  return v;
}

std::string one_of(const Problem& p, const std::string& key, std::string fallback,
                   const std::vector<std::string>& allowed) {
  std::string v;
  try {
    v = p.text_or(key, fallback);
  } catch (const std::invalid_argument&) {
    throw ProblemError("problem key '" + key + "' must be text");
  }
  std::string list;
  for (const std::string& a : allowed) {
    if (v == a) return v;
    if (!list.empty()) list += '|';
    list += a;
  }
  throw ProblemError("problem key '" + key + "': unknown value '" + v + "' (expected " + list +
                     ")");
}

double positive_real(const Problem& p, const ProblemParam& param) {
  double v = param.default_real;
  if (p.contains(param.key)) {
    try {
      v = p.real(param.key);
    } catch (const std::invalid_argument&) {
      throw ProblemError("problem key '" + param.key + "' must be a number");
    }
  }
  if (!(v > 0) || !std::isfinite(v))
    throw ProblemError("problem key '" + param.key + "' must be > 0");
  return v;
}

std::string help_of(const RowwiseSpec& spec) {
  std::string help = "rows,cols>=1; dtype=fp32|bf16|fp16";
  for (const ProblemParam& param : spec.params()) {
    if (param.choices.empty()) {
      help += "; " + param.key + ">0 (" + param.default_text + ")";
      continue;
    }
    help += "; " + param.key + "=";
    for (std::size_t i = 0; i < param.choices.size(); ++i)
      help += (i ? "|" : "") + param.choices[i];
    help += " (" + param.choices.front() + ")";
  }
  return help;
}

// Segment length a row group walks, as the space's constraints see it:
// split segments, or one per block of a cluster (softmax, rmsnorm).
long long seg_len_of(const Assignment& a) {
  return segment_length(a.i("cols"), a.i("split"), a.i("vec"));
}
long long cluster_seg_len_of(const Assignment& a) {
  return segment_length(a.i("cols"), a.i("split") * a.i("cluster"), a.i("vec"));
}

}  // namespace

RowwiseFamily::RowwiseFamily(const RowwiseSpec& spec) : spec_(spec), help_(help_of(spec)) {}

std::string_view RowwiseFamily::name() const { return spec_.name(); }

std::string_view RowwiseFamily::description() const { return spec_.description(); }

std::vector<std::string> RowwiseFamily::template_files() const {
  return {"rowwise/args.h",         "rowwise/common.cuh",   "rowwise/elements.cuh",
          "rowwise/loads.cuh",      "rowwise/cp_async.cuh", "rowwise/stores.cuh",
          "rowwise/reductions.cuh", "rowwise/rows.cuh",     spec_.kernel_file()};
}

Problem RowwiseFamily::normalize(const Problem& p) const {
  Problem out;
  out.set("rows", positive_integer(p, "rows"));
  out.set("cols", positive_integer(p, "cols"));
  out.set("dtype", one_of(p, "dtype", "", {"fp32", "bf16", "fp16"}));
  std::vector<std::string> known = {"rows", "cols", "dtype"};
  for (const ProblemParam& param : spec_.params()) {
    if (param.choices.empty())
      out.set(param.key, positive_real(p, param));
    else
      out.set(param.key, one_of(p, param.key, param.choices.front(), param.choices));
    known.push_back(param.key);
  }
  for (const auto& [key, value] : p)
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw ProblemError("unknown problem key '" + key + "' for family " + std::string(name()) + " (expected " +
                         std::string(problem_help()) + ")");
  if (out.integer("rows") > (1LL << 40) || out.integer("cols") > (1LL << 40))
    throw ProblemError("rows and cols must each be <= 2^40");
  return out;
}

std::string_view RowwiseFamily::problem_help() const { return help_; }

std::vector<std::string> RowwiseFamily::shape_keys() const { return {"rows", "cols"}; }

PlanDevice plan_device(const DeviceSpec& d) {
  PlanDevice pd;
  if (d.sm_count > 0) pd.sm_count = d.sm_count;
  if (d.max_threads_per_sm > 0) pd.max_threads_per_sm = d.max_threads_per_sm;
  if (d.max_blocks_per_sm > 0) pd.max_blocks_per_sm = d.max_blocks_per_sm;
  if (d.smem_per_sm > 0) pd.smem_per_sm = d.smem_per_sm;
  if (d.smem_per_block_optin > 0) pd.smem_per_block_optin = d.smem_per_block_optin;
  return pd;
}

std::string RowwiseFamily::shape_class(const Problem& p) const {
  // A choice parameter picks another computation: configurations transfer
  // only within it.
  std::string c = p.text("dtype") + ".a" + std::to_string(row_alignment_bytes(p));
  for (const ProblemParam& param : spec_.params())
    if (!param.choices.empty()) c += "." + p.text(param.key);
  return c;
}

std::string RowwiseFamily::shape_group(const Problem& p) const { return group_key(p); }

Space RowwiseFamily::space(const Problem& raw, const DeviceSpec& d) const {
  const Problem p = normalize(raw);
  const int bytes = dtype_bytes(p.text("dtype"));
  const int max_threads = d.max_threads_per_block > 0 ? std::min(1024, d.max_threads_per_block) : 1024;
  ValueMap constants;
  constants.set("rows", p.integer("rows"));
  constants.set("cols", p.integer("cols"));
  constants.set("dtype_bytes", static_cast<std::int64_t>(bytes));
  constants.set("max_threads", static_cast<std::int64_t>(max_threads));
  const bool whole_rows = spec_.output() == RowOutput::whole_rows;
  if (whole_rows) {
    const int smem_limit = d.smem_per_block_optin > 0 ? d.smem_per_block_optin : PlanDevice{}.smem_per_block_optin;
    constants.set("smem_limit", static_cast<std::int64_t>(smem_limit));
  }
  Space s(constants);
  const std::vector<Value> vecs = {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8},
                                   std::int64_t{16}};
  s.add(Parameter::list("vec", vecs, std::int64_t{1}, "elements per load/store (one access of vec*dtype bytes)"));
  s.add(Parameter::categorical("cache", {"default", "nc", "nc_noalloc", "evict_first", "nc_l2_256b"}, "default",
                               "cache policy of the streamed input (.cs stores too for evict_first; "
                               "nc_l2_256b: read-only with a 256-byte L2 prefetch)"));
  s.require("a vector access is at most 16 bytes", {"vec", "dtype_bytes"},
            [](const Assignment& a) { return a.i("vec") * a.i("dtype_bytes") <= 16; });
  // Vectors never straddle a row: rows whose length is not a multiple of the
  // width take a narrower (down to scalar, predicated) access.
  s.require("vec divides cols (row starts stay aligned)", {"vec", "cols"},
            [](const Assignment& a) { return a.i("cols") % a.i("vec") == 0; });

  if (spec_.reduces_columns(p)) {
    s.add(Parameter::pow2_range("block_cols", 1, 1024, 32, "threads across columns"));
    s.add(Parameter::pow2_range("rows_per_block", 1, 1024, 8, "threads down the rows (combined in shared memory)"));
    s.add(Parameter::list("unroll", {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}},
                          std::int64_t{1}, "rows loaded before use"));
    s.add(Parameter::pow2_range("split", 1, 256, 1, "row slices in flight (grid.y); >1 adds a combining kernel"));
    s.require("block of 32..max_threads threads", {"block_cols", "rows_per_block", "max_threads"},
              [](const Assignment& a) {
                long long t = a.i("block_cols") * a.i("rows_per_block");
                return t >= 32 && t <= a.i("max_threads");
              });
    s.require("shared partials fit in 48 KiB", {"block_cols", "rows_per_block", "vec"}, [](const Assignment& a) {
      return a.i("rows_per_block") == 1 || a.i("rows_per_block") * a.i("block_cols") * a.i("vec") * 4 <= 48 * 1024;
    });
    s.require("no block wider than the columns", {"block_cols", "vec", "cols"}, [](const Assignment& a) {
      return a.i("block_cols") == 1 || a.i("block_cols") * a.i("vec") <= next_pow2(a.i("cols"));
    });
    s.require("every row slice gets rows", {"split", "rows_per_block", "rows"},
              [](const Assignment& a) { return a.i("split") == 1 || a.i("split") * a.i("rows_per_block") <= a.i("rows"); });
    s.require("unrolled rows exist", {"unroll", "split", "rows_per_block", "rows"}, [](const Assignment& a) {
      return a.i("unroll") == 1 || a.i("split") * a.i("rows_per_block") * a.i("unroll") <= a.i("rows");
    });
    return s;
  }

  s.add(Parameter::pow2_range("threads_per_row", 1, 1024, 32, "threads sharing one row (segment)"));
  s.add(Parameter::pow2_range("rows_per_block", 1, 128, 4, "rows (segments) per block"));
  s.add(Parameter::categorical("reduction", {"shuffle", "smem"}, "shuffle",
                               "warp shuffles (then one partial per warp) or a shared-memory tree"));
  s.add(Parameter::categorical("grid", {"rows", "stride", "persistent"}, "rows",
                               "one block per rows_per_block rows; a grid-stride loop (SMs x resident blocks); "
                               "persistent: the stride loop on the grid the device holds at once, shared-memory "
                               "rows prefetching the next row while writing"));
  s.add(Parameter::list("unroll", {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}},
                        std::int64_t{1}, "accesses in flight per thread in streaming loops"));
  s.add(Parameter::pow2_range("split", 1, 64, 1, "segments per row (multi-block rows); >1 adds a second kernel"));
  s.require("block of 32..max_threads threads", {"threads_per_row", "rows_per_block", "max_threads"},
            [](const Assignment& a) {
              long long t = a.i("threads_per_row") * a.i("rows_per_block");
              return t >= 32 && t <= a.i("max_threads");
            });
  s.require("no more threads per row than accesses in the segment", {"threads_per_row", "vec", "cols", "split"},
            [](const Assignment& a) {
              return a.i("threads_per_row") == 1 ||
                     a.i("threads_per_row") <= next_pow2((seg_len_of(a) + a.i("vec") - 1) / a.i("vec"));
            });
  s.require("split rows only when each segment holds >= 1024 elements", {"split", "cols", "vec"},
            [](const Assignment& a) { return a.i("split") == 1 || a.i("cols") >= a.i("split") * 1024; });
  s.require("unrolled accesses exist in the segment", {"unroll", "threads_per_row", "vec", "cols", "split"},
            [](const Assignment& a) {
              return a.i("unroll") == 1 || seg_len_of(a) >= a.i("threads_per_row") * a.i("vec") * a.i("unroll");
            });
  if (!whole_rows) {
    spec_.add_knobs(s);
    return s;
  }
  // Whole rows: held on chip (registers, shared memory, a cluster, a linked grid).
  s.add(Parameter::categorical(
      "row_cache", {"none", "registers", "smem"}, "none",
      "hold the segment in registers (fp32) or shared memory (input dtype, cp.async): "
      "one read; or read it again"));
  s.add(Parameter::list(
      "cluster",
      {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}, std::int64_t{16}},
      std::int64_t{1},
      "blocks of a thread-block cluster sharing one row, one segment each (partials through "
      "distributed shared memory); 16 is a non-portable size"));
  s.require("a cluster block holds one segment of >= 1024 elements, no split",
            {"cluster", "split", "rows_per_block", "cols"}, [](const Assignment& a) {
              return a.i("cluster") == 1 || (a.i("split") == 1 && a.i("rows_per_block") == 1 &&
                                             a.i("cols") >= a.i("cluster") * 1024);
            });
  s.require("cluster blocks each get a full segment",
            {"cluster", "threads_per_row", "vec", "cols", "split"}, [](const Assignment& a) {
              return a.i("cluster") == 1 ||
                     a.i("threads_per_row") <=
                         next_pow2((cluster_seg_len_of(a) + a.i("vec") - 1) / a.i("vec"));
            });
  // A row split over blocks that run at once can combine its partials in
  // the kernel (global memory and a per-row counter): one read of a held
  // segment, like a cluster, but over any SMs, not the few clusters that
  // fit a GPC (a cluster of 16 leaves 20 of the H200's 132 SMs idle).
  s.add(Parameter::categorical(
      "split_combine", {"second_kernel", "in_kernel"}, "second_kernel",
      "split rows: a stats kernel then an apply kernel; or one cooperative persistent "
      "kernel whose blocks exchange each row's partials through global memory"));
  s.require(
      "in-kernel combining: split 2..32, one segment per block, no cluster, a persistent grid",
      {"split_combine", "split", "rows_per_block", "cluster", "grid"}, [](const Assignment& a) {
        return a.s("split_combine") == "second_kernel" ||
               in_kernel_split_allowed(a.i("split"), a.i("rows_per_block"), a.i("cluster"),
                                       a.s("grid") == "persistent");
      });
  // __launch_bounds__(threads) caps registers at 65536 / threads (64 for
  // 1024 threads); the held floats leave 32 for addresses and the reduction.
  s.require(
      "a register-held segment fits the per-thread register budget (<= 64 floats, 16 accesses)",
      {"row_cache", "threads_per_row", "rows_per_block", "vec", "cols", "split", "cluster"},
      [](const Assignment& a) {
        if (a.s("row_cache") != "registers") return true;
        const long long chunks =
            register_chunks(cluster_seg_len_of(a), a.i("threads_per_row"), a.i("vec"));
        const long long threads = a.i("threads_per_row") * a.i("rows_per_block");
        const long long budget = std::min<long long>(64, 65536 / threads - 32);
        return chunks <= 16 && chunks * a.i("vec") <= budget;
      });
  std::vector<std::string> smem_names = {
      "row_cache", "vec",   "dtype_bytes", "rows_per_block", "threads_per_row",
      "cols",      "split", "cluster",     "reduction",      "smem_limit"};
  // The family's knobs come before the shared-memory budget, which counts
  // the segments they add (rmsnorm weights=smem: the weights).
  spec_.add_knobs(s);
  for (const std::string& knob : spec_.smem_segment_knobs()) smem_names.push_back(knob);
  // cp.async copies 4, 8 or 16 bytes; the segments of a block (one per row
  // group, input dtype, and those a family knob adds) and its static shared
  // memory fit the opt-in limit.
  const RowwiseSpec& spec = spec_;
  s.require(
      "a shared-memory segment: accesses of >= 4 bytes, the block's segments within the "
      "shared-memory limit",
      smem_names, [&spec](const Assignment& a) {
        if (a.s("row_cache") != "smem") return true;
        const long long segment_bytes = cluster_seg_len_of(a) * a.i("dtype_bytes");
        const long long segments = a.i("rows_per_block") + spec.extra_smem_segments(a);
        return a.i("vec") * a.i("dtype_bytes") >= 4 &&
               segments * segment_bytes + rowwise_static_smem(spec, a.i("threads_per_row"),
                                                              a.i("rows_per_block"),
                                                              a.s("reduction")) <=
                   a.i("smem_limit");
      });
  s.require("unroll applies to streaming loops only", {"row_cache", "unroll"},
            [](const Assignment& a) { return a.s("row_cache") == "none" || a.i("unroll") == 1; });
  return s;
}

Config RowwiseFamily::default_config(const Problem& p, const DeviceSpec& d) const {
  // The parameters' defaults are chosen valid for every problem except where
  // a shape constraint bites (threads_per_row vs a short row); repair snaps them.
  return space(p, d).default_config();
}

double RowwiseFamily::flops(const Problem& p) const {
  const double n = static_cast<double>(p.integer("rows")) * static_cast<double>(p.integer("cols"));
  return spec_.flops_per_element() * n;
}

double RowwiseFamily::min_bytes(const Problem& p) const {
  // The input, the output and the column vector, each once.
  const double rows = static_cast<double>(p.integer("rows")), cols = static_cast<double>(p.integer("cols"));
  const double b = dtype_bytes(p.text("dtype"));
  return b * (rows * cols + static_cast<double>(output_elements(spec_, p)) +
              (!spec_.column_vector().empty() ? cols : 0));
}

WorkEstimate RowwiseFamily::estimate(const Problem& raw, const Config& c, const DeviceSpec& d) const {
  const Problem p = normalize(raw);
  const LaunchPlan plan = plan_launch(spec_, p, c, plan_device(d));
  WorkEstimate w;
  w.flops = flops(p);
  w.executed_flops = w.flops;
  w.unit = ComputeUnit::simt_fp32;
  w.min_bytes = min_bytes(p);
  w.threads_per_block = plan.threads;
  w.smem_per_block = plan.smem_bytes + plan.dynamic_smem;
  w.kernels = static_cast<int>(plan.kernels.size());
  for (const auto& k : plan.kernels) w.blocks += k.grid_x * k.grid_y;
  w.extra_bytes = 2.0 * 4.0 * static_cast<double>(plan.workspace_floats);

  // Re-reads of the input reach DRAM only when what is in flight overflows L2.
  const double input = static_cast<double>(p.integer("rows")) * static_cast<double>(p.integer("cols")) *
                       dtype_bytes(p.text("dtype"));
  const double l2 = d.l2_bytes > 0 ? static_cast<double>(d.l2_bytes) : 50e6;
  const PlanDevice pd = plan_device(d);
  const double resident_blocks = std::min<double>(static_cast<double>(plan.main_blocks),
                                                  static_cast<double>(pd.sm_count * plan.resident_per_sm));
  const double rows_in_flight = resident_blocks * (plan.split > 1 ? 1 : c.integer_or("rows_per_block", 1));
  const double in_flight = rows_in_flight * static_cast<double>(plan.seg_len) * dtype_bytes(p.text("dtype"));
  const double miss_in_flight = in_flight > l2 / 2 ? 1.0 : 0.0;
  double rereads = 0;
  if (spec_.output() == RowOutput::whole_rows) {
    const bool held = c.text("row_cache") != "none";
    const bool two_pass = spec_.row_passes(c) > 1;
    const bool in_kernel = c.text_or("split_combine", "second_kernel") == "in_kernel";
    if (c.integer("split") > 1 && !in_kernel) {
      // The apply kernel reads every segment again after the stats kernel.
      rereads += input > l2 / 2 ? 1.0 : 0.0;
      if (!held && two_pass) rereads += miss_in_flight;
    } else if (!held) {
      // One kernel (a cluster's or a linked row's blocks included): the re-reads come from L2
      // while the segments in flight fit there.
      rereads += (two_pass ? 2.0 : 1.0) * miss_in_flight;
    }
  }
  w.dram_bytes = w.min_bytes + rereads * input;  // the cost model adds extra_bytes itself
  return w;
}

std::vector<Config> RowwiseFamily::on_chip_row_configs(const Problem& raw, const DeviceSpec& d) const {
  std::vector<Config> out;
  if (spec_.output() != RowOutput::whole_rows) return out;
  const Problem p = normalize(raw);
  const Space s = space(p, d);
  const long long cols = p.integer("cols");
  const int bytes = dtype_bytes(p.text("dtype"));
  const long long smem_limit = s.constants().integer("smem_limit");
  // Rows that fit one block are better served by one block per row (no
  // cluster barrier); the cluster path is for the rows that do not.
  if (cols * bytes + rowwise_static_smem(spec_, 1024, 1, "shuffle") <= smem_limit) return out;
  long long vec = 16 / bytes;
  while (vec > 1 && (cols % vec != 0 || vec * bytes < 4)) vec /= 2;
  if (vec * bytes < 4) return out;  // cp.async copies >= 4 bytes
  Config base = default_config(p, d);
  base.set("vec", vec);
  base.set("row_cache", std::string("smem"));
  base.set("split", std::int64_t{1});
  base.set("rows_per_block", std::int64_t{1});
  base.set("unroll", std::int64_t{1});
  base.set("reduction", std::string("shuffle"));
  // Keeps each valid variant the family offers of c (rmsnorm: also its
  // weights in shared memory; c has the family knobs' defaults).
  auto offer = [&](const Config& c) {
    for (const Config& v : spec_.on_chip_variants(c))
      if (s.is_valid(v)) out.push_back(v);
  };
  for (std::int64_t cluster : {2, 4, 8, 16})
    for (std::int64_t threads : {256, 512, 1024})
      for (const char* grid : {"persistent", "rows"})
        for (const char* cache : {"default", "evict_first"}) {
          Config c = base;
          c.set("cluster", cluster);
          c.set("threads_per_row", threads);
          c.set("grid", std::string(grid));
          c.set("cache", std::string(cache));
          offer(c);
        }
  // The same rows split over blocks of a cooperative grid (split_combine=in_kernel).
  for (std::int64_t split : {2, 4, 8, 16, 32})
    for (std::int64_t threads : {128, 256, 512, 1024})
      for (const char* cache : {"default", "evict_first"}) {
        Config c = base;
        c.set("split", split);
        c.set("split_combine", std::string("in_kernel"));
        c.set("threads_per_row", threads);
        c.set("grid", std::string("persistent"));
        c.set("cache", std::string(cache));
        offer(c);
      }
  return out;
}

KernelSource RowwiseFamily::source(const Problem& raw, const Config& c) const {
  const Problem p = normalize(raw);
  // The plan's names do not depend on the device beyond the grid, which is
  // not part of the source.
  const LaunchPlan plan = plan_launch(spec_, p, c, PlanDevice{});
  KernelSource s;
  s.program_name = std::string(name()) + ".cu";
  // Only the template instance matters: configurations that name the same
  // instance share one compiled cubin in the cache.
  s.source = "// ktune " + std::string(name()) + "\n#include \"kernels_templated/" +
             template_files().back() + "\"\n";
  for (const auto& k : plan.kernels) s.kernels.push_back(k.name_expression);
  return s;
}

const RowwiseFamily& find_rowwise_family(std::string_view name) {
  const auto* family = dynamic_cast<const RowwiseFamily*>(&find_family(name));
  if (!family)
    throw std::invalid_argument("kernel family '" + std::string(name) + "' is not row-wise");
  return *family;
}

}  // namespace ktune::rowwise
