// CallKey: packing descriptors into keys and keys into family problems.
#include "runtime/call_key.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels_templated/rowwise/rowwise_family.hpp"

namespace ktune::rt {
namespace {

constexpr const char* kLayouts[] = {"nn", "nt", "tn", "tt"};
constexpr const char* kEpilogues[] = {"none", "bias", "bias_relu", "bias_gelu"};
// Row-wise keys: ints[0..2] are rows, cols and dtype; choices follow.
constexpr std::size_t kFirstChoice = 3;

// A row-wise key: each of the family's parameters from `params` (a choice
// by its index, a real by value) or, past the given ones, its default.
// Throws std::invalid_argument when the key has no room for them.
CallKey rowwise_key(const rowwise::RowwiseFamily& family, long long rows, long long cols,
                    DType dtype, const double* params, int count) {
  CallKey k;
  k.kind = CallKind::rowwise;
  k.family = &family;
  k.ints[0] = rows;
  k.ints[1] = cols;
  k.ints[2] = static_cast<long long>(dtype);
  std::size_t choice = kFirstChoice, real = 0;
  int i = 0;
  for (const rowwise::ProblemParam& param : family.spec().params()) {
    const bool given = i < count;
    const double v = given ? params[i] : 0.0;
    ++i;
    if (param.choices.empty()) {
      if (real == k.reals.size())
        throw std::invalid_argument("more real parameters than a call key holds");
      k.reals[real++] = given ? v : param.default_real;
    } else {
      if (choice == k.ints.size())
        throw std::invalid_argument("more choice parameters than a call key holds");
      // A non-integral index is kept as -1, which problem_of refuses.
      k.ints[choice++] =
          !given ? 0 : (v == std::floor(v) && std::isfinite(v) ? static_cast<long long>(v) : -1);
    }
  }
  return k;
}

const rowwise::RowwiseFamily& rowwise_family_of(const CallKey& key) {
  const auto* family = dynamic_cast<const rowwise::RowwiseFamily*>(key.family);
  if (!family) throw std::invalid_argument("a row-wise call key without a row-wise family");
  return *family;
}

}  // namespace

std::string_view dtype_text(DType t) {
  switch (t) {
    case DType::fp32:
      return "fp32";
    case DType::tf32:
      return "tf32";
    case DType::bf16:
      return "bf16";
    case DType::fp16:
      return "fp16";
  }
  return "fp32";
}

std::size_t CallKeyHash::operator()(const CallKey& k) const {
  // FNV-1a over the fields (floats by their bits): cheap, and the key is small.
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ULL;
    }
  };
  mix(static_cast<std::uint64_t>(k.kind));
  mix(reinterpret_cast<std::uintptr_t>(k.family));
  for (long long v : k.ints) mix(static_cast<std::uint64_t>(v));
  for (double f : k.reals) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    mix(bits);
  }
  return static_cast<std::size_t>(h);
}

CallKey key_of(const GemmDesc& d) {
  static const KernelFamily& gemm = find_family("gemm");
  CallKey k;
  k.kind = CallKind::gemm;
  k.family = &gemm;
  const long long packed = static_cast<long long>(d.dtype) | static_cast<long long>(d.layout) << 4 |
                           static_cast<long long>(d.epilogue) << 8 | (d.out_fp32 ? 1LL : 0LL) << 12;
  k.ints = {d.m, d.n, d.k, d.lda, d.ldb, d.ldc, packed};
  k.reals = {d.alpha, d.beta, 0.0};
  return k;
}

// The typed calls of the shipped row-wise families: their parameters in the
// order of the families' specs (reduce: axis, op, each enum in the order of
// the family's choices).
CallKey key_of(const RmsnormDesc& d) {
  static const rowwise::RowwiseFamily& family = rowwise::find_rowwise_family("rmsnorm");
  const double params[] = {d.eps};
  return rowwise_key(family, d.rows, d.cols, d.dtype, params, 1);
}

CallKey key_of(const SoftmaxDesc& d) {
  static const rowwise::RowwiseFamily& family = rowwise::find_rowwise_family("softmax");
  return rowwise_key(family, d.rows, d.cols, d.dtype, nullptr, 0);
}

CallKey key_of(const ReduceDesc& d) {
  static const rowwise::RowwiseFamily& family = rowwise::find_rowwise_family("reduce");
  const double params[] = {static_cast<double>(d.axis), static_cast<double>(d.op)};
  return rowwise_key(family, d.rows, d.cols, d.dtype, params, 2);
}

CallStatus key_of(const RowwiseDesc& d, CallKey* out) {
  try {
    const rowwise::RowwiseFamily& family = rowwise::find_rowwise_family(d.family ? d.family : "");
    const int known = static_cast<int>(family.spec().params().size());
    if (d.param_count < 0 || d.param_count > known ||
        d.param_count > static_cast<int>(d.params.size()))
      return CallStatus::error(std::string(family.name()) + ": " + std::to_string(d.param_count) +
                               " parameters given, the family has " + std::to_string(known) + " (" +
                               std::string(family.problem_help()) + ")");
    *out = rowwise_key(family, d.rows, d.cols, d.dtype, d.params.data(), d.param_count);
    return CallStatus::success();
  } catch (const std::exception& e) {
    return CallStatus::error(std::string("ktune runtime: ") + e.what());
  }
}

Problem problem_of(const CallKey& key) {
  Problem p;
  const auto& v = key.ints;
  if (key.kind == CallKind::gemm) {
    p.set("m", static_cast<std::int64_t>(v[0]));
    p.set("n", static_cast<std::int64_t>(v[1]));
    p.set("k", static_cast<std::int64_t>(v[2]));
    // 0: tight, which normalize fills in from the layout.
    if (v[3] != 0) p.set("lda", static_cast<std::int64_t>(v[3]));
    if (v[4] != 0) p.set("ldb", static_cast<std::int64_t>(v[4]));
    if (v[5] != 0) p.set("ldc", static_cast<std::int64_t>(v[5]));
    p.set("dtype", std::string(dtype_text(static_cast<DType>(v[6] & 0xf))));
    p.set("layout", std::string(kLayouts[(v[6] >> 4) & 0x3]));
    p.set("epilogue", std::string(kEpilogues[(v[6] >> 8) & 0x3]));
    p.set("out", std::string((v[6] >> 12) & 1 ? "fp32" : "same"));
    p.set("alpha", key.reals[0]);
    p.set("beta", key.reals[1]);
    return p;
  }
  const rowwise::RowwiseFamily& family = rowwise_family_of(key);
  p.set("rows", static_cast<std::int64_t>(v[0]));
  p.set("cols", static_cast<std::int64_t>(v[1]));
  p.set("dtype", std::string(dtype_text(static_cast<DType>(v[2]))));
  std::size_t choice = kFirstChoice, real = 0;
  for (const rowwise::ProblemParam& param : family.spec().params()) {
    if (param.choices.empty()) {
      p.set(param.key, key.reals[real++]);
      continue;
    }
    const long long index = v[choice++];
    if (index < 0 || index >= static_cast<long long>(param.choices.size()))
      throw std::invalid_argument("problem key '" + param.key + "': no choice " +
                                  std::to_string(index) + " (expected 0.." +
                                  std::to_string(param.choices.size() - 1) + ")");
    p.set(param.key, param.choices[static_cast<std::size_t>(index)]);
  }
  return p;
}

}  // namespace ktune::rt
