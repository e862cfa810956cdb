/*! \file
    \brief The tensor-core GEMM's shared-memory swizzle and fragment maps, replayed on the host:
    every lane's 128-bit loads hit the elements the MMA needs, eight distinct bank groups per
    quarter-warp, and one warp's MMA through the renamed fragments equals the plain product.
*/
#include "cuda/gemm/tensorop_layout.hpp"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <vector>

namespace gemmkit::gemm {
namespace {

constexpr int kLanes = 32;

template <int kRows, int kDepth, bool kKContiguous, int kMmaK = 16>
void check_tile() {
  using Tile = SwizzledTile<kRows, kDepth, kKContiguous, kMmaK>;
  SCOPED_TRACE(::testing::Message() << kRows << "x" << kDepth << (kKContiguous ? " K-contiguous" : " MN-contiguous")
                                    << " k" << kMmaK);

  // A bijection onto the stage, keeping the pairs the copies and loads move as 16-byte chunks.
  std::vector<int> hits(Tile::kElements, 0);
  for (int mn = 0; mn < kRows; ++mn) {
    for (int k = 0; k < kDepth; ++k) {
      int const o = Tile::offset(mn, k);
      ASSERT_GE(o, 0);
      ASSERT_LT(o, Tile::kElements);
      ++hits[o];
      bool const first_of_pair = kKContiguous ? k % 2 == 0 : mn % 2 == 0;
      if (first_of_pair) {
        EXPECT_EQ(o % 2, 0);
        EXPECT_EQ(kKContiguous ? Tile::offset(mn, k + 1) : Tile::offset(mn + 1, k), o + 1);
      }
    }
  }
  for (int h : hits) ASSERT_EQ(h, 1);

  for (int warp_base = 0; warp_base < kRows; warp_base += 16) {
    for (int group = 0; warp_base + 16 * group < kRows; ++group) {
      for (int k_step = 0; k_step < kDepth; k_step += kMmaK) {
        for (int l = 0; l < Tile::kLoads; ++l) {
          std::array<int, kLanes> chunk{};
          for (int lane = 0; lane < kLanes; ++lane) {
            int const g = lane / 4, t = lane % 4;
            // What the kernel computes: lane part (with the warp's base) plus a constant.
            int const address = Tile::lane_offset(g, t, Tile::base_of(k_step, l)) + Tile::offset(warp_base, 0) +
                                Tile::group_offset(group, k_step, l);
            for (int which = 0; which < 2; ++which) {
              int const slot = Tile::value_slot(l, which);
              int const mn = warp_base + 16 * group + FragmentMap::mn(g, slot / Tile::kPerRow);
              int const k = k_step + FragmentMap::k(t, slot % Tile::kPerRow, kMmaK);
              ASSERT_EQ(address + which, Tile::offset(mn, k)) << "lane " << lane << " load " << l;
            }
            chunk[lane] = address / 2;
          }
          // One 128-bit access serves eight lanes at a time: their chunks must cover all eight
          // 16-byte bank groups.
          for (int quarter = 0; quarter < 4; ++quarter) {
            std::set<int> banks;
            for (int lane = 8 * quarter; lane < 8 * quarter + 8; ++lane) banks.insert(chunk[lane] % 8);
            EXPECT_EQ(banks.size(), 8u) << "bank conflict: load " << l << " quarter " << quarter;
          }
        }
      }
    }
  }
}

TEST(TensorOpLayout, KContiguousTiles) {
  check_tile<64, 16, true>();
  check_tile<128, 16, true>();
  check_tile<128, 32, true>();
}

TEST(TensorOpLayout, KContiguousTilesForK8) {
  check_tile<64, 16, true, 8>();
  check_tile<128, 16, true, 8>();
  check_tile<128, 32, true, 8>();
}

TEST(TensorOpLayout, MnContiguousTilesForK8) {
  check_tile<64, 16, false, 8>();
  check_tile<128, 16, false, 8>();
  check_tile<64, 32, false, 8>();
}

TEST(TensorOpLayout, MnContiguousTiles) {
  check_tile<64, 16, false>();
  check_tile<128, 16, false>();
  check_tile<64, 32, false>();
  check_tile<128, 32, false>();
}

/// One m16n8k{kMmaK} per B-pair member, with the PTX ISA's fragment layout, fed through the
/// renamed values: the accumulators, renamed back with c_row/c_column, must equal A(16 x kMmaK) *
/// B(kMmaK x 16).
template <int kMmaK>
void check_renamed_product() {
  constexpr int kPerRow = kMmaK / 4, kARegs = kMmaK / 2, kBRegs = kMmaK / 4;
  auto a_value = [](int m, int k) { return double((m * 7 + k * 3) % 11 - 5); };
  auto b_value = [](int k, int n) { return double((k * 5 + n * 2) % 13 - 6); };
  // Values a lane holds: v[h][c] = X(2g + h, kPerRow * t + c).
  auto a_held = [&](int g, int t, int h, int c) { return a_value(FragmentMap::mn(g, h), FragmentMap::k(t, c, kMmaK)); };
  auto b_held = [&](int g, int t, int h, int c) { return b_value(FragmentMap::k(t, c, kMmaK), FragmentMap::mn(g, h)); };

  double result[16][16] = {};
  for (int member = 0; member < 2; ++member) {
    // Gather the per-lane registers the kernel passes to the MMA.
    double a_reg[kLanes][kARegs], b_reg[kLanes][kBRegs];
    for (int lane = 0; lane < kLanes; ++lane) {
      int const g = lane / 4, t = lane % 4;
      for (int h = 0; h < 2; ++h)
        for (int c = 0; c < kPerRow; ++c) a_reg[lane][FragmentMap::a_register(h, c)] = a_held(g, t, h, c);
      for (int c = 0; c < kPerRow; ++c) b_reg[lane][c] = b_held(g, t, member, c);
    }
    // The MMA as the PTX ISA defines it: a[i] = A(g + 8(i%2), t + 4(i/2)), b[i] = B(t + 4i, g),
    // c[i] = C(g + 8(i/2), 2t + i%2).
    double mma_a[16][kMmaK], mma_b[kMmaK][8];
    for (int lane = 0; lane < kLanes; ++lane) {
      int const g = lane / 4, t = lane % 4;
      for (int i = 0; i < kARegs; ++i) mma_a[g + 8 * (i % 2)][t + 4 * (i / 2)] = a_reg[lane][i];
      for (int i = 0; i < kBRegs; ++i) mma_b[t + 4 * i][g] = b_reg[lane][i];
    }
    for (int lane = 0; lane < kLanes; ++lane) {
      int const g = lane / 4, t = lane % 4;
      for (int e = 0; e < 4; ++e) {
        double sum = 0;
        for (int kk = 0; kk < kMmaK; ++kk) sum += mma_a[g + 8 * (e / 2)][kk] * mma_b[kk][2 * t + e % 2];
        result[FragmentMap::c_row(g, e)][FragmentMap::c_column(t, e, member)] += sum + 1000.0;  // +1000: each once
      }
    }
  }
  for (int m = 0; m < 16; ++m) {
    for (int n = 0; n < 16; ++n) {
      double expected = 1000.0;
      for (int k = 0; k < kMmaK; ++k) expected += a_value(m, k) * b_value(k, n);
      EXPECT_EQ(result[m][n], expected) << "C(" << m << ", " << n << ")";
    }
  }
}

TEST(TensorOpLayout, RenamedFragmentsComputeTheProduct) { check_renamed_product<16>(); }
TEST(TensorOpLayout, RenamedFragmentsComputeTheProductForK8) { check_renamed_product<8>(); }

}  // namespace
}  // namespace gemmkit::gemm
