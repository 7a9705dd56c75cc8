// Example: an application asks a tuning database for the best GEMM
// configuration of its problem. Links only ktune_db: no CUDA needed.
//
//   example_lookup_best DB [m n k [device-or-arch]]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "db/lookup.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DB [m n k [device name or arch, default sm_90]]\n", argv[0]);
    return 2;
  }
  std::int64_t m = argc > 4 ? std::atoll(argv[2]) : 4096;
  std::int64_t n = argc > 4 ? std::atoll(argv[3]) : 4096;
  std::int64_t k = argc > 4 ? std::atoll(argv[4]) : 4096;
  std::string device = argc > 5 ? argv[5] : "sm_90";

  try {
    // Opened once, read-only; lookups are then answered from memory.
    ktune::Lookup lookup = ktune::Lookup::open(argv[1]);

    ktune::LookupRequest request;
    request.family = "gemm";
    request.problem = ktune::Problem{{"m", m}, {"n", n}, {"k", k}, {"dtype", std::string("bf16")},
                                     {"layout", std::string("nn")}};
    if (device.rfind("sm_", 0) == 0) request.arch = device;
    else request.device = device;
    request.shape_keys = {"m", "n", "k"};
    // What the application launches when nothing measured fits.
    request.default_config = ktune::Config{{"BLOCK_M", std::int64_t{64}}, {"BLOCK_N", std::int64_t{64}}};

    auto answer = lookup.best(request);
    if (!answer) {
      std::printf("no configuration\n");
      return 1;
    }
    // Where it came from, e.g. "nearest (measured on NVIDIA H200, distance 0.33)".
    std::printf("%s  %s\n", answer->config_key.c_str(), ktune::describe(*answer).c_str());
    if (answer->source != ktune::LookupSource::default_config)
      std::printf("measured on %s for %s: median %.4g ms, source '%s', %s\n", answer->measured_device.c_str(),
                  answer->measured_problem.key().c_str(), answer->result.time.median_s * 1e3,
                  answer->provenance.source.c_str(), answer->provenance.measured_at.c_str());
    return 0;
  } catch (const ktune::DatabaseError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
