/*! \file
    \brief The GEMM performance model (seed 001 §3 made executable) for the FP64 tensor-core
    kernel's tile configs: the bandwidth each memory level must deliver for a tile
    (RB = DF * WB * (1/bm + 1/bn) / 2 at the L2, the same reasoning at shared memory for the warp
    tile, plus the compiled loop's spill traffic where it is known), occupancy from registers, shared
    memory and threads, and wave quantization for a shape.
    Where the description has measured energies, the model also reports the power limit's ceiling
    (the draw above idle over the energy of a flop's DMMA share and of the bytes it moves through
    L2 and shared memory), without applying it. The predicted bound is the smallest ceiling times
    the wave efficiency, or lower where the
    blocks an SM holds cannot keep its tensor pipes busy through the latencies each k-tile exposes
    (the measured barrier, shared-load, DMMA and L2 latencies of the machine description; a
    description without them models no latency).
*/
#pragma once

#include "model/machine.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gemmkit::model {

/// A tensor-core tile config as the model sees it (TensorOpConfig's numbers, plus the registers
/// ptxas gives it).
struct TileConfig {
  std::string name;
  int bm = 0, bn = 0, bk = 0, warp_m = 0, warp_n = 0, stages = 0, blocks_per_sm = 1;
  int registers_per_thread = 0;  ///< 0: the launch-bounds cap
  /// Operand bytes in global memory. The MMAs are FP64 either way: float operands (4) land in a
  /// cp.async ring of floats and are converted into two double tiles that the fragments read.
  int element_bytes = 8;
  int mma_k = 16;                ///< the MMA's depth (m16n8k16 or m16n8k8)
  /// Whether a warp loads the next k step's fragments while this step's MMAs run (the m16n8k8
  /// forms and the two-level prefetch): no fragment load then waits behind the MMAs.
  bool fragment_double_buffer = false;
  /// Local-memory bytes a thread loads and stores per k-tile in the compiled main loop (spills;
  /// kernel_resources.hpp reads them from the SASS): they cross the same L1 / shared datapath as
  /// the fragments.
  double spill_bytes_per_k_tile = 0;

  int threads() const { return 32 * (bm / warp_m) * (bn / warp_n); }
  static constexpr int kFragmentBytes = 8;  ///< what the MMAs read: doubles, whatever the operands

  bool staged() const { return element_bytes != kFragmentBytes; }
  int shared_bytes() const {
    int const tile = (bm + bn) * bk;
    return staged() ? 2 * tile * kFragmentBytes + stages * tile * element_bytes : stages * tile * kFragmentBytes;
  }
  /// Shared-memory bytes per element of a block tile on its way in: the cp.async write, and for
  /// float operands the ring's read and the double tile's write as well.
  int shared_tile_bytes_per_element() const { return staged() ? 2 * element_bytes + kFragmentBytes : kFragmentBytes; }
};

struct Prediction {
  double flops = 0;              ///< the bound: min ceiling x wave efficiency
  std::string limiter;           ///< which ceiling is lowest
  double tensor_ceiling = 0;     ///< the FP64 tensor peak
  double l2_ceiling = 0;         ///< L2 bandwidth / bytes per flop of the block tile
  double smem_ceiling = 0;       ///< shared bandwidth / (fragment reads + tile writes + spills) per flop
  double l2_bytes_per_flop = 0, smem_bytes_per_flop = 0;
  /// (power limit - idle draw) / (DMMA energy + L2 and shared bytes' energy) per flop; 0 when the
  /// description has no energies. Reported only: not part of `flops`.
  double power_ceiling = 0;
  int resident_blocks = 0;       ///< blocks per SM the resources allow
  int warps_per_sm = 0;
  double wave_efficiency = 1;    ///< tiles / (SMs x the most tiles one SM runs), x the useful part of edge tiles
  /// Cycles a block waits per k-tile with its warps' MMAs not issuing: its barrier and, without
  /// fragment double-buffering, the first fragment load and each streamed fragment group's reload
  /// behind the MMA that still reads it; plus the wait for the stage's copy where the ring is too
  /// short.
  double exposed_cycles_per_k_tile = 0;
  /// The busiest SM's tensor-pipe use: 1 - (1 - x)^r for r resident blocks each busy a fraction
  /// x of its time (a pipe idles only when every block waits), over that SM's rounds of tiles.
  double latency_efficiency = 1;
};

/// Blocks of `config` one SM holds: the least of threads, registers, shared memory, the block
/// limit and the config's own blocks-per-SM target.
int resident_blocks(MachineDescription const& machine, TileConfig const& config);

/// The bound for C (m x n) with K = k.
Prediction predict(MachineDescription const& machine, TileConfig const& config, std::int64_t m, std::int64_t n,
                   std::int64_t k);

/// Configs ordered by predicted bound for the shape, best first.
std::vector<std::pair<TileConfig, Prediction>> rank(MachineDescription const& machine,
                                                    std::vector<TileConfig> const& configs, std::int64_t m,
                                                    std::int64_t n, std::int64_t k);

/// The model's ranking held against measured rates for one shape (the check: does the
/// model's top choice match the measured one?).
struct RankingCheck {
  int configs = 0;                 ///< configs both ranked and measured
  std::string model_top;           ///< the first of the model's ranking among those measured
  std::string measured_top;        ///< the fastest measured
  int model_top_tier = 0;          ///< configs whose predicted bound is within `tier` of the best
  bool measured_top_in_tier = false;  ///< the measured best is one the model ranks (tied) first
  double model_top_fraction = 0;   ///< measured rate of model_top over the measured best
  double spearman = 0;             ///< rank correlation of prediction and measurement (ties averaged)
};

/// Compares `ranked` (rank's output) with `measured` (config name -> measured flop/s); configs
/// missing on either side are left out. `tier`: predictions within this fraction of the best
/// count as the model's first choice too (the model gives many configs the same bound).
RankingCheck check_ranking(std::vector<std::pair<TileConfig, Prediction>> const& ranked,
                           std::map<std::string, double> const& measured, double tier = 0.005);

/// The same for any configs: (name, predicted bound) in the model's order, best first.
RankingCheck check_ranking(std::vector<std::pair<std::string, double>> const& ranked,
                           std::map<std::string, double> const& measured, double tier = 0.005);

}  // namespace gemmkit::model
