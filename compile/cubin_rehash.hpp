// Carrying stored results across a template edit that leaves their machine
// code unchanged: `ktune db rehash --compare-cubins OLD_KERNEL_DIR`.
//
// A result is keyed by the hash of its kernel path's template text, so any edit
// of that text (a comment, a new branch other configurations never take) makes
// every result of the path stale, and re-measuring them costs GPU time. Here
// each stale configuration is compiled twice, against the text it was measured
// with (an older checkout's kernels_templated) and against the current text;
// only where the two cubins hold the same machine code (same_machine_code:
// byte-identical but for NVRTC's per-compilation module ids in symbol names)
// is the result moved to the current hash. What the GPU ran is then exactly
// what would run now, so the measurement still stands. Everything else stays
// under its old hash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compile/compiler.hpp"
#include "db/current_hash.hpp"

namespace ktune {

struct CubinRehashOptions {
  /// The kernels_templated folder the stale results were measured with.
  std::string old_kernel_dir;
  /// Only results under this hash (empty: every stale hash).
  std::string from_hash;
  /// Cache and extra options; the arch and kernel_dir are set per comparison.
  CompilerOptions compiler;
  /// Compile and compare, write nothing.
  bool dry_run = false;
};

struct CubinRehashSummary {
  /// Stale configurations measured with the old folder's text.
  std::int64_t compared = 0;
  /// Of those, the same machine code: their results are moved.
  std::int64_t identical = 0;
  /// Different cubins: left under their hash.
  std::int64_t different = 0;
  /// A compile failed on either side: left under their hash.
  std::int64_t failed = 0;
  /// Stale configurations stored under a hash the old folder's text does not give.
  std::int64_t other_text = 0;
  /// The results moved (or, dry, that would move).
  RekeySummary rekey;
  /// NVRTC compilations asked for (two per comparison; cache hits included).
  std::int64_t compilations = 0;
  /// Wall time of the comparison compiles.
  double compile_seconds = 0;
  /// Up to 5 left behind: "problem | configuration: why".
  std::vector<std::string> examples;
};

/// Compares and re-keys `family`'s stale configurations (see the file
/// comment) in `store`, in one transaction. Throws std::invalid_argument when
/// the old folder does not hold the family's templates, DatabaseError when
/// the database fails.
CubinRehashSummary rehash_identical_cubins(Store& store, const KernelFamily& family,
                                           const CubinRehashOptions& options);

}  // namespace ktune
