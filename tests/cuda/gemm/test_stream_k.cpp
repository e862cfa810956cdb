/*! \file
    \brief Stream-K planning and the walk, replayed on the host for every block of a launch: each
    k-tile of each tile is computed once, one block per tile stores C, a collector adds exactly the
    partials published for its tile and waits only for lower-numbered blocks that publish before
    they wait, runs are even to one k-tile, and the plan depends only on the shape and SM count.
*/
#include "cuda/gemm/dgemm_tensorop.hpp"
#include "cuda/gemm/stream_k.hpp"
#include "cuda/gemm/transpose.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace gemmkit::gemm {
namespace {

using Config64 = TensorOpConfig<64, 64, 16, 32, 32, 4, 3, false, 8>;      // 3 blocks per SM
using Config128 = TensorOpConfig<128, 64, 16, 64, 32, 3, 2, false, 8>;    // 2 blocks per SM

GemmProblem shape(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.batch = batch;
  return p;
}

template <typename Cfg>
std::int64_t tile_count(GemmProblem const& p) {
  return ((p.m + Cfg::kBM - 1) / Cfg::kBM) * ((p.n + Cfg::kBN - 1) / Cfg::kBN);
}

/// Replays every block's walk and checks the invariants of the file comment.
void check_walk(StreamKPlan const& plan, std::int64_t tiles) {
  ASSERT_GT(plan.workers, 1);
  ASSERT_EQ(plan.sk_tiles + plan.dp_tiles, tiles);
  std::map<std::int64_t, std::vector<int>> covered;  // tile -> times each k-tile is computed
  std::map<std::int64_t, int> stores;                // tile -> blocks storing C
  std::map<std::int64_t, std::set<int>> published;   // tile -> blocks publishing a partial
  std::vector<std::pair<int, StreamKSegment>> collects;  // (collector, segment)
  std::int64_t shortest = plan.k_tiles * tiles, longest = 0;
  for (int block = 0; block < plan.blocks(); ++block) {
    std::vector<StreamKSegment> segments;
    walk_stream_k(plan, block, [&](StreamKSegment const& s) { segments.push_back(s); });
    ASSERT_FALSE(segments.empty()) << "block " << block;
    std::int64_t run = 0;
    int publishes = 0;
    for (std::size_t i = 0; i < segments.size(); ++i) {
      StreamKSegment const& s = segments[i];
      ASSERT_GE(s.tile, 0);
      ASSERT_LT(s.tile, tiles);
      ASSERT_LT(s.k_tile_begin, s.k_tile_end);
      ASSERT_LE(s.k_tile_end, plan.k_tiles);
      std::vector<int>& count = covered[s.tile];
      count.resize(plan.k_tiles);
      for (int k = s.k_tile_begin; k < s.k_tile_end; ++k) ++count[k];
      run += s.k_tile_end - s.k_tile_begin;
      if (i > 0) {
        EXPECT_LT(s.tile, segments[i - 1].tile) << "block " << block << " walks last tile first";
      }
      switch (s.role) {
        case StreamKSegment::kWhole:
          EXPECT_EQ(s.k_tile_begin, 0);
          EXPECT_EQ(s.k_tile_end, plan.k_tiles);
          ++stores[s.tile];
          break;
        case StreamKSegment::kPublishes:
          EXPECT_LT(s.k_tile_end, plan.k_tiles);
          EXPECT_EQ(i, 0u) << "a block publishes its last tile, first";
          published[s.tile].insert(block);
          ++publishes;
          break;
        case StreamKSegment::kCollects:
          EXPECT_GT(s.k_tile_begin, 0);
          EXPECT_EQ(s.k_tile_end, plan.k_tiles);
          EXPECT_EQ(i + 1, segments.size()) << "a block collects its first tile, last";
          EXPECT_LT(s.first_contributor, block);
          ++stores[s.tile];
          collects.emplace_back(block, s);
          break;
      }
      EXPECT_EQ(s.stores_c(), s.role != StreamKSegment::kPublishes);
    }
    EXPECT_LE(publishes, 1) << "one partial slot per block";
    if (block < plan.workers) {
      shortest = std::min(shortest, run);
      longest = std::max(longest, run);
    } else {
      EXPECT_EQ(run, plan.k_tiles) << "a block past the workers takes one whole tile";
    }
  }
  EXPECT_LE(longest - shortest, 1) << "workers' runs are even to one k-tile";
  ASSERT_EQ(std::int64_t(covered.size()), tiles);
  for (auto const& [tile, count] : covered) {
    for (int k = 0; k < plan.k_tiles; ++k) EXPECT_EQ(count[k], 1) << "tile " << tile << " k-tile " << k;
    EXPECT_EQ(stores[tile], 1) << "tile " << tile;
  }
  for (auto const& [collector, c] : collects) {
    std::set<int> expected;  // the collector adds the partials of blocks [first_contributor, collector)
    for (int w = c.first_contributor; w < collector; ++w) expected.insert(w);
    EXPECT_EQ(published[c.tile], expected) << "tile " << c.tile << " collected by block " << collector;
  }
  for (auto const& [tile, blocks] : published) {
    bool collected = false;
    for (auto const& [collector, c] : collects) collected |= c.tile == tile;
    EXPECT_TRUE(collected) << "tile " << tile << " has partials nobody adds";
  }
}

TEST(StreamKPlan, WalksCoverEveryKTileOnceAndMeetInOrder) {
  for (int sm_count : {1, 7, 108, 132}) {
    for (auto const& p : {shape(768, 768, 768), shape(3072, 3072, 3072), shape(1000, 1000, 1000), shape(257, 129, 200),
                          shape(2200, 2000, 77), shape(65, 33, 1999), shape(1536, 1536, 1536), shape(4097, 300, 64)}) {
      SCOPED_TRACE(::testing::Message() << p.m << "x" << p.n << "x" << p.k << " on " << sm_count << " SMs");
      for (StreamKPlan const& plan : {plan_stream_k<Config64>(p, sm_count), plan_stream_k<Config128>(p, sm_count)}) {
        if (plan.workers == 0) continue;
        check_walk(plan, plan.sk_tiles + plan.dp_tiles);
      }
    }
  }
}

TEST(StreamKPlan, SharesTheLastWavesAmongOneWave) {
  // 768^3 in 64x64 tiles on 132 SMs: 144 tiles, 48 k-tiles each, all shared by 396 workers.
  StreamKPlan const small = plan_stream_k<Config64>(shape(768, 768, 768), 132);
  EXPECT_EQ(small.workers, 396);
  EXPECT_EQ(small.sk_tiles, 144);
  EXPECT_EQ(small.dp_tiles, 0);
  EXPECT_EQ(small.k_tiles, 48);
  // 3072^3 in 128x64 tiles: 1152 tiles on 264 slots, 4.36 waves: three whole waves run as usual,
  // the last 1.36 waves' tiles (360) are shared.
  StreamKPlan const large = plan_stream_k<Config128>(shape(3072, 3072, 3072), 132);
  EXPECT_EQ(large.workers, 264);
  EXPECT_EQ(large.dp_tiles, 3 * 264);
  EXPECT_EQ(large.sk_tiles, 1152 - 3 * 264);
  EXPECT_EQ(large.dp_tiles % large.workers, 0);
  // Same call, same plan (deterministic results).
  StreamKPlan const again = plan_stream_k<Config128>(shape(3072, 3072, 3072), 132);
  EXPECT_EQ(again.workers, large.workers);
  EXPECT_EQ(again.sk_tiles, large.sk_tiles);
}

TEST(StreamKPlan, PlainWhereWavesAreWholeOrWorkIsShort) {
  EXPECT_EQ(plan_stream_k<Config64>(shape(64 * 396, 64, 4096), 132).workers, 0);  // exactly one wave
  EXPECT_EQ(plan_stream_k<Config64>(shape(768, 768, 768, 2), 132).workers, 0);  // batches run plainly
  EXPECT_EQ(plan_stream_k<Config64>(shape(768, 768, 16), 132).workers, 0);  // one k-tile: nothing to share
  EXPECT_EQ(plan_stream_k<Config64>(shape(0, 768, 768), 132).workers, 0);
  // A short K behind whole waves: fewer workers than a wave would gain nothing.
  EXPECT_EQ(plan_stream_k<Config64>(shape(64 * 400, 64 * 2, 32), 132).workers, 0);
}

TEST(StreamKPlan, WorkspaceHoldsFlagsAndOnePartialPerWorker) {
  StreamKPlan const plan = plan_stream_k<Config64>(shape(768, 768, 768), 132);
  StreamKLayout const layout = stream_k_layout<Config64, double>(plan);
  EXPECT_EQ(layout.partials_offset, partial_flags_bytes(plan.workers));
  EXPECT_EQ(layout.partials_offset % 256, 0u);
  EXPECT_GE(layout.partials_offset, std::size_t(plan.workers) * sizeof(std::uint64_t));
  EXPECT_EQ(layout.bytes - layout.partials_offset, std::size_t(plan.workers) * 64 * 64 * sizeof(double));
  EXPECT_EQ((stream_k_layout<Config64, double>(StreamKPlan{}).bytes), 0u);
}

/// The packed stream-K forms keep their flags and partial tiles past the copies, from the next
/// 256-byte boundary: the flags' atomics and the partials' vector stores stay aligned.
TEST(StreamKPlan, PackedFormsStartTheirStateOnA256ByteBoundaryPastTheCopies) {
  for (std::int64_t n : {4095, 4097, 99, 1}) {
    GemmProblem p = shape(n, n, n);
    p.lda = p.ldb = p.ldc = n;
    for (PackedLayout layout : {PackedLayout::kNN, PackedLayout::kNT}) {
      std::size_t const copies = packed_workspace_bytes<double>(p, layout);
      std::size_t const prefix = packed_prefix_bytes<double>(p, layout);
      EXPECT_EQ(prefix % 256, 0u) << n;
      EXPECT_GE(prefix, copies) << n;
      EXPECT_LT(prefix, copies + 256) << n;
    }
  }
}

}  // namespace
}  // namespace gemmkit::gemm
