/*! \file
    \brief The staging of pageable operands for the host-resident GEMM: loads through a ring of
    pinned slots, and a thread of its own copying C pieces out through another.
*/
#pragma once

#include "ooc/cuda_resources.hpp"
#include "ooc/worker_timeline.hpp"

#include <cuda_runtime.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace gemmkit::ooc::detail {

/// Copies `height` columns of `width` bytes between pitched host buffers with `threads` CPU threads
/// (the staging stage); long columns are cut so few columns still spread over the threads.
void copy_columns(char* dst, std::size_t dst_pitch, char const* src, std::size_t src_pitch, std::size_t width,
                  std::int64_t height, int threads);

/// Host -> device through a ring of pinned slots: the CPU packs slab j into a free slot while the
/// DMA engine moves slab j-1 (the seed's load1 next to load2).
class LoadStager {
 public:
  LoadStager(char* ring, std::size_t slot_bytes, int slots, int threads, WorkerTimeline* timeline)
      : ring_(ring), slot_bytes_(slot_bytes), threads_(threads), events_(std::size_t(slots)), timeline_(timeline) {}

  cudaError_t init() {
    for (Event& e : events_) {
      if (cudaError_t err = e.create(); err != cudaSuccess) return err;
    }
    return cudaSuccess;
  }

  /// Queues the copy of `height` columns of `width` bytes from pageable `host` to `device` on
  /// `stream`; returns once the last slab is handed to the DMA engine.
  cudaError_t load(Region host, Region device, std::size_t width, std::int64_t height, cudaStream_t stream,
                   char const* what, std::int64_t block);

 private:
  char* ring_;
  std::size_t slot_bytes_;
  int threads_;
  std::vector<Event> events_;
  std::size_t next_ = 0;
  WorkerTimeline* timeline_;
};

/// A piece of a finished C block to copy to the host.
struct StoreRequest {
  cudaEvent_t ready = nullptr;  ///< recorded after the kernel that completes the piece
  Region device;
  Region host;
  std::size_t width = 0;
  std::int64_t height = 0;
  std::int64_t block_seq = 0;       ///< the worker's count of blocks before this one
  std::int64_t block = 0;           ///< the plan's block index, for the timeline
  cudaEvent_t freed = nullptr;      ///< when set: the block's last piece; recorded after its DMA
};

/// Device -> pageable host: a thread of its own moves C pieces through a pinned ring and copies
/// them out (the seed's store1 then store2), so the worker's thread keeps staging loads meanwhile.
class Storer {
 public:
  Storer(int device, cudaStream_t stream, char* ring, std::size_t slot_bytes, int slots, int threads,
         WorkerTimeline* timeline, Failure* failure)
      : device_(device), stream_(stream), ring_(ring), slot_bytes_(slot_bytes), threads_(threads),
        slots_(std::size_t(slots)), timeline_(timeline), failure_(failure) {}
  Storer(Storer const&) = delete;
  Storer& operator=(Storer const&) = delete;
  ~Storer() { finish(); }

  cudaError_t start();

  void push(StoreRequest const& request);

  /// Waits until every block up to `seq` has its copies queued on the stream and its freed event recorded.
  void wait_queued(std::int64_t seq) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return queued_seq_ >= seq || stopped_ || failure_->raised(); });
  }
  /// Waits until every block up to `seq` is in the caller's memory.
  void wait_written(std::int64_t seq) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return written_seq_ >= seq || stopped_ || failure_->raised(); });
  }

  /// Copies out what is queued, then ends the thread.
  void finish();

 private:
  struct Slot {
    Event done;
    bool pending = false;
    Region host;
    std::size_t width = 0;
    std::int64_t columns = 0, block_seq = 0, block = 0;
    bool last_of_block = false;
  };

  void loop();

  void handle(StoreRequest const& r);

  /// Waits for a slot's DMA and copies it out to the caller's C.
  void complete(Slot& slot);

  /// Completes the pieces in flight, oldest first.
  void drain();

  bool check(cudaError_t e, char const* what);

  int device_;
  cudaStream_t stream_;
  char* ring_;
  std::size_t slot_bytes_;
  int threads_;
  std::vector<Slot> slots_;
  std::size_t next_ = 0;
  WorkerTimeline* timeline_;
  Failure* failure_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<StoreRequest> queue_;
  std::int64_t queued_seq_ = -1, written_seq_ = -1;
  bool closing_ = false, stopped_ = false;
};

}  // namespace gemmkit::ooc::detail
