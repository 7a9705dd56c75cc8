// The `ktune worker` protocol: JSON lines between an IsolatedEvaluator (the
// parent) and the worker process that owns the GPU context.
//
// Parent -> worker (the worker's stdin):
//   {"family":F, "problem":{...}, "seed":S, "options":{...}}   once, first
//   {"config":{...}}  ... one line per configuration of a batch, then
//   {"run":true}      evaluate the configurations sent since the last run
//   (end of input)    the worker exits 0
// Worker -> parent (the worker's stdout; every line flushed at once):
//   {"event":"ready","device":{...},"family_hash":H}   setup done
//   {"event":"error","message":M}                      setup failed (exit 1)
//   {"event":"start","index":i}      configuration i of the batch goes on the GPU
//   {"event":"result","index":i,"result":{...}}        its Result (result_to_json)
//   {"event":"batch_done"}
//   {"event":"context_lost","message":M}   a sticky CUDA error: exit 3 follows
// The parent knows from the last "start" without a "result" which
// configuration was on the GPU when the worker hung or died.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/gpu_evaluator.hpp"

namespace ktune {

/// Exit status of a worker that lost its CUDA context (after reporting the
/// configuration that caused it).
inline constexpr int kWorkerContextLostExit = 3;

/// Environment variable that turns the worker into a GPU-free fake for tests:
/// "1" answers by the test_faulty knob `mode` (normal -> ok with a synthetic
/// time, wrong -> wrong_result, hang -> never answers, oob_write ->
/// launch_error and a context-lost exit); "crash" makes oob_write abort the
/// process without answering. Every fake result is labelled synthetic.
inline constexpr const char* kWorkerFakeEnv = "KTUNE_WORKER_FAKE";

nlohmann::json gpu_options_to_json(const GpuEvaluatorOptions& o);
/// Missing fields keep their defaults; throws std::invalid_argument on a wrong type.
GpuEvaluatorOptions gpu_options_from_json(const nlohmann::json& j);

/// The worker's main loop over the protocol above; returns the exit status.
/// `protocol_fd` receives the worker's lines (the real stdout, while fd 1 is
/// pointed at stderr so that no library can corrupt the protocol).
int run_worker(std::istream& in, int protocol_fd);

}  // namespace ktune
