// Tests of the reduce / softmax / rmsnorm descriptors: problem checks, spaces
// that are non-empty and consistent for a set of shapes, launch plans, work.
#include <gtest/gtest.h>

#include <set>

#include "kernels_templated/family.hpp"
#include "kernels_templated/rowwise/launch_plan.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"
#include "space/space.hpp"

using namespace ktune;

namespace {

DeviceSpec h200() { return *find_builtin_device("h200"); }

// Shapes that exercise the edges: rows of length 1, odd lengths, lengths not
// a multiple of any vector width, short and very long rows.
std::vector<std::string> shapes() {
  return {"rows=1,cols=1",       "rows=7,cols=1",       "rows=3,cols=17",      "rows=64,cols=1000",
          "rows=5,cols=4099",    "rows=256,cols=4096",  "rows=2,cols=262144",  "rows=4096,cols=32",
          "rows=33,cols=65538", "rows=1,cols=1048576"};
}

std::vector<std::string> variants(const std::string& family) {
  if (family == "reduce") return {",op=sum", ",op=max,axis=rows", ",op=sum,axis=rows", ",op=max"};
  if (family == "rmsnorm") return {"", ",eps=1e-5"};
  return {""};
}

/// Whether a kernel name expression ends with `tail` (its last template arguments).
bool ends_with(const std::string& name, const std::string& tail) {
  return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST(RowwiseDescriptors, AreRegistered) {
  for (const char* name : {"reduce", "softmax", "rmsnorm"}) EXPECT_EQ(find_family(name).name(), name);
}

TEST(RowwiseDescriptors, NormalizeFillsDefaultsAndRejectsBadKeys) {
  const KernelFamily& reduce = find_family("reduce");
  Problem p = parse_problem(reduce, "rows=4,cols=8,dtype=bf16");
  EXPECT_EQ(p.text("op"), "sum");
  EXPECT_EQ(p.text("axis"), "last");
  EXPECT_THROW(parse_problem(reduce, "rows=0,cols=8,dtype=bf16"), ProblemError);
  EXPECT_THROW(parse_problem(reduce, "rows=4,cols=8,dtype=int8"), ProblemError);
  EXPECT_THROW(parse_problem(reduce, "rows=4,cols=8,dtype=bf16,op=mean"), ProblemError);
  EXPECT_THROW(parse_problem(reduce, "rows=4,cols=8,dtype=bf16,axis=cols"), ProblemError);
  EXPECT_THROW(parse_problem(reduce, "rows=4,cols=8,dtype=bf16,colour=red"), ProblemError);
  EXPECT_THROW(parse_problem(reduce, "cols=8,dtype=bf16"), ProblemError);
  const KernelFamily& rms = find_family("rmsnorm");
  EXPECT_DOUBLE_EQ(parse_problem(rms, "rows=4,cols=8,dtype=fp32").real("eps"), 1e-6);
  EXPECT_THROW(parse_problem(rms, "rows=4,cols=8,dtype=fp32,eps=0"), ProblemError);
  EXPECT_THROW(parse_problem(find_family("softmax"), "rows=4,cols=8,dtype=fp32,op=sum"), ProblemError);
}

TEST(RowwiseDescriptors, SpacesAreNonEmptyAndConsistent) {
  const DeviceSpec d = h200();
  for (const char* name : {"reduce", "softmax", "rmsnorm"}) {
    const KernelFamily& f = find_family(name);
    for (const std::string& shape : shapes())
      for (const char* dtype : {"fp32", "bf16", "fp16"})
        for (const std::string& extra : variants(name)) {
          const std::string text = shape + ",dtype=" + dtype + extra;
          SCOPED_TRACE(std::string(name) + " " + text);
          Problem p = parse_problem(f, text);
          Space s = f.space(p, d);
          ASSERT_NO_THROW(s.require_nonempty());
          Config def = f.default_config(p, d);
          EXPECT_TRUE(s.is_valid(def));
          const long long cols = p.integer("cols");
          const int bytes = rowwise::dtype_bytes(dtype);
          for (const Config& c : s.sample(40, 7)) {
            ASSERT_TRUE(s.is_valid(c));
            // Vector accesses never straddle rows and stay within 16 bytes.
            EXPECT_EQ(cols % c.integer("vec"), 0);
            EXPECT_LE(c.integer("vec") * bytes, 16);
            rowwise::LaunchPlan plan =
                rowwise::plan_launch(static_cast<const rowwise::RowwiseFamily&>(f).spec(), p, c,
                                     rowwise::plan_device(d));
            ASSERT_FALSE(plan.kernels.empty());
            // Split rows take a second kernel unless they combine in the
            // kernel (split_combine=in_kernel: one counter per row); column
            // slices combine in the last slice of the one kernel (with
            // counters it leaves zeroed).
            const bool columns =
                static_cast<const rowwise::RowwiseFamily&>(f).spec().reduces_columns(p);
            const bool in_kernel = c.text_or("split_combine", "second_kernel") == "in_kernel";
            EXPECT_EQ(plan.kernels.size(), c.integer("split") > 1 && !columns && !in_kernel ? 2u : 1u);
            EXPECT_EQ(plan.counters > 0, (columns && c.integer("split") > 1) || in_kernel);
            EXPECT_GE(plan.threads, 32);
            EXPECT_LE(plan.threads, 1024);
            EXPECT_EQ(plan.threads % 32, 0);
            for (const auto& k : plan.kernels) {
              EXPECT_GE(k.grid_x, 1);
              EXPECT_LE(k.grid_y, 65535);
              // Only grid-stride kernels may be launched on a smaller grid.
              if (&k == &plan.kernels.front()) {
                EXPECT_EQ(k.persistent, !columns && c.text("grid") == "persistent");
              } else {
                EXPECT_EQ(k.persistent, k.name_expression.find("finish") == std::string::npos &&
                                            c.text("grid") == "persistent");
              }
              EXPECT_EQ(k.grid_x % k.cluster, 0);
            }
            KernelSource src = f.source(p, c);
            EXPECT_EQ(src.kernels.size(), plan.kernels.size());
            WorkEstimate w = f.estimate(p, c, d);
            EXPECT_GE(w.dram_bytes, w.min_bytes);
            EXPECT_DOUBLE_EQ(w.min_bytes, f.min_bytes(p));
            if (plan.seg_len > 0) {
              // Segments cover the row exactly: split * seg_len >= cols, and no
              // segment is empty.
              EXPECT_GE(plan.seg_len * plan.split, cols);
              EXPECT_LT(plan.seg_len * (plan.split - 1), cols);
            }
            if (plan.chunks > 0) {
              EXPECT_LE(plan.chunks * c.integer("vec"), 64);
            }
          }
        }
  }
}

TEST(RowwiseDescriptors, OddRowsGetOnlyScalarAccesses) {
  const KernelFamily& f = find_family("softmax");
  Problem p = parse_problem(f, "rows=3,cols=17,dtype=bf16");
  Space s = f.space(p, h200());
  std::set<long long> vecs;
  for (const Config& c : s.enumerate()) vecs.insert(c.integer("vec"));
  EXPECT_EQ(vecs, std::set<long long>{1});
  EXPECT_EQ(rowwise::row_alignment_bytes(p), 2);
  Problem q = parse_problem(f, "rows=3,cols=4096,dtype=bf16");
  std::set<long long> wide;
  for (const Config& c : f.space(q, h200()).sample(400, 3)) wide.insert(c.integer("vec"));
  EXPECT_TRUE(wide.count(8));
  EXPECT_FALSE(wide.count(16));  // 32 bytes: over the 16-byte access limit
}

TEST(RowwiseDescriptors, ShapeClassAndMinBytes) {
  const KernelFamily& r = find_family("reduce");
  Problem p = parse_problem(r, "rows=10,cols=6,dtype=fp16,axis=rows,op=max");
  EXPECT_EQ(r.shape_class(p), "fp16.a4.rows.max");
  EXPECT_DOUBLE_EQ(r.min_bytes(p), 2.0 * (60 + 6));
  const KernelFamily& s = find_family("softmax");
  EXPECT_DOUBLE_EQ(s.min_bytes(parse_problem(s, "rows=10,cols=8,dtype=fp32")), 4.0 * 160);
  const KernelFamily& n = find_family("rmsnorm");
  EXPECT_DOUBLE_EQ(n.min_bytes(parse_problem(n, "rows=10,cols=8,dtype=bf16")), 2.0 * (160 + 8));
}

TEST(RowwiseDescriptors, RegisterRowsReadOnceStreamingRowsMayReadTwice) {
  const KernelFamily& f = find_family("softmax");
  const DeviceSpec d = h200();
  Problem p = parse_problem(f, "rows=65536,cols=4096,dtype=bf16");
  Config c = f.default_config(p, d);
  c.set("threads_per_row", std::int64_t{128});
  c.set("rows_per_block", std::int64_t{4});
  c.set("vec", std::int64_t{8});
  c.set("split", std::int64_t{1});
  c.set("unroll", std::int64_t{1});
  c.set("row_cache", std::string("registers"));
  ASSERT_TRUE(f.space(p, d).is_valid(c));
  EXPECT_DOUBLE_EQ(f.estimate(p, c, d).dram_bytes, f.min_bytes(p));
  EXPECT_EQ(rowwise::plan_launch(rowwise::find_rowwise_family("softmax").spec(), p, c,
                                 rowwise::plan_device(d))
                .chunks,
            4);
}

TEST(RowwiseDescriptors, ClusterRowsAreSingleKernelLaunchesOfWholeClusters) {
  const KernelFamily& f = find_family("rmsnorm");
  const DeviceSpec d = h200();
  Problem p = parse_problem(f, "rows=1024,cols=131072,dtype=bf16");
  Space s = f.space(p, d);
  std::set<std::string> holds;
  std::set<long long> sizes;
  int strided = 0;
  for (const Config& c : s.sample(3000, 17)) {
    if (c.integer("cluster") == 1) continue;
    holds.insert(c.text("row_cache"));
    sizes.insert(c.integer("cluster"));
    EXPECT_EQ(c.integer("split"), 1);
    EXPECT_EQ(c.integer("rows_per_block"), 1);
    rowwise::LaunchPlan plan = rowwise::plan_launch(rowwise::find_rowwise_family("rmsnorm").spec(),
                                                    p, c, rowwise::plan_device(d));
    ASSERT_EQ(plan.kernels.size(), 1u);
    EXPECT_EQ(plan.kernels[0].cluster, c.integer("cluster"));
    EXPECT_EQ(plan.split, c.integer("cluster"));
    // Whole clusters: one per row, or a persistent grid of whole clusters.
    EXPECT_EQ(plan.kernels[0].grid_x % c.integer("cluster"), 0);
    if (c.text("grid") == "rows") {
      EXPECT_EQ(plan.kernels[0].grid_x, 1024 * c.integer("cluster"));
    } else {
      ++strided;
      EXPECT_LE(plan.kernels[0].grid_x, 1024 * c.integer("cluster"));
    }
    EXPECT_EQ(plan.workspace_floats, 0);
    // Phase 3 (kCluster), then the held-weights flag when weights=smem.
    EXPECT_TRUE(ends_with(plan.kernels[0].name_expression, c.text("weights") == "smem" ? ", 3, 1>" : ", 3>"))
        << plan.kernels[0].name_expression;
    if (c.text("row_cache") != "none") {
      EXPECT_DOUBLE_EQ(f.estimate(p, c, d).dram_bytes, f.min_bytes(p));
    }
  }
  EXPECT_EQ(holds, (std::set<std::string>{"none", "registers", "smem"}));
  EXPECT_TRUE(sizes.count(16));
  EXPECT_GT(strided, 0);
  // Too short for a cluster of 4: every block would hold < 1024 elements.
  Problem shortp = parse_problem(f, "rows=8,cols=2048,dtype=bf16");
  for (const Config& c : f.space(shortp, d).sample(500, 3)) EXPECT_LE(c.integer("cluster"), 2);
}

// The kernels find a segment's row with a shift and a mask (segment_of), so
// every plan's split x cluster is a power of two; a split the space would
// never offer is refused by name rather than launched with wrong rows.
TEST(RowwiseDescriptors, PlannedSplitsArePowersOfTwo) {
  const DeviceSpec d = h200();
  for (const char* name : {"reduce", "softmax", "rmsnorm"}) {
    const KernelFamily& f = find_family(name);
    const auto& spec = static_cast<const rowwise::RowwiseFamily&>(f).spec();
    for (const char* shape : {"rows=5,cols=4099,dtype=bf16", "rows=33,cols=65538,dtype=fp32",
                              "rows=1024,cols=131072,dtype=bf16"}) {
      const Problem p = parse_problem(f, shape);
      for (const Config& c : f.space(p, d).sample(300, 11)) {
        const rowwise::LaunchPlan plan = rowwise::plan_launch(spec, p, c, rowwise::plan_device(d));
        EXPECT_EQ(plan.split & (plan.split - 1), 0) << name << " " << shape << " " << c.key();
      }
    }
    const Problem p = parse_problem(f, "rows=4,cols=8192,dtype=fp32");
    Config c = f.default_config(p, d);
    c.set("split", std::int64_t{3});
    EXPECT_THROW(rowwise::plan_launch(spec, p, c, rowwise::plan_device(d)), std::invalid_argument)
        << name;
  }
}

TEST(RowwiseDescriptors, SharedMemoryRowsFitTheBlockAndReadOnce) {
  const KernelFamily& f = find_family("softmax");
  const DeviceSpec d = h200();
  for (const char* text : {"rows=256,cols=524288,dtype=bf16", "rows=4096,cols=32768,dtype=fp16",
                           "rows=33,cols=4099,dtype=fp32", "rows=5,cols=17,dtype=bf16"}) {
    SCOPED_TRACE(text);
    Problem p = parse_problem(f, text);
    Space s = f.space(p, d);
    const int bytes = rowwise::dtype_bytes(p.text("dtype"));
    int held = 0;
    for (const Config& c : s.sample(3000, 29)) {
      if (c.text("row_cache") != "smem") continue;
      ++held;
      EXPECT_GE(c.integer("vec") * bytes, 4);  // cp.async copies 4, 8 or 16 bytes
      EXPECT_EQ(c.integer("unroll"), 1);
      rowwise::LaunchPlan plan = rowwise::plan_launch(
          rowwise::find_rowwise_family("softmax").spec(), p, c, rowwise::plan_device(d));
      EXPECT_EQ(plan.chunks, rowwise::kSharedHeldChunks);
      EXPECT_EQ(plan.dynamic_smem, c.integer("rows_per_block") * plan.seg_len * bytes);
      EXPECT_LE(plan.dynamic_smem + plan.smem_bytes, d.smem_per_block_optin > 0 ? d.smem_per_block_optin : 232448);
      for (const auto& k : plan.kernels) EXPECT_EQ(k.dynamic_smem, plan.dynamic_smem);
      // Shared memory bounds the blocks an SM holds.
      EXPECT_LE(plan.resident_per_sm * (plan.dynamic_smem + plan.smem_bytes + rowwise::kReservedSmemPerBlock),
                rowwise::plan_device(d).smem_per_sm);
      if (c.integer("split") == 1) {
        EXPECT_DOUBLE_EQ(f.estimate(p, c, d).dram_bytes, f.min_bytes(p));
      }
    }
    // A 2-byte row of odd length only has 2-byte accesses: no cp.async, no shared-memory rows.
    if (std::string(text) == "rows=5,cols=17,dtype=bf16") {
      EXPECT_EQ(held, 0);
    } else {
      EXPECT_GT(held, 0);
    }
  }
}

// The long rows of issue 8 (softmax 1 MiB bf16 rows, rmsnorm 256 KiB bf16
// rows) have configurations that hold the whole row on chip across a
// cluster, or across the blocks of a split row combined in the kernel:
// every block one segment in shared memory, one kernel, the input read once.
TEST(RowwiseDescriptors, LongRowsHaveOnChipClusterConfigurations) {
  const DeviceSpec d = h200();
  struct Want {
    const char* family;
    const char* problem;
    std::set<long long> clusters;
    std::set<long long> linked_splits;
  };
  const std::vector<Want> wants = {
      // 128 KiB / 64 KiB segments (and 32 KiB split 32 ways)
      {"softmax", "rows=256,cols=524288,dtype=bf16", {8, 16}, {8, 16, 32}},
      {"rmsnorm", "rows=1024,cols=131072,dtype=bf16", {2, 4, 8, 16}, {2, 4, 8, 16, 32}},  // 128 KiB .. 8 KiB
      {"rmsnorm", "rows=37,cols=131070,dtype=bf16", {2, 4, 8, 16}, {2, 4, 8, 16, 32}},    // odd: 4-byte accesses
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(std::string(w.family) + " " + w.problem);
    const auto& f = static_cast<const rowwise::RowwiseFamily&>(find_family(w.family));
    const Problem p = parse_problem(f, w.problem);
    const Space s = f.space(p, d);
    const std::vector<Config> configs = f.on_chip_row_configs(p, d);
    ASSERT_FALSE(configs.empty());
    std::set<long long> clusters, linked_splits;
    for (const Config& c : configs) {
      SCOPED_TRACE(c.key());
      EXPECT_TRUE(s.is_valid(c));
      EXPECT_EQ(c.text("row_cache"), "smem");
      const bool linked = c.text("split_combine") == "in_kernel";
      (linked ? linked_splits : clusters).insert(linked ? c.integer("split") : c.integer("cluster"));
      const rowwise::LaunchPlan plan =
          rowwise::plan_launch(f.spec(), p, c, rowwise::plan_device(d));
      ASSERT_EQ(plan.kernels.size(), 1u);  // one kernel: no second read of the row
      EXPECT_EQ(plan.kernels[0].cluster, c.integer("cluster"));
      EXPECT_EQ(plan.kernels[0].cooperative, linked);
      EXPECT_EQ(plan.kernels[0].group, plan.split);  // the row's blocks walk rows together
      EXPECT_EQ(plan.kernels[0].grid_x % plan.split, 0);
      EXPECT_EQ(plan.split, c.integer("cluster") * c.integer("split"));
      EXPECT_EQ(plan.seg_len, rowwise::segment_length(p.integer("cols"), plan.split, c.integer("vec")));
      EXPECT_GE(plan.seg_len * plan.split, p.integer("cols"));  // the row's blocks hold the whole row
      EXPECT_LE(plan.dynamic_smem + plan.smem_bytes, d.smem_per_block_optin);
      EXPECT_EQ(f.estimate(p, c, d).dram_bytes, f.min_bytes(p));
    }
    EXPECT_EQ(clusters, w.clusters);
    EXPECT_EQ(linked_splits, w.linked_splits);
  }
  // Rows that fit one block, and reductions, get none.
  const auto& softmax = static_cast<const rowwise::RowwiseFamily&>(find_family("softmax"));
  EXPECT_TRUE(softmax.on_chip_row_configs(parse_problem(softmax, "rows=4096,cols=32768,dtype=fp16"), d).empty());
  const auto& reduce = static_cast<const rowwise::RowwiseFamily&>(find_family("reduce"));
  EXPECT_TRUE(reduce.on_chip_row_configs(parse_problem(reduce, "rows=256,cols=524288,dtype=bf16"), d).empty());
}

// rmsnorm weights=smem: only blocks of one shared-memory segment (which walk
// rows of the same columns, or own one row) hold their weight segment, right
// after the row segment, and they name the kernel that reads it there.
TEST(RowwiseDescriptors, RmsnormWeightsHeldOnlyByBlocksOfOneSharedMemorySegment) {
  const auto& f = static_cast<const rowwise::RowwiseFamily&>(find_family("rmsnorm"));
  const DeviceSpec d = h200();
  const Problem p = parse_problem(f, "rows=1024,cols=131072,dtype=bf16");
  const Space s = f.space(p, d);
  int held = 0;
  for (const Config& c : s.sample(3000, 41)) {
    const rowwise::LaunchPlan plan = rowwise::plan_launch(f.spec(), p, c, rowwise::plan_device(d));
    const bool hold = c.text("weights") == "smem";
    const std::string& name = plan.kernels.front().name_expression;
    // The phase (0 fused, 3 cluster, 4 linked), then the held-weights flag.
    EXPECT_EQ(ends_with(name, ", 0, 1>") || ends_with(name, ", 3, 1>") || ends_with(name, ", 4, 1>"), hold) << name;
    if (!hold) continue;
    ++held;
    EXPECT_EQ(c.text("row_cache"), "smem");
    EXPECT_EQ(c.integer("rows_per_block"), 1);
    // One segment per row, or a linked row whose blocks keep their segment.
    if (c.integer("split") != 1) {
      EXPECT_EQ(c.text("split_combine"), "in_kernel");
      EXPECT_EQ(plan.kernels[0].grid_x % plan.split, 0);
    }
    EXPECT_EQ(plan.dynamic_smem, 2 * plan.seg_len * 2);
    EXPECT_LE(plan.dynamic_smem + plan.smem_bytes, d.smem_per_block_optin);
  }
  EXPECT_GT(held, 0);
  // One row per block (grid=rows) holds them too, on a short-row shape.
  const Problem short_rows = parse_problem(f, "rows=32768,cols=4096,dtype=bf16");
  const Space short_space = f.space(short_rows, d);
  Config one_row;
  for (const Config& c : short_space.sample(3000, 43))
    if (c.text("weights") == "smem" && c.text("grid") == "rows" && c.integer("cluster") == 1) one_row = c;
  ASSERT_EQ(one_row.text_or("weights", ""), "smem") << "no grid=rows configuration holds its weights";
  EXPECT_EQ(one_row.integer("rows_per_block"), 1);
  const rowwise::LaunchPlan one_row_plan =
      rowwise::plan_launch(f.spec(), short_rows, one_row, rowwise::plan_device(d));
  EXPECT_TRUE(ends_with(one_row_plan.kernels.front().name_expression, ", 0, 1>"))
      << one_row_plan.kernels.front().name_expression;
  EXPECT_EQ(one_row_plan.kernels.front().grid_x, 32768);
  EXPECT_EQ(one_row_plan.dynamic_smem, 2 * 4096 * 2);
  // The long-row seeds offer both.
  std::set<std::string> kinds;
  for (const Config& c : f.on_chip_row_configs(p, d)) kinds.insert(c.text("weights"));
  EXPECT_EQ(kinds, (std::set<std::string>{"global", "smem"}));
  // A hand-written configuration that breaks the rule is refused by the plan too.
  Config bad = f.on_chip_row_configs(p, d).front();
  bad.set("weights", std::string("smem"));
  bad.set("row_cache", std::string("registers"));
  EXPECT_FALSE(s.is_valid(bad));
  EXPECT_THROW(rowwise::plan_launch(f.spec(), p, bad, rowwise::plan_device(d)),
               std::invalid_argument);
}

// split_combine=in_kernel: one cooperative persistent kernel (phase 4,
// kLinked) whose blocks exchange a row's partials through the workspace and
// one counter per row; only for split rows of one segment per block, 2..32
// segments, no cluster. Anything else is refused by the space and, by name,
// by the plan.
TEST(RowwiseDescriptors, InKernelSplitRowsAreOneCooperativeKernel) {
  const DeviceSpec d = h200();
  for (const char* name : {"softmax", "rmsnorm"}) {
    SCOPED_TRACE(name);
    const auto& f = static_cast<const rowwise::RowwiseFamily&>(find_family(name));
    const Problem p = parse_problem(f, "rows=256,cols=524288,dtype=bf16");
    const Space s = f.space(p, d);
    int linked = 0;
    for (const Config& c : s.sample(4000, 53)) {
      const rowwise::LaunchPlan plan =
          rowwise::plan_launch(f.spec(), p, c, rowwise::plan_device(d));
      const bool in_kernel = c.text("split_combine") == "in_kernel";
      EXPECT_EQ(plan.kernels.front().cooperative, in_kernel) << c.key();
      if (!in_kernel) continue;
      ++linked;
      EXPECT_GE(c.integer("split"), 2);
      EXPECT_LE(c.integer("split"), rowwise::kMaxLinkedSplit);
      EXPECT_EQ(c.integer("rows_per_block"), 1);
      EXPECT_EQ(c.integer("cluster"), 1);
      EXPECT_EQ(c.text("grid"), "persistent");
      ASSERT_EQ(plan.kernels.size(), 1u);
      const std::string& kernel = plan.kernels[0].name_expression;
      // Phase kLinked, then (rmsnorm weights=smem) the held-weights flag.
      EXPECT_TRUE(ends_with(kernel, c.text_or("weights", "global") == "smem" ? ", 4, 1>" : ", 4>")) << kernel;
      EXPECT_EQ(plan.counters, 256);                                       // one per row
      EXPECT_EQ(plan.workspace_floats, (std::string(name) == "softmax" ? 2 : 1) * 256 * plan.split);
      EXPECT_EQ(plan.kernels[0].grid_x % plan.split, 0);
      EXPECT_TRUE(plan.kernels[0].persistent);
    }
    EXPECT_GT(linked, 0);
    Config c = f.on_chip_row_configs(p, d).back();
    ASSERT_EQ(c.text("split_combine"), "in_kernel");
    for (auto [knob, value] : std::vector<std::pair<const char*, Value>>{{"grid", std::string("rows")},
                                                                         {"split", std::int64_t{64}},
                                                                         {"split", std::int64_t{1}},
                                                                         {"rows_per_block", std::int64_t{2}}}) {
      Config bad = c;
      bad.set(knob, value);
      SCOPED_TRACE(bad.key());
      EXPECT_FALSE(s.is_valid(bad));
      EXPECT_THROW(rowwise::plan_launch(f.spec(), p, bad, rowwise::plan_device(d)),
                   std::invalid_argument);
    }
  }
}
