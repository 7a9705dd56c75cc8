// FakeWorkerBackend: synthetic answers by the `mode` knob, for CPU-only tests
// of worker isolation (crash, hang, context loss) without a GPU.
#include "engine/worker_fake.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

namespace ktune {

FakeWorkerBackend::FakeWorkerBackend(bool crash) : crash_(crash) {
  device_ = find_builtin_device("h200").value_or(DeviceSpec{});
  device_.name += " (synthetic: fake worker)";
}

std::vector<Result> FakeWorkerBackend::evaluate(std::span<const Config> configs, const EvaluationObserver& observer) {
  std::vector<Result> results;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    Result r;
    r.config = c;
    r.metrics["synthetic"] = true;
    if (lost_) {
      r.status = Status::launch_error;
      r.message = "not run: context lost (synthetic)";
      r.metrics["not_run"] = true;
      results.push_back(r);
      continue;
    }
    if (observer.on_gpu_start) observer.on_gpu_start(i);
    const std::string mode = c.text_or("mode", "normal");
    if (mode == "hang") {
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    } else if (mode == "oob_write") {
      if (crash_) std::abort();
      r.status = Status::launch_error;
      r.message = "synthetic illegal address [CUDA context lost: the process must restart]";
      lost_ = true;
    } else if (mode == "wrong") {
      r.status = Status::wrong_result;
      r.error = 0.5;
      r.message = "synthetic wrong result";
    } else {
      r.status = Status::ok;
      // A synthetic figure that differs per configuration, for ranking tests.
      const double t = 1e-3 * (1.0 + static_cast<double>(c.integer_or("threads", 256)) / 1024.0);
      r.time = {t, t, t, 0.0, 1};
    }
    if (observer.on_result) observer.on_result(i, r);
    results.push_back(r);
  }
  return results;
}

}  // namespace ktune
