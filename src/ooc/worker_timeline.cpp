/*! \file
    \brief WorkerTimeline: event pairs recorded on the worker's streams and host times, both read back
    in the run's time.
*/
#include "ooc/worker_timeline.hpp"

namespace gemmkit::ooc::detail {

WorkerTimeline::~WorkerTimeline() {
  for (GpuOp& op : gpu_) {
    cudaEventDestroy(op.start);
    cudaEventDestroy(op.end);
  }
  if (origin_ != nullptr) cudaEventDestroy(origin_);
}

void WorkerTimeline::start(cudaStream_t stream) {
  if (!on_) return;
  cudaEventCreate(&origin_);
  cudaEventRecord(origin_, stream);
  cudaEventSynchronize(origin_);
  host_origin_ = Clock::now();
}

int WorkerTimeline::begin(cudaStream_t stream, char const* lane, char const* what, std::int64_t block,
                          std::int64_t bytes) {
  if (!on_) return -1;
  std::lock_guard<std::mutex> const lock(mutex_);
  GpuOp op{nullptr, nullptr, lane, what, block, bytes};
  cudaEventCreate(&op.start);
  cudaEventCreate(&op.end);
  cudaEventRecord(op.start, stream);
  gpu_.push_back(op);
  return int(gpu_.size()) - 1;
}

void WorkerTimeline::end(int index, cudaStream_t stream) {
  if (index < 0) return;
  std::lock_guard<std::mutex> const lock(mutex_);
  cudaEventRecord(gpu_[std::size_t(index)].end, stream);
}

void WorkerTimeline::host(char const* lane, char const* what, std::int64_t block, Clock::time_point begin,
                          Clock::time_point end) {
  if (!on_) return;
  std::lock_guard<std::mutex> const lock(mutex_);
  host_.push_back({worker_, device_, lane, what, block, ms_since(begin), ms_since(end)});
}

void WorkerTimeline::collect(std::vector<TimelineEvent>* out) {
  if (!on_) return;
  double const shift = std::chrono::duration<double, std::milli>(host_origin_ - run_origin_).count();
  for (GpuOp const& op : gpu_) {
    float start = 0, end = 0;
    if (cudaEventElapsedTime(&start, origin_, op.start) != cudaSuccess ||
        cudaEventElapsedTime(&end, origin_, op.end) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    out->push_back({worker_, device_, op.lane, op.what, op.block, shift + start, shift + end, op.bytes});
  }
  for (TimelineEvent e : host_) {
    e.start_ms += shift;
    e.end_ms += shift;
    out->push_back(e);
  }
}

}  // namespace gemmkit::ooc::detail
