/*! \file
    \brief The FP32 SIMT GEMM's copy maps replayed on the host for every registered config: each
    operand slice is covered exactly once, every copy lands where the fragment loads read it, 16-byte
    copies are 16-byte aligned, the lanes' fragment loads cover the block tile once, and the
    element-wise copies of K-contiguous operands stay within the bank-conflict degree the config
    comment states.
*/
#include "cuda/gemm/sgemm_simt.hpp"
#include "cuda/gemm/simt_layout.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gemmkit::gemm {
namespace {

template <typename Cfg, int kRows, int kPitch, bool kKContiguous, int kVec>
void check_copies(char const* operand) {
  using Map = SimtCopyMap<Cfg, kRows, kPitch, kKContiguous, kVec>;
  SCOPED_TRACE(::testing::Message() << Cfg::name() << " " << operand << (kKContiguous ? " K" : " MN")
                                    << "-contiguous, " << 4 * kVec << "-byte copies");
  std::vector<int> covered(static_cast<std::size_t>(kRows * Cfg::kBK), 0);
  std::map<std::pair<int, int>, int> lanes_per_bank;  // (warp x pass, bank) -> distinct words
  for (int thread = 0; thread < Cfg::kThreads; ++thread) {
    int const run0 = Map::first_run(thread), along0 = Map::first_along(thread);
    for (int p = 0; p < Map::kPasses; ++p) {
      int const run = run0 + Map::run_step(p), along = along0 + Map::along_step(p);
      ASSERT_LT(run, Map::kRuns);
      ASSERT_LE(along + kVec, Map::kRunLength);
      int const base = Map::smem_offset(run0, along0) + Map::smem_step(p);
      ASSERT_EQ(base, Map::smem_offset(run, along)) << "pass offsets drift from the map";
      if (kVec == 4) {
        EXPECT_EQ(base % 4, 0) << "16-byte copy not 16-byte aligned";
      }
      for (int e = 0; e < kVec; ++e) {
        int const mn = Map::mn_of(run, along + e), k = Map::k_of(run, along + e);
        ASSERT_LT(mn, kRows);
        ASSERT_LT(k, Cfg::kBK);
        EXPECT_EQ(base + e, k * kPitch + mn) << "the fragment loads read (mn, k) at k * pitch + mn";
        ++covered[static_cast<std::size_t>(k * kRows + mn)];
      }
      if (kKContiguous) ++lanes_per_bank[{(thread / 32) * Map::kPasses + p, base % 32}];
    }
  }
  for (int c : covered) ASSERT_EQ(c, 1);
  int worst = 0;
  for (auto const& [key, count] : lanes_per_bank) worst = count > worst ? count : worst;
  if (kKContiguous) {
    EXPECT_LE(worst, Cfg::kBK / 8 > 1 ? Cfg::kBK / 8 : 1);
  }
}

/// Per k row, the lanes' 16-byte fragment loads (4 rows, kSub of them kSubStride apart, from the
/// warp's and lane's first row) cover the block tile's rows exactly once.
template <int kTile, int kWarpExtent, int kLanes, int kSub, int kSubStride>
void check_fragments(char const* side) {
  SCOPED_TRACE(side);
  std::vector<int> rows(kTile, 0);
  for (int warp = 0; warp < kTile / kWarpExtent; ++warp) {
    for (int lane = 0; lane < kLanes; ++lane) {
      int const first = warp * kWarpExtent + 4 * lane;
      for (int s = 0; s < kSub; ++s) {
        for (int r = 0; r < 4; ++r) {
          int const row = first + s * kSubStride + r;
          ASSERT_LT(row, kTile);
          ++rows[row];
        }
        EXPECT_EQ((first + s * kSubStride) % 4, 0);
      }
    }
  }
  for (int c : rows) ASSERT_EQ(c, 1);
}

template <typename Cfg>
void check_config() {
  static_assert(Cfg::kPitchA % 4 == 0 && Cfg::kPitchB % 4 == 0, "k rows must stay 16-byte aligned");
  check_copies<Cfg, Cfg::kBM, Cfg::kPitchA, false, 4>("A");
  check_copies<Cfg, Cfg::kBM, Cfg::kPitchA, false, 1>("A");
  check_copies<Cfg, Cfg::kBM, Cfg::kPitchA, true, 1>("A^T");
  check_copies<Cfg, Cfg::kBN, Cfg::kPitchB, false, 4>("B^T");
  check_copies<Cfg, Cfg::kBN, Cfg::kPitchB, false, 1>("B^T");
  check_copies<Cfg, Cfg::kBN, Cfg::kPitchB, true, 1>("B");
  check_fragments<Cfg::kBM, Cfg::kWarpM, Cfg::kLanesM, Cfg::kSubM, Cfg::kSubStrideM>("rows of A");
  check_fragments<Cfg::kBN, Cfg::kWarpN, Cfg::kLanesN, Cfg::kSubN, Cfg::kSubStrideN>("columns of B");
}

TEST(SimtLayout, EveryConfigCopiesAndReadsEachElementOnce) {
  []<std::size_t... I>(std::index_sequence<I...>) {
    (check_config<std::tuple_element_t<I, SgemmSimtConfigs>>(), ...);
  }(std::make_index_sequence<kSgemmSimtConfigCount>{});
}

}  // namespace
}  // namespace gemmkit::gemm
