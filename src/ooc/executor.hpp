/*! \file
    \brief The host-resident GEMM's executor (seed 004): C = alpha*op(A)*op(B) + beta*C with A, B and
    C in host memory, run on one or more GPUs through a plan of work units. Per device, streams and
    events overlap panel loads (H2D), the registered device kernel and the copy-back of C (D2H) at
    the seed's four pipeline levels; pageable operands pass through a ring of pinned buffers that
    CPU threads fill while the DMA engines move the previous ones. Plain C++ interface: the core
    calls it without CUDA headers (a CPU-only build links executor_none.cpp, which reports no device).
*/
#pragma once

#include "base/problem.hpp"
#include "ooc/planner.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gemmkit {
class GemmVariant;
class Registry;
}

namespace gemmkit::ooc {

/// The seed's pipeline levels; each includes the previous one's gains.
enum class PipelineLevel {
  kSerial = 1,           ///< Algorithm 1: load, compute, copy back, one after the other on one stream
  kDoubleBufferedC = 2,  ///< Algorithm 2: two C blocks, a block's copy-back overlaps the next block
  kPanelReuse = 3,       ///< Algorithm 3: serpentine panel reuse, loads on their own stream, double-buffered panels
  kDeviceC = 4           ///< Algorithm 4: C's last K chunk computed in column sub-blocks, each copied back as it completes
};

/// Where the caller's matrices live, as far as DMA is concerned.
enum class HostMemory {
  kAuto,     ///< asked of the runtime per operand (cudaPointerGetAttributes)
  kPinned,   ///< page-locked: the DMA engines read and write them directly
  kPageable  ///< staged through the pinned ring (also forces staging on pinned memory, for comparisons)
};

/// One timed operation of a run, for a pipeline plot (milliseconds from the start of the run).
struct TimelineEvent {
  int worker = 0, device = 0;
  std::string lane;  ///< "h2d", "compute", "d2h", "stage" (CPU packing), "unstage" (CPU copy-out)
  std::string what;  ///< "A", "B", "C in", "kernel", "C out", ...
  std::int64_t block = 0;
  double start_ms = 0, end_ms = 0;
  std::int64_t bytes = 0;  ///< bytes a copy moved (0 for kernels): per-GPU bandwidth as GPUs are added
};

struct ExecutorOptions {
  Registry const* kernels = nullptr;  ///< where the blocks' CUDA kernels (and the CPU share's BLAS) are selected; required
  std::vector<int> devices{0};   ///< one worker per entry; an entry may repeat (two workers on one device)
  std::size_t device_budget = 0; ///< bytes per worker; 0 = most of what the device has free
  PipelineLevel level = PipelineLevel::kDeviceC;
  HostMemory host_memory = HostMemory::kAuto;
  int staging_threads = 0;       ///< CPU threads per worker packing pageable panels; 0 = from the core count
  std::size_t staging_slot_bytes = std::size_t(32) << 20;  ///< one slot of the pinned ring
  int staging_slots = 4;
  int store_sub_blocks = 4;      ///< level 4: column sub-blocks of a C block
  std::int64_t granule = 256;    ///< tile sizes are multiples of this (tests lower it for many units)
  /// A square tile side to run instead of the planner's choice (full K; it must fit the budget):
  /// how the benchmark measures tiles the model did not pick. 0 = the model's tile.
  std::int64_t forced_tile = 0;
  GemmVariant const* forced_kernel = nullptr;  ///< a CUDA variant to run on the blocks instead of the table's
  /// FP64 emulation on the blocks (the context's GK_FP64_EMULATION setting): this variant runs every block it
  /// can, with these two settings; a block whose inputs it declines runs on the table's (or forced) kernel.
  /// The plan then leaves room for its workspace and counts on its rate.
  GemmVariant const* emulation_kernel = nullptr;
  int fp64_emulation_bits = 0;
  bool fp64_emulation_accurate = false;
  double emulation_min_work = 0, emulation_min_k = 0;  ///< blocks smaller (m*n*k) or thinner (k) run natively
  double cpu_fraction = 0;       ///< execute_with_cpu_share: a fixed CPU share of C's columns; 0 = from measured rates
  int cpu_threads = 0;           ///< execute_with_cpu_share: CPU BLAS threads; 0 = cpu_share_threads' rule
  std::vector<TimelineEvent>* timeline = nullptr;  ///< when set, every operation is timed into it
};

/// What a run did, for notes, tests and the benchmark.
struct ExecutionReport {
  Plan plan;
  bool staged_a = false, staged_b = false, staged_c = false;  ///< operands that went through the pinned ring
  std::vector<std::int64_t> blocks_per_worker;
  std::vector<std::int64_t> panel_loads_per_worker;  ///< A and B panel loads issued
  std::string kernel;  ///< id of the device kernel of the full tiles
  /// With a CPU share: the last cpu_columns columns of C ran on the CPU, taking cpu_seconds while
  /// the GPU part took gpu_seconds.
  std::int64_t cpu_columns = 0;
  double cpu_seconds = 0, gpu_seconds = 0;
  int cpu_threads = 0;          ///< CPU BLAS threads the share ran with (0: no CPU side)
  std::string cpu_share_note;   ///< how the split was chosen, or why the share is off
};

/// Device buffers and pinned rings kept between calls (they cost milliseconds to obtain); owned by
/// a context and freed with it.
class ExecutorCache;
struct ExecutorCacheDeleter {
  void operator()(ExecutorCache* cache) const;
};
using ExecutorCachePtr = std::unique_ptr<ExecutorCache, ExecutorCacheDeleter>;
ExecutorCachePtr make_executor_cache();

/// CPU threads the GPU pipeline keeps busy during a call with these arguments and options: one
/// feeding thread per worker, plus its packing and copy-out threads when operands are staged (the
/// CPU share gives its BLAS only the cores left).
int pipeline_host_threads(GemmArguments const& args, ExecutorOptions const& options);

/// Runs the checked, column-major, single (batch 1) problem in `args` on host pointers, k > 0 and
/// alpha != 0. Synchronous: returns when C is complete in host memory, or with an error in
/// `error`. An error before any block started (a plan that does not fit, a failed allocation)
/// leaves C untouched; one after says that C was partly updated. `cache` may be null.
gk_status execute(GemmArguments const& args, ExecutorOptions const& options, ExecutorCache* cache, std::string* error,
                  ExecutionReport* report = nullptr);

}  // namespace gemmkit::ooc
