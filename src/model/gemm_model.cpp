/*! \file
    \brief The GEMM performance model: ceilings, occupancy, waves, ranking.
*/
#include "model/gemm_model.hpp"

#include "core/problem.hpp"

#include <algorithm>

namespace gemmkit::model {

int resident_blocks(MachineDescription const& machine, TileConfig const& config) {
  int const threads = config.threads();
  int const registers = config.registers_per_thread > 0
                            ? config.registers_per_thread
                            : std::min(machine.max_registers_per_thread,
                                       machine.registers_per_sm / (threads * std::max(1, config.blocks_per_sm)));
  int blocks = std::min({machine.max_threads_per_sm / threads, machine.registers_per_sm / (registers * threads),
                         machine.max_blocks_per_sm, config.blocks_per_sm});
  if (config.shared_bytes() > 0) blocks = std::min(blocks, machine.shared_bytes_per_sm / config.shared_bytes());
  return std::max(blocks, 0);
}

Prediction predict(MachineDescription const& machine, TileConfig const& c, std::int64_t m, std::int64_t n,
                   std::int64_t k) {
  Prediction p;
  double const word = c.element_bytes;
  p.tensor_ceiling = machine.fp64_tensor_flops;
  // Global -> shared: a bm x bn tile loads (bm + bn) words per k for 2 bm bn flops.
  p.l2_bytes_per_flop = word * (1.0 / c.bm + 1.0 / c.bn) / 2.0;
  p.l2_ceiling = machine.l2_bytes_per_s / p.l2_bytes_per_flop;
  // Shared -> registers: a warp_m x warp_n warp tile reads (warp_m + warp_n) words per k for
  // 2 warp_m warp_n flops; the cp.async writes of the block tile cross shared memory as well.
  p.smem_bytes_per_flop = word * (1.0 / c.warp_m + 1.0 / c.warp_n) / 2.0 + p.l2_bytes_per_flop;
  p.smem_ceiling = machine.smem_bytes_per_s() / p.smem_bytes_per_flop;
  p.resident_blocks = resident_blocks(machine, c);
  p.warps_per_sm = p.resident_blocks * c.threads() / 32;

  std::int64_t const tiles = ((m + c.bm - 1) / c.bm) * ((n + c.bn - 1) / c.bn);
  std::int64_t const slots = std::int64_t(machine.sm_count) * std::max(1, p.resident_blocks);
  p.wave_efficiency = wave_efficiency(tiles, slots);
  // Partial tiles at the edges compute padding: count only the useful fraction.
  double const useful = double(m) * double(n) /
                        (double((m + c.bm - 1) / c.bm * c.bm) * double((n + c.bn - 1) / c.bn * c.bn));
  p.wave_efficiency *= useful;
  (void)k;

  p.flops = p.tensor_ceiling;
  p.limiter = "FP64 tensor peak";
  if (p.l2_ceiling < p.flops) p.flops = p.l2_ceiling, p.limiter = "L2 bandwidth (block tile)";
  if (p.smem_ceiling < p.flops) p.flops = p.smem_ceiling, p.limiter = "shared-memory bandwidth (warp tile)";
  if (p.resident_blocks == 0) p.flops = 0, p.limiter = "does not fit on an SM";
  p.flops *= p.wave_efficiency;
  return p;
}

std::vector<std::pair<TileConfig, Prediction>> rank(MachineDescription const& machine,
                                                    std::vector<TileConfig> const& configs, std::int64_t m,
                                                    std::int64_t n, std::int64_t k) {
  std::vector<std::pair<TileConfig, Prediction>> out;
  for (TileConfig const& c : configs) out.emplace_back(c, predict(machine, c, m, n, k));
  std::stable_sort(out.begin(), out.end(), [](auto const& a, auto const& b) { return a.second.flops > b.second.flops; });
  return out;
}

}  // namespace gemmkit::model
