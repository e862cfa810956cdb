/*! \file
    \brief WorkerTimeline: the timed operations of one host-resident GEMM worker, GPU ones by event
    pairs and CPU ones by the host clock, for a pipeline plot.
*/
#pragma once

#include "ooc/cuda_resources.hpp"
#include "ooc/executor.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

namespace gemmkit::ooc::detail {

/// Timed operations of one worker: GPU ones by event pairs, CPU ones by the host clock, both
/// relative to the worker's origin (an event the host waited for, so the clocks line up).
class WorkerTimeline {
 public:
  WorkerTimeline(bool on, int worker, int device, Clock::time_point run_origin)
      : on_(on), worker_(worker), device_(device), run_origin_(run_origin) {}
  WorkerTimeline(WorkerTimeline const&) = delete;
  WorkerTimeline& operator=(WorkerTimeline const&) = delete;
  ~WorkerTimeline();

  bool on() const { return on_; }

  /// Records the origin on `stream` and waits for it; host times count from then on.
  void start(cudaStream_t stream);

  /// Index of a GPU operation begun on `stream` (-1 when off); `bytes` for a copy.
  int begin(cudaStream_t stream, char const* lane, char const* what, std::int64_t block, std::int64_t bytes = 0);
  void end(int index, cudaStream_t stream);

  /// A CPU operation between two host times.
  void host(char const* lane, char const* what, std::int64_t block, Clock::time_point begin, Clock::time_point end);

  /// After the worker's streams are idle: every operation, in the run's time.
  void collect(std::vector<TimelineEvent>* out);

 private:
  struct GpuOp {
    cudaEvent_t start, end;
    char const* lane;
    char const* what;
    std::int64_t block;
    std::int64_t bytes;
  };
  double ms_since(Clock::time_point t) const { return std::chrono::duration<double, std::milli>(t - host_origin_).count(); }

  bool on_;
  int worker_, device_;
  Clock::time_point run_origin_, host_origin_;
  cudaEvent_t origin_ = nullptr;
  std::mutex mutex_;
  std::vector<GpuOp> gpu_;
  std::vector<TimelineEvent> host_;
};

}  // namespace gemmkit::ooc::detail
