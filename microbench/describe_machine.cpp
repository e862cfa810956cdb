/*! \file
    \brief The machine description from micro-benchmark rows: which row feeds which field, and the
    device's limits from the runtime. No number here is typed in: a field no row measured stays 0.
*/
#include <cmath>

#include "microbench/device_timing.hpp"

namespace gemmkit::microbench {

namespace {

using M = model::MachineDescription;

ModelField const kModelFields[] = {
    {"fp64_mma_m16n8k16", &M::fp64_tensor_flops, 1e12, true},
    {"fp64_mma_m8n8k4", &M::fp64_tensor_m8n8k4_flops, 1e12, true},
    {"fp64_fma", &M::fp64_fma_flops, 1e12, true},
    {"fp32_fma", &M::fp32_fma_flops, 1e12, true},
    {"sm_clock", &M::sm_clock_hz, 1e6, false},
    {"d2d_memcpy", &M::dram_bytes_per_s, 1e9, true},
    {"l2_read", &M::l2_bytes_per_s, 1e9, false},
    {"smem_bandwidth", &M::smem_bytes_per_clock_per_sm, 1, false},
    {"h2d_pinned", &M::h2d_pinned_bytes_per_s, 1e9, true},
    {"d2h_pinned", &M::d2h_pinned_bytes_per_s, 1e9, true},
    {"bidirectional_pinned", &M::bidirectional_pinned_bytes_per_s, 1e9, true},
    {"h2d_pageable", &M::h2d_pageable_bytes_per_s, 1e9, true},
    {"d2h_pageable", &M::d2h_pageable_bytes_per_s, 1e9, false},
    {"lds32_latency", &M::lds32_latency_cycles, 1, false},
    {"lds64_latency", &M::lds64_latency_cycles, 1, false},
    {"lds128_latency", &M::lds128_latency_cycles, 1, false},
    {"dfma_latency", &M::dfma_latency_cycles, 1, false},
    {"ffma_latency", &M::ffma_latency_cycles, 1, false},
    {"iadd_latency", &M::integer_latency_cycles, 1, false},
    {"dmma_m16n8k16_latency", &M::dmma_latency_cycles, 1, false},
    {"l2_load_latency", &M::l2_load_latency_cycles, 1, false},
    {"dram_load_latency", &M::dram_load_latency_cycles, 1, false},
    {"bar_sync_4warps", &M::barrier_latency_cycles, 1, false},
    {"launch_latency", &M::launch_latency_s, 1e-6, false},
    {"launch_interval", &M::launch_interval_s, 1e-6, false},
    {"energy_fp64_mma_m16n8k16", &M::dmma_energy_j_per_flop, 1e-12, false},
    {"energy_l2_read", &M::l2_energy_j_per_byte, 1e-12, false},
    {"energy_smem_read", &M::smem_energy_j_per_byte, 1e-12, false},
};

/// The power limit and the idle draw, from the parameters of the DMMA energy row.
void power_of(std::vector<Measurement> const& rows, model::MachineDescription* m) {
  for (Measurement const& row : rows) {
    if (row.name != "energy_fp64_mma_m16n8k16" || !row.error.empty()) continue;
    for (auto const& [key, value] : row.parameters) {
      if (key == "power_limit_watts") m->power_limit_w = value;
      if (key == "idle_watts") m->idle_power_w = value;
    }
  }
}

/// Warp schedulers (SM sub-partitions) per SM: four on every architecture since sm_70; the runtime
/// has no attribute for it.
int schedulers_per_sm(int compute_capability) { return compute_capability >= 70 ? 4 : 2; }

/// Registers one thread may use: 255 in the PTX ISA since sm_35 (no runtime attribute either).
constexpr int kMaxRegistersPerThread = 255;

}  // namespace

std::span<ModelField const> model_fields() { return kModelFields; }

std::string describe_machine(int device, std::vector<Measurement> const& rows, std::string const& source,
                             model::MachineDescription* out) {
  cudaDeviceProp p{};
  if (std::string e = cuda_error_text(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties"); !e.empty()) {
    return e;
  }
  model::MachineDescription m;
  m.name = p.name;
  m.source = source;
  m.sm_count = p.multiProcessorCount;
  m.registers_per_sm = p.regsPerMultiprocessor;
  m.max_registers_per_thread = kMaxRegistersPerThread;
  m.shared_bytes_per_sm = int(p.sharedMemPerBlockOptin);
  m.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  m.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  m.schedulers_per_sm = schedulers_per_sm(p.major * 10 + p.minor);
  for (ModelField const& f : kModelFields) {
    for (Measurement const& row : rows) {
      if (row.name != f.case_name || !row.error.empty()) continue;
      double const value = median(row.samples);
      if (std::isfinite(value)) m.*f.field = value * f.to_field_unit;
    }
  }
  power_of(rows, &m);
  *out = m;
  return {};
}

}  // namespace gemmkit::microbench
