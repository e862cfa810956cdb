/*! \file
    \brief The SIMT ladder model: instruction mix, ceilings, occupancy, placement.
*/
#include "model/ladder_model.hpp"

#include <algorithm>
#include <cmath>

namespace gemmkit::model {

namespace {

constexpr int kWavefrontBytes = 128;  // one shared-memory pass: 32 banks x 4 bytes
constexpr int kWarp = 32;

int ceil_div(std::int64_t a, std::int64_t b) { return int((a + b - 1) / b); }

/// Wavefronts of one warp-wide access of `bytes` per thread where only `distinct` threads read
/// different addresses (the rest get a broadcast), conflict-free.
int wavefronts(int distinct, int bytes) { return std::max(1, ceil_div(std::int64_t(distinct) * bytes, kWavefrontBytes)); }

}  // namespace

InstructionMix instruction_mix(SimtKernelShape const& s) {
  InstructionMix mix;
  int const elements_per_load = std::max(1, s.shared_load_bytes / s.element_bytes);
  mix.fma = s.tm * s.tn * s.bk;
  mix.shared_loads = s.bk * (s.tm + s.tn) / elements_per_load;
  mix.shared_load_bytes = s.shared_load_bytes;
  mix.global_loads = s.global_loads_per_slice();
  mix.shared_stores = mix.global_loads;
  mix.barriers = s.buffers >= 2 ? 1 : 2;
  // Per fetched element a predicate and an address step; per slice the loop counter, its compare
  // and branch, the k left, and with two buffers the buffer switch.
  mix.integer = 2 * mix.global_loads + 4 + (s.buffers >= 2 ? 2 : 0);
  return mix;
}

int simt_registers_per_thread(SimtKernelShape const& s) {
  if (s.registers_per_thread > 0) return s.registers_per_thread;
  int const words_per_element = std::max(1, s.element_bytes / 4);
  int const fragments = (s.tm + s.tn) * (s.shared_prefetch ? 2 : 1);
  int const elements = s.tm * s.tn + fragments + s.global_loads_per_slice();
  return std::min(255, elements * words_per_element + 24);
}

int simt_resident_blocks(MachineDescription const& machine, SimtKernelShape const& s) {
  int const registers = (simt_registers_per_thread(s) + 7) / 8 * 8;
  int blocks = std::min({machine.max_threads_per_sm / s.threads, machine.registers_per_sm / (registers * s.threads),
                         machine.max_blocks_per_sm});
  if (s.shared_bytes() > 0) blocks = std::min(blocks, machine.shared_bytes_per_sm / s.shared_bytes());
  return std::max(blocks, 0);
}

SimtPrediction predict_simt(MachineDescription const& machine, SimtKernelShape const& s, std::int64_t m,
                            std::int64_t n, std::int64_t k) {
  SimtPrediction p;
  (void)k;  // every tile runs the whole K: k changes the time, not the fraction of peak
  p.fma_peak = s.element_bytes == 8 ? machine.fp64_fma_flops : machine.fp32_fma_flops;
  p.mix = instruction_mix(s);
  int const schedulers = std::max(1, machine.schedulers_per_sm);

  // Issue: a scheduler issues one warp instruction per clock; at the FMA peak each FMA holds it
  // for fma_issue_cycles (32 lanes per FFMA: 1; DFMA on sm_90, 16 lanes: 2), and the other
  // instructions issue in those shadows. With one cycle per FMA every other instruction costs a
  // slot, seed 001's ratio (DFMA on Fermi could not dual-issue, the same arithmetic).
  double const lane_cycles = 2.0 * kWarp * schedulers * machine.sm_count * machine.sm_clock_hz / p.fma_peak;
  p.fma_issue_cycles = std::max(1, int(std::lround(lane_cycles)));
  // The compiled loop's own counts where known; the per-slice FMAs are the same either way.
  double const fma_cycles = double(p.mix.fma) * p.fma_issue_cycles;
  double const instructions = s.loop_instructions > 0 && s.loop_fma > 0
                                  ? double(p.mix.fma) * s.loop_instructions / s.loop_fma
                                  : double(p.mix.total());
  double const issue_cycles = std::max(fma_cycles, instructions);
  p.issue_ceiling = p.fma_peak * fma_cycles / issue_cycles;

  // Shared memory: a warp's fragment load reads one address per distinct thread index along the
  // tile (the others are broadcasts); the slice's stores write 32 elements each. The SM's shared
  // pipe serves all its schedulers.
  int const distinct_m = s.lanes_m();
  int const distinct_n = std::max(1, kWarp / std::max(1, distinct_m));
  int const elements_per_load = std::max(1, s.shared_load_bytes / s.element_bytes);
  double const wf_a = double(s.bk) * s.tm / elements_per_load * wavefronts(distinct_m, s.shared_load_bytes);
  double const wf_b = double(s.bk) * s.tn / elements_per_load * wavefronts(distinct_n, s.shared_load_bytes);
  double const wf_stores = double(p.mix.shared_stores) * wavefronts(kWarp, s.element_bytes);
  p.smem_wavefronts_per_slice = wf_a + wf_b + wf_stores;
  double const wavefronts_per_clock = machine.smem_bytes_per_clock_per_sm / kWavefrontBytes;
  // Per clock, the SM's schedulers finish schedulers / fma_cycles warp-slices at the FMA peak.
  double const smem_cycles = schedulers * p.smem_wavefronts_per_slice / wavefronts_per_clock;
  p.smem_ceiling = p.fma_peak * std::min(1.0, fma_cycles / smem_cycles);
  p.smem_bytes_per_flop = s.element_bytes * (1.0 / s.tm + 1.0 / s.tn) / 2.0;

  p.l2_bytes_per_flop = s.element_bytes * (1.0 / s.bm + 1.0 / s.bn) / 2.0;
  p.l2_ceiling = machine.l2_bytes_per_s / p.l2_bytes_per_flop;

  p.registers_per_thread = simt_registers_per_thread(s);
  p.resident_blocks = simt_resident_blocks(machine, s);
  int const warps_per_block = ceil_div(s.threads, kWarp);
  p.warps_per_sm = p.resident_blocks * warps_per_block;

  // Placement: tiles spread over the SMs, a block's warps over the SM's schedulers; the busiest
  // scheduler sets the time. Edge tiles compute padding: only the useful fraction counts.
  std::int64_t const tiles = std::int64_t(ceil_div(m, s.bm)) * ceil_div(n, s.bn);
  int const blocks_on_busiest_sm = ceil_div(tiles, machine.sm_count);
  int const warps_on_busiest_scheduler = ceil_div(std::int64_t(blocks_on_busiest_sm) * warps_per_block, schedulers);
  double const scheduler_slots = double(machine.sm_count) * schedulers * warps_on_busiest_scheduler;
  double const useful = double(m) * double(n) / (double(ceil_div(m, s.bm)) * s.bm * double(ceil_div(n, s.bn)) * s.bn);
  p.placement_efficiency = tiles > 0 ? double(tiles) * warps_per_block / scheduler_slots * useful : 0.0;

  p.flops = p.fma_peak;
  p.limiter = s.element_bytes == 8 ? "DFMA peak" : "FFMA peak";
  if (p.issue_ceiling < p.flops) p.flops = p.issue_ceiling, p.limiter = "instruction issue (FMA fraction)";
  if (p.smem_ceiling < p.flops) p.flops = p.smem_ceiling, p.limiter = "shared-memory wavefronts";
  if (p.l2_ceiling < p.flops) p.flops = p.l2_ceiling, p.limiter = "L2 bandwidth (block tile)";
  if (p.resident_blocks == 0) p.flops = 0, p.limiter = "does not fit on an SM";
  p.flops *= p.placement_efficiency;
  return p;
}

}  // namespace gemmkit::model
