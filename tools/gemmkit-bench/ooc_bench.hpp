/*! \file
    \brief gemmkit-bench ooc: the host-resident GEMM (seed 004) measured side by side with cuBLASXt
    and in-core cuBLAS, per host memory kind, pipeline level, GPU count and device budget; and
    `ooc --plan`, the planner's plan alone (no GPU needed).
*/
#pragma once

namespace gemmkit::bench {

/// The whole `ooc` subcommand with its own options (argv[1] is "ooc"); returns the exit status.
int run_ooc_command(int argc, char** argv);

}  // namespace gemmkit::bench
