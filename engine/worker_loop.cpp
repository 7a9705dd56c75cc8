// The `ktune worker` loop: reads requests (JSON lines), evaluates batches on
// its own GPU context and answers one line per event, flushed at once.
#include <unistd.h>

#include <cstdlib>
#include <istream>
#include <memory>
#include <string>
#include <variant>

#include "engine/worker_fake.hpp"
#include "engine/worker_protocol.hpp"

namespace ktune {
namespace {

// Writes one protocol line with a single write(2): the parent reads whole
// lines, and a line is out the moment the call returns.
void emit(int fd, const nlohmann::json& j) {
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n <= 0) std::_Exit(1);  // the parent is gone
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace

int run_worker(std::istream& in, int fd) {
  std::string line;
  if (!std::getline(in, line)) return 0;
  std::unique_ptr<GpuEvaluator> gpu;
  std::unique_ptr<FakeWorkerBackend> fake;
  try {
    nlohmann::json header = nlohmann::json::parse(line);
    const KernelFamily& family = find_family(header.at("family").get<std::string>());
    Problem problem = ValueMap::from_json(header.at("problem"));
    GpuEvaluatorOptions options = gpu_options_from_json(header.value("options", nlohmann::json::object()));
    if (header.contains("seed")) options.seed = header.at("seed").get<std::uint64_t>();
    const char* fake_mode = std::getenv(kWorkerFakeEnv);
    std::string hash;
    const DeviceSpec* device;
    if (fake_mode && *fake_mode) {
      fake = std::make_unique<FakeWorkerBackend>(std::string(fake_mode) == "crash");
      device = &fake->device();
      hash = family_source_hash(family, family.normalize(problem), *device);
    } else {
      gpu = std::make_unique<GpuEvaluator>(family, problem, options);
      hash = gpu->family_hash();
      device = &gpu->device();
    }
    emit(fd, {{"event", "ready"}, {"device", device->to_json()}, {"family_hash", hash}});
  } catch (const std::exception& e) {
    emit(fd, {{"event", "error"}, {"message", e.what()}});
    return 1;
  }

  std::vector<Config> batch;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json request;
    try {
      request = nlohmann::json::parse(line);
      if (request.contains("config")) {
        batch.push_back(ValueMap::from_json(request.at("config")));
        continue;
      }
    } catch (const std::exception& e) {
      emit(fd, {{"event", "error"}, {"message", std::string("malformed request: ") + e.what()}});
      return 1;
    }
    if (!request.value("run", false)) continue;
    EvaluationObserver observer;
    observer.on_gpu_start = [fd](std::size_t i) { emit(fd, {{"event", "start"}, {"index", i}}); };
    observer.on_result = [fd](std::size_t i, const Result& r) {
      emit(fd, {{"event", "result"}, {"index", i}, {"result", result_to_json(r)}});
    };
    bool lost;
    if (gpu) {
      gpu->evaluate(batch, observer);
      lost = gpu->context_lost();
    } else {
      fake->evaluate(batch, observer);
      lost = fake->context_lost();
    }
    batch.clear();
    if (lost) {
      emit(fd, {{"event", "context_lost"}, {"message", "a sticky CUDA error poisoned the context; restarting"}});
      // No CUDA teardown: with a poisoned context it can hang; the OS cleans up.
      std::_Exit(kWorkerContextLostExit);
    }
    emit(fd, {{"event", "batch_done"}});
  }
  return 0;
}

}  // namespace ktune
