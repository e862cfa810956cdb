/*! \file
    \brief The CPU share of the host-resident GEMM (seed 004's hybrid, HB): the CPU computes the last
    columns of C through the CPU BLAS path while the GPUs run the pipeline on the rest. The CPU's
    rate is probed on the first call (a small GEMM beside a GPU-only run, so it is measured under
    the pipeline's load); later splits follow the rates measured call by call, so both sides finish
    together, and a split is kept once the two finish within a threshold (the same bits from call
    to call). The share turns itself off, and says why, when it would be under one granule, when
    the pipeline leaves the CPU BLAS no core, or when a split ran no faster than the GPUs alone.
    The split rule is plain C++, tested without a GPU.
*/
#pragma once

#include "ooc/executor.hpp"

#include <cstdint>
#include <string>

namespace gemmkit::ooc {

/// The split is kept while the two sides' times differ by less than this fraction of the longer.
inline constexpr double kBalanceThreshold = 0.05;
/// Fewest CPU BLAS threads worth running beside the pipeline (fewer cores left: the share is off).
inline constexpr int kMinCpuShareThreads = 2;
/// The first call's CPU probe (run twice, the faster kept): at most this many rows and depth, and
/// kProbeColumns columns.
inline constexpr std::int64_t kProbeExtent = 2048;
inline constexpr std::int64_t kProbeColumns = 256;
/// Columns the CPU's share moves by. The CPU BLAS takes any width and the GPUs' last tile takes the
/// ragged rest, so this is finer than the GPU tiles' granule: a CPU a hundred times slower than
/// the GPUs still gets its share at n = 16384.
inline constexpr std::int64_t kCpuShareGranule = 64;

/// What the split learns from call to call; kept on the context.
struct ShareState {
  double cpu_flops = 0;        ///< rate of the CPU side (probe or slice) beside the pipeline (0: not measured)
  double gpu_flops = 0;        ///< rate of the GPU part with the CPU side running, transfers included
  double gpu_alone_flops = 0;  ///< rate of a whole call on the GPUs alone (0: not measured)
  std::int64_t last_n = 0, last_cpu_columns = -1;
  bool balanced = false;       ///< the last call's two sides finished within kBalanceThreshold
  bool off = false;            ///< a split for last_n ran no faster than the GPUs alone: not tried again for it
  std::string note;            ///< how the last split was chosen, or why the share is off
};

/// Columns (the last ones of C) the CPU takes for an n-column C: its share of the combined
/// measured rate rounded down to a multiple of `granule` (a CPU side past the balance point would
/// make the call slower than the GPUs alone), at most n - granule (the GPUs keep a granule). 0 before
/// the CPU's rate is measured, when the share is under one granule, and when it is off for this n.
/// The previous split is kept when it was balanced for the same n. `why` (optional) says which.
std::int64_t cpu_columns(std::int64_t n, ShareState const& state, std::int64_t granule, std::string* why = nullptr);

/// Records one call: `cpu_seconds` for `cpu_cols` columns, `gpu_seconds` for the rest. A call
/// with no CPU columns measures the GPUs alone; a split whose call took longer than the GPUs alone
/// would have turns the share off for this n.
void record_share(ShareState& state, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t cpu_cols,
                  double cpu_seconds, double gpu_seconds);

/// Records the first call's probe: `flops` on the CPU in `seconds`.
void record_probe(ShareState& state, double flops, double seconds);

/// CPU BLAS threads for the share: the cores the pipeline leaves (0 when fewer than kMinCpuShareThreads).
int cpu_share_threads(int cores, int pipeline_threads);

/// execute() with the CPU computing the columns cpu_columns() gives (all of C's semantics kept:
/// beta, NaN-free beta = 0, padding untouched). options.cpu_fraction > 0 fixes the CPU's share of
/// the columns instead (reproducible splits for tests). Updates `state`; fills report->cpu_columns,
/// the two sides' seconds, the CPU threads and the note.
gk_status execute_with_cpu_share(GemmArguments const& args, ExecutorOptions const& options, ExecutorCache* cache,
                                 ShareState* state, std::string* error, ExecutionReport* report = nullptr);

}  // namespace gemmkit::ooc
