/*! \file
    \brief The host-resident GEMM's planner (seed 004): C cut into work units that fit the device
    memory budget, visited in the seed's serpentine ("wriggled") order so consecutive units share
    an A or a B panel, with the tile size chosen by a pipeline model rather than fixed. Plain C++:
    the plan is printed by `gemmkit-bench ooc --plan` and unit-tested without a GPU.
*/
#pragma once

#include "model/machine.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gemmkit::ooc {

/// Rates the model weighs tiles with. The defaults are the H100 anchors (docs/perf-micro.md; pinned
/// host memory over PCIe 5, FP64 tensor-core DGEMM in core); the executor passes measured ones.
/// The rates a plan is made for, from a machine description (executor_rates).
struct RateModel {
  double h2d_bytes_per_s = 0;
  double d2h_bytes_per_s = 0;
  double device_flops = 0;
  /// Thin K chunks run the kernel below its rate: it is modelled as depth / (depth + this), which
  /// fits the H100 rank-k rows (k = 128 / 256 / 512 at 0.67 / 0.84 / 0.91 of the square rate).
  double depth_for_half_rate = 64;
  /// What the host (its memory and root complex) moves to and from all devices together; each of
  /// `workers` devices gets at most its share.
  double host_h2d_bytes_per_s = 0;
  double host_d2h_bytes_per_s = 0;
};

/// The rates of `machine` for a plan: pinned copies at its link rates, staged (pageable) ones at
/// its host's packing rate, the device at its in-core GEMM rate for the element size.
RateModel executor_rates(model::MachineDescription const& machine, int element_bytes, bool staged_inputs,
                         bool staged_c);
/// The description the executor plans with: the H100 anchors (model/machine.hpp), whose link and
/// in-core rates the pipeline's block sizes were tuned for.
model::MachineDescription const& planning_machine();

struct PlanRequest {
  std::int64_t m = 0, n = 0, k = 0;
  int element_bytes = 8;
  std::size_t device_budget = 0;  ///< bytes of device memory the plan may hold at once (per device)
  bool reads_c = true;            ///< beta != 0: C blocks are loaded as well as stored
  int panel_buffers = 2;          ///< device copies of each panel kind (2: the next unit's load overlaps)
  std::int64_t granule = 256;     ///< tile sizes are multiples of this (the kernels' tile)
  /// Column pieces of a C block's last K chunk (pipeline level 4; 1 below it). Their B columns are
  /// loaded piece by piece, so the first kernel waits for A and one piece of B, not both panels.
  int store_sub_blocks = 1;
  /// Devices sharing the blocks: the order is cut into one contiguous run each (as BlockQueue
  /// hands them out), and each run pays its own fill, drain and panel loads.
  int workers = 1;
  RateModel rates = executor_rates(planning_machine(), 8, false, false);
};

/// One work unit: C(row0 : row0+rows, col0 : col0+cols) += A-panel x B-panel over K chunk
/// [k0, k0+depth). A C block's chunks run consecutively and it stays in device memory between them.
struct WorkUnit {
  std::int64_t block_row = 0, block_col = 0, chunk = 0;
  std::int64_t row0 = 0, rows = 0, col0 = 0, cols = 0, k0 = 0, depth = 0;
  bool first_chunk = false;  ///< C block enters here: beta applied (loaded first when reads_c)
  bool last_chunk = false;   ///< C block complete here: copied back to the host
  bool loads_a = true;       ///< A panel not resident from the previous unit of the same worker's run
  bool loads_b = true;       ///< B panel not resident from the previous unit of the same worker's run
};

struct Plan {
  std::string error;  ///< non-empty when no plan fits (then the rest is empty)
  std::int64_t tile_rows = 0, tile_cols = 0, tile_depth = 0;
  std::int64_t block_rows = 0, block_cols = 0, k_chunks = 0;
  std::vector<WorkUnit> units;        ///< in execution order
  std::size_t device_bytes = 0;       ///< device memory the plan holds at peak
  double h2d_bytes = 0, d2h_bytes = 0, flops = 0;
  double model_seconds = 0;           ///< the model's prediction of the pipelined run (its slowest worker)

  /// Several lines: tile, counts, memory, traffic, predicted rate, and the first `units_shown` units.
  std::string describe(int units_shown = 8) const;
};

/// Device bytes a tile needs: panel_buffers copies of the A and B panels plus two C blocks (one
/// being computed, one being copied back).
std::size_t device_bytes_for(PlanRequest const& request, std::int64_t rows, std::int64_t cols, std::int64_t depth);

/// The work units of one tile choice, in serpentine order, with traffic and the model's time: each
/// worker's run of blocks pipelines its loads, kernels and copy-back at its share of the links.
Plan plan_with_tile(PlanRequest const& request, std::int64_t rows, std::int64_t cols, std::int64_t depth);

/// Tries square tiles from `granule` up to what the budget allows (full K, else K in chunks) and
/// keeps the one the model predicts fastest.
Plan make_plan(PlanRequest const& request);
/// The plan of a square `tile` (clipped to m and n) with full K, as `gemmkit-bench ooc --tile`
/// forces it; error set when it does not fit the budget.
Plan plan_forced_tile(PlanRequest const& request, std::int64_t tile);

}  // namespace gemmkit::ooc
