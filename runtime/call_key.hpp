// CallKey: a call's problem in a compact, hashable form (the per-shape cache
// key of the call path), and the family Problem it stands for.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "kernels_templated/family.hpp"
#include "runtime/ktune_calls.hpp"
#include "space/value_map.hpp"

namespace ktune::rt {

/// How a family is called: gemm, or a row-wise family (any of them: the
/// key's family says which). Never a list of row-wise families.
enum class CallKind : int { gemm, rowwise };

/// Every field of a descriptor, packed; equal keys mean equal problems.
/// Row-wise: ints = {rows, cols, dtype, choice parameters by index...},
/// reals = the real parameters, both in the family's parameter order.
struct CallKey {
  CallKind kind = CallKind::gemm;
  const KernelFamily* family = nullptr;  ///< a registered family (static storage)
  std::array<long long, 7> ints{};
  std::array<double, 3> reals{};
  friend bool operator==(const CallKey& a, const CallKey& b) {
    return a.kind == b.kind && a.family == b.family && a.ints == b.ints && a.reals == b.reals;
  }
};
struct CallKeyHash {
  std::size_t operator()(const CallKey& k) const;
};

CallKey key_of(const GemmDesc& d);
CallKey key_of(const RmsnormDesc& d);
CallKey key_of(const SoftmaxDesc& d);
CallKey key_of(const ReduceDesc& d);
/// Any row-wise family by name: an error status for a family that is not
/// registered or not row-wise, or more parameters than it has.
CallStatus key_of(const RowwiseDesc& d, CallKey* out);

/// The problem in the family's keys, not yet normalized (normalize checks
/// it). Throws std::invalid_argument for a choice index outside the family's
/// choices or a key without a family.
Problem problem_of(const CallKey& key);

std::string_view dtype_text(DType t);

}  // namespace ktune::rt
