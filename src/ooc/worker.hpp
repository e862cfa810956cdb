/*! \file
    \brief The host-resident GEMM's worker: one per device entry, it takes C blocks from the shared
    BlockQueue and runs their panel loads, kernels and copy-back on its streams at the pipeline level.
*/
#pragma once

#include "base/problem.hpp"
#include "ooc/block_queue.hpp"
#include "ooc/cuda_resources.hpp"
#include "ooc/device_layout.hpp"
#include "ooc/executor.hpp"
#include "ooc/planner.hpp"
#include "ooc/staging.hpp"
#include "ooc/worker_timeline.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace gemmkit::ooc::detail {

// ---- the shared job and one worker --------------------------------------------------------------

/// What every worker reads.
struct Job {
  GemmArguments const& args;
  ExecutorOptions const& options;
  Plan const& plan;
  std::vector<std::int64_t> const& block_first_unit;  ///< the plan's blocks in order: index of their first unit
  bool staged_a, staged_b, staged_c;
  int staging_threads;
  BlockQueue& queue;
  Failure& failure;
  std::atomic<bool>& c_touched;  ///< some copy into the caller's C was queued
  Clock::time_point origin;
};

/// The kernel problem of a (sub-)block: rows x cols x depth on the worker's buffers.
struct KernelShape {
  std::int64_t rows, cols, depth;
  bool operator<(KernelShape const& o) const {
    return std::tie(rows, cols, depth) < std::tie(o.rows, o.cols, o.depth);
  }
};

class Worker {
 public:
  Worker(Job const& job, int index, WorkerBuffers& buffers)
      : job_(job), index_(index), device_(job.options.devices[std::size_t(index)]), buffers_(buffers),
        level_(int(job.options.level)),
        timeline_(job.options.timeline != nullptr, index, device_, job.origin) {}

  /// Device, buffers, streams, events and kernels: everything that can fail before C is touched.
  bool set_up(std::size_t budget);

  /// Takes blocks from the queue until it is empty or some worker failed; then waits for its device.
  void run();

  void collect_timeline(std::vector<TimelineEvent>* out) { timeline_.collect(out); }
  std::int64_t blocks() const { return blocks_; }
  std::int64_t panel_loads() const { return panel_loads_; }
  std::string kernel_id() const;

 private:
  /// Streams per level: 1 runs everything on one; 2 gives the copy-back its own; 3 and 4 the loads too.
  cudaStream_t load_stream() const { return level_ >= 3 ? h2d_.get() : compute_.get(); }
  cudaStream_t store_stream() const { return level_ >= 2 ? d2h_.get() : compute_.get(); }
  int c_slots() const { return level_ >= 2 ? 2 : 1; }
  bool reuses_panels() const { return level_ >= 3; }

  bool check(cudaError_t e, char const* what);

  /// Waits on `event` unless the two streams are one (then stream order already holds).
  bool wait(cudaStream_t stream, cudaStream_t producer, Event const& event) {
    return stream == producer || check(cudaStreamWaitEvent(stream, event.get(), 0), "cudaStreamWaitEvent");
  }

  /// The shapes the plan's units (and level 4's sub-blocks) give the kernel.
  std::vector<KernelShape> kernel_shapes() const;

  GemmProblem kernel_problem(KernelShape const& s) const;

  bool select_kernels(int cc, std::size_t workspace_limit);

  std::vector<GemmVariant const*> distinct_kernels() const;

  /// Host -> device of the stored window rows [row0, +rows) x columns [col0, +cols) of a caller's
  /// matrix (leading dimension ld) into a device buffer (leading dimension device_ld): straight
  /// from pinned memory, else through the ring (which times its own slabs).
  bool load_window(bool staged, void const* matrix, std::int64_t ld, std::int64_t row0, std::int64_t col0,
                   std::int64_t rows, std::int64_t cols, char* device, std::int64_t device_ld, char const* what,
                   std::int64_t block);

  /// Panel slot for `key`: the resident one when the level reuses panels, else the slot the
  /// previous unit did not use (level >= 3) or slot 0. *load says whether it must be loaded.
  int panel_slot(std::int64_t (&resident)[2], int& last, std::int64_t key, bool* load);

  bool run_kernel(KernelShape const& shape, char const* A, char const* B, char* C, double beta);

  /// Queues the copy-back of columns [begin, end) of the C block in slot `cs`, once `ready` is recorded.
  bool store(WorkUnit const& u, int cs, std::int64_t begin, std::int64_t end, Event const& ready, bool last,
             std::int64_t block, std::int64_t seq);

  void run_unit(WorkUnit const& u, std::int64_t block, std::int64_t seq);

  Job const& job_;
  int index_, device_;
  WorkerBuffers& buffers_;
  int level_;
  WorkerTimeline timeline_;
  std::map<KernelShape, GemmVariant const*> kernels_;
  std::map<KernelShape, GemmVariant const*> emulation_kernels_;  ///< shapes the emulation may run first
  std::int64_t emulated_blocks_ = 0, declined_blocks_ = 0;
  std::size_t workspace_bytes_ = 0;
  DeviceLayout layout_;
  Stream compute_, h2d_, d2h_;
  Event a_ready_[2], a_free_[2], b_ready_[2], b_free_[2], c_loaded_[2], c_free_[2];
  /// Blocks a worker keeps queued ahead of its compute stream: the next block's loads overlap the
  /// current block's kernels (the panels are double-buffered), and no more is taken from the queue.
  static constexpr int kBlocksAhead = 2;
  Event block_done_[kBlocksAhead];
  std::vector<Event> piece_ready_[2];
  std::vector<Event> b_piece_ready_[2];  ///< level 4: a B panel's column pieces, loaded one by one
  char* a_[2] = {};
  char* b_[2] = {};
  char* c_[2] = {};
  void* workspace_ = nullptr;
  std::int64_t a_key_[2] = {-1, -1}, b_key_[2] = {-1, -1};
  int a_last_ = 1, b_last_ = 1;
  std::int64_t blocks_ = 0, panel_loads_ = 0;
  std::optional<LoadStager> stager_;
  std::optional<Storer> storer_;  // declared last: joined before the streams and events it uses go
};

}  // namespace gemmkit::ooc::detail
