// Device helpers shared by the reduce, softmax and rmsnorm templates, one
// header per job: element conversion and knob encodings, loads, cp.async,
// stores, reductions and row geometry. NVRTC-safe: no host standard headers.
#pragma once

#include "kernels_templated/rowwise/args.h"
#include "kernels_templated/rowwise/cp_async.cuh"
#include "kernels_templated/rowwise/elements.cuh"
#include "kernels_templated/rowwise/loads.cuh"
#include "kernels_templated/rowwise/reductions.cuh"
#include "kernels_templated/rowwise/rows.cuh"
#include "kernels_templated/rowwise/stores.cuh"
