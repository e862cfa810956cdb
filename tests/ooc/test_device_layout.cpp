/*! \file
    \brief A worker's device arena without a GPU: disjoint, aligned buffers large enough for every
    unit of the plan with padded leading dimensions, within the caller's budget; and level 4's
    sub-blocks covering a C block in order.
*/
#include "ooc/device_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace gemmkit::ooc {
namespace {

GemmProblem problem(gk_op ta, gk_op tb, std::int64_t m, std::int64_t n, std::int64_t k, Dtype dtype = Dtype::kF64) {
  GemmProblem p;
  p.dtype = dtype;
  p.trans_a = ta, p.trans_b = tb;
  p.m = m, p.n = n, p.k = k;
  return p;
}

TEST(OocDeviceLayout, BuffersHoldEveryUnitAndStayDisjointAndAligned) {
  for (gk_op ta : {GK_OP_N, GK_OP_T}) {
    for (gk_op tb : {GK_OP_N, GK_OP_T}) {
      GemmProblem const p = problem(ta, tb, 1000, 777, 1201);
      PlanRequest r;
      r.m = p.m, r.n = p.n, r.k = p.k;
      r.granule = 64;
      std::size_t const budget = std::size_t(3) << 20;
      r.device_budget = planning_budget(budget);
      Plan const plan = make_plan(r);
      ASSERT_TRUE(plan.error.empty()) << plan.error;
      std::size_t const workspace = 4096;
      DeviceLayout const l = device_layout(plan, p, workspace);
      EXPECT_LE(l.total_bytes, budget + workspace) << plan.describe(0);
      EXPECT_EQ(l.lda % kDeviceLdAlign, 0);
      EXPECT_EQ(l.ldb % kDeviceLdAlign, 0);
      EXPECT_EQ(l.ldc % kDeviceLdAlign, 0);
      // Stored panel shapes: rows of the buffer (ld) hold the contiguous dimension of every unit.
      EXPECT_GE(l.lda, ta == GK_OP_N ? plan.tile_rows : plan.tile_depth);
      EXPECT_GE(l.ldb, tb == GK_OP_N ? plan.tile_depth : plan.tile_cols);
      EXPECT_GE(l.ldc, plan.tile_rows);
      std::size_t const e = 8;
      std::vector<std::pair<std::size_t, std::size_t>> spans;
      for (int s = 0; s < 2; ++s) {
        spans.emplace_back(l.a_offset[s], l.lda * (ta == GK_OP_N ? plan.tile_depth : plan.tile_rows) * e);
        spans.emplace_back(l.b_offset[s], l.ldb * (tb == GK_OP_N ? plan.tile_cols : plan.tile_depth) * e);
        spans.emplace_back(l.c_offset[s], l.ldc * plan.tile_cols * e);
      }
      spans.emplace_back(l.workspace_offset, workspace);
      std::sort(spans.begin(), spans.end());
      for (std::size_t i = 0; i < spans.size(); ++i) {
        EXPECT_EQ(spans[i].first % kBufferAlign, 0u);
        if (i + 1 < spans.size()) {
          EXPECT_LE(spans[i].first + spans[i].second, spans[i + 1].first);
        }
      }
      EXPECT_LE(spans.back().first + spans.back().second, l.total_bytes);
    }
  }
}

TEST(OocDeviceLayout, SubBlocksCoverTheBlockInOrder) {
  for (std::int64_t cols : {1, 63, 64, 65, 500, 4096, 8191}) {
    for (int parts : {1, 2, 3, 4, 7}) {
      auto const pieces = sub_blocks(cols, parts);
      ASSERT_FALSE(pieces.empty());
      EXPECT_LE(std::int64_t(pieces.size()), parts);
      EXPECT_EQ(pieces.front().first, 0);
      EXPECT_EQ(pieces.back().second, cols);
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        EXPECT_LT(pieces[i].first, pieces[i].second);
        if (i + 1 < pieces.size()) {
          EXPECT_EQ(pieces[i].second, pieces[i + 1].first);
          EXPECT_EQ(pieces[i].second % 64, 0) << "inner boundaries on 64 columns";
        }
      }
    }
  }
  EXPECT_EQ(sub_blocks(8192, 4).size(), 4u);
}

}  // namespace
}  // namespace gemmkit::ooc
