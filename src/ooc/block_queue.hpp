/*! \file
    \brief The multi-GPU work queue of the host-resident GEMM: C blocks (each with all its K chunks,
    which stay on one device) handed out to one worker per device. The plan's serpentine order is
    cut into one contiguous run per worker, so consecutive blocks of a worker share panels; a worker
    whose run is empty takes the back half of the longest remaining run (dynamic balance, not a
    static round-robin). Plain C++, tested without a GPU.
*/
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace gemmkit::ooc {

class BlockQueue {
 public:
  BlockQueue(std::int64_t blocks, int workers);

  /// The next block (an index into the plan's block order) for `worker`, or -1 when every block has
  /// been handed out. Thread-safe; each block is handed out exactly once.
  std::int64_t next(int worker);

 private:
  struct Run {
    std::int64_t begin = 0, end = 0;
  };
  std::mutex mutex_;
  std::vector<Run> runs_;
};

}  // namespace gemmkit::ooc
