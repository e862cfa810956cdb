/*! \file
    \brief The host-resident planner without a GPU: every element of C and every k covered exactly
    once, the budget respected, panels reused in the serpentine order, the model's tile choice
    moving the right way, and refusals that say why.
*/
#include "ooc/planner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace gemmkit::ooc {
namespace {

PlanRequest request(std::int64_t m, std::int64_t n, std::int64_t k, std::size_t budget, bool reads_c = true) {
  PlanRequest r;
  r.m = m, r.n = n, r.k = k;
  r.device_budget = budget;
  r.reads_c = reads_c;
  return r;
}

/// Every (i, j, p) of C(m x n) and K visited exactly once, counted element by element.
void expect_exact_cover(PlanRequest const& r, Plan const& plan) {
  std::vector<std::uint8_t> hits(std::size_t(r.m * r.n * r.k), 0);
  for (WorkUnit const& u : plan.units) {
    ASSERT_GT(u.rows, 0);
    ASSERT_GT(u.cols, 0);
    ASSERT_GT(u.depth, 0);
    for (std::int64_t j = u.col0; j < u.col0 + u.cols; ++j)
      for (std::int64_t i = u.row0; i < u.row0 + u.rows; ++i)
        for (std::int64_t p = u.k0; p < u.k0 + u.depth; ++p) ++hits[std::size_t((j * r.m + i) * r.k + p)];
  }
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), std::ptrdiff_t(hits.size()));
}

TEST(OocPlanner, CoversCAndKExactlyOnce) {
  for (auto [m, n, k, budget] : {std::tuple{1000, 700, 300, std::size_t(8) << 20}, {700, 1000, 1, std::size_t(8) << 20},
                                 {513, 257, 1029, std::size_t(4) << 20}, {300, 300, 300, std::size_t(1) << 30}}) {
    PlanRequest r = request(m, n, k, budget);
    r.granule = 64;
    Plan const plan = make_plan(r);
    ASSERT_TRUE(plan.error.empty()) << plan.error;
    SCOPED_TRACE(plan.describe(0));
    expect_exact_cover(r, plan);
  }
}

TEST(OocPlanner, BudgetRespectedAndKSplitWhenNeeded) {
  std::size_t const operands = 3ull * 32768 * 32768 * 8;  // A, B, C at n = 32768
  for (std::size_t budget : {std::size_t(80) << 30, operands / 4, std::size_t(2) << 30, std::size_t(512) << 20}) {
    PlanRequest const r = request(32768, 32768, 32768, budget);
    Plan const plan = make_plan(r);
    ASSERT_TRUE(plan.error.empty()) << plan.error;
    EXPECT_LE(plan.device_bytes, budget);
    EXPECT_EQ(plan.device_bytes, device_bytes_for(r, plan.tile_rows, plan.tile_cols, plan.tile_depth));
    EXPECT_EQ(plan.tile_rows % r.granule, 0);
    EXPECT_EQ(std::int64_t(plan.units.size()), plan.block_rows * plan.block_cols * plan.k_chunks);
    // Chunks of one C block run back to back: first and last flags bracket them.
    for (std::size_t u = 0; u < plan.units.size(); ++u) {
      WorkUnit const& w = plan.units[u];
      EXPECT_EQ(w.first_chunk, w.chunk == 0);
      EXPECT_EQ(w.last_chunk, w.chunk == plan.k_chunks - 1);
      if (!w.first_chunk) {
        EXPECT_EQ(plan.units[u - 1].block_row, w.block_row);
        EXPECT_EQ(plan.units[u - 1].block_col, w.block_col);
      }
    }
  }
  // A small budget forces K chunks; the whole device does not.
  EXPECT_GT(make_plan(request(32768, 32768, 32768, std::size_t(512) << 20)).k_chunks, 1);
  EXPECT_EQ(make_plan(request(32768, 32768, 32768, std::size_t(80) << 30)).k_chunks, 1);
}

TEST(OocPlanner, SerpentineOrderReusesAPanel) {
  PlanRequest r = request(20000, 30000, 8000, std::size_t(6) << 30);
  Plan const plan = make_plan(r);
  ASSERT_TRUE(plan.error.empty()) << plan.error;
  ASSERT_EQ(plan.k_chunks, 1);
  ASSERT_GT(plan.units.size(), 4u);
  std::int64_t a_loads = 0, b_loads = 0;
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    WorkUnit const& w = plan.units[u];
    a_loads += w.loads_a;
    b_loads += w.loads_b;
    if (u > 0) {
      WorkUnit const& p = plan.units[u - 1];
      EXPECT_TRUE(p.block_row == w.block_row || p.block_col == w.block_col) << "unit " << u << " shares no panel";
      EXPECT_EQ(w.loads_a, p.block_row != w.block_row);
      EXPECT_EQ(w.loads_b, p.block_col != w.block_col);
    }
  }
  EXPECT_EQ(a_loads, plan.block_rows);                                         // each A panel once
  EXPECT_EQ(b_loads, plan.block_rows * plan.block_cols - (plan.block_rows - 1));  // B kept at each turn
  // Traffic: every A row panel crosses once, C in and out once each.
  std::int64_t a_rows = 0, b_cols = 0;
  for (WorkUnit const& w : plan.units) {
    a_rows += w.loads_a ? w.rows : 0;
    b_cols += w.loads_b ? w.cols : 0;
  }
  EXPECT_EQ(a_rows, r.m);
  double const e = 8;
  EXPECT_DOUBLE_EQ(plan.h2d_bytes, e * (double(r.m) * r.k + double(r.k) * b_cols + double(r.m) * r.n));
  EXPECT_DOUBLE_EQ(plan.d2h_bytes, e * double(r.m) * r.n);
}

TEST(OocPlanner, BetaZeroLoadsNoC) {
  Plan const with_c = make_plan(request(8192, 8192, 8192, std::size_t(2) << 30, true));
  Plan const without_c = plan_with_tile(request(8192, 8192, 8192, std::size_t(2) << 30, false), with_c.tile_rows,
                                        with_c.tile_cols, with_c.tile_depth);
  EXPECT_DOUBLE_EQ(with_c.h2d_bytes - without_c.h2d_bytes, 8.0 * 8192 * 8192);
}

TEST(OocPlanner, SlowerLinksChooseLargerTiles) {
  PlanRequest fast = request(32768, 32768, 32768, std::size_t(40) << 30);
  PlanRequest slow = fast;
  slow.rates.h2d_bytes_per_s = fast.rates.h2d_bytes_per_s / 6;  // pageable-like
  slow.rates.d2h_bytes_per_s = fast.rates.d2h_bytes_per_s / 6;
  Plan const a = make_plan(fast), b = make_plan(slow);
  ASSERT_TRUE(a.error.empty() && b.error.empty());
  EXPECT_GE(b.tile_rows, a.tile_rows);
  EXPECT_GT(b.model_seconds, a.model_seconds);
  // With PCIe at 50 GB/s and 50 TFLOP/s, a tile must be thousands wide to stay compute-bound.
  EXPECT_GE(a.tile_rows, 2048);
}

TEST(OocPlanner, SizesPast32BitIndices) {
  PlanRequest const r = request(70000, 70000, 70000, std::size_t(64) << 30);  // 4.9e9 elements per matrix
  Plan const plan = make_plan(r);
  ASSERT_TRUE(plan.error.empty()) << plan.error;
  WorkUnit const& last = plan.units.back();
  std::int64_t covered = 0;
  for (WorkUnit const& u : plan.units) covered += u.rows * u.cols * (u.last_chunk ? 1 : 0);
  EXPECT_EQ(covered, r.m * r.n);
  EXPECT_TRUE(last.row0 + last.rows == r.m || last.col0 + last.cols == r.n || plan.block_rows % 2 == 0);
}

TEST(OocPlanner, LoadingBInPiecesShortensTheFill) {
  // The H100 run of 2026-11-21 at 16384: the first kernel waited 28 ms for two whole panels.
  PlanRequest whole = request(16384, 16384, 16384, std::size_t(72) << 30, false);
  PlanRequest pieces = whole;
  pieces.store_sub_blocks = 4;
  Plan const a = plan_with_tile(whole, 5632, 5632, 16384), b = plan_with_tile(pieces, 5632, 5632, 16384);
  double const panel_s = 5632.0 * 16384 * 8 / whole.rates.h2d_bytes_per_s;
  double const block_out_s = 5120.0 * 5120 * 8 / whole.rates.d2h_bytes_per_s;  // the last block is 5120 x 5120
  // Fill: A and a quarter of B instead of A and B; drain: a quarter of the last block.
  EXPECT_NEAR(a.model_seconds - b.model_seconds, 0.75 * panel_s + 0.75 * block_out_s, 1e-9);
  // The model then affords a wider tile (less traffic) at least as readily.
  Plan const chosen_whole = make_plan(whole), chosen_pieces = make_plan(pieces);
  EXPECT_GE(chosen_pieces.tile_rows, chosen_whole.tile_rows);
  EXPECT_LE(chosen_pieces.model_seconds, chosen_whole.model_seconds);
  // K chunks: only the last chunk runs in pieces, so a first unit that is not last has the whole fill.
  Plan const chunked_whole = plan_with_tile(whole, 4096, 4096, 4096), chunked = plan_with_tile(pieces, 4096, 4096, 4096);
  double const chunk_drain_s = 4096.0 * 4096 * 8 / whole.rates.d2h_bytes_per_s;
  EXPECT_NEAR(chunked_whole.model_seconds - chunked.model_seconds, 0.75 * chunk_drain_s, 1e-9);
}

TEST(OocPlanner, GoalSizeAndTwiceItPlanWithinTheBudget) {
  // n = 32768 (the goal size) and 65536 (4.3e9 elements per matrix, past 32-bit indices), with the
  // H100's free memory and a quarter of the operands; every C element once, the exact FLOP count.
  for (std::int64_t n : {std::int64_t(32768), std::int64_t(65536)}) {
    for (double fraction : {0.0, 0.25}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", budget fraction " + std::to_string(fraction));
      std::size_t const budget =
          fraction > 0 ? std::size_t(fraction * 3.0 * double(n) * double(n) * 8.0) : std::size_t(72) << 30;
      PlanRequest r = request(n, n, n, budget, false);
      r.store_sub_blocks = 4;
      Plan const plan = make_plan(r);
      ASSERT_TRUE(plan.error.empty()) << plan.error;
      EXPECT_LE(plan.device_bytes, budget);
      EXPECT_DOUBLE_EQ(plan.flops, 2.0 * double(n) * double(n) * double(n));
      std::int64_t covered = 0, depth = 0;
      std::int64_t furthest = 0;  // the largest element offset of a C block's corner, column-major with ld = n
      for (WorkUnit const& u : plan.units) {
        if (u.last_chunk) covered += u.rows * u.cols;
        if (u.block_row == 0 && u.block_col == 0) depth += u.depth;
        furthest = std::max(furthest, (u.row0 + u.rows - 1) + (u.col0 + u.cols - 1) * n);
        EXPECT_EQ(u.k0 + u.depth <= n, true);
      }
      EXPECT_EQ(covered, n * n);
      EXPECT_EQ(depth, n);
      EXPECT_EQ(furthest, n * n - 1);
      // A chunked plan keeps depth a multiple of the granule and a compute-bound width.
      EXPECT_GE(plan.tile_rows, 2048);
      if (plan.k_chunks > 1) {
        EXPECT_EQ(plan.tile_depth % r.granule, 0);
      }
      // The model predicts a rate within the anchors (no overflowed traffic or time).
      double const rate = plan.flops / plan.model_seconds;
      EXPECT_GT(rate, 0.5 * r.rates.device_flops);
      EXPECT_LE(rate, r.rates.device_flops);
    }
  }
}

TEST(OocPlanner, EachWorkersRunLoadsItsOwnPanels) {
  // Runs cut as BlockQueue cuts them: a run's first block loads both panels, later ones reuse as
  // in one worker's order; the cover is the same and only the traffic at the cuts grows.
  PlanRequest one = request(20000, 30000, 8000, std::size_t(6) << 30);
  PlanRequest three = one;
  three.workers = 3;
  Plan const a = make_plan(one);
  Plan const b = plan_with_tile(three, a.tile_rows, a.tile_cols, a.tile_depth);
  ASSERT_EQ(a.units.size(), b.units.size());
  std::int64_t const blocks = b.block_rows * b.block_cols;
  ASSERT_GE(blocks, 6);
  double extra_bytes = 0;
  for (std::size_t u = 0; u < b.units.size(); ++u) {
    WorkUnit const& x = a.units[u];
    WorkUnit const& y = b.units[u];
    EXPECT_EQ(x.row0, y.row0);
    EXPECT_EQ(x.col0, y.col0);
    std::int64_t const block = std::int64_t(u) / b.k_chunks;  // units run block by block
    bool const run_start = y.first_chunk && (block == blocks / 3 || block == 2 * blocks / 3);
    EXPECT_EQ(y.loads_a, x.loads_a || run_start) << "unit " << u;
    EXPECT_EQ(y.loads_b, x.loads_b || run_start) << "unit " << u;
    extra_bytes += 8.0 * ((y.loads_a && !x.loads_a ? double(y.rows) * y.depth : 0.0) +
                          (y.loads_b && !x.loads_b ? double(y.depth) * y.cols : 0.0));
  }
  EXPECT_DOUBLE_EQ(b.h2d_bytes, a.h2d_bytes + extra_bytes);
  EXPECT_DOUBLE_EQ(b.flops, a.flops);
  EXPECT_LT(b.model_seconds, a.model_seconds);
}

TEST(OocPlanner, FourWorkersShareTheHostLinksAndTakeWiderTiles) {
  // The 4x H200 run of 2026-11-27 (n = 32768, pinned, level 4, 5632-wide tiles): each GPU copied at
  // 37 GB/s, its share of the host's 150, and the call took 431 ms against 1434 on one GPU. The
  // model sees the same share and so prefers a wider tile (fewer panel bytes per flop).
  PlanRequest one = request(32768, 32768, 32768, std::size_t(120) << 30, false);
  one.store_sub_blocks = 4;
  one.rates.h2d_bytes_per_s = 49.4e9, one.rates.d2h_bytes_per_s = 54.6e9;  // the executor's FP64 rates
  one.rates.device_flops = 60e12;
  PlanRequest four = one;
  four.workers = 4;
  Plan const single = plan_with_tile(one, 5632, 5632, 32768);
  Plan const shared = plan_with_tile(four, 5632, 5632, 32768);
  // Per worker: the panels at 37.5 GB/s outweigh the kernels, so the four runs are H2D-bound.
  double const share = four.rates.host_h2d_bytes_per_s / 4;
  ASSERT_LT(share, four.rates.h2d_bytes_per_s);
  EXPECT_GT(shared.model_seconds, single.model_seconds / 4 * 1.15);
  PlanRequest unlimited = four;
  unlimited.rates.host_h2d_bytes_per_s = unlimited.rates.host_d2h_bytes_per_s = 1e15;
  EXPECT_LT(plan_with_tile(unlimited, 5632, 5632, 32768).model_seconds, shared.model_seconds);
  Plan const chosen_one = make_plan(one), chosen_four = make_plan(four);
  EXPECT_EQ(chosen_one.tile_rows, 5632);
  EXPECT_GT(chosen_four.tile_rows, chosen_one.tile_rows);
  EXPECT_LT(chosen_four.model_seconds, shared.model_seconds);
  // More workers than blocks: the spare ones idle, the model is one block's run.
  PlanRequest many = one;
  many.workers = 64;
  Plan const whole = plan_with_tile(many, 16384, 16384, 32768);
  EXPECT_EQ(whole.block_rows * whole.block_cols, 4);
  EXPECT_GT(whole.model_seconds, 0.0);
}

TEST(OocPlanner, RefusesWhatCannotFit) {
  Plan const tiny = make_plan(request(4096, 4096, 4096, 1 << 20));  // 1 MiB: no 256-wide tile fits
  EXPECT_FALSE(tiny.error.empty());
  EXPECT_TRUE(tiny.units.empty());
  EXPECT_NE(tiny.describe().find("no plan"), std::string::npos);
  EXPECT_FALSE(make_plan(request(0, 10, 10, 1 << 30)).error.empty());
}

TEST(OocPlanner, ForcedTileRunsFullKOrIsRefused) {
  Plan const forced = plan_forced_tile(request(8192, 6000, 4096, std::size_t(2) << 30), 4096);
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_EQ(forced.tile_rows, 4096);
  EXPECT_EQ(forced.tile_cols, 4096);
  EXPECT_EQ(forced.tile_depth, 4096);
  EXPECT_EQ(forced.block_rows * forced.block_cols, 2 * 2);
  Plan const over = plan_forced_tile(request(8192, 8192, 8192, std::size_t(64) << 20), 4096);
  EXPECT_NE(over.error.find("forced 4096-wide tile"), std::string::npos) << over.error;
  EXPECT_TRUE(over.units.empty());
}

}  // namespace
}  // namespace gemmkit::ooc
