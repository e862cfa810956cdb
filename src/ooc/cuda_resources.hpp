/*! \file
    \brief The CUDA resources of the host-resident GEMM's executor: the buffers kept between calls,
    the first failure of any worker, RAII streams and events, and pitched 2-D regions.
*/
#pragma once

#include "ooc/executor.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gemmkit::ooc {

namespace detail {

using Clock = std::chrono::steady_clock;

// ---- buffers kept between calls ---------------------------------------------------------------

/// One worker's device arena and pinned ring, freed on its own device.
struct WorkerBuffers {
  int device = -1;
  void* arena = nullptr;
  std::size_t arena_bytes = 0;
  void* ring = nullptr;
  std::size_t ring_bytes = 0;

  WorkerBuffers() = default;
  WorkerBuffers(WorkerBuffers const&) = delete;
  WorkerBuffers& operator=(WorkerBuffers const&) = delete;
  ~WorkerBuffers() {
    release_arena();
    release_ring();
  }

  void release_arena() {
    if (arena == nullptr) return;
    int current = -1;
    cudaGetDevice(&current);
    if (current != device) cudaSetDevice(device);
    cudaFree(arena);  // waits for the device: nothing of a finished call is still queued
    if (current != device && current >= 0) cudaSetDevice(current);
    cudaGetLastError();
    arena = nullptr;
    arena_bytes = 0;
  }
  void release_ring() {
    if (ring == nullptr) return;
    cudaFreeHost(ring);
    cudaGetLastError();
    ring = nullptr;
    ring_bytes = 0;
  }
};

}  // namespace detail

class ExecutorCache {
 public:
  std::vector<std::unique_ptr<detail::WorkerBuffers>> workers;
};

namespace detail {

// ---- small RAII and error plumbing --------------------------------------------------------------

/// The first failure of any worker; the others stop at their next unit.
class Failure {
 public:
  void raise(gk_status status, std::string message) {
    std::lock_guard<std::mutex> const lock(mutex_);
    if (raised_.load()) return;
    status_ = status;
    message_ = std::move(message);
    raised_.store(true);
  }
  bool raised() const { return raised_.load(std::memory_order_relaxed); }
  gk_status status() const { return status_; }
  std::string const& message() const { return message_; }

 private:
  std::mutex mutex_;
  std::atomic<bool> raised_{false};
  gk_status status_ = GK_SUCCESS;
  std::string message_;
};

class Stream {
 public:
  Stream() = default;
  Stream(Stream const&) = delete;
  Stream& operator=(Stream const&) = delete;
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  cudaError_t create() { return cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() = default;
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event(Event const&) = delete;
  Event& operator=(Event const&) = delete;
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  cudaError_t create(bool timing = false) {
    return cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming);
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

/// A 2-D region: `height` columns of `width` bytes, `pitch` bytes apart.
struct Region {
  char* data = nullptr;
  std::size_t pitch = 0;
};

}  // namespace detail

}  // namespace gemmkit::ooc
