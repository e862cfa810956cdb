/*! \file
    \brief `gemmkit-bench ladder`: seed 000's version table on this GPU. One run measures, per dtype
    and size, every registered ladder step and the production pick, each side by side with cuBLAS
    and verified, next to the performance model's bound for it.
*/
#pragma once

#include "gemm_runner.hpp"
#include "json_writer.hpp"
#include "machine_info.hpp"
#include "model/kernel_resources.hpp"
#include "model/machine.hpp"
#include "options.hpp"

namespace gemmkit::bench {

/// Runs the ladder for --dtype (default both) at --n (default 1024, 2048, 4096), prints the
/// seed-000-style table and the model table, appends JSON lines (suite "ladder" unless --suite).
/// Returns the exit status (1 when a case errored or failed verification).
int run_ladder(Options const& options, RunSettings const& settings, MachineInfo const& machine, JsonLinesFile* json);

/// `model`'s part for the ladder: each modelled step's ceilings and bound at m x n x k, f64 and f32
/// (registers and spills from the compiled kernels when a device reports them, else estimated).
/// What `model` and `ladder` read: the description --machine names (else the H100 anchors, model::h100_sxm)
/// and the compiled kernels' resources --kernels names (else none). An error message, or empty.
std::string load_model_inputs(Options const& o, model::MachineDescription* machine,
                              std::vector<model::KernelResources>* resources);

void print_ladder_model(model::MachineDescription const& machine, std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace gemmkit::bench
