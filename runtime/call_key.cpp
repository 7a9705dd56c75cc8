// CallKey: packing descriptors into keys and keys into family problems.
#include "runtime/call_key.hpp"

#include <cstring>
#include <string>

namespace ktune::rt {
namespace {

constexpr const char* kLayouts[] = {"nn", "nt", "tn", "tt"};
constexpr const char* kEpilogues[] = {"none", "bias", "bias_relu", "bias_gelu"};

}  // namespace

std::string_view family_name(FamilyId f) {
  switch (f) {
    case FamilyId::gemm:
      return "gemm";
    case FamilyId::reduce:
      return "reduce";
    case FamilyId::softmax:
      return "softmax";
    case FamilyId::rmsnorm:
      return "rmsnorm";
  }
  return "";  // an id outside the enum: no family, never a default one
}

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
  mix(static_cast<std::uint64_t>(k.family));
  for (long long v : k.ints) mix(static_cast<std::uint64_t>(v));
  for (double f : k.reals) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    mix(bits);
  }
  return static_cast<std::size_t>(h);
}

CallKey key_of(const GemmDesc& d) {
  CallKey k;
  k.family = FamilyId::gemm;
  const long long packed = static_cast<long long>(d.dtype) | static_cast<long long>(d.layout) << 4 |
                           static_cast<long long>(d.epilogue) << 8 | (d.out_fp32 ? 1LL : 0LL) << 12;
  k.ints = {d.m, d.n, d.k, d.lda, d.ldb, d.ldc, packed};
  k.reals = {d.alpha, d.beta, 0.0};
  return k;
}

CallKey key_of(const RmsnormDesc& d) {
  CallKey k;
  k.family = FamilyId::rmsnorm;
  k.ints = {d.rows, d.cols, static_cast<long long>(d.dtype), 0, 0, 0, 0};
  k.reals = {d.eps, 0.0, 0.0};
  return k;
}

CallKey key_of(const SoftmaxDesc& d) {
  CallKey k;
  k.family = FamilyId::softmax;
  k.ints = {d.rows, d.cols, static_cast<long long>(d.dtype), 0, 0, 0, 0};
  return k;
}

CallKey key_of(const ReduceDesc& d) {
  CallKey k;
  k.family = FamilyId::reduce;
  k.ints = {d.rows,
            d.cols,
            static_cast<long long>(d.dtype),
            static_cast<long long>(d.op),
            static_cast<long long>(d.axis),
            0,
            0};
  return k;
}

Problem problem_of(const CallKey& key) {
  Problem p;
  const auto& v = key.ints;
  if (key.family == FamilyId::gemm) {
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
  p.set("rows", static_cast<std::int64_t>(v[0]));
  p.set("cols", static_cast<std::int64_t>(v[1]));
  p.set("dtype", std::string(dtype_text(static_cast<DType>(v[2]))));
  if (key.family == FamilyId::rmsnorm) p.set("eps", key.reals[0]);
  if (key.family == FamilyId::reduce) {
    p.set("op", std::string(v[3] == static_cast<long long>(ReduceOp::max) ? "max" : "sum"));
    p.set("axis", std::string(v[4] == static_cast<long long>(ReduceAxis::rows) ? "rows" : "last"));
  }
  return p;
}

}  // namespace ktune::rt
