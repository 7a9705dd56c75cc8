// Lookup: the runtime answer to "which configuration for this (family,
// problem, device)?" from one database or a user database over a system one.
// Opens read-only, builds an in-memory index once, thread-safe. No CUDA.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/store.hpp"
#include "space/objective.hpp"

namespace ktune {

/// How an answer was found (LookupAnswer::reach says on which GPU).
enum class LookupSource {
  exact,    ///< this problem, measured
  nearest,  ///< the nearest measured shape of the same shape class
  /// best predicted by the caller's predictor (Lookup::set_predictor) among
  /// the winners of measured problems of the same shape class, where the
  /// nearest measured shape is at least PredictionRule::min_distance away
  predicted,
  arch_fallback,   ///< this problem measured on a GPU of another arch, the closest arch
  default_config,  ///< nothing measured fits: the caller's safe default
};
std::string_view to_string(LookupSource s);

/// Whose measurements an answer rests on.
enum class LookupReach {
  own,         ///< the asked GPU's (or, when only an arch is asked, that arch's)
  sibling,     ///< another GPU of the asked GPU's arch
  other_arch,  ///< a GPU of another arch (LookupSource::arch_fallback)
};
std::string_view to_string(LookupReach r);

/// One step of the lookup's chain. Nearest steps answer `predicted` instead
/// where the predictor and PredictionRule say so.
enum class LookupTier {
  own_exact,         ///< this problem on the asked GPU
  own_nearest,       ///< the nearest (or predicted) shape on the asked GPU
  sibling_exact,     ///< this problem on another GPU of the arch
  sibling_nearest,   ///< the nearest (or predicted) shape on other GPUs of the arch
  other_arch_exact,  ///< this problem on the closest other arch
};
std::string_view to_string(LookupTier t);

/// The chain's order: the one place it is decided. Own exact first and the
/// other arch last follow from validity and closeness. A sibling's exact
/// shape comes before the asked GPU's own nearest one: on an H100 with a
/// database of H100 and H200 rows, the runtime bench timed both answers for
/// the same shapes in one run, and of 9 shapes where they differed the H200's
/// exact answer was faster on 8 (1.08x to 2.28x, against cuBLAS in the same
/// run; 512 x N x K from an M = 128 or 2048 neighbour) and even on the ninth
/// (bench/results/README.md, "the chain's order"). Lookup::set_chain_order
/// replaces it.
inline constexpr LookupTier kDefaultChainOrder[] = {
    LookupTier::own_exact,       LookupTier::sibling_exact,    LookupTier::own_nearest,
    LookupTier::sibling_nearest, LookupTier::other_arch_exact,
};

struct LookupRequest {
  std::string family;  ///< e.g. "gemm"
  Problem problem;     ///< normalized (KernelFamily::normalize)
  std::string device;  ///< GPU name, e.g. "NVIDIA H200"; empty: any device of `arch`
  std::string arch;    ///< "sm_90"; empty: taken from the device name (database or built-in table)
  /// Numeric keys for the nearest-shape distance (KernelFamily::shape_keys()).
  /// Empty: those stored with the measured problems.
  std::vector<std::string> shape_keys;
  /// KernelFamily::shape_class(problem). Empty: the problem minus its shape keys.
  std::string shape_class;
  /// Template hash that is current for this problem on this device: for a
  /// family versioned per kernel path (gemm), the hash of the path the problem
  /// takes there (engine: family_source_hash(family, problem, device); `ktune
  /// lookup` sets it). Empty: per family, shape class and arch, the hash with
  /// the newest measurement across the open databases (so each kernel path
  /// keeps its own; the class is shape_class, else the one stored with the
  /// same problem, else the problem minus its shape keys). Other hashes are
  /// stale, never served.
  std::string family_hash;
  /// The family's safe default (KernelFamily::default_config); without it a
  /// request that nothing measured fits gets no answer.
  std::optional<Config> default_config;
  /// Whether a configuration runs correctly for this problem on this device:
  /// the family's space for them accepts it (engine: space_validator in
  /// lookup/lookup_validity.hpp). Measured answers it refuses are stepped
  /// over (the next candidate of the same entry, then the next entry). It
  /// must depend on (family, problem, device) only: answers are cached per
  /// request. Unset: every measured configuration is taken to fit, which is
  /// right only for the problems measured themselves.
  std::function<bool(const Config&)> fits;
  /// Serve only results whose verification ran the configuration twice and
  /// found the same bits (metrics.verification.deterministic true); results
  /// never checked, and atomics-based split-K, are stepped over.
  bool deterministic_only = false;
  /// What "best" means: the fastest (time), the lowest energy per launch
  /// (energy) or the lowest energy x time (edp). Under energy and edp only
  /// verified results that carry energy (metrics.energy_j) are served.
  Objective objective = Objective::time;
  /// Serve only the asked GPU's own measurements (its exact, nearest and
  /// predicted answers, then the default): no sibling GPU, no other arch.
  bool own_device_only = false;
  /// The asked GPU's specs (the driver's, or the device table's) for the
  /// predictor's roofline; it must describe `device`. Unset: the built-in
  /// spec of `device`, else the spec of the GPU whose measurements teach.
  std::optional<DeviceSpec> device_spec;
};

struct LookupAnswer {
  LookupSource source = LookupSource::default_config;
  LookupReach reach = LookupReach::own;
  Config config;
  std::string config_key;  ///< config.key()
  // What was measured (empty / zero for default_config):
  Result result;                ///< status ok, times, throughput, errors, metrics
  Provenance provenance;        ///< host, tool version, source label, time
  std::string measured_device;  ///< GPU name that measured it
  std::string measured_arch;
  Problem measured_problem;  ///< the problem measured (differs for nearest)
  std::string family_hash;
  double distance = 0;   ///< nearest, predicted: log2-space distance to the nearest measured shape
  std::string database;  ///< path of the database (layer) that answered
  // predicted only (the fields above then describe the chosen configuration's
  // own measurement on measured_problem, or are empty for a general one):
  double predicted_s = 0;             ///< the predictor's time for the asked problem
  std::vector<Problem> learned_from;  ///< measured problems the predictor was calibrated on
  std::string learned_on;             ///< the GPU that measured them
};

/// Where an answer came from, in one line: "exact (measured on NVIDIA H200)",
/// "nearest (measured on NVIDIA H200, distance 0.33)", "predicted from 45
/// problems measured on NVIDIA H200", "default (nothing measured fits)".
std::string describe(const LookupAnswer& answer);

/// What a predictor is asked: rank `candidates` (each valid for the request)
/// for the request's problem on its device or arch.
struct PredictionQuery {
  const LookupRequest* request = nullptr;
  std::string arch;         ///< the request's arch, resolved
  std::string family_hash;  ///< the template version served, resolved
  std::string shape_class;  ///< the request's shape class, resolved
  /// The GPU whose measurements calibrate the model: the asked one, or for a
  /// sibling tier the sibling; empty: request->device, else (only an arch
  /// asked) the predictor's choice within the arch.
  std::string measured_on;
  /// The GPU the roofline is evaluated for (the asked one's specs, see
  /// LookupRequest::device_spec); unset: the calibrating GPU's.
  std::optional<DeviceSpec> device;
  std::vector<Config> candidates;
};

/// The predictor's choice: an index into PredictionQuery::candidates.
struct PredictedChoice {
  std::size_t index = 0;
  double predicted_s = 0;
  std::vector<Problem> learned_from;
  std::string learned_on;  ///< the GPU that measured learned_from
};

/// A model for shapes never measured, installed by the caller (the engine's
/// cost-model predictor, lookup/lookup_predictor.hpp, which needs the kernel
/// families: libktune_db itself holds no model). Must be thread-safe and
/// deterministic: its answers are cached per request.
class LookupPredictor {
 public:
  virtual ~LookupPredictor() = default;
  /// The candidate predicted fastest; nullopt when there is nothing to learn
  /// from for this family and device (the lookup then answers nearest).
  virtual std::optional<PredictedChoice> choose(const PredictionQuery& query) const = 0;
};

/// Where the lookup switches from the nearest measured shape to the predictor.
struct PredictionRule {
  /// Predict when the nearest measured shape of the class is at least this
  /// far (log2-space distance over the shape keys; 1 = one key off by 2x).
  /// The default, 0, predicts wherever the shape is not measured: the chain's
  /// lowest geometric-mean regret, leaving one shape out over 30 H200 GEMM
  /// recordings (bench/results/lookup-regret-2026-12-05-v2.md, `ktune
  /// bench-lookup`; read off the same shapes that score it).
  double min_distance = 0;
  /// Candidates taken from each measured problem (its fastest that fit),
  /// from the `problems` measured problems nearest the asked one.
  std::size_t winners_per_problem = 3;
  std::size_t problems = 64;
};

class Lookup {
 public:
  /// One database, read-only. Throws DatabaseError.
  static Lookup open(const std::string& path);
  /// Layers in precedence order (the user's database first, then the shipped
  /// system one): at each tier of the chain (kDefaultChainOrder) the first
  /// layer with an answer wins; later layers fill gaps. A configuration with
  /// a failed result (any status but ok) for a family version, problem and
  /// arch, on any GPU of the arch and in any layer, is never served for them
  /// (docs/lookup.md).
  static Lookup open_layers(const std::vector<std::string>& paths);
  /// open_layers({user, system}), skipping a user path that does not exist.
  static Lookup open_overlay(const std::string& user_path, const std::string& system_path);

  Lookup(Lookup&&) noexcept;
  Lookup& operator=(Lookup&&) noexcept;
  ~Lookup();

  /// The best verified configuration under the request's objective, with its
  /// provenance; null only when
  /// nothing fits and the request carries no default. Repeated requests are
  /// answered from a cache. Safe to call from many threads.
  std::shared_ptr<const LookupAnswer> best(const LookupRequest& request) const;

  /// Opt-in capture of what applications run: from now on, each request
  /// answered without an exact measurement (nearest, arch fallback, default,
  /// none) appends one JSON line {"arch","device","family","problem"} to
  /// `path`, once per distinct line (lines already in the file count), so
  /// `ktune sweep path` can tune exactly those problems. Thread-safe; each
  /// line is one append write under a lock on the file, so processes sharing
  /// it neither interleave nor log one miss twice.
  /// Throws DatabaseError when the file cannot be opened for appending.
  void log_misses(const std::string& path);

  /// Installs a model for shapes far from every measured one (null: none).
  /// Not thread-safe against concurrent best(): install before serving.
  /// Clears the answer cache.
  void set_predictor(std::shared_ptr<const LookupPredictor> predictor, PredictionRule rule = {});

  /// One line per stored result row that could not be read and was left out
  /// (malformed or too deeply nested metrics, say), naming its database and id.
  const std::vector<std::string>& warnings() const;
  /// Replaces the chain's order (kDefaultChainOrder); a tier left out is
  /// skipped. Not thread-safe against concurrent best(); clears the cache.
  void set_chain_order(std::vector<LookupTier> order);

  /// Number of measured (device, problem) entries indexed (all layers).
  std::size_t indexed_entries() const;
  /// Arch of a GPU name known to the open databases or the built-in table ("" if unknown).
  std::string arch_of(const std::string& device_name) const;
  /// Whether any open database stores a version of this kernel family.
  bool holds_family(const std::string& family) const;

  struct Impl;

 private:
  explicit Lookup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune
