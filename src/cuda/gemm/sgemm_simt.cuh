/*! \file
    \brief The FP32 SIMT GEMM (exact single precision: FFMA, no TF32): multistage cp.async mainloop,
    k-major shared tiles, 128-bit fragment loads double-buffered in registers across slices (the
    seeds' two-level prefetch), grouped tile order.

    Template parameters say everything that changes the code: the tile config, the transposes and
    the copy width of the operands that are contiguous along M or N (16 bytes when base and leading
    dimension allow it, else 4). K-contiguous operands (A transposed, B not) are copied element by
    element into the k-major tile, which transposes them on the way. A last tile shifts in to end
    at the matrix edge (edge_tile_origin); what stays partial zero-fills, so the mainloop has no
    tail case.
*/
#pragma once

#include "cuda/arch/cp_async.cuh"
#include "cuda/gemm/epilogue.cuh"
#include "cuda/gemm/simt_config.hpp"
#include "cuda/gemm/simt_layout.hpp"
#include "cuda/gemm/split_k_fixup.cuh"
#include "cuda/gemm/tile_order.cuh"
#include "cuda/kernel_params.hpp"

#include <cstdint>

namespace gemmkit::gemm {

/// Copies one operand's kRows x kBK slice into its k-major shared tile (the index maps are
/// SimtCopyMap's, in simt_layout.hpp).
template <typename Cfg, int kRows, int kPitch, bool kKContiguous, int kVec>
struct SimtTileLoader : SimtCopyMap<Cfg, kRows, kPitch, kKContiguous, kVec> {
  using Map = SimtCopyMap<Cfg, kRows, kPitch, kKContiguous, kVec>;
  using Map::kPasses, Map::run_step, Map::along_step, Map::smem_step;

  float const* origin;       ///< this thread's first chunk in k-slice 0
  std::int64_t ld;
  std::int64_t k_tile_step;  ///< elements between consecutive k-slices
  std::int64_t mn_left;      ///< rows of this operand left in the matrix from the tile's origin
  int run0, along0, smem0;

  __device__ SimtTileLoader(float const* tile_origin, std::int64_t ld_, std::int64_t mn_left_, int thread)
      : ld(ld_), mn_left(mn_left_) {
    run0 = Map::first_run(thread);
    along0 = Map::first_along(thread);
    origin = tile_origin + std::int64_t(run0) * ld + along0;
    k_tile_step = kKContiguous ? Cfg::kBK : std::int64_t(Cfg::kBK) * ld;
    smem0 = Map::smem_offset(run0, along0);
  }

  /// Queues k-slice `k_tile` into `stage_smem`; k_left = elements of K left from the slice start.
  /// Inside the matrix every chunk is whole, which needs no per-chunk bounds (they were most of the
  /// mainloop's integer instructions); edge slices take the checked path.
  __device__ __forceinline__ void load(float* stage_smem, std::int64_t k_tile, std::int64_t k_left) const {
    float const* src = origin + k_tile * k_tile_step;
    if (mn_left >= kRows && k_left >= Cfg::kBK) {
      static_for<kPasses>([&](auto pass) {
        constexpr int kP = decltype(pass)::value;
        arch::cp_async<kVec * 4>(stage_smem + smem0 + smem_step(kP),
                                 src + std::int64_t(run_step(kP)) * ld + along_step(kP), kVec * 4);
      });
      return;
    }
    std::int64_t const run_limit = kKContiguous ? mn_left : k_left;
    std::int64_t const along_limit = kKContiguous ? k_left : mn_left;
    static_for<kPasses>([&](auto pass) {
      constexpr int kP = decltype(pass)::value;
      std::int64_t const along_left = along_limit - (along0 + along_step(kP));
      int const along_valid = along_left <= 0 ? 0 : (along_left >= kVec ? kVec : int(along_left));
      int const valid = run0 + run_step(kP) < run_limit ? along_valid : 0;
      float const* chunk = src + std::int64_t(run_step(kP)) * ld + along_step(kP);
      arch::cp_async<kVec * 4>(stage_smem + smem0 + smem_step(kP), valid > 0 ? chunk : origin, valid * 4);
    });
  }
};

/// A lane's fragment of one k row: kSub groups of 4 adjacent elements, kSubStride apart.
template <int kSub, int kSubStride>
__device__ __forceinline__ void load_fragment(float const* row, float (&fragment)[4 * kSub]) {
#pragma unroll
  for (int s = 0; s < kSub; ++s) {
    float4 const v = *reinterpret_cast<float4 const*>(row + s * kSubStride);
    fragment[4 * s + 0] = v.x;
    fragment[4 * s + 1] = v.y;
    fragment[4 * s + 2] = v.z;
    fragment[4 * s + 3] = v.w;
  }
}

/// Computes tile (tile_m, tile_n) of C entry `batch_index` from the A and B of `operand_batch` over
/// `span` of K: the device routine the kernel wrappers map the grid onto. `finish(acc)` runs after
/// the mainloop: where the tile is cut in parts (split K fixed up in the kernel, stream-K) it meets
/// the other parts and says whether this block stores C.
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB, typename Finish>
__device__ void simt_tile(KernelParams<float> const& p, std::int64_t tile_m, std::int64_t tile_n,
                          std::int64_t batch_index, std::int64_t operand_batch, KSpan span, Finish const& finish,
                          float* smem) {
  constexpr bool kAK = kTransA;    // A^T in memory is K-contiguous
  constexpr bool kBK_ = !kTransB;  // B untransposed is K-contiguous
  float* smem_a = smem;                                        // (STAGES, BK, BM + 4)
  float* smem_b = smem + Cfg::kStages * Cfg::kStageElementsA;  // (STAGES, BK, BN + 4)

  int const thread = threadIdx.x;
  int const warp = thread / 32;
  int const lane = thread % 32;
  int const warp_m = warp % Cfg::kWarpsM;
  int const warp_n = warp / Cfg::kWarpsM;
  int const lane_m = lane % Cfg::kLanesM;
  int const lane_n = lane / Cfg::kLanesM;
  int const row0 = warp_m * Cfg::kWarpM + 4 * lane_m;  // the lane's first row within the tile
  int const col0 = warp_n * Cfg::kWarpN + 4 * lane_n;

  std::int64_t const m_own = tile_m * Cfg::kBM;  // the rows and columns of C this tile stores
  std::int64_t const n_own = tile_n * Cfg::kBN;
  std::int64_t const m0 = edge_tile_origin<Cfg::kBM, kAK ? 1 : kVecA>(m_own, p.m);
  std::int64_t const n0 = edge_tile_origin<Cfg::kBN, kBK_ ? 1 : kVecB>(n_own, p.n);
  BlockOperands<float> const operands = block_operands<kAK, kBK_>(p, m0, n0, operand_batch, span);
  std::int64_t const k_count = operands.k_count;
  std::int64_t const k_tiles = (k_count + Cfg::kBK - 1) / Cfg::kBK;

  SimtTileLoader<Cfg, Cfg::kBM, Cfg::kPitchA, kAK, kAK ? 1 : kVecA> const load_a(operands.A, p.lda, p.m - m0, thread);
  SimtTileLoader<Cfg, Cfg::kBN, Cfg::kPitchB, kBK_, kBK_ ? 1 : kVecB> const load_b(operands.B, p.ldb, p.n - n0, thread);
  auto load_stage = [&](std::int64_t k_tile, int stage) {
    std::int64_t const k_left = k_count - k_tile * Cfg::kBK;
    load_a.load(smem_a + stage * Cfg::kStageElementsA, k_tile, k_left);
    load_b.load(smem_b + stage * Cfg::kStageElementsB, k_tile, k_left);
  };

  float acc[Cfg::kThreadM][Cfg::kThreadN];  // (THREAD_M, THREAD_N)
#pragma unroll
  for (int i = 0; i < Cfg::kThreadM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kThreadN; ++j) acc[i][j] = 0.0f;

  // Two-level prefetch (seed 000 §2.4): fragments of k + 1 load while k multiplies, across slice
  // boundaries too. The barrier sits before a slice's last k step, when every thread has issued
  // all its reads of slice kt: slice kt + 1 is waited for, its first fragments load while the last
  // step multiplies, and the next iteration refills the stage slice kt used, kStages - 1 ahead.
  auto a_row = [&](std::int64_t k_tile, int k) {
    return smem_a + int(k_tile % Cfg::kStages) * Cfg::kStageElementsA + k * Cfg::kPitchA + row0;
  };
  auto b_row = [&](std::int64_t k_tile, int k) {
    return smem_b + int(k_tile % Cfg::kStages) * Cfg::kStageElementsB + k * Cfg::kPitchB + col0;
  };
#pragma unroll
  for (int s = 0; s < Cfg::kStages - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    arch::cp_async_commit();  // one commit per slice keeps the group count uniform
  }
  arch::cp_async_wait<Cfg::kStages - 2>();
  __syncthreads();
  float a[2][Cfg::kThreadM], b[2][Cfg::kThreadN];  // (buffer, fragment)
  load_fragment<Cfg::kSubM, Cfg::kSubStrideM>(a_row(0, 0), a[0]);
  load_fragment<Cfg::kSubN, Cfg::kSubStrideN>(b_row(0, 0), b[0]);
  for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
    std::int64_t const refill = kt + Cfg::kStages - 1;
    if (refill < k_tiles) load_stage(refill, int(refill % Cfg::kStages));
    arch::cp_async_commit();
#pragma unroll
    for (int k = 0; k < Cfg::kBK; ++k) {
      int const next = (k + 1) % 2;
      if (k + 1 < Cfg::kBK) {
        load_fragment<Cfg::kSubM, Cfg::kSubStrideM>(a_row(kt, k + 1), a[next]);
        load_fragment<Cfg::kSubN, Cfg::kSubStrideN>(b_row(kt, k + 1), b[next]);
      } else {
        arch::cp_async_wait<Cfg::kStages - 2>();
        __syncthreads();  // slice kt + 1 visible; bar.sync performs every read of slice kt issued before it
        if (kt + 1 < k_tiles) {
          load_fragment<Cfg::kSubM, Cfg::kSubStrideM>(a_row(kt + 1, 0), a[next]);
          load_fragment<Cfg::kSubN, Cfg::kSubStrideN>(b_row(kt + 1, 0), b[next]);
        }
      }
#pragma unroll
      for (int i = 0; i < Cfg::kThreadM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::kThreadN; ++j) acc[i][j] = fmaf(a[k % 2][i], b[k % 2][j], acc[i][j]);
    }
  }
  arch::cp_async_wait<0>();
  if (!finish(acc)) return;

  // Lane element (i, j) is row row0 + (i/4)*kSubStrideM + i%4, column col0 + (j/4)*kSubStrideN + j%4:
  // the four rows of a sub-block are adjacent in column-major C (one 16-byte store).
  // A shifted edge tile (edge_tile_origin) stores only rows from m_own and columns from n_own.
  float* C = p.C + batch_index * p.stride_c;
  bool const c_vector_aligned = reinterpret_cast<std::uintptr_t>(C) % 16 == 0 && p.ldc % 4 == 0 && m0 % 4 == 0;
#pragma unroll
  for (int si = 0; si < Cfg::kSubM; ++si) {
    std::int64_t const row = m0 + row0 + si * Cfg::kSubStrideM;
    if (row >= p.m || row + 3 < m_own) continue;
#pragma unroll
    for (int j = 0; j < Cfg::kThreadN; ++j) {
      std::int64_t const col = n0 + col0 + (j / 4) * Cfg::kSubStrideN + j % 4;
      if (col < n_own || col >= p.n) continue;
      float* c = C + row + col * p.ldc;
      if (row >= m_own && row + 3 < p.m && c_vector_aligned) {
        store_c_quad(p, c, acc[4 * si + 0][j], acc[4 * si + 1][j], acc[4 * si + 2][j], acc[4 * si + 3][j]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          if (row + e >= m_own && row + e < p.m) store_c(p, c + e, acc[4 * si + e][j]);
        }
      }
    }
  }
}

/// One tile per block; grid.z is the batch entry, or under two-pass split K the slice.
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kBlocksPerSm) sgemm_simt_kernel(KernelParams<float> const p) {
  static_assert(Cfg::valid());
  extern __shared__ __align__(16) float smem_f32[];
  std::int64_t const tiles_m = (p.m + Cfg::kBM - 1) / Cfg::kBM;
  std::int64_t const tiles_n = (p.n + Cfg::kBN - 1) / Cfg::kBN;
  std::int64_t tile_m, tile_n;
  TileOrder::map(blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);
  std::int64_t const operand_batch = p.split_k_slice > 0 ? 0 : blockIdx.z;
  simt_tile<Cfg, kTransA, kTransB, kVecA, kVecB>(p, tile_m, tile_n, blockIdx.z, operand_batch,
                                                 slice_k_span(p, blockIdx.z), [](auto&) { return true; }, smem_f32);
}

/// One K slice of a tile per block (split_k_fixup.cuh); grid.z is the batch entry.
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kBlocksPerSm)
    sgemm_simt_fixup_kernel(KernelParams<float> const p, SplitKFixup<float> const fixup) {
  static_assert(Cfg::valid());
  extern __shared__ __align__(16) float smem_f32[];
  std::int64_t const tiles_m = (p.m + Cfg::kBM - 1) / Cfg::kBM;
  std::int64_t const tiles_n = (p.n + Cfg::kBN - 1) / Cfg::kBN;
  FixupBlock const block = fixup_block(fixup);
  std::int64_t tile_m, tile_n;
  TileOrder::map(block.tile, tiles_m, tiles_n, tile_m, tile_n);
  std::int64_t const fixup_tile = block.tile + blockIdx.z * tiles_m * tiles_n;
  simt_tile<Cfg, kTransA, kTransB, kVecA, kVecB>(
      p, tile_m, tile_n, blockIdx.z, blockIdx.z, slice_k_span(p, block.slice),
      [&](auto& acc) { return split_k_fixup<Cfg::kThreads>(fixup, acc, fixup_tile, block.slice); }, smem_f32);
}

/// Stream-K (stream_k.hpp): blockIdx.x walks its segments, last tile first; one problem (grid.z = 1).
/// The same walk as dgemm_tensorop_stream_k_kernel's: one helper for both raised the FP64 TT
/// instance's spills and cost 8191 TT 5 % (H100, 2026-11-24).
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kBlocksPerSm)
    sgemm_simt_stream_k_kernel(KernelParams<float> const p, StreamKFixup<float> const sk) {
  static_assert(Cfg::valid());
  extern __shared__ __align__(16) float smem_f32[];
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
    simt_tile<Cfg, kTransA, kTransB, kVecA, kVecB>(
        p, tile_m, tile_n, 0, 0, span, [&](auto& acc) { return stream_k_fixup<Cfg::kThreads>(sk, acc, segment, block); },
        smem_f32);
  });
}

}  // namespace gemmkit::gemm
