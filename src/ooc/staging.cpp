/*! \file
    \brief The pinned staging rings: CPU threads pack pageable panels while the DMA engines move the
    previous slab, and the copy-out thread copies C pieces to the caller's memory.
*/
#include "ooc/staging.hpp"

#include "base/cuda_check.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

namespace gemmkit::ooc::detail {

void copy_columns(char* dst, std::size_t dst_pitch, char const* src, std::size_t src_pitch, std::size_t width,
                  std::int64_t height, int threads) {
  std::int64_t const pieces = height >= 4 * threads ? 1 : std::max<std::int64_t>(1, 4 * threads / std::max<std::int64_t>(height, 1));
  std::size_t const piece = (width + std::size_t(pieces) - 1) / std::size_t(pieces);
  std::int64_t const tasks = height * pieces;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && tasks > 1)
  for (std::int64_t t = 0; t < tasks; ++t) {
    std::int64_t const j = t / pieces;
    std::size_t const begin = std::size_t(t % pieces) * piece;
    if (begin >= width) continue;
    std::size_t const length = std::min(piece, width - begin);
    std::memcpy(dst + std::size_t(j) * dst_pitch + begin, src + std::size_t(j) * src_pitch + begin, length);
  }
}

cudaError_t LoadStager::load(Region host, Region device, std::size_t width, std::int64_t height, cudaStream_t stream,
                           char const* what, std::int64_t block) {
  std::int64_t const per_slab = std::max<std::int64_t>(1, std::int64_t(slot_bytes_ / width));
  for (std::int64_t j = 0; j < height; j += per_slab) {
    std::int64_t const columns = std::min(per_slab, height - j);
    std::size_t const slot = next_++ % events_.size();
    if (cudaError_t e = cudaEventSynchronize(events_[slot].get()); e != cudaSuccess) return e;  // its last DMA is done
    char* staging = ring_ + slot * slot_bytes_;
    Clock::time_point const begin = Clock::now();
    copy_columns(staging, width, host.data + std::size_t(j) * host.pitch, host.pitch, width, columns, threads_);
    timeline_->host("stage", what, block, begin, Clock::now());
    int const mark = timeline_->begin(stream, "h2d", what, block, std::int64_t(width) * columns);
    if (cudaError_t e = cudaMemcpy2DAsync(device.data + std::size_t(j) * device.pitch, device.pitch, staging, width,
                                          width, std::size_t(columns), cudaMemcpyHostToDevice, stream);
        e != cudaSuccess) {
      return e;
    }
    timeline_->end(mark, stream);
    if (cudaError_t e = cudaEventRecord(events_[slot].get(), stream); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t Storer::start() {
  for (Slot& s : slots_) {
    if (cudaError_t e = s.done.create(); e != cudaSuccess) return e;
  }
  thread_ = std::thread([this] { loop(); });
  return cudaSuccess;
}

void Storer::push(StoreRequest const& request) {
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    queue_.push_back(request);
  }
  changed_.notify_all();
}

void Storer::finish() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> const lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Storer::loop() {
  cudaSetDevice(device_);
  for (;;) {
    std::optional<StoreRequest> request;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (queue_.empty()) {
        lock.unlock();
        drain();  // nothing new: finish the pieces in flight before sleeping
        lock.lock();
        changed_.wait(lock, [&] { return !queue_.empty() || closing_; });
        if (queue_.empty()) break;
      }
      request = queue_.front();
      queue_.pop_front();
    }
    bool const skipped = failure_->raised();  // after a failure anywhere, only the bookkeeping
    if (!skipped) handle(*request);
    if (request->freed != nullptr) {
      std::lock_guard<std::mutex> const lock(mutex_);
      queued_seq_ = request->block_seq;
      if (skipped) written_seq_ = request->block_seq;
    }
    changed_.notify_all();
  }
  drain();
  std::lock_guard<std::mutex> const lock(mutex_);
  stopped_ = true;
  changed_.notify_all();
}

void Storer::handle(StoreRequest const& r) {
  if (!check(cudaStreamWaitEvent(stream_, r.ready, 0), "cudaStreamWaitEvent")) return;
  std::int64_t const per_slab = std::max<std::int64_t>(1, std::int64_t(slot_bytes_ / r.width));
  for (std::int64_t j = 0; j < r.height; j += per_slab) {
    Slot& slot = slots_[next_++ % slots_.size()];
    if (slot.pending) complete(slot);
    slot.columns = std::min(per_slab, r.height - j);
    slot.host = {r.host.data + std::size_t(j) * r.host.pitch, r.host.pitch};
    slot.width = r.width;
    slot.block_seq = r.block_seq;
    slot.block = r.block;
    slot.last_of_block = r.freed != nullptr && j + per_slab >= r.height;
    char* staging = ring_ + std::size_t(&slot - slots_.data()) * slot_bytes_;
    int const mark = timeline_->begin(stream_, "d2h", "C out", r.block, std::int64_t(r.width) * slot.columns);
    if (!check(cudaMemcpy2DAsync(staging, r.width, r.device.data + std::size_t(j) * r.device.pitch, r.device.pitch,
                                 r.width, std::size_t(slot.columns), cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpy2DAsync D2H")) {
      return;
    }
    timeline_->end(mark, stream_);
    if (!check(cudaEventRecord(slot.done.get(), stream_), "cudaEventRecord")) return;
    slot.pending = true;
  }
  if (r.freed != nullptr) check(cudaEventRecord(r.freed, stream_), "cudaEventRecord");
}

void Storer::complete(Slot& slot) {
  slot.pending = false;
  if (!check(cudaEventSynchronize(slot.done.get()), "cudaEventSynchronize")) return;
  char const* staging = ring_ + std::size_t(&slot - slots_.data()) * slot_bytes_;
  Clock::time_point const begin = Clock::now();
  copy_columns(slot.host.data, slot.host.pitch, staging, slot.width, slot.width, slot.columns, threads_);
  timeline_->host("unstage", "C out", slot.block, begin, Clock::now());
  if (slot.last_of_block) {
    std::lock_guard<std::mutex> const lock(mutex_);
    written_seq_ = std::max(written_seq_, slot.block_seq);
  }
  changed_.notify_all();
}

void Storer::drain() {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[(next_ + i) % slots_.size()];
    if (slot.pending) complete(slot);
  }
}

bool Storer::check(cudaError_t e, char const* what) {
  if (e == cudaSuccess) return true;
  failure_->raise(GK_CUDA_ERROR, "device " + std::to_string(device_) + ": " + cuda_error_text(e, what));
  changed_.notify_all();  // the worker may be waiting on this thread's progress
  return false;
}

}  // namespace gemmkit::ooc::detail
