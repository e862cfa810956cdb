/*! \file
    \brief The FP64 tensor-core GEMM: multistage cp.async mainloop, 16x8x16 MMAs, grouped tile order.

    Template parameters say everything that changes the code: the tile config, whether each operand
    is K-contiguous in memory (A transposed, B not transposed) and the copy width (16 bytes when the
    operand's base and leading dimension allow it, else 8). Edges are handled by zero-filling
    cp.async, so the mainloop has no tail case.
*/
#pragma once

#include "cuda/arch/cp_async.cuh"
#include "cuda/arch/mma_f64.cuh"
#include "cuda/arch/shared_load.cuh"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/tensorop_config.hpp"
#include "cuda/kernel_params.hpp"

#include <utility>

namespace gemmkit::gemm {

/// Calls f(std::integral_constant<int, I>{}) for I = 0 .. N-1, so indices are compile-time.
template <int N, typename F>
__device__ __forceinline__ void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }(
      std::make_integer_sequence<int, N>{});
}

/// One operand's tile in shared memory: kMn rows of C's side (M for A, N for B) by Cfg::kBK.
/// K-contiguous tiles store (mn, k) at mn*(kBK+pad)+k, MN-contiguous ones at k*(kMn+pad)+mn:
/// whichever matches global memory, so cp.async copies runs without transposing.
template <typename Cfg, int kMn, bool kKContiguous>
struct SmemTile {
  static constexpr int kPitch = kKContiguous ? Cfg::kBK + Cfg::kPad : kMn + Cfg::kPad;
  /// Linear in (mn, k), so offset(mn0 + dmn, k0 + dk) = offset(mn0, k0) + offset(dmn, dk).
  static constexpr __host__ __device__ int offset(int mn, int k) { return kKContiguous ? mn * kPitch + k : k * kPitch + mn; }
};

/// Copies one operand's kMn x kBK tiles from global to shared memory with cp.async. Each thread
/// owns chunks of kVec elements along the contiguous direction ("along") at a fixed position and
/// runs kRunsPerPass runs apart, so one 64-bit pointer per thread is stepped instead of one
/// pointer per chunk being held live (which spilled). Partial chunks zero-fill.
template <typename Cfg, int kMn, bool kKContiguous, int kVec>
struct TileLoader {
  using Tile = SmemTile<Cfg, kMn, kKContiguous>;
  static constexpr int kRunLength = kKContiguous ? Cfg::kBK : kMn;  // contiguous extent in global
  static constexpr int kRuns = kKContiguous ? kMn : Cfg::kBK;
  static constexpr int kChunksPerRun = kRunLength / kVec;
  static_assert(Cfg::kThreads % kChunksPerRun == 0, "a pass must cover whole runs");
  static constexpr int kRunsPerPass = Cfg::kThreads / kChunksPerRun;
  static_assert(kRuns % kRunsPerPass == 0, "the tile must split evenly into passes");
  static constexpr int kPasses = kRuns / kRunsPerPass;

  double const* origin;     ///< element (mn0 + mn, k0 + k) of this thread's first chunk, k-tile 0
  std::int64_t ld;
  std::int64_t k_tile_step; ///< elements between consecutive k-tiles
  std::int64_t mn_left;     ///< rows of C's side left in the matrix from this tile's origin
  int run0, along;          ///< this thread's first run and position within a run
  int smem_offset;          ///< element offset of the first chunk in a stage

  __device__ TileLoader(double const* tile_origin, std::int64_t ld_, std::int64_t mn_left_, int thread)
      : ld(ld_), mn_left(mn_left_) {
    run0 = thread / kChunksPerRun;
    along = (thread % kChunksPerRun) * kVec;
    int const mn = kKContiguous ? run0 : along;
    int const k = kKContiguous ? along : run0;
    origin = tile_origin + std::int64_t(run0) * ld + along;
    k_tile_step = kKContiguous ? Cfg::kBK : std::int64_t(Cfg::kBK) * ld;
    smem_offset = Tile::offset(mn, k);
  }

  /// Queues k-tile `k_tile` into `stage_smem`; k_left = elements of K left from the tile start.
  __device__ __forceinline__ void load(double* stage_smem, std::int64_t k_tile, std::int64_t k_left) const {
    double const* src = origin + k_tile * k_tile_step;
    std::int64_t const run_limit = kKContiguous ? mn_left : k_left;
    std::int64_t const along_left = (kKContiguous ? k_left : mn_left) - along;
    int const along_valid = along_left <= 0 ? 0 : (along_left >= kVec ? kVec : int(along_left));
    std::int64_t const pass_step = std::int64_t(kRunsPerPass) * ld;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      int const run = run0 + pass * kRunsPerPass;
      int const valid = run < run_limit ? along_valid : 0;
      constexpr int kPassOffset = kKContiguous ? Tile::offset(kRunsPerPass, 0) : Tile::offset(0, kRunsPerPass);
      arch::cp_async<kVec * 8>(stage_smem + smem_offset + pass * kPassOffset, valid > 0 ? src : origin, valid * 8);
      src += pass_step;
    }
  }
};

/// Maps a linear block index to (tile_m, tile_n) in groups of kGroupM tile rows, so blocks running
/// together share A panels and B panels in L2.
struct TileOrder {
  static constexpr int kGroupM = 8;
  __device__ static void map(std::int64_t linear, std::int64_t tiles_m, std::int64_t tiles_n, std::int64_t& tile_m,
                             std::int64_t& tile_n) {
    std::int64_t const per_group = std::int64_t(kGroupM) * tiles_n;
    std::int64_t const group = linear / per_group;
    std::int64_t const first_m = group * kGroupM;
    std::int64_t const rows = tiles_m - first_m < kGroupM ? tiles_m - first_m : kGroupM;
    std::int64_t const in_group = linear % per_group;
    tile_m = first_m + in_group % rows;
    tile_n = in_group / rows;
  }
};

/// One stage's worth of MMAs for a warp: A fragments for all kFragsM row blocks, then per column
/// block its B fragment and kFragsM MMAs. Offsets are template-expanded constants.
template <typename Cfg, typename TileA, typename TileB>
__device__ __forceinline__ void warp_tile_mma(double (&acc)[Cfg::kFragsM][Cfg::kFragsN][4], std::uint32_t a_stage,
                                              std::uint32_t b_stage) {
  auto a_element = [&](auto i, auto e, auto ks) {
    return arch::load_shared_f64<8 * TileA::offset(decltype(i)::value * 16 + 8 * (decltype(e)::value % 2),
                                                   decltype(ks)::value + 4 * (decltype(e)::value / 2))>(a_stage);
  };
  auto b_element = [&](auto j, auto e, auto ks) {
    return arch::load_shared_f64<8 * TileB::offset(decltype(j)::value * 8, decltype(ks)::value + 4 * decltype(e)::value)>(
        b_stage);
  };
  static_for<Cfg::kBK / Cfg::kMmaK>([&](auto kstep) {
    using Ks = std::integral_constant<int, decltype(kstep)::value * Cfg::kMmaK>;
    double a[Cfg::kFragsM][8];  // (FRAGS_M, 8)
    static_for<Cfg::kFragsM>([&](auto i) { static_for<8>([&](auto e) { a[i][e] = a_element(i, e, Ks{}); }); });
    static_for<Cfg::kFragsN>([&](auto j) {
      double b[4];
      static_for<4>([&](auto e) { b[e] = b_element(j, e, Ks{}); });
      static_for<Cfg::kFragsM>([&](auto i) { arch::mma_f64_m16n8k16(acc[i][j], a[i], b); });
    });
  });
}

/// Computes tile (tile_m, tile_n) of problem `batch_index`: the device routine the kernel wrapper
/// (and later batched and grouped wrappers) maps onto.
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB>
__device__ void tensorop_tile(KernelParams<double> const& p, std::int64_t tile_m, std::int64_t tile_n,
                              std::int64_t batch_index, double* smem) {
  constexpr bool kAK = kTransA;   // A^T in memory is K-contiguous
  constexpr bool kBK_ = !kTransB; // B untransposed is K-contiguous
  using TileA = SmemTile<Cfg, Cfg::kBM, kAK>;
  using TileB = SmemTile<Cfg, Cfg::kBN, kBK_>;
  double* smem_a = smem;                                                // (STAGES, A tile)
  double* smem_b = smem + Cfg::kStages * Cfg::kStageElementsA;          // (STAGES, B tile)

  int const thread = threadIdx.x;
  int const warp = thread / 32;
  int const lane = thread % 32;
  int const g = lane / 4;  // MMA fragment row group
  int const t = lane % 4;  // thread within the group
  int const warp_m = warp % Cfg::kWarpsM;
  int const warp_n = warp / Cfg::kWarpsM;

  std::int64_t const m0 = tile_m * Cfg::kBM;
  std::int64_t const n0 = tile_n * Cfg::kBN;
  // Split-K: this block's slice [k_begin, k_begin + k_count); otherwise the whole K of its batch entry.
  std::int64_t const k_begin = p.split_k_slice > 0 ? batch_index * p.split_k_slice : 0;
  std::int64_t const k_count = p.split_k_slice > 0 ? min(p.split_k_slice, p.k - k_begin) : p.k;
  std::int64_t const operand_batch = p.split_k_slice > 0 ? 0 : batch_index;
  double const* A = p.A + operand_batch * p.stride_a + (kAK ? m0 * p.lda + k_begin : m0 + k_begin * p.lda);
  double const* B = p.B + operand_batch * p.stride_b + (kBK_ ? n0 * p.ldb + k_begin : n0 + k_begin * p.ldb);
  std::int64_t const k_tiles = (k_count + Cfg::kBK - 1) / Cfg::kBK;

  TileLoader<Cfg, Cfg::kBM, kAK, kVecA> const load_a(A, p.lda, p.m - m0, thread);
  TileLoader<Cfg, Cfg::kBN, kBK_, kVecB> const load_b(B, p.ldb, p.n - n0, thread);
  auto load_stage = [&](std::int64_t k_tile, int stage) {
    std::int64_t const k_left = k_count - k_tile * Cfg::kBK;
    load_a.load(smem_a + stage * Cfg::kStageElementsA, k_tile, k_left);
    load_b.load(smem_b + stage * Cfg::kStageElementsB, k_tile, k_left);
  };

  double acc[Cfg::kFragsM][Cfg::kFragsN][4];  // (FRAGS_M, FRAGS_N, 4)
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0;

  // Prologue: kStages-1 tiles in flight; one commit per stage keeps the group count uniform.
#pragma unroll
  for (int s = 0; s < Cfg::kStages - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    arch::cp_async_commit();
  }

  int const a_row = warp_m * Cfg::kWarpM + g;
  int const b_col = warp_n * Cfg::kWarpN + g;
  // Per-thread shared addresses of fragment element (0, 0); every other element is a constant away.
  std::uint32_t const a_thread = arch::shared_address(smem_a) + 8u * TileA::offset(a_row, t);
  std::uint32_t const b_thread = arch::shared_address(smem_b) + 8u * TileB::offset(b_col, t);
  for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
    arch::cp_async_wait<Cfg::kStages - 2>();
    __syncthreads();  // tile kt visible to all; everyone is done reading the stage refilled next
    std::int64_t const next = kt + Cfg::kStages - 1;
    if (next < k_tiles) load_stage(next, int(next % Cfg::kStages));
    arch::cp_async_commit();

    int const stage = int(kt % Cfg::kStages);
    std::uint32_t const a_stage = a_thread + stage * (8u * Cfg::kStageElementsA);
    std::uint32_t const b_stage = b_thread + stage * (8u * Cfg::kStageElementsB);
    warp_tile_mma<Cfg, TileA, TileB>(acc, a_stage, b_stage);
  }
  arch::cp_async_wait<0>();

  double* C = p.C + batch_index * p.stride_c;
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i) {
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        std::int64_t const row = m0 + a_row + i * 16 + 8 * (e / 2);
        std::int64_t const col = n0 + warp_n * Cfg::kWarpN + j * 8 + 2 * t + (e % 2);
        if (row < p.m && col < p.n) store_c(p, C + row + col * p.ldc, acc[i][j][e]);
      }
    }
  }
}

template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB>
__global__ void __launch_bounds__(Cfg::kThreads, 1) dgemm_tensorop_kernel(KernelParams<double> const p) {
  static_assert(Cfg::valid());
  extern __shared__ __align__(16) double smem[];
  std::int64_t const tiles_m = (p.m + Cfg::kBM - 1) / Cfg::kBM;
  std::int64_t const tiles_n = (p.n + Cfg::kBN - 1) / Cfg::kBN;
  std::int64_t tile_m, tile_n;
  TileOrder::map(blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);
  // One problem per grid.z: a loop over the batch here would let the compiler hoist per-tile
  // address math out of it and spill; the launcher splits batches beyond the grid limit.
  tensorop_tile<Cfg, kTransA, kTransB, kVecA, kVecB>(p, tile_m, tile_n, blockIdx.z, smem);
}

}  // namespace gemmkit::gemm
