// The C ABI's calls: ktune::Runtime opened once, each family called on raw
// device pointers and a stream. No allocation and no exception on the call
// path beyond the runtime's own.
#include <algorithm>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "capi/capi_status.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"
#include "runtime/ktune_runtime.hpp"

struct ktune_runtime {
  std::unique_ptr<ktune::Runtime> runtime;
};

namespace ktune::capi {
namespace {

static_assert(KTUNE_FP32 == int(DType::fp32) && KTUNE_TF32 == int(DType::tf32) &&
              KTUNE_BF16 == int(DType::bf16) && KTUNE_FP16 == int(DType::fp16));
static_assert(KTUNE_NN == int(Layout::nn) && KTUNE_NT == int(Layout::nt) &&
              KTUNE_TN == int(Layout::tn) && KTUNE_TT == int(Layout::tt));
static_assert(KTUNE_EPILOGUE_BIAS_GELU == int(Epilogue::bias_gelu));
static_assert(KTUNE_REDUCE_MAX == int(ReduceOp::max) && KTUNE_AXIS_ROWS == int(ReduceAxis::rows));

// Enumerations are checked by range: the C caller may pass any int.
DType dtype_of(int d) {
  if (d < KTUNE_FP32 || d > KTUNE_FP16)
    throw std::invalid_argument("unknown dtype " + std::to_string(d));
  return static_cast<DType>(d);
}

GemmDesc gemm_of(const ktune_gemm_desc& d) {
  if (d.layout < KTUNE_NN || d.layout > KTUNE_TT)
    throw std::invalid_argument("unknown layout " + std::to_string(d.layout));
  if (d.epilogue < KTUNE_EPILOGUE_NONE || d.epilogue > KTUNE_EPILOGUE_BIAS_GELU)
    throw std::invalid_argument("unknown epilogue " + std::to_string(d.epilogue));
  GemmDesc g;
  g.m = d.m, g.n = d.n, g.k = d.k, g.lda = d.lda, g.ldb = d.ldb, g.ldc = d.ldc;
  g.dtype = dtype_of(d.dtype);
  g.layout = static_cast<Layout>(d.layout);
  g.out_fp32 = d.out_fp32 != 0;
  g.epilogue = static_cast<Epilogue>(d.epilogue);
  g.alpha = d.alpha, g.beta = d.beta;
  return g;
}

RmsnormDesc rmsnorm_of(const ktune_rowwise_desc& d) {
  return {d.rows, d.cols, dtype_of(d.dtype), d.eps};
}
SoftmaxDesc softmax_of(const ktune_rowwise_desc& d) { return {d.rows, d.cols, dtype_of(d.dtype)}; }
ReduceDesc reduce_of(const ktune_rowwise_desc& d) {
  if (d.op != KTUNE_REDUCE_SUM && d.op != KTUNE_REDUCE_MAX)
    throw std::invalid_argument("unknown reduce op " + std::to_string(d.op));
  if (d.axis != KTUNE_AXIS_LAST && d.axis != KTUNE_AXIS_ROWS)
    throw std::invalid_argument("unknown reduce axis " + std::to_string(d.axis));
  return {d.rows, d.cols, dtype_of(d.dtype), static_cast<ReduceOp>(d.op),
          static_cast<ReduceAxis>(d.axis)};
}

// A choice parameter's index must name one of the family's choices: a bad
// one is the caller's argument, as a bad enum of the typed calls is.
void check_choices(const RowwiseDesc& r) {
  const auto& params = rowwise::find_rowwise_family(r.family ? r.family : "").spec().params();
  for (int i = 0; i < r.param_count && i < static_cast<int>(params.size()); ++i) {
    const auto& choices = params[static_cast<std::size_t>(i)].choices;
    const double v = r.params[static_cast<std::size_t>(i)];
    if (!choices.empty() &&
        !(v >= 0 && v < static_cast<double>(choices.size()) && v == static_cast<int>(v)))
      throw std::invalid_argument(std::string(r.family) + ": unknown " +
                                  params[static_cast<std::size_t>(i)].key + " " +
                                  std::to_string(v));
  }
}

RowwiseDesc rowwise_of(const ktune_rowwise_family_desc& d) {
  RowwiseDesc r;
  r.family = d.family;
  r.rows = d.rows, r.cols = d.cols;
  r.dtype = dtype_of(d.dtype);
  if (d.n_params < 0 || d.n_params > static_cast<int>(r.params.size()))
    throw std::invalid_argument("n_params " + std::to_string(d.n_params) + " is outside 0..4");
  std::copy(d.params, d.params + d.n_params, r.params.begin());
  r.param_count = d.n_params;
  check_choices(r);
  return r;
}

// ktune_explain's row-wise descriptor: its fields eps, op and axis fill the
// family's problem keys of those names; a family with any other key is
// explained through ktune_explain_rowwise.
RowwiseDesc rowwise_of(const std::string& family, const ktune_rowwise_desc& d) {
  RowwiseDesc r;
  r.family = family.c_str();
  r.rows = d.rows, r.cols = d.cols;
  r.dtype = dtype_of(d.dtype);
  for (const rowwise::ProblemParam& param : rowwise::find_rowwise_family(family).spec().params()) {
    double v = 0;
    if (param.key == "eps")
      v = d.eps;
    else if (param.key == "op")
      v = d.op;
    else if (param.key == "axis")
      v = d.axis;
    else
      throw std::invalid_argument(family + ": problem key '" + param.key +
                                  "' is not in ktune_rowwise_desc (use ktune_explain_rowwise)");
    r.params[static_cast<std::size_t>(r.param_count++)] = v;
  }
  check_choices(r);
  return r;
}

std::string json_of(const Explanation& e) {
  return nlohmann::json{
      {"family", e.family}, {"problem", e.problem}, {"config", e.config}, {"how", e.how}}
      .dump();
}

// A runtime's status: its message says what is wrong with the call.
ktune_status status_of(const CallStatus& s) {
  return s ? succeed() : fail(KTUNE_ERROR_CALL, s.message());
}

Runtime& runtime_of(ktune_runtime* r) {
  if (!r || !r->runtime) throw std::invalid_argument("the runtime is null (ktune_runtime_open)");
  return *r->runtime;
}

template <class Desc>
const Desc& desc_of(const void* d) {
  if (!d) throw std::invalid_argument("the call's descriptor is null");
  return *static_cast<const Desc*>(d);
}

}  // namespace
}  // namespace ktune::capi

using namespace ktune;
using namespace ktune::capi;

extern "C" {

ktune_status ktune_runtime_open(const char* user_db, const char* system_db, const char* cache_dir,
                                int device, ktune_runtime** out) {
  return guard([&] {
    if (!out) throw std::invalid_argument("out is null");
    RuntimeOptions o;
    o.user_db = user_db ? user_db : "";
    o.system_db = system_db ? system_db : "";
    o.cache_dir = cache_dir ? cache_dir : "";
    o.device = device;
    auto handle = std::make_unique<ktune_runtime>();
    const CallStatus s = Runtime::open(o, &handle->runtime);
    if (!s) {
      // The runtime reports the databases before the device (runtime/runtime.cpp).
      const std::string& m = s.message();
      const ktune_status code = m.find("database") != std::string::npos ? KTUNE_ERROR_DATABASE
                                : m.find("no CUDA device") != std::string::npos ? KTUNE_ERROR_NO_GPU
                                                                                : KTUNE_ERROR_CALL;
      return fail(code, m);
    }
    *out = handle.release();
    return succeed();
  });
}

void ktune_runtime_close(ktune_runtime* runtime) { delete runtime; }

ktune_status ktune_gemm(ktune_runtime* runtime, const ktune_gemm_desc* desc, const void* a,
                        const void* b, void* c, const void* bias, void* stream) {
  return guard([&] {
    const GemmDesc g = gemm_of(desc_of<ktune_gemm_desc>(desc));
    return status_of(
        runtime_of(runtime).gemm(g, GemmTensors{a, b, c, bias}, static_cast<cudaStream_t>(stream)));
  });
}

ktune_status ktune_rmsnorm(ktune_runtime* runtime, const ktune_rowwise_desc* desc, const void* x,
                           const void* w, void* y, void* stream) {
  return guard([&] {
    return status_of(runtime_of(runtime).rmsnorm(rmsnorm_of(desc_of<ktune_rowwise_desc>(desc)), x,
                                                 w, y, static_cast<cudaStream_t>(stream)));
  });
}

ktune_status ktune_softmax(ktune_runtime* runtime, const ktune_rowwise_desc* desc, const void* x,
                           void* y, void* stream) {
  return guard([&] {
    return status_of(runtime_of(runtime).softmax(softmax_of(desc_of<ktune_rowwise_desc>(desc)), x,
                                                 y, static_cast<cudaStream_t>(stream)));
  });
}

ktune_status ktune_reduce(ktune_runtime* runtime, const ktune_rowwise_desc* desc, const void* x,
                          void* y, void* stream) {
  return guard([&] {
    return status_of(runtime_of(runtime).reduce(reduce_of(desc_of<ktune_rowwise_desc>(desc)), x, y,
                                                static_cast<cudaStream_t>(stream)));
  });
}

ktune_status ktune_rowwise(ktune_runtime* runtime, const ktune_rowwise_family_desc* desc,
                           const void* x, const void* w, void* y, void* stream) {
  return guard([&] {
    return status_of(
        runtime_of(runtime).rowwise(rowwise_of(desc_of<ktune_rowwise_family_desc>(desc)), x, w, y,
                                    static_cast<cudaStream_t>(stream)));
  });
}

ktune_status ktune_explain(ktune_runtime* runtime, const char* family, const void* desc,
                           char** json_out) {
  return guard([&] {
    if (!json_out) throw std::invalid_argument("json_out is null");
    const std::string f = family ? family : "";
    Runtime& r = runtime_of(runtime);
    Explanation e;
    CallStatus s;
    // Anything but gemm must be a registered row-wise family (else
    // find_family's error names the known ones).
    if (f == "gemm") {
      s = r.explain(gemm_of(desc_of<ktune_gemm_desc>(desc)), &e);
    } else {
      s = r.explain(rowwise_of(f, desc_of<ktune_rowwise_desc>(desc)), &e);
    }
    if (!s) return status_of(s);
    *json_out = copy_out(json_of(e));
    return succeed();
  });
}

ktune_status ktune_explain_rowwise(ktune_runtime* runtime, const ktune_rowwise_family_desc* desc,
                                   char** json_out) {
  return guard([&] {
    if (!json_out) throw std::invalid_argument("json_out is null");
    Explanation e;
    const CallStatus s =
        runtime_of(runtime).explain(rowwise_of(desc_of<ktune_rowwise_family_desc>(desc)), &e);
    if (!s) return status_of(s);
    *json_out = copy_out(json_of(e));
    return succeed();
  });
}

}  // extern "C"
