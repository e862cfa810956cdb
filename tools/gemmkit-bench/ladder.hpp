/*! \file
    \brief `gemmkit-bench ladder`: seed 000's version table on this GPU. One run measures, per dtype
    and size, every registered ladder step and the production pick, each side by side with cuBLAS
    and verified, next to the performance model's bound for it.
*/
#pragma once

#include "gemm_runner.hpp"
#include "json_writer.hpp"
#include "machine_info.hpp"
#include "options.hpp"

namespace gemmkit::bench {

/// Runs the ladder for --dtype (default both) at --n (default 1024, 2048, 4096), prints the
/// seed-000-style table and the model table, appends JSON lines (suite "ladder" unless --suite).
/// Returns the exit status (1 when a case errored or failed verification).
int run_ladder(Options const& options, RunSettings const& settings, MachineInfo const& machine, JsonLinesFile* json);

/// `model`'s part for the ladder: each modelled step's ceilings and bound at m x n x k, f64 and f32
/// (registers and spills from the compiled kernels when a device reports them, else estimated), on
/// the description --machine names (else the H100 anchors).
void print_ladder_model(Options const& o, std::int64_t m, std::int64_t n, std::int64_t k);

#if GEMMKIT_WITH_CUDA
/// `model --measured FILE`: for every NN shape of a sweep (f64 and f32), the model's ranking of the
/// configs the sweep forced against their measured rates; the exit status. Here and not in main.cpp:
/// it reads the model's JSON-lines reader and ranking check, which the public header leaves out.
int print_model_ranking_against(Options const& o);
#endif

}  // namespace gemmkit::bench
