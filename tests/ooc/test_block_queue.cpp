/*! \file
    \brief The multi-GPU block queue without a GPU: every block handed out exactly once (also under
    concurrent workers), one worker walks the plan's order, runs stay contiguous, and a dry worker
    takes work from the longest run.
*/
#include "ooc/block_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace gemmkit::ooc {
namespace {

TEST(OocBlockQueue, OneWorkerWalksThePlanOrder) {
  BlockQueue queue(7, 1);
  for (std::int64_t b = 0; b < 7; ++b) EXPECT_EQ(queue.next(0), b);
  EXPECT_EQ(queue.next(0), -1);
  EXPECT_EQ(queue.next(0), -1);
}

TEST(OocBlockQueue, WorkersStartOnContiguousRuns) {
  BlockQueue queue(10, 3);  // runs [0,3) [3,6) [6,10)
  EXPECT_EQ(queue.next(0), 0);
  EXPECT_EQ(queue.next(1), 3);
  EXPECT_EQ(queue.next(2), 6);
  EXPECT_EQ(queue.next(0), 1);
  EXPECT_EQ(queue.next(1), 4);
}

TEST(OocBlockQueue, DryWorkerTakesTheBackHalfOfTheLongestRun) {
  BlockQueue queue(12, 2);  // [0,6) [6,12)
  for (std::int64_t b = 0; b < 6; ++b) EXPECT_EQ(queue.next(0), b);
  EXPECT_EQ(queue.next(1), 6);  // worker 1 keeps [7,12)
  // Worker 0 is dry: it takes the back half of [7,12), i.e. [9,12), and walks it in order.
  EXPECT_EQ(queue.next(0), 9);
  EXPECT_EQ(queue.next(0), 10);
  EXPECT_EQ(queue.next(1), 7);
  EXPECT_EQ(queue.next(1), 8);
  EXPECT_EQ(queue.next(0), 11);
  EXPECT_EQ(queue.next(1), -1);
  EXPECT_EQ(queue.next(0), -1);
}

TEST(OocBlockQueue, MoreWorkersThanBlocks) {
  BlockQueue queue(2, 5);
  std::vector<std::int64_t> got;
  for (int w = 0; w < 5; ++w) {
    for (std::int64_t b; (b = queue.next(w)) >= 0;) got.push_back(b);
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::int64_t>{0, 1}));
}

TEST(OocBlockQueue, ConcurrentWorkersGetEveryBlockOnce) {
  std::int64_t const blocks = 5000;
  int const workers = 4;
  BlockQueue queue(blocks, workers);
  std::vector<std::atomic<int>> hits(blocks);
  std::vector<std::int64_t> taken(workers, 0);
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      // Worker 0 is slow, so the others run dry and take from its run.
      for (std::int64_t b; (b = queue.next(w)) >= 0;) {
        ++hits[std::size_t(b)];
        ++taken[std::size_t(w)];
        if (w == 0) std::this_thread::yield();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::int64_t b = 0; b < blocks; ++b) ASSERT_EQ(hits[std::size_t(b)].load(), 1) << "block " << b;
  std::int64_t total = 0;
  for (std::int64_t t : taken) total += t;
  EXPECT_EQ(total, blocks);
}

}  // namespace
}  // namespace gemmkit::ooc
