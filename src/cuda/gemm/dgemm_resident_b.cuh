/*! \file
    \brief The B-resident FP64 tensor-core kernel (resident_b.hpp): one column panel of B, all of
    K, loaded once per block; the block's row tiles of A stream through a kResidentBRing-deep
    cp.async ring that runs across tile boundaries, so the next tile's first k-tiles are in flight while
    this tile's MMAs finish and its C is stored. Fragments, copies and the epilogue are the tiled
    kernel's (dgemm_tensorop.cuh).
*/
#pragma once

#include "cuda/gemm/dgemm_tensorop.cuh"
#include "cuda/gemm/resident_b.hpp"

#include <cstdint>

namespace gemmkit::gemm {

/// Grid: x = blocks per column panel x tiles_n (block b takes panel b % tiles_n), z = batch entry.
template <typename Cfg, bool kTransA, bool kTransB, int kVecA, int kVecB, bool kCTransposed>
__global__ void __launch_bounds__(Cfg::kThreads, kResidentBBlocksPerSm)
    dgemm_tensorop_resident_b_kernel(KernelParams<double> const p) {
  static_assert(Cfg::valid() && Cfg::kMmaK == 16 && !Cfg::kFragmentPrefetch, "the one-level mainloop's configs");
  extern __shared__ __align__(16) double smem[];
  constexpr bool kAK = kTransA;    // A^T in memory is K-contiguous
  constexpr bool kBK_ = !kTransB;  // B untransposed is K-contiguous
  using TileA = SwizzledTile<Cfg::kBM, Cfg::kBK, kAK, Cfg::kMmaK>;
  using TileB = SwizzledTile<Cfg::kBN, Cfg::kBK, kBK_, Cfg::kMmaK>;
  using LoaderA = TileLoader<Cfg, Cfg::kBM, kAK, kVecA>;
  using LoaderB = TileLoader<Cfg, Cfg::kBN, kBK_, kVecB>;
  constexpr int kRing = kResidentBRing;
  double* const smem_a = smem;                                  // (RING, A tile)
  double* const smem_b = smem + kRing * Cfg::kStageElementsA;  // (K tiles, B tile): the panel

  std::int64_t const tiles_m = (p.m + Cfg::kBM - 1) / Cfg::kBM;
  std::int64_t const tiles_n = (p.n + Cfg::kBN - 1) / Cfg::kBN;
  std::int64_t const tile_n = blockIdx.x % tiles_n;
  std::int64_t const first_tile_m = blockIdx.x / tiles_n;
  std::int64_t const tile_m_step = gridDim.x / tiles_n;
  int const k_tiles = int((p.k + Cfg::kBK - 1) / Cfg::kBK);  // resident_b_fits keeps it small
  int const thread = threadIdx.x;
  double const* const A = p.A + blockIdx.z * p.stride_a;
  double const* const B = p.B + blockIdx.z * p.stride_b;

  std::int64_t const n_own = tile_n * Cfg::kBN;
  std::int64_t const n0 = edge_tile_origin<Cfg::kBN, kBK_ ? 1 : kVecB>(n_own, p.n);
  {
    LoaderB const load_b(B + (kBK_ ? n0 * p.ldb : n0), p.ldb, p.n - n0, thread);
    for (int kt = 0; kt < k_tiles; ++kt) load_b.load(smem_b + kt * Cfg::kStageElementsB, kt, p.k - kt * Cfg::kBK);
  }  // committed with the first A stage, so the first wait covers the panel

  auto row_origin = [&](std::int64_t tile_m) { return edge_tile_origin<Cfg::kBM, kAK ? 1 : kVecA>(tile_m * Cfg::kBM, p.m); };
  auto a_loader = [&](std::int64_t tile_m) {
    std::int64_t const m0 = row_origin(tile_m);
    return LoaderA(A + (kAK ? m0 * p.lda : m0), p.lda, p.m - m0, thread);
  };
  // The ring's producer: the k-tile it queues next, counted across this block's tiles.
  std::int64_t load_tile = first_tile_m;
  int load_kt = 0, load_stage = 0;
  LoaderA load_a = a_loader(load_tile);
  auto queue_next = [&] {
    if (load_tile < tiles_m) {
      load_a.load(smem_a + load_stage * Cfg::kStageElementsA, load_kt, p.k - std::int64_t(load_kt) * Cfg::kBK);
      if (++load_kt == k_tiles) {
        load_kt = 0;
        load_tile += tile_m_step;
        if (load_tile < tiles_m) load_a = a_loader(load_tile);
      }
    }
    load_stage = load_stage + 1 == kRing ? 0 : load_stage + 1;
    arch::cp_async_commit();  // one group per ring slot, empty past the last tile: uniform counts
  };
#pragma unroll
  for (int s = 0; s < kRing - 1; ++s) queue_next();

  int const warp = thread / 32, g = thread % 32 / 4, t = thread % 4;
  int const warp_row = warp % Cfg::kWarpsM * Cfg::kWarpM;
  int const warp_col = warp / Cfg::kWarpsM * Cfg::kWarpN;
  std::uint32_t a_lane[2], b_lane[2];
#pragma unroll
  for (int l = 0; l < 2; ++l) {
    a_lane[l] = arch::shared_address(smem_a) + 8u * (TileA::lane_offset(g, t, l) + TileA::offset(warp_row, 0));
    b_lane[l] = arch::shared_address(smem_b) + 8u * (TileB::lane_offset(g, t, l) + TileB::offset(warp_col, 0));
  }

  int read_stage = 0;
  for (std::int64_t tile_m = first_tile_m; tile_m < tiles_m; tile_m += tile_m_step) {
    std::int64_t const m_own = tile_m * Cfg::kBM;
    if (p.beta != 0.0) prefetch_c_tile<Cfg, kCTransposed>(p.C + blockIdx.z * p.stride_c, p.ldc, m_own, n_own, p.m, p.n);
    double acc[Cfg::kFragsM][Cfg::kFragsN][4];
    zero_accumulators<Cfg>(acc);
    for (int kt = 0; kt < k_tiles; ++kt) {
      arch::cp_async_wait<kRing - 2>();
      __syncthreads();  // this k-tile visible to all; everyone is done reading the slot refilled next
      queue_next();
      std::uint32_t a_stage[2], b_stage[2];
#pragma unroll
      for (int l = 0; l < 2; ++l) {
        a_stage[l] = a_lane[l] + std::uint32_t(read_stage) * (8u * Cfg::kStageElementsA);
        b_stage[l] = b_lane[l] + std::uint32_t(kt) * (8u * Cfg::kStageElementsB);
      }
      warp_tile_mma<Cfg, TileA, TileB>(acc, a_stage, b_stage);
      read_stage = read_stage + 1 == kRing ? 0 : read_stage + 1;
    }
    store_tile<Cfg, kCTransposed>(p, blockIdx.z, acc, {warp_row, warp_col, g, t}, row_origin(tile_m), n0, m_own, n_own);
  }
  arch::cp_async_wait<0>();
}

}  // namespace gemmkit::gemm
