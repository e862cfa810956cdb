/*! \file
    \brief The FP64 tensor-core GEMM: multistage cp.async mainloop, 16x8x16 or 16x8x8 MMAs, grouped
    tile order; on double operands, or on float ones converted to double in shared memory.

    Template parameters say everything that changes the code: the tile config, whether each operand
    is K-contiguous in memory (A transposed, B not transposed) and the copy width (16 bytes when the
    operand's base and leading dimension allow it, else one element). A last tile shifts in to end at the
    matrix edge (edge_tile_origin), so it copies whole chunks; what stays partial (a matrix side
    under a tile, a partial k-tile) zero-fills with cp.async, so the mainloop has no tail case.

    The element type T of A, B and C in memory is double, or float (the m16n8k8 configs): float
    k-tiles land by cp.async in a ring the copying thread alone reads (each thread's chunks side by
    side), and each thread converts its own chunks into one of two double tiles a tile ahead of the
    MMAs. Products of floats are exact in double and the sums run in double, so C is rounded once.
*/
#pragma once

#include "cuda/arch/cp_async.cuh"
#include "cuda/arch/mma_f64.cuh"
#include "cuda/arch/shared_load.cuh"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/split_k_fixup.cuh"
#include "cuda/gemm/tensorop_config.hpp"
#include "cuda/gemm/tensorop_layout.hpp"
#include "cuda/gemm/tensorop_fragments.cuh"
#include "cuda/gemm/tensorop_mainloop.cuh"
#include "cuda/gemm/tensorop_mainloop_k8.cuh"
#include "cuda/gemm/tile_order.cuh"
#include "cuda/kernel_params.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace gemmkit::gemm {

/// Copies one operand's kMn x kBK tiles from global to shared memory with cp.async. Each thread
/// copies kPasses chunks of kVec elements along the contiguous direction ("along"), one 64-bit
/// pointer stepped per pass (a pointer per chunk held live spilled). Passes step across runs
/// (K-contiguous tiles) or along a run (MN-contiguous), whichever keeps a pass a fixed shared
/// offset apart under the swizzle; partial chunks zero-fill.
template <typename Cfg, int kMn, bool kKContiguous, int kVec, typename T = double>
struct TileLoader {
  using Tile = SwizzledTile<kMn, Cfg::kBK, kKContiguous, Cfg::kMmaK>;
  static constexpr int kRunLength = kKContiguous ? Cfg::kBK : kMn;  // contiguous extent in global
  static constexpr int kRuns = kKContiguous ? kMn : Cfg::kBK;
  static constexpr int kChunksPerRun = kRunLength / kVec;
  static constexpr int kChunks = kRuns * kChunksPerRun;
  static_assert(kChunks % Cfg::kThreads == 0, "the tile must split evenly over the threads");
  static constexpr int kPasses = kChunks / Cfg::kThreads;
  // Threads sharing one run when passes step along it (MN-contiguous), else 0.
  static constexpr int kThreadsPerRun =
      !kKContiguous && Cfg::kThreads % kRuns == 0 && kChunksPerRun % (Cfg::kThreads / kRuns) == 0
          ? Cfg::kThreads / kRuns : 0;
  static constexpr int kRunStep = kThreadsPerRun ? 0 : Cfg::kThreads / kChunksPerRun;  // runs per pass
  static constexpr int kAlongStep = kThreadsPerRun * kVec;                             // elements per pass
  static_assert(kThreadsPerRun || Cfg::kThreads % kChunksPerRun == 0, "a pass must cover whole runs");
  /// Shared offset between passes when the swizzle leaves it constant: K-contiguous rows 4 apart
  /// share a swizzle, MN-contiguous columns 16 apart too.
  static constexpr bool kFixedPassOffset = kKContiguous ? kRunStep % 4 == 0 : kAlongStep % 16 == 0;
  static constexpr int kPassOffset =
      kKContiguous ? Tile::offset(kRunStep, 0) : Tile::offset(kAlongStep, 0) - Tile::offset(0, 0);
  /// Float chunks land in the copying thread's own slots of a staging ring, pass after pass, and
  /// convert() writes them into the double tile.
  static constexpr bool kStaged = !std::is_same_v<T, double>;
  static_assert(!kStaged || kVec == 1 || kVec == 4, "float chunks are 4 or 16 bytes");

  T const* origin;          ///< this thread's first chunk in k-tile 0
  std::int64_t ld;
  std::int64_t k_tile_step; ///< elements between consecutive k-tiles
  std::int64_t mn_left;     ///< rows of C's side left in the matrix from this tile's origin
  int run0, along0;         ///< this thread's first run and position within a run
  int staging0;             ///< this thread's first staging slot (kStaged)

  __device__ TileLoader(T const* tile_origin, std::int64_t ld_, std::int64_t mn_left_, int thread)
      : ld(ld_), mn_left(mn_left_), staging0(thread * kVec) {
    int const threads_per_run = kThreadsPerRun ? kThreadsPerRun : kChunksPerRun;
    run0 = thread / threads_per_run;
    along0 = (thread % threads_per_run) * kVec;
    origin = tile_origin + std::int64_t(run0) * ld + along0;
    k_tile_step = k_step(Cfg::kBK);
  }

  __device__ __forceinline__ int smem_offset(int pass) const {
    if constexpr (kStaged) return staging0 + pass * Cfg::kThreads * kVec;
    int const run = run0 + pass * kRunStep;
    int const along = along0 + pass * kAlongStep;
    if constexpr (kFixedPassOffset) {
      return (kKContiguous ? Tile::offset(run0, along0) : Tile::offset(along0, run0)) + pass * kPassOffset;
    } else {
      return kKContiguous ? Tile::offset(run, along) : Tile::offset(along, run);
    }
  }

  /// Queues the k-tile at `src` (this thread's first chunk), known to lie wholly inside the matrix.
  __device__ __forceinline__ void load_whole(T* stage_smem, T const* src) const {
    std::int64_t const pass_step = std::int64_t(kRunStep) * ld + kAlongStep;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      arch::cp_async<kVec * sizeof(T)>(stage_smem + smem_offset(pass), src, kVec * sizeof(T));
      src += pass_step;
    }
  }

  /// Writes this thread's staged chunks of one k-tile (`staging`, landed: cp_async_wait) into the
  /// double tile `tile`, each float converted exactly. Only this thread reads its staging slots, so
  /// no barrier comes before; the barrier before the tile's MMAs publishes the tile.
  __device__ __forceinline__ void convert(T const* staging, double* tile) const {
    static_assert(kStaged);
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      int const run = run0 + pass * kRunStep;
      int const along = along0 + pass * kAlongStep;
      auto at = [&](int e) { return kKContiguous ? Tile::offset(run, along + e) : Tile::offset(along + e, run); };
      T const* chunk = staging + smem_offset(pass);
      if constexpr (kVec == 4) {
        float4 const v = *reinterpret_cast<float4 const*>(chunk);  // elements along + 0..3: two pairs
        *reinterpret_cast<double2*>(tile + at(0)) = double2{v.x, v.y};
        *reinterpret_cast<double2*>(tile + at(2)) = double2{v.z, v.w};
      } else {
        tile[at(0)] = *chunk;
      }
    }
  }

  /// Queues k-tile `k_tile` into `stage_smem`; k_left = elements of K left from the tile start.
  /// A tile wholly inside the matrix copies whole chunks unchecked: the per-chunk bounds were most
  /// of the mainloop's integer instructions (ncu SASS at 8192); edge tiles take the checked path.
  __device__ __forceinline__ void load(T* stage_smem, std::int64_t k_tile, std::int64_t k_left) const {
    T const* src = origin + k_tile * k_tile_step;
    if (mn_left >= kMn && k_left >= Cfg::kBK) {
      load_whole(stage_smem, src);
      return;
    }
    load_checked(stage_smem, src, mn_left, k_left);
  }

  /// Queues a partial k-tile (k_left < BK elements from `src`) of a tile whose rows of C's side all
  /// lie inside the matrix.
  __device__ __forceinline__ void load_k_part(T* stage_smem, T const* src, std::int64_t k_left) const {
    load_checked(stage_smem, src, kMn, k_left);
  }

  /// Elements between two positions `k` apart along K.
  __device__ __forceinline__ std::int64_t k_step(std::int64_t k) const { return kKContiguous ? k : k * ld; }

  /// Queues the k-tile at `src` chunk by chunk: whole, partial or zero-filled against the rows of
  /// C's side (mn_left_) and the elements of K (k_left) left in the matrix.
  __device__ __forceinline__ void load_checked(T* stage_smem, T const* src, std::int64_t mn_left_,
                                               std::int64_t k_left) const {
    std::int64_t const pass_step = std::int64_t(kRunStep) * ld + kAlongStep;
    std::int64_t const run_limit = kKContiguous ? mn_left_ : k_left;
    std::int64_t const along_limit = kKContiguous ? k_left : mn_left_;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      int const run = run0 + pass * kRunStep;
      std::int64_t const along_left = along_limit - (along0 + pass * kAlongStep);
      int const along_valid = along_left <= 0 ? 0 : (along_left >= kVec ? kVec : int(along_left));
      int const valid = run < run_limit ? along_valid : 0;
      arch::cp_async<kVec * sizeof(T)>(stage_smem + smem_offset(pass), valid > 0 ? src : origin, valid * int(sizeof(T)));
      src += pass_step;
    }
  }
};

/// Blocks with at most this many k-tiles prefetch their C tile when beta != 0. Measured on the H100
/// with beta = 1, 2026-11-22 (prefetch off and on in one run): 16384^2 x 128 0.78x -> 0.94x
/// cuBLAS, x 256 0.79x -> 0.88x, 65536 x 256 x 256 0.80x -> 0.84x, x 512 unchanged (0.90x); at
/// 1024^3 (64 k-tiles) 0.87x -> 0.84x, hence the bound.
inline constexpr std::int64_t kPrefetchCMaxKTiles = 32;

/// With beta != 0 the epilogue reads C: asked for before the mainloop, the C tile is in L2 by then
/// instead of the epilogue waiting on memory after a mainloop too short to hide it. One prefetch
/// per 128-byte line of each contiguous run the tile stores (columns, or rows of a transposed C),
/// spread over the block.
template <typename Cfg, bool kCTransposed, typename T>
__device__ __forceinline__ void prefetch_c_tile(T const* C, std::int64_t ldc, std::int64_t m_own, std::int64_t n_own,
                                                std::int64_t m, std::int64_t n) {
  constexpr int kLineElements = 128 / sizeof(T);
  constexpr int kRunLength = kCTransposed ? Cfg::kBN : Cfg::kBM;  // the tile's extent along memory
  constexpr int kRuns = kCTransposed ? Cfg::kBM : Cfg::kBN;
  // One more than a run needs: a run need not start on a line (its last element ends it).
  constexpr int kLinesPerRun = kRunLength / kLineElements + 1;
  std::int64_t const own_along = kCTransposed ? n_own : m_own, own_across = kCTransposed ? m_own : n_own;
  std::int64_t const size_along = kCTransposed ? n : m, size_across = kCTransposed ? m : n;
  std::int64_t const along = size_along - own_along < kRunLength ? size_along - own_along : kRunLength;
  std::int64_t const runs = size_across - own_across < kRuns ? size_across - own_across : kRuns;
  for (int line = threadIdx.x; line < kLinesPerRun * kRuns; line += Cfg::kThreads) {
    int const run = line / kLinesPerRun;
    std::int64_t const offset = std::min<std::int64_t>((line % kLinesPerRun) * kLineElements, along - 1);
    if (run < runs) arch::prefetch_l2(C + (own_along + offset) + (own_across + run) * ldc);
  }
}

/// A block's accumulators (FRAGS_M, FRAGS_N, 4) per thread, zeroed.
template <typename Cfg>
__device__ __forceinline__ void zero_accumulators(double (&acc)[Cfg::kFragsM][Cfg::kFragsN][4]) {
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0;
}

/// Where a lane's fragments sit in the block tile: its warp's first row and column, its MMA group g
/// and thread t within the group.
struct LanePlace {
  int warp_row, warp_col, g, t;
};

/// Stores a block's accumulators as alpha * acc + beta * C: the tile at (m0, n0), of which only
/// rows from m_own and columns from n_own are this block's (a last tile shifted in to the edge).
template <typename Cfg, bool kCTransposed, typename T>
__device__ __forceinline__ void store_tile(KernelParams<T> const& p, std::int64_t batch_index,
                                           double const (&acc)[Cfg::kFragsM][Cfg::kFragsN][4], LanePlace const lane,
                                           std::int64_t m0, std::int64_t n0, std::int64_t m_own, std::int64_t n_own) {
  int const warp_row = lane.warp_row, warp_col = lane.warp_col, g = lane.g, t = lane.t;
  // Each lane holds, per A fragment i and B pair p, rows 2g, 2g+1 by columns 4t .. 4t+3 of the
  // 16 x 16 block: two elements adjacent in memory (the two rows; or, C transposed, the pair's two
  // columns) store as one access.
  T* C = p.C + batch_index * p.stride_c;
  // A shifted edge tile stores only rows from m_own and columns from n_own.
  bool const c_pairs_aligned = reinterpret_cast<std::uintptr_t>(C) % (2 * sizeof(T)) == 0 && p.ldc % 2 == 0 &&
                               (kCTransposed ? n0 : m0) % 2 == 0;
  if constexpr (kCTransposed) {
    static_assert(Cfg::kFragsN % 2 == 0, "a B pair's two columns store together");
#pragma unroll
    for (int i = 0; i < Cfg::kFragsM; ++i) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {  // row 2g + r: acc[i][j + h][2r + q] at column 4t + 2q + h
        std::int64_t const row = m0 + warp_row + 16 * i + FragmentMap::c_row(g, 2 * r);
        if (row < m_own || row >= p.m) continue;
        T* const c_row = C + row * p.ldc;
#pragma unroll
        for (int j = 0; j < Cfg::kFragsN; j += 2) {
#pragma unroll
          for (int q = 0; q < 2; ++q) {
            std::int64_t const col = n0 + warp_col + 16 * (j / 2) + FragmentMap::c_column(t, q, 0);
            bool const first = col >= n_own && col < p.n;
            bool const second = col + 1 >= n_own && col + 1 < p.n;
            if (first && second && c_pairs_aligned) {
              store_c_pair(p, c_row + col, acc[i][j][2 * r + q], acc[i][j + 1][2 * r + q]);
            } else {
              if (first) store_c(p, c_row + col, acc[i][j][2 * r + q]);
              if (second) store_c(p, c_row + col + 1, acc[i][j + 1][2 * r + q]);
            }
          }
        }
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < Cfg::kFragsM; ++i) {
      std::int64_t const row = m0 + warp_row + 16 * i + FragmentMap::c_row(g, 0);
      bool const first_row = row >= m_own && row < p.m;
      bool const second_row = row + 1 >= m_own && row + 1 < p.m;
#pragma unroll
      for (int j = 0; j < Cfg::kFragsN; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {  // e = 0, 1: row 2g; e + 2: row 2g + 1
          std::int64_t const col = n0 + warp_col + 16 * (j / 2) + FragmentMap::c_column(t, e, j % 2);
          if (col < n_own || col >= p.n) continue;
          T* c = C + row + col * p.ldc;
          if (first_row && second_row && c_pairs_aligned) {
            store_c_pair(p, c, acc[i][j][e], acc[i][j][e + 2]);
          } else {
            if (first_row) store_c(p, c, acc[i][j][e]);
            if (second_row) store_c(p, c + 1, acc[i][j][e + 2]);
          }
        }
      }
    }
  }
}


/// Dynamic shared memory of a block: the double tiles, then for float operands the float ring.
template <typename Cfg, typename T>
constexpr std::size_t tensorop_smem_bytes() {
  constexpr std::size_t kTileElements = Cfg::kStageElementsA + Cfg::kStageElementsB;
  constexpr std::size_t kRingBytes = std::is_same_v<T, double> ? 0 : Cfg::kStages * sizeof(T) * kTileElements;
  return kTensorOpTileBuffers<Cfg, T> * sizeof(double) * kTileElements + kRingBytes;
}

/// Computes tile (tile_m, tile_n) of problem `batch_index` over `span` of K, reading A and B of
/// entry `operand_batch` (0 under two-pass split K, whose slices are grid.z): the device routine
/// the kernel wrappers map onto. kCTransposed: C is stored row-major (element (i, j) at
/// C + i * ldc + j), which lets A^T B^T run as the NN product C^T = B A (transposed_product).
/// `finish(acc)` runs after the mainloop: where the tile is cut in parts (split K fixed up in the
/// kernel, stream-K) it meets the other parts and says whether this block stores C, which
/// `stores_c` told in advance (for the C prefetch).
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB, bool kCTransposed, typename T,
          typename Finish>
__device__ void tensorop_tile(KernelParams<T> const& p, std::int64_t tile_m, std::int64_t tile_n,
                              std::int64_t batch_index, std::int64_t operand_batch, KSpan span, bool stores_c,
                              Finish const& finish, double* smem) {
  constexpr bool kAK = kTransA;   // A^T in memory is K-contiguous
  constexpr bool kBK_ = !kTransB; // B untransposed is K-contiguous
  using TileA = SwizzledTile<Cfg::kBM, Cfg::kBK, kAK, Cfg::kMmaK>;
  using TileB = SwizzledTile<Cfg::kBN, Cfg::kBK, kBK_, Cfg::kMmaK>;
  // Shared memory (tensorop_smem_bytes): the double tiles, then for float operands their ring; for
  // double operands the ring is the double tiles.
  constexpr bool kStaged = !std::is_same_v<T, double>;
  static_assert(!kStaged || Cfg::kMmaK == 8, "float operands run the m16n8k8 mainloop");
  constexpr int kTileBuffers = kTensorOpTileBuffers<Cfg, T>;
  double* smem_a = smem;                                                // (kTileBuffers, A tile)
  double* smem_b = smem + kTileBuffers * Cfg::kStageElementsA;          // (kTileBuffers, B tile)
  T* const staging_a =                                                  // (STAGES, A tile) of T
      reinterpret_cast<T*>(smem + (kStaged ? kTileBuffers * (Cfg::kStageElementsA + Cfg::kStageElementsB) : 0));
  T* const staging_b = staging_a + Cfg::kStages * Cfg::kStageElementsA;

  int const thread = threadIdx.x;
  int const warp = thread / 32;
  int const lane = thread % 32;
  int const g = lane / 4;  // MMA fragment row group
  int const t = lane % 4;  // thread within the group
  int const warp_m = warp % Cfg::kWarpsM;
  int const warp_n = warp / Cfg::kWarpsM;

  std::int64_t const m_own = tile_m * Cfg::kBM;  // the rows and columns of C this tile stores
  std::int64_t const n_own = tile_n * Cfg::kBN;
  std::int64_t const m0 = edge_tile_origin<Cfg::kBM, kAK ? 1 : kVecA>(m_own, p.m);
  std::int64_t const n0 = edge_tile_origin<Cfg::kBN, kBK_ ? 1 : kVecB>(n_own, p.n);
  BlockOperands<T> const operands = block_operands<kAK, kBK_>(p, m0, n0, operand_batch, span);
  std::int64_t const k_count = operands.k_count;
  std::int64_t const k_tiles = (k_count + Cfg::kBK - 1) / Cfg::kBK;
  if (p.beta != 0.0 && k_tiles <= kPrefetchCMaxKTiles && stores_c) {
    prefetch_c_tile<Cfg, kCTransposed>(p.C + batch_index * p.stride_c, p.ldc, m_own, n_own, p.m, p.n);
  }

  TileLoader<Cfg, Cfg::kBM, kAK, kVecA, T> const load_a(operands.A, p.lda, p.m - m0, thread);
  TileLoader<Cfg, Cfg::kBN, kBK_, kVecB, T> const load_b(operands.B, p.ldb, p.n - n0, thread);

  double acc[Cfg::kFragsM][Cfg::kFragsN][4];  // (FRAGS_M, FRAGS_N, 4)
  zero_accumulators<Cfg>(acc);

  int const warp_row = warp_m * Cfg::kWarpM;
  int const warp_col = warp_n * Cfg::kWarpN;
  // Per-lane shared addresses of the two load columns (tensorop_layout.hpp); every fragment load
  // of a stage is one of them plus a compile-time offset.
  std::uint32_t a_lane[2], b_lane[2];
#pragma unroll
  for (int l = 0; l < 2; ++l) {
    a_lane[l] = arch::shared_address(smem_a) + 8u * (TileA::lane_offset(g, t, l) + TileA::offset(warp_row, 0));
    b_lane[l] = arch::shared_address(smem_b) + 8u * (TileB::lane_offset(g, t, l) + TileB::offset(warp_col, 0));
  }
  auto stage_lanes = [&](std::int64_t k_tile, std::uint32_t (&a_stage)[2], std::uint32_t (&b_stage)[2]) {
    std::uint32_t const stage = std::uint32_t(k_tile % Cfg::kStages);
    for (int l = 0; l < 2; ++l) {
      a_stage[l] = a_lane[l] + stage * (8u * Cfg::kStageElementsA);
      b_stage[l] = b_lane[l] + stage * (8u * Cfg::kStageElementsB);
    }
  };
  // The m16n8k8 mainloop lives in tensorop_mainloop_k8.cuh; the two m16n8k16 ones stay here:
  // moved into a function of their own they compiled to reordered instructions (same registers).
  using Mainloop = TensorOpMainloop<Cfg, T, decltype(load_a), decltype(load_b)>;
  Mainloop const tile{load_a, load_b, smem_a, smem_b, staging_a, staging_b, a_lane, b_lane, k_count, k_tiles};
  if constexpr (Cfg::kMmaK == 8) {
    // Later k-tiles start k_part into K: whole chunks of a K-contiguous operand if it divides k_part.
    constexpr bool kEvenKStart = (kAK && kVecA > 1) || (kBK_ && kVecB > 1);
    constexpr int kKChunk = std::max(kAK ? kVecA : 1, kBK_ ? kVecB : 1);
    std::int64_t const k_part = k_count % Cfg::kBK;
    if (p.m - m0 >= Cfg::kBM && p.n - n0 >= Cfg::kBN && (!kEvenKStart || k_part % kKChunk == 0)) {
      mainloop_k8<false>(tile, acc);
    } else {
      mainloop_k8<true>(tile, acc);
    }
  } else if constexpr (!Cfg::kFragmentPrefetch) {
    // Prologue: kStages-1 tiles in flight; one commit per stage keeps the group count uniform.
#pragma unroll
    for (int s = 0; s < Cfg::kStages - 1; ++s) {
      if (s < k_tiles) tile.load_stage(s, s);
      arch::cp_async_commit();
    }
    for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
      arch::cp_async_wait<Cfg::kStages - 2>();
      __syncthreads();  // tile kt visible to all; everyone is done reading the stage refilled next
      std::int64_t const next = kt + Cfg::kStages - 1;
      if (next < k_tiles) tile.load_stage(next, int(next % Cfg::kStages));
      arch::cp_async_commit();
      std::uint32_t a_stage[2], b_stage[2];
      stage_lanes(kt, a_stage, b_stage);
      warp_tile_mma<Cfg, TileA, TileB>(acc, a_stage, b_stage);
    }
  } else {
    // Two-level prefetch (seed 000 §2.4): the next k step's fragments are loaded while the current
    // step's last column pair multiplies. At a tile's last step that means waiting for the next
    // tile there, before the last MMAs rather than after them; by then every lane has issued its
    // last read of the current tile, so its stage is refilled at once (kStages tiles in flight).
    constexpr int kKSteps = Cfg::kBK / Cfg::kMmaK, kPairs = Cfg::kFragsN / 2;
    static_assert(kPairs % 2 == 0, "column pairs alternate buffers; the next step's first pair reuses buffer 0");
#pragma unroll
    for (int s = 0; s < Cfg::kStages; ++s) {
      if (s < k_tiles) tile.load_stage(s, s);
      arch::cp_async_commit();
    }
    arch::cp_async_wait<Cfg::kStages - 1>();
    __syncthreads();
    double a[Cfg::kFragsM][8];
    double b[2][8];
    {
      std::uint32_t a_stage[2], b_stage[2];
      stage_lanes(0, a_stage, b_stage);
      load_a_fragments<Cfg, TileA, 0>(a_stage, a);
      load_group<TileB, 0, 0>(b_stage, b[0]);
    }
    for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
      std::uint32_t a_stage[2], b_stage[2];
      stage_lanes(kt, a_stage, b_stage);
      static_for<kKSteps>([&](auto kstep) {
        constexpr int kS = decltype(kstep)::value;
        static_for<kPairs>([&](auto pair) {
          constexpr int kP = decltype(pair)::value;
          if constexpr (kP + 1 < kPairs) {
            load_group<TileB, kP + 1, kS * Cfg::kMmaK>(b_stage, b[(kP + 1) % 2]);
            mma_column_pair<Cfg, kP>(acc, a, b[kP % 2]);
          } else {
            double a_next[Cfg::kFragsM][8];
            if constexpr (kS + 1 < kKSteps) {
              load_a_fragments<Cfg, TileA, (kS + 1) * Cfg::kMmaK>(a_stage, a_next);
              load_group<TileB, 0, (kS + 1) * Cfg::kMmaK>(b_stage, b[0]);
            } else {
              arch::cp_async_wait<Cfg::kStages - 2>();
              __syncthreads();  // tile kt+1 visible; every lane has issued its reads of tile kt
              if (kt + Cfg::kStages < k_tiles) tile.load_stage(kt + Cfg::kStages, int(kt % Cfg::kStages));
              arch::cp_async_commit();
              if (kt + 1 < k_tiles) {
                std::uint32_t a_next_stage[2], b_next_stage[2];
                stage_lanes(kt + 1, a_next_stage, b_next_stage);
                load_a_fragments<Cfg, TileA, 0>(a_next_stage, a_next);
                load_group<TileB, 0, 0>(b_next_stage, b[0]);
              }
            }
            mma_column_pair<Cfg, kP>(acc, a, b[kP % 2]);
            static_for<Cfg::kFragsM>([&](auto i) {
              static_for<8>([&](auto e) { a[decltype(i)::value][decltype(e)::value] = a_next[i][e]; });
            });
          }
        });
      });
    }
  }
  arch::cp_async_wait<0>();
  if (!finish(acc)) return;
  store_tile<Cfg, kCTransposed>(p, batch_index, acc, {warp_row, warp_col, g, t}, m0, n0, m_own, n_own);
}

/// Accumulators of a tile config's block, per thread.
template <typename Cfg>
using TensorOpAccumulators = double[Cfg::kFragsM][Cfg::kFragsN][4];

/// One tile per block; grid.z is the batch entry, or under two-pass split K the slice.
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB, bool kCTransposed, typename T = double>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kBlocksPerSm) dgemm_tensorop_kernel(KernelParams<T> const p) {
  static_assert(Cfg::valid());
  extern __shared__ __align__(16) double smem[];
  std::int64_t const tiles_m = (p.m + Cfg::kBM - 1) / Cfg::kBM;
  std::int64_t const tiles_n = (p.n + Cfg::kBN - 1) / Cfg::kBN;
  std::int64_t tile_m, tile_n;
  TileOrder::map(blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);
  // One problem per grid.z: a loop over the batch here would let the compiler hoist per-tile
  // address math out of it and spill; the launcher splits batches beyond the grid limit.
  std::int64_t const operand_batch = p.split_k_slice > 0 ? 0 : blockIdx.z;
  tensorop_tile<Cfg, kTransA, kTransB, kVecA, kVecB, kCTransposed>(
      p, tile_m, tile_n, blockIdx.z, operand_batch, slice_k_span(p, blockIdx.z), true,
      [](TensorOpAccumulators<Cfg>&) { return true; }, smem);
}

/// One K slice of a tile per block (split_k_fixup.cuh); grid.z is the batch entry.
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB, bool kCTransposed>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kBlocksPerSm)
    dgemm_tensorop_fixup_kernel(KernelParams<double> const p, SplitKFixup<double> const fixup) {
  static_assert(Cfg::valid());
  extern __shared__ __align__(16) double smem[];
  std::int64_t const tiles_m = (p.m + Cfg::kBM - 1) / Cfg::kBM;
  std::int64_t const tiles_n = (p.n + Cfg::kBN - 1) / Cfg::kBN;
  FixupBlock const block = fixup_block(fixup);
  std::int64_t tile_m, tile_n;
  TileOrder::map(block.tile, tiles_m, tiles_n, tile_m, tile_n);
  std::int64_t const fixup_tile = block.tile + blockIdx.z * tiles_m * tiles_n;
  tensorop_tile<Cfg, kTransA, kTransB, kVecA, kVecB, kCTransposed>(
      p, tile_m, tile_n, blockIdx.z, blockIdx.z, slice_k_span(p, block.slice), block.slice + 1 == fixup.slices,
      [&](TensorOpAccumulators<Cfg>& acc) { return split_k_fixup<Cfg::kThreads>(fixup, acc, fixup_tile, block.slice); },
      smem);
}

/// Stream-K (stream_k.hpp): blockIdx.x walks its segments, last tile first; one problem (grid.z = 1).
/// Partial tiles are the accumulators, in double for float operands too, so C is still rounded once.
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB, bool kCTransposed, typename T = double>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kBlocksPerSm)
    dgemm_tensorop_stream_k_kernel(KernelParams<T> const p, StreamKFixup<double> const sk) {
  static_assert(Cfg::valid());
  extern __shared__ __align__(16) double smem[];
  std::int64_t const tiles_m = (p.m + Cfg::kBM - 1) / Cfg::kBM;
  std::int64_t const tiles_n = (p.n + Cfg::kBN - 1) / Cfg::kBN;
  int const block = int(blockIdx.x);
  bool first = true;
  walk_stream_k(sk.plan, block, [&](StreamKSegment const& segment) {
    if (!first) __syncthreads();  // every warp is done reading the previous segment's stages
    first = false;
    std::int64_t tile_m, tile_n;
    TileOrder::map(segment.tile, tiles_m, tiles_n, tile_m, tile_n);
    std::int64_t const k_begin = std::int64_t(segment.k_tile_begin) * Cfg::kBK;
    KSpan const span{k_begin, min(std::int64_t(segment.k_tile_end) * Cfg::kBK, p.k) - k_begin};
    tensorop_tile<Cfg, kTransA, kTransB, kVecA, kVecB, kCTransposed>(
        p, tile_m, tile_n, 0, 0, span, segment.stores_c(),
        [&](TensorOpAccumulators<Cfg>& acc) { return stream_k_fixup<Cfg::kThreads>(sk, acc, segment, block); }, smem);
  });
}

}  // namespace gemmkit::gemm
