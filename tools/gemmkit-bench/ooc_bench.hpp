/*! \file
    \brief gemmkit-bench ooc: the host-resident GEMM measured side by side with cuBLASXt and in-core
    cuBLAS, per host memory kind, pipeline level, GPU count and device budget; and `ooc --plan`, the
    planner's plan alone (no GPU needed).
*/
#pragma once

#include "bench_problem.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gemmkit::bench {

/// The options of `ooc` (cli.cpp fills them from the command line).
struct OocOptions {
  bool plan = false;
  std::vector<std::int64_t> sizes;      ///< --n (or --m): m = n = k of the measured cases
  std::vector<std::int64_t> plan_m, plan_k;  ///< --plan: --m and --k when the plan is not square
  Dtype dtype = Dtype::kF64;
  std::vector<std::string> memory{"pinned", "pageable"};
  std::vector<std::int64_t> levels{1, 2, 3, 4};
  std::vector<std::int64_t> gpus;       ///< --gpus: GPU counts (devices 0..g-1); default 1..all
  std::vector<int> devices;             ///< --devices: one explicit list instead (may repeat a device)
  std::vector<double> budget_fractions{0.0, 0.25};  ///< of the operands' bytes; 0 = the device's free memory
  std::vector<std::string> cpu_share{"off", "on"};  ///< "on" rows run at the highest pipeline level only
  std::vector<std::int64_t> cpu_threads{0};  ///< --cpu-threads: the share's CPU BLAS threads per "on" row; 0 = the rule's
  std::int64_t budget = 0;              ///< --budget BYTES (ooc --plan, or one fixed budget for the runs)
  std::vector<std::string> peers{"cublasxt", "cublas"};
  std::vector<std::int64_t> xt_blocks{8192, 0};  ///< 0 = cuBLASXt's default block
  std::vector<std::int64_t> tiles{0};   ///< --tile: square tile sides forced on gemmkit's rows; 0 = the planner's
  /// --emulate: gemmkit's rows with the blocks natively ("off"), or FP64-emulated on the INT8 tensor cores with
  /// the fast or the accurate scaling (f64 only)
  std::vector<std::string> emulation{"off"};
  int reps = 3, warmup = 1;
  double beta = 0.0;
  bool beta_given = false;
  bool verify = true;
  std::string json_file, timeline_file;
  int verbosity = 0;
};

/// The whole `ooc` command: the plan with --plan, else the measured rows (a GPU needed); returns the
/// exit status.
int run_ooc_command(OocOptions const& options);

}  // namespace gemmkit::bench
