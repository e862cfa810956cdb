/*! \file
    \brief GemmVariant: the type-erased interface every kernel, ladder step and peer library implements.
*/
#pragma once

#include "base/problem.hpp"

#include <cstddef>
#include <string>

namespace gemmkit {

/// What a variant is, for listing, filtering and benchmarking.
enum class VariantKind {
  kLadder,      ///< a step of the seeds' optimisation ladder (regression baseline)
  kProduction,  ///< a gemmkit production kernel
  kPeer,        ///< another library (cuBLAS, OpenBLAS) registered as a baseline
  kReference    ///< higher-precision reference, for checks only
};

/// How a tiled GPU kernel covers C: tile_m x tile_n per block, blocks_per_sm resident on each
/// multiprocessor (all 0 for a variant that is not one block per tile).
struct TileGeometry {
  int tile_m = 0, tile_n = 0, blocks_per_sm = 0;
};

/// Tiles over the blocks the launch's waves hold (the last wave may run part empty): 1 when the
/// geometry or the multiprocessor count is unknown.
double wave_efficiency(TileGeometry const& tiles, GemmProblem const& problem, int multiprocessors);

struct VariantInfo {
  std::string id;        ///< spells the config, e.g. "dgemm_ladder02_tiled16"
  Dtype dtype;
  Platform backend;
  VariantKind kind;
  int min_sm = 0;        ///< lowest compute capability (major*10+minor) for CUDA variants
  std::string summary;   ///< one line for `gemmkit-bench list`
  bool pointer_array = false;  ///< runs pointer-array problems (GemmProblem::pointer_array) in one call
  TileGeometry tiles{};        ///< for the selection table's wave rule
  /// Takes host operands (backend kCpu) but computes on the GPUs: the host-resident GEMM. The
  /// backend policy GK_BACKEND_CPU passes it over; GK_BACKEND_GPU takes nothing else for host operands.
  bool stages_host_operands = false;
  /// Computes FP64 from lower-precision exact products (the Ozaki scheme II): chosen only under the
  /// context's FP64 emulation setting, and leaves (GK_NOT_SUPPORTED, nothing written) on Inf or NaN.
  bool emulates_fp64 = false;
};

/// Lifecycle (docs/kernel-contracts.md): can_implement -> workspace_bytes -> initialize -> run. Implementations
/// are stateless across calls (initialize does idempotent per-device setup), so one instance
/// serves every context and thread.
class GemmVariant {
 public:
  virtual ~GemmVariant() = default;
  virtual VariantInfo const& info() const = 0;
  /// GK_SUCCESS if this variant can run the problem, else GK_NOT_SUPPORTED (never a partial run).
  virtual gk_status can_implement(GemmProblem const& problem) const = 0;
  virtual std::size_t workspace_bytes(GemmProblem const&) const { return 0; }
  /// The workspace to run within `limit` bytes (0: no limit), run then being given that limit
  /// (ExecutionContext::workspace_limit): a variant that can block its work takes what fits, at most
  /// workspace_bytes; others need workspace_bytes whatever the limit.
  virtual std::size_t workspace_bytes_within(GemmProblem const& problem, std::size_t) const {
    return workspace_bytes(problem);
  }
  virtual gk_status initialize(ExecutionContext const&) const { return GK_SUCCESS; }
  /// Queues the whole (batched) GEMM. Arguments are already checked; k > 0 and alpha != 0 here.
  virtual gk_status run(GemmArguments const& args, void* workspace, ExecutionContext const& exec) const = 0;
};

}  // namespace gemmkit
