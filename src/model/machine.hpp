/*! \file
    \brief The machine description the performance model and the planners read. Until the
    micro-benchmarks (`gemmkit-bench micro`) write a measured one, the H100 description carries
    the measured anchors of DESIGN.md and the architecture's published limits.
*/
#pragma once

#include <string>

namespace gemmkit::model {

struct MachineDescription {
  std::string name;
  int sm_count = 0;
  double sm_clock_hz = 0;
  // Rates, measured where DESIGN.md has an anchor.
  double fp64_tensor_flops = 0;   ///< mma.sync m16n8k16 .f64, whole device
  double fp64_fma_flops = 0;
  double fp32_fma_flops = 0;
  double dram_bytes_per_s = 0;    ///< device copy bandwidth (read + write)
  double l2_bytes_per_s = 0;      ///< L2 to SM, whole device
  double smem_bytes_per_clock_per_sm = 0;
  double h2d_pinned_bytes_per_s = 0, d2h_pinned_bytes_per_s = 0, h2d_pageable_bytes_per_s = 0;
  // Per-SM resources (architecture limits).
  int registers_per_sm = 0;
  int max_registers_per_thread = 0;
  int shared_bytes_per_sm = 0;    ///< usable by blocks (opt-in maximum)
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int schedulers_per_sm = 0;

  double smem_bytes_per_s() const { return smem_bytes_per_clock_per_sm * sm_clock_hz * sm_count; }
};

/// H100 80GB HBM3 SXM: DESIGN.md's measured anchors (2026-11-21) for the rates it lists; the L2
/// rate is inferred from the Nsight Compute profile in bench/results/h100/logs (26.9 % of peak
/// at 2.75 TB/s of tile traffic), the rest are sm_90 limits.
inline MachineDescription h100_sxm() {
  MachineDescription m;
  m.name = "H100 80GB HBM3 (SXM)";
  m.sm_count = 132;
  m.sm_clock_hz = 1.98e9;
  m.fp64_tensor_flops = 66.6e12;
  m.fp64_fma_flops = 32.7e12;
  m.fp32_fma_flops = 64.5e12;
  m.dram_bytes_per_s = 3017e9;
  m.l2_bytes_per_s = 10.2e12;
  m.smem_bytes_per_clock_per_sm = 128;
  m.h2d_pinned_bytes_per_s = 49.4e9;
  m.d2h_pinned_bytes_per_s = 54.6e9;
  m.h2d_pageable_bytes_per_s = 8.6e9;
  m.registers_per_sm = 65536;
  m.max_registers_per_thread = 255;
  m.shared_bytes_per_sm = 227 * 1024;
  m.max_threads_per_sm = 2048;
  m.max_blocks_per_sm = 32;
  m.schedulers_per_sm = 4;
  return m;
}

}  // namespace gemmkit::model
