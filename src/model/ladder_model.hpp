/*! \file
    \brief The performance model of the SIMT register-blocked kernels (the ladder's steps 03-06):
    seed 001 §3's required bandwidths (RB = DF * WB * (1/bm + 1/bn) / 2 at the L2 for the block
    tile, the same with the register block at shared memory), its instruction-mix bound (the
    fraction of issue slots that are FMAs, Table 3), shared-memory wavefronts per FMA, occupancy
    from registers and shared memory, and how the tiles land on the SMs' schedulers. The bound is
    the lowest ceiling times that placement efficiency. Left out: latency (a scheduler with one or
    two warps stalls on shared loads and barriers the ceilings assume hidden), bank conflicts of
    transposed operands, local-memory traffic of spills. Where the compiled main loop's FMAs and
    instructions are known (the SASS), they replace the estimated mix in the issue bound.
*/
#pragma once

#include "model/machine.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

namespace gemmkit::model {

/// A register-blocked SIMT kernel as the model sees it (RegisterBlockedConfig's numbers for one
/// element type, plus what the compiled kernel has, when known).
struct SimtKernelShape {
  std::string name;
  int bm = 64, bn = 64, bk = 8;  ///< block tile and slice depth
  int tm = 8, tn = 8;            ///< register block per thread
  int threads = 64;
  int element_bytes = 8;
  int buffers = 1;               ///< shared buffers: 2 = double buffering, one barrier per slice
  int shared_load_bytes = 8;     ///< bytes per fragment load: the element, or 16 for 128-bit loads
  bool shared_prefetch = false;  ///< fragments of k-step kk+1 held while kk computes
  int registers_per_thread = 0;  ///< of the compiled kernel; 0 = estimated from the config
  int spill_bytes = 0;           ///< local memory per thread of the compiled kernel (spills)
  /// The production SIMT kernel (SimtConfig): its warp tile, whose lanes split kThreadM x kThreadN
  /// register blocks, and its blocks-per-SM target (0: the ladder's one-warp-row layout).
  int warp_m = 0, warp_n = 0, blocks_per_sm = 0;
  /// One pass of the compiled main loop (SASS): its FMAs and all its instructions. 0: the issue
  /// bound comes from instruction_mix's estimate.
  int loop_fma = 0, loop_instructions = 0;

  int threads_m() const { return bm / tm; }
  /// Lanes of a warp that read distinct A fragments (the rest get broadcasts).
  int lanes_m() const { return warp_m > 0 ? warp_m / tm : std::min(32, threads_m()); }
  int global_loads_per_slice() const { return (bm + bn) * bk / threads; }  ///< elements per thread
  int shared_bytes() const { return buffers * bk * (bm + bn) * element_bytes; }
};

/// The shape of a RegisterBlockedConfig (src/cuda/ladder/ladder_config.hpp) for elements of
/// `element_bytes`: the model reads the numbers the kernel is built from.
template <typename Cfg>
SimtKernelShape simt_shape_of(std::string name, int element_bytes) {
  SimtKernelShape s;
  s.name = std::move(name);
  s.bm = Cfg::kBM, s.bn = Cfg::kBN, s.bk = Cfg::kBK, s.tm = Cfg::kTM, s.tn = Cfg::kTN, s.threads = Cfg::kThreads;
  s.element_bytes = element_bytes;
  s.buffers = Cfg::kBuffers;
  s.shared_load_bytes = Cfg::kWideSharedLoads ? 16 : element_bytes;
  s.shared_prefetch = Cfg::kSharedPrefetch;
  return s;
}

/// The instructions one thread (so one warp, in warp instructions) issues per slice of bk k-steps,
/// from the config's arithmetic, as in seed 001's Table 3. The integer count is an estimate (per
/// global load its address step and bound check, plus loop control); the SASS mix measures it.
struct InstructionMix {
  int fma = 0;             ///< tm * tn * bk FFMA or DFMA
  int shared_loads = 0;    ///< fragment loads of shared_load_bytes each
  int shared_load_bytes = 0;
  int shared_stores = 0;   ///< one element each: the slice fetched from global memory
  int global_loads = 0;    ///< one element each
  int barriers = 0;        ///< 2 with one buffer, 1 with two
  int integer = 0;         ///< address, predicate and loop-control instructions, branch included

  int total() const { return fma + shared_loads + shared_stores + global_loads + barriers + integer; }
  double fma_fraction() const { return total() > 0 ? double(fma) / double(total()) : 0.0; }
};

InstructionMix instruction_mix(SimtKernelShape const& shape);

/// Registers per thread: the compiled kernel's when known, else accumulators + fragments (twice
/// with shared prefetch) + the prefetched slice + 24 for addresses and indices.
int simt_registers_per_thread(SimtKernelShape const& shape);

/// Blocks one SM holds: the least of threads, registers (allocated 8 per thread at a time), shared
/// memory and the block limit.
int simt_resident_blocks(MachineDescription const& machine, SimtKernelShape const& shape);

struct SimtPrediction {
  double flops = 0;               ///< the bound: lowest ceiling x placement efficiency
  std::string limiter;            ///< which ceiling is lowest
  double fma_peak = 0;            ///< FFMA or DFMA peak of the device
  InstructionMix mix;
  int fma_issue_cycles = 1;       ///< scheduler cycles one warp FMA takes at peak (2 for DFMA on sm_90)
  double issue_ceiling = 0;       ///< peak x FMA cycles / max(FMA cycles, all instructions)
  double smem_wavefronts_per_slice = 0;  ///< per warp: fragment loads and slice stores
  double smem_ceiling = 0;        ///< the shared pipe (one 128-byte wavefront per clock per SM)
  double smem_bytes_per_flop = 0; ///< seed 001: WB * (1/tm + 1/tn) / 2, each thread's reads
  double l2_bytes_per_flop = 0;   ///< seed 001: WB * (1/bm + 1/bn) / 2
  double l2_ceiling = 0;
  int registers_per_thread = 0;
  int resident_blocks = 0;
  int warps_per_sm = 0;
  double placement_efficiency = 1; ///< busiest scheduler's share of the tiles, edge padding removed
};

/// The bound for C (m x n) with K = k on `machine`.
SimtPrediction predict_simt(MachineDescription const& machine, SimtKernelShape const& shape, std::int64_t m,
                            std::int64_t n, std::int64_t k);

}  // namespace gemmkit::model
