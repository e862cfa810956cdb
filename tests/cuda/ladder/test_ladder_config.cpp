/*! \file
    \brief The register-blocked ladder's index maps, checked on the host: each thread's fetches
    cover a slice exactly once for either transpose and coalesce, and the fragments a thread owns
    cover the block tile exactly once in aligned 16-byte groups.
*/
#include "cuda/ladder/ladder_config.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace gemmkit::ladder {
namespace {

template <typename Cfg>
void expect_slice_covered(int extent, int loads, bool contiguous_along) {
  std::vector<int> seen(std::size_t(extent) * Cfg::kBK, 0);
  for (int thread = 0; thread < Cfg::kThreads; ++thread) {
    SliceWalk const w = slice_walk(thread, extent, Cfg::kBK, Cfg::kThreads, contiguous_along);
    for (int e = 0; e < loads; ++e) {
      int const along = w.along0 + e * w.along_step, kk = w.kk0 + e * w.kk_step;
      ASSERT_GE(along, 0);
      ASSERT_LT(along, extent);
      ASSERT_GE(kk, 0);
      ASSERT_LT(kk, Cfg::kBK);
      ++seen[std::size_t(kk) * extent + along];
    }
    // Neighbouring threads read neighbouring addresses along the stored-contiguous direction.
    if (thread + 1 < Cfg::kThreads && (thread + 1) % (contiguous_along ? extent : Cfg::kBK) != 0) {
      SliceWalk const next = slice_walk(thread + 1, extent, Cfg::kBK, Cfg::kThreads, contiguous_along);
      EXPECT_EQ(contiguous_along ? next.along0 - w.along0 : next.kk0 - w.kk0, 1) << "thread " << thread;
    }
  }
  for (int count : seen) EXPECT_EQ(count, 1);
}

template <typename Cfg>
void expect_slices_covered() {
  static_assert(Cfg::valid());
  for (bool contiguous_along : {true, false}) {
    expect_slice_covered<Cfg>(Cfg::kBM, Cfg::kLoadsA, contiguous_along);
    expect_slice_covered<Cfg>(Cfg::kBN, Cfg::kLoadsB, contiguous_along);
  }
}

TEST(LadderConfig, SliceFetchesCoverEachElementOnce) {
  expect_slices_covered<Step03Config>();
  expect_slices_covered<Step06Config>();
}

template <int kThreadsAlong, int kCount, int kGroup>
void expect_fragments_cover_tile() {
  std::vector<int> seen(static_cast<std::size_t>(kThreadsAlong * kCount), 0);
  for (int t = 0; t < kThreadsAlong; ++t) {
    for (int i = 0; i < kCount; ++i) {
      int const index = owned_index<kThreadsAlong, kGroup>(t, i);
      ASSERT_LT(index, kThreadsAlong * kCount);
      ++seen[std::size_t(index)];
      if (i % kGroup == 0) EXPECT_EQ(index % kGroup, 0) << "group start not 16-byte aligned";
      else EXPECT_EQ(index, (owned_index<kThreadsAlong, kGroup>(t, i - 1) + 1)) << "group not contiguous";
    }
  }
  for (int count : seen) EXPECT_EQ(count, 1);
}

TEST(LadderConfig, OwnedFragmentsCoverTheBlockInAlignedGroups) {
  using Cfg = Step05Config;
  expect_fragments_cover_tile<Cfg::kThreadsM, Cfg::kTM, Cfg::group<double>()>();
  expect_fragments_cover_tile<Cfg::kThreadsM, Cfg::kTM, Cfg::group<float>()>();
  expect_fragments_cover_tile<Cfg::kThreadsN, Cfg::kTN, Cfg::group<float>()>();
  static_assert(Cfg::group<double>() == 2 && Cfg::group<float>() == 4);
}

}  // namespace
}  // namespace gemmkit::ladder
