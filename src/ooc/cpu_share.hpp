/*! \file
    \brief The CPU share of the host-resident GEMM (seed 004's hybrid, HB): the CPU computes the last
    columns of C through the CPU BLAS path while the GPUs run the pipeline on the rest. The split
    follows the rates measured on earlier calls, so both sides finish together; it is kept while the
    two finish within a threshold of each other, so results settle to the same bits from call to
    call. The split rule is plain C++, tested without a GPU.
*/
#pragma once

#include "ooc/executor.hpp"

#include <cstdint>

namespace gemmkit::ooc {

/// First-call guesses, replaced by measurements: a many-core host's OpenBLAS DGEMM and one GPU's
/// host-resident rate (DESIGN.md's in-core anchor less the pipeline's losses).
inline constexpr double kFirstCpuFlops = 1.0e12;
inline constexpr double kFirstGpuFlopsPerDevice = 50e12;
/// The split is kept while the two sides' times differ by less than this fraction of the longer.
inline constexpr double kBalanceThreshold = 0.05;

/// What the split learns from call to call; kept on the context.
struct ShareState {
  double cpu_flops = 0;  ///< measured rate of the CPU slice (0: not measured yet)
  double gpu_flops = 0;  ///< measured rate of the GPU part, transfers included
  std::int64_t last_n = 0, last_cpu_columns = -1;
  bool balanced = false;  ///< the last call's two sides finished within kBalanceThreshold
};

/// Columns (the last ones of C) the CPU takes for an n-column C: its share of the combined rate,
/// a multiple of `granule`, at most n - granule (the GPUs keep a granule), 0 when below one granule.
/// The previous split is kept when it was balanced for the same n.
std::int64_t cpu_columns(std::int64_t n, ShareState const& state, int devices, std::int64_t granule);

/// Records one call's measurement: `cpu_seconds` for `cpu_cols` columns, `gpu_seconds` for the rest.
void record_share(ShareState& state, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t cpu_cols,
                  double cpu_seconds, double gpu_seconds);

/// execute() with the CPU computing the columns cpu_columns() gives (all of C's semantics kept:
/// beta, NaN-free beta = 0, padding untouched). options.cpu_fraction > 0 fixes the CPU's share of
/// the columns instead (reproducible splits for tests). Updates `state`; fills report->cpu_columns
/// and the two sides' seconds.
gk_status execute_with_cpu_share(GemmArguments const& args, ExecutorOptions const& options, ExecutorCache* cache,
                                 ShareState* state, std::string* error, ExecutionReport* report = nullptr);

}  // namespace gemmkit::ooc
