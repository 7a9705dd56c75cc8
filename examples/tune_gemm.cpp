// Example: tune one GEMM shape from C++ (what `ktune tune` does), on the GPU
// or, given a recording, by replay; results go into a tuning database.
//
//   example_tune_gemm [DB] [RECORDING]
//
// Without a GPU and without a recording it explains that and exits 0.
#include <iostream>

#include "engine/tune_job.hpp"

int main(int argc, char** argv) {
  using namespace ktune;
  const std::string db = argc > 1 ? argv[1] : "out/example_tune_gemm.db";

  TuneSpec spec;
  spec.kernel = "gemm";
  spec.problem = "m=4096,n=4096,k=4096,dtype=bf16,layout=nt";
  spec.strategy = "bayes";
  spec.options.budget = 40;      // evaluations, failures included
  spec.options.batch_size = 8;   // one database transaction per batch
  spec.options.patience = 20;    // stop after 20 evaluations without a new best
  spec.source = "example_tune_gemm";
  if (argc > 2) {
    spec.replay = argv[2];       // a recorded space: no GPU needed
    spec.kernel.clear();         // the recording says which family it is
    spec.problem.clear();
  }

  try {
    std::unique_ptr<PreparedTune> job = prepare_tune(spec);  // checks everything first
    Store store = open_store_for_writing(db);
    StreamProgress progress(stderr);
    TuneReport report = run_prepared_tune(*job, store, &progress);
    std::cout << "stopped: " << to_string(report.stop) << "\n";
    print_results_table(std::cout, top_results(*job, report, 5), throughput_for(*job, report));
  } catch (const NoGpuError& e) {
    std::cout << e.what() << " (pass a recording as the second argument).\n";
  } catch (const std::exception& e) {
    std::cerr << "example_tune_gemm: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
