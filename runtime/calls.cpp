// ktune::Calls: each call and explanation as its dispatcher key, once for
// the runtime and the emitted libraries.
#include "runtime/call_key.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/ktune_calls.hpp"

namespace ktune {

CallStatus Calls::gemm(const GemmDesc& d, const GemmTensors& t, cudaStream_t stream) {
  return dispatcher_->call(rt::key_of(d), {t.a, t.b, t.c, t.bias}, stream);
}
CallStatus Calls::rmsnorm(const RmsnormDesc& d, const void* x, const void* w, void* y,
                          cudaStream_t stream) {
  return dispatcher_->call(rt::key_of(d), {x, w, y, nullptr}, stream);
}
CallStatus Calls::softmax(const SoftmaxDesc& d, const void* x, void* y, cudaStream_t stream) {
  return dispatcher_->call(rt::key_of(d), {x, nullptr, y, nullptr}, stream);
}
CallStatus Calls::reduce(const ReduceDesc& d, const void* x, void* y, cudaStream_t stream) {
  return dispatcher_->call(rt::key_of(d), {x, nullptr, y, nullptr}, stream);
}

CallStatus Calls::rowwise(const RowwiseDesc& d, const void* x, const void* w, void* y,
                          cudaStream_t stream) {
  rt::CallKey key;
  if (CallStatus s = rt::key_of(d, &key); !s) return s;
  return dispatcher_->call(key, {x, w, y, nullptr}, stream);
}

CallStatus Calls::explain(const GemmDesc& d, Explanation* out) {
  return dispatcher_->explain(rt::key_of(d), out);
}
CallStatus Calls::explain(const RmsnormDesc& d, Explanation* out) {
  return dispatcher_->explain(rt::key_of(d), out);
}
CallStatus Calls::explain(const SoftmaxDesc& d, Explanation* out) {
  return dispatcher_->explain(rt::key_of(d), out);
}
CallStatus Calls::explain(const ReduceDesc& d, Explanation* out) {
  return dispatcher_->explain(rt::key_of(d), out);
}
CallStatus Calls::explain(const RowwiseDesc& d, Explanation* out) {
  rt::CallKey key;
  if (CallStatus s = rt::key_of(d, &key); !s) return s;
  return dispatcher_->explain(key, out);
}

}  // namespace ktune
