// CallKey: a call's problem in a compact, hashable form (the per-shape cache
// key of the call path), and the family Problem it stands for.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "runtime/ktune_calls.hpp"
#include "space/value_map.hpp"

namespace ktune::rt {

enum class FamilyId : int { gemm, reduce, softmax, rmsnorm };
/// The family's registered name; "" for an id outside the enum (the
/// dispatcher refuses it).
std::string_view family_name(FamilyId f);

/// Every field of a descriptor, packed; equal keys mean equal problems.
struct CallKey {
  FamilyId family = FamilyId::gemm;
  std::array<long long, 7> ints{};
  std::array<double, 3> reals{};
  friend bool operator==(const CallKey& a, const CallKey& b) {
    return a.family == b.family && a.ints == b.ints && a.reals == b.reals;
  }
};
struct CallKeyHash {
  std::size_t operator()(const CallKey& k) const;
};

CallKey key_of(const GemmDesc& d);
CallKey key_of(const RmsnormDesc& d);
CallKey key_of(const SoftmaxDesc& d);
CallKey key_of(const ReduceDesc& d);

/// The problem in the family's keys, not yet normalized (normalize checks it).
Problem problem_of(const CallKey& key);

std::string_view dtype_text(DType t);

}  // namespace ktune::rt
