/* ktune's C ABI (libktune_c): tuning databases, lookups and the tuned calls of
 * libktune_runtime for callers that speak C: Python's ctypes, other languages'
 * foreign-function interfaces. Plain C99; every function returns a status and
 * never throws or aborts; the message of the calling thread's last failure is
 * ktune_last_error(). Strings returned through `char**` are JSON (UTF-8) and
 * freed with ktune_free(). Structures are passed by pointer and grow only with
 * KTUNE_C_API_VERSION. */
#ifndef KTUNE_C_H
#define KTUNE_C_H

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped at every change of a signature or a structure below. */
#define KTUNE_C_API_VERSION 1

typedef enum ktune_status {
  KTUNE_OK = 0,
  KTUNE_ERROR_INVALID_ARGUMENT = 1, /* bad input: a problem, a dtype, a shape, a format */
  KTUNE_ERROR_DATABASE = 2,         /* a database missing, corrupt, foreign or newer */
  KTUNE_ERROR_NO_GPU = 3,           /* no usable CUDA device */
  KTUNE_ERROR_CALL = 4,             /* the call itself failed (compile, launch) */
  KTUNE_ERROR_NOT_FOUND = 5         /* a lookup with no tuned or default configuration */
} ktune_status;

/* The KTUNE_C_API_VERSION the library was built with. */
int ktune_c_api_version(void);
/* The message of this thread's last failed call ("" if none). Valid until the next call. */
const char* ktune_last_error(void);
/* Frees a string returned through a char** argument (null is fine). */
void ktune_free(char* text);

/* ---- Databases (no CUDA, no GPU) ---- */

/* The best verified configurations per (family, device, problem), as `ktune db
 * query --json` prints them: a JSON array of objects. family/device: null or
 * "" for all; device is a GPU name, a short one ("h200") or an arch ("sm_90"),
 * and a name neither the device table nor the database holds is bad input;
 * top >= 1. */
ktune_status ktune_db_query(const char* path, const char* family, const char* device, int top,
                            char** json_out);
/* Writes every measurement of `path` to `out_path`; format "jsonl", "csv",
 * "t4" or null (from the file name). */
ktune_status ktune_db_export(const char* path, const char* out_path, const char* format,
                             long long* exported);
/* Adds the measurements of `in_path` to `path` (created if absent). The whole
 * file is parsed and checked against the families first: a malformed record
 * leaves the database as it was. */
ktune_status ktune_db_import(const char* path, const char* in_path, const char* format,
                             long long* read, long long* added);
/* The union of `inputs` into `output` (created if absent, else added to). */
ktune_status ktune_db_merge(const char* const* inputs, int n_inputs, const char* output,
                            long long* read, long long* added, long long* output_total);

/* The configuration `ktune lookup --json` answers for (family, problem) on
 * `device` (a GPU name, a short name such as "h200", or an arch such as
 * "sm_90"; required: the lookup queries no GPU), from the databases
 * `db_paths` in precedence order (missing files are skipped; none existing
 * is an error). `problem` is a problem key ("m=4096,n=4096,k=4096,dtype=bf16").
 * The answer is a JSON object with "source", "config", "config_key" and, for a
 * measured answer, "measured", "measured_problem", "database", ... */
ktune_status ktune_lookup(const char* const* db_paths, int n_paths, const char* family,
                          const char* problem, const char* device, char** json_out);

/* ---- Calls (libktune_runtime; need a GPU) ---- */

typedef struct ktune_runtime ktune_runtime;

/* user_db, system_db: null or "" for none (every call then runs its family's
 * default); cache_dir: null for the default, "-" for none; device: CUDA
 * ordinal, -1 for the current one. */
ktune_status ktune_runtime_open(const char* user_db, const char* system_db, const char* cache_dir,
                                int device, ktune_runtime** out);
void ktune_runtime_close(ktune_runtime* runtime);

typedef enum ktune_dtype {
  KTUNE_FP32 = 0,
  KTUNE_TF32 = 1,
  KTUNE_BF16 = 2,
  KTUNE_FP16 = 3
} ktune_dtype;
/* Storage of A and B, row-major: A 'n' is M x K, 't' K x M; B 'n' K x N, 't' N x K. */
typedef enum ktune_layout { KTUNE_NN = 0, KTUNE_NT = 1, KTUNE_TN = 2, KTUNE_TT = 3 } ktune_layout;
typedef enum ktune_epilogue {
  KTUNE_EPILOGUE_NONE = 0,
  KTUNE_EPILOGUE_BIAS = 1,
  KTUNE_EPILOGUE_BIAS_RELU = 2,
  KTUNE_EPILOGUE_BIAS_GELU = 3
} ktune_epilogue;
typedef enum ktune_reduce_op { KTUNE_REDUCE_SUM = 0, KTUNE_REDUCE_MAX = 1 } ktune_reduce_op;
typedef enum ktune_reduce_axis { KTUNE_AXIS_LAST = 0, KTUNE_AXIS_ROWS = 1 } ktune_reduce_axis;

/* C (M x N, row-major, ldc) = alpha * op(A) op(B) + beta * C, then the epilogue.
 * Leading dimensions of 0 mean tight. */
typedef struct ktune_gemm_desc {
  long long m, n, k, lda, ldb, ldc;
  int dtype;    /* ktune_dtype */
  int layout;   /* ktune_layout */
  int out_fp32; /* C in fp32 for 16-bit inputs */
  int epilogue; /* ktune_epilogue */
  double alpha, beta;
} ktune_gemm_desc;

/* The row-wise families: rows x cols, row-major, dense. eps: rmsnorm; op and
 * axis: reduce. */
typedef struct ktune_rowwise_desc {
  long long rows, cols;
  int dtype; /* ktune_dtype */
  double eps;
  int op;   /* ktune_reduce_op */
  int axis; /* ktune_reduce_axis */
} ktune_rowwise_desc;

/* Each call enqueues on `stream` (a cudaStream_t; null: the legacy default
 * stream) and returns without synchronizing. A shape called once on a stream
 * allocates nothing when called again there, so it may then be captured in a
 * CUDA graph. bias: N elements of C's type for the bias epilogues, else null. */
ktune_status ktune_gemm(ktune_runtime* runtime, const ktune_gemm_desc* desc, const void* a,
                        const void* b, void* c, const void* bias, void* stream);
ktune_status ktune_rmsnorm(ktune_runtime* runtime, const ktune_rowwise_desc* desc, const void* x,
                           const void* w, void* y, void* stream);
ktune_status ktune_softmax(ktune_runtime* runtime, const ktune_rowwise_desc* desc, const void* x,
                           void* y, void* stream);
ktune_status ktune_reduce(ktune_runtime* runtime, const ktune_rowwise_desc* desc, const void* x,
                          void* y, void* stream);

/* Any row-wise family by its registered name (`ktune space --kernel NAME`
 * shows its problem keys): rows x cols, row-major, dense. params: its keys
 * beyond rows, cols and dtype, in that order (a choice by its index, a real
 * by its value); those past n_params take the family's defaults. */
typedef struct ktune_rowwise_family_desc {
  const char* family;
  long long rows, cols;
  int dtype; /* ktune_dtype */
  int n_params;
  double params[4];
} ktune_rowwise_family_desc;

/* w: the family's column vector (rmsnorm's weight, cols elements), else null. */
ktune_status ktune_rowwise(ktune_runtime* runtime, const ktune_rowwise_family_desc* desc,
                           const void* x, const void* w, void* y, void* stream);

/* Which configuration a call of this problem runs, and why: JSON
 * {"family","problem","config","how"}. family: "gemm" (desc: ktune_gemm_desc)
 * or a row-wise family (desc: ktune_rowwise_desc, whose eps, op and axis fill
 * the family's problem keys of those names). */
ktune_status ktune_explain(ktune_runtime* runtime, const char* family, const void* desc,
                           char** json_out);
/* The same for any row-wise family's descriptor. */
ktune_status ktune_explain_rowwise(ktune_runtime* runtime, const ktune_rowwise_family_desc* desc,
                                   char** json_out);

#ifdef __cplusplus
}
#endif

#endif /* KTUNE_C_H */
