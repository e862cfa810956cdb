/*! \file
    \brief The host-resident GEMM's planner: serpentine work units and the tile search.
*/
#include "ooc/planner.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

namespace gemmkit::ooc {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

RateModel executor_rates(model::MachineDescription const& machine, int element_bytes, bool staged_inputs,
                         bool staged_c) {
  RateModel r;
  r.h2d_bytes_per_s = staged_inputs ? machine.staged_copy_bytes_per_s : machine.h2d_pinned_bytes_per_s;
  r.d2h_bytes_per_s = staged_c ? machine.staged_copy_bytes_per_s : machine.d2h_pinned_bytes_per_s;
  r.device_flops = element_bytes == 8 ? machine.fp64_gemm_flops : machine.fp32_gemm_flops;
  r.host_h2d_bytes_per_s = machine.host_h2d_bytes_per_s;
  r.host_d2h_bytes_per_s = machine.host_d2h_bytes_per_s;
  return r;
}

model::MachineDescription const& planning_machine() {
  static model::MachineDescription const machine = model::h100_sxm();
  return machine;
}

std::size_t device_bytes_for(PlanRequest const& r, std::int64_t rows, std::int64_t cols, std::int64_t depth) {
  double const panels = double(r.panel_buffers) * (double(rows) * double(depth) + double(depth) * double(cols));
  double const c_blocks = 2.0 * double(rows) * double(cols);
  return std::size_t((panels + c_blocks) * double(r.element_bytes));
}

Plan plan_with_tile(PlanRequest const& r, std::int64_t tile_rows, std::int64_t tile_cols, std::int64_t tile_depth) {
  Plan plan;
  plan.tile_rows = std::min(tile_rows, r.m);
  plan.tile_cols = std::min(tile_cols, r.n);
  plan.tile_depth = std::min(tile_depth, r.k);
  plan.block_rows = ceil_div(r.m, plan.tile_rows);
  plan.block_cols = ceil_div(r.n, plan.tile_cols);
  plan.k_chunks = ceil_div(r.k, plan.tile_depth);
  plan.device_bytes = device_bytes_for(r, plan.tile_rows, plan.tile_cols, plan.tile_depth);
  plan.units.reserve(std::size_t(plan.block_rows * plan.block_cols * plan.k_chunks));

  // Each worker's links: its own, or its share of what the host moves for all of them.
  std::int64_t const blocks = plan.block_rows * plan.block_cols;
  std::int64_t const workers = std::clamp<std::int64_t>(r.workers, 1, blocks);
  double const h2d_rate = std::min(r.rates.h2d_bytes_per_s, r.rates.host_h2d_bytes_per_s / double(workers));
  double const d2h_rate = std::min(r.rates.d2h_bytes_per_s, r.rates.host_d2h_bytes_per_s / double(workers));
  double const e = r.element_bytes;

  // One worker's run: copy in, compute and copy back overlap (separate engines); its first unit's
  // loads and its last block's copy-back do not.
  struct Run {
    double h2d_s = 0, d2h_s = 0, compute_s = 0, first_load_s = -1, last_store_s = 0;
    double seconds() const { return std::max({h2d_s, d2h_s, compute_s}) + std::max(first_load_s, 0.0) + last_store_s; }
  };
  std::vector<Run> runs(static_cast<std::size_t>(workers));
  std::int64_t block = 0, run = 0;
  WorkUnit const* previous = nullptr;
  for (std::int64_t i = 0; i < plan.block_rows; ++i) {
    for (std::int64_t step = 0; step < plan.block_cols; ++step, ++block) {
      // Serpentine: even block rows left to right, odd ones right to left, so a row keeps its A
      // panel and the turn keeps the B panel.
      std::int64_t const j = i % 2 == 0 ? step : plan.block_cols - 1 - step;
      // Runs are cut as BlockQueue cuts them: blocks * w / workers onwards.
      if (run + 1 < workers && block >= blocks * (run + 1) / workers) ++run, previous = nullptr;
      Run& cost = runs[std::size_t(run)];
      for (std::int64_t c = 0; c < plan.k_chunks; ++c) {
        WorkUnit u;
        u.block_row = i, u.block_col = j, u.chunk = c;
        u.row0 = i * plan.tile_rows, u.rows = std::min(plan.tile_rows, r.m - u.row0);
        u.col0 = j * plan.tile_cols, u.cols = std::min(plan.tile_cols, r.n - u.col0);
        u.k0 = c * plan.tile_depth, u.depth = std::min(plan.tile_depth, r.k - u.k0);
        u.first_chunk = c == 0;
        u.last_chunk = c == plan.k_chunks - 1;
        // A panel (block row, chunk) and B panel (chunk, block column) stay resident while the
        // next unit of the run needs the same one.
        u.loads_a = previous == nullptr || previous->block_row != i || previous->chunk != c;
        u.loads_b = previous == nullptr || previous->block_col != j || previous->chunk != c;
        double const in = ((u.loads_a ? double(u.rows) * double(u.depth) : 0.0) +
                           (u.loads_b ? double(u.depth) * double(u.cols) : 0.0) +
                           (u.first_chunk && r.reads_c ? double(u.rows) * double(u.cols) : 0.0)) * e;
        double const out = u.last_chunk ? double(u.rows) * double(u.cols) * e : 0.0;
        double const flops = 2.0 * double(u.rows) * double(u.cols) * double(u.depth);
        plan.h2d_bytes += in, plan.d2h_bytes += out, plan.flops += flops;
        cost.h2d_s += in / h2d_rate;
        cost.d2h_s += out / d2h_rate;
        double const depth = double(u.depth);
        cost.compute_s += flops / (r.rates.device_flops * depth / (depth + r.rates.depth_for_half_rate));
        if (cost.first_load_s < 0) {
          // The pipeline's fill: what the first kernel waits for (with pieces, A, C and B's first piece).
          double const b_bytes = u.loads_b ? double(u.depth) * double(u.cols) * e : 0.0;
          int const pieces = u.last_chunk ? std::max(r.store_sub_blocks, 1) : 1;
          cost.first_load_s = (in - b_bytes + b_bytes / pieces) / h2d_rate;
        }
        // The drain: the last piece's copy-back (the earlier pieces' overlap the later kernels).
        if (u.last_chunk) cost.last_store_s = out / std::max(r.store_sub_blocks, 1) / d2h_rate;
        plan.units.push_back(u);
        previous = &plan.units.back();
      }
    }
  }
  for (Run const& cost : runs) plan.model_seconds = std::max(plan.model_seconds, cost.seconds());
  return plan;
}

Plan make_plan(PlanRequest const& r) {
  Plan best;
  if (r.m <= 0 || r.n <= 0 || r.k <= 0 || r.element_bytes <= 0 || r.granule <= 0 || r.panel_buffers <= 0) {
    best.error = "the planner needs m, n, k, element size, granule and panel buffers > 0";
    return best;
  }
  std::int64_t const largest = std::max(r.m, r.n);
  bool found = false;
  for (std::int64_t t = r.granule; t < largest + r.granule; t += r.granule) {
    std::int64_t const rows = std::min(t, r.m), cols = std::min(t, r.n);
    // Full K when it fits, else the deepest multiple of the granule that does.
    std::int64_t depth = r.k;
    if (device_bytes_for(r, rows, cols, depth) > r.device_budget) {
      double const room = double(r.device_budget) / r.element_bytes - 2.0 * double(rows) * double(cols);
      double const per_depth = double(r.panel_buffers) * double(rows + cols);
      depth = room > 0 ? std::int64_t(room / per_depth) / r.granule * r.granule : 0;
      if (depth < r.granule) break;  // larger tiles only need more
    }
    Plan const candidate = plan_with_tile(r, rows, cols, depth);
    if (candidate.device_bytes > r.device_budget) break;
    if (!found || candidate.model_seconds < best.model_seconds) best = candidate;
    found = true;
  }
  if (!found) {
    best = Plan{};
    best.error = "a device budget of " + std::to_string(r.device_budget) + " bytes holds no " +
                 std::to_string(r.granule) + "-wide tile (needs " +
                 std::to_string(device_bytes_for(r, std::min(r.granule, r.m), std::min(r.granule, r.n),
                                                 std::min(r.granule, r.k))) +
                 ")";
  }
  return best;
}

Plan plan_forced_tile(PlanRequest const& r, std::int64_t tile) {
  Plan plan = plan_with_tile(r, std::min(tile, r.m), std::min(tile, r.n), r.k);
  if (plan.device_bytes > r.device_budget) {
    std::string const error = "the forced " + std::to_string(tile) + "-wide tile with full K needs " +
                              std::to_string(plan.device_bytes) + " bytes of device memory, over the budget of " +
                              std::to_string(r.device_budget);
    plan = Plan{};
    plan.error = error;
  }
  return plan;
}

std::string Plan::describe(int units_shown) const {
  if (!error.empty()) return "no plan: " + error + "\n";
  std::ostringstream s;
  char line[256];
  std::snprintf(line, sizeof line, "tile %lld x %lld x %lld: %lld x %lld blocks, %lld K chunk%s, %zu units\n",
                (long long)tile_rows, (long long)tile_cols, (long long)tile_depth, (long long)block_rows,
                (long long)block_cols, (long long)k_chunks, k_chunks == 1 ? "" : "s", units.size());
  s << line;
  std::snprintf(line, sizeof line, "device memory %.2f GiB; host->device %.2f GiB, device->host %.2f GiB; %.3g GFLOP\n",
                double(device_bytes) / (1 << 30), h2d_bytes / (1 << 30), d2h_bytes / (1 << 30), flops / 1e9);
  s << line;
  std::snprintf(line, sizeof line, "model: %.4f s, %.1f TFLOP/s (the slowest worker's run)\n", model_seconds,
                model_seconds > 0 ? flops / model_seconds / 1e12 : 0.0);
  s << line;
  for (std::size_t u = 0; u < units.size() && int(u) < units_shown; ++u) {
    WorkUnit const& w = units[u];
    std::snprintf(line, sizeof line, "  unit %zu: C[%lld:%lld, %lld:%lld] k[%lld:%lld]%s%s%s%s\n", u,
                  (long long)w.row0, (long long)(w.row0 + w.rows), (long long)w.col0, (long long)(w.col0 + w.cols),
                  (long long)w.k0, (long long)(w.k0 + w.depth), w.loads_a ? " load A" : "", w.loads_b ? " load B" : "",
                  w.first_chunk ? " C in" : "", w.last_chunk ? " C out" : "");
    s << line;
  }
  if (int(units.size()) > units_shown) s << "  ... " << units.size() - std::size_t(units_shown) << " more\n";
  return s.str();
}

}  // namespace gemmkit::ooc
