/*! \file
    \brief BlockQueue: contiguous runs per worker, the back half of the longest run when a worker runs dry.
*/
#include "ooc/block_queue.hpp"

#include <algorithm>

namespace gemmkit::ooc {

BlockQueue::BlockQueue(std::int64_t blocks, int workers) : runs_(std::size_t(std::max(workers, 1))) {
  std::int64_t const count = std::int64_t(runs_.size());
  for (std::int64_t w = 0; w < count; ++w) {
    runs_[std::size_t(w)] = {blocks * w / count, blocks * (w + 1) / count};
  }
}

std::int64_t BlockQueue::next(int worker) {
  std::lock_guard<std::mutex> const lock(mutex_);
  Run& own = runs_[std::size_t(worker)];
  if (own.begin == own.end) {
    auto const longest = std::max_element(runs_.begin(), runs_.end(), [](Run const& a, Run const& b) {
      return a.end - a.begin < b.end - b.begin;
    });
    std::int64_t const left = longest->end - longest->begin;
    if (left == 0) return -1;
    // The back half: the victim keeps the blocks next to its current one (its resident panels).
    std::int64_t const split = longest->begin + left / 2;
    own = {split, longest->end};
    longest->end = split;
  }
  return own.begin++;
}

}  // namespace gemmkit::ooc
