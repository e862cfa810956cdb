/*! \file
    \brief The small batched kernel's second design (seed 003 §4.2, the cache-based approach): no
    shared memory and no barrier; each thread reads its rows of op(A) and columns of op(B) straight
    from global memory through the read-only cache and keeps its register block of C. A candidate
    shape with zero stages (small_batched_config.hpp) runs this kernel; the tuner measures it beside
    the shared-memory shapes and the table picks, per bucket, whichever is faster.
*/
#pragma once

#include "cuda/batched/small_batched.cuh"

#include <cstdint>

namespace gemmkit::small {

/// Blocks walk groups of Shape::kProblemsPerBlock problems (one resident wave, as the shared-memory
/// kernel); any m <= M, n <= N, k <= K, transposes, leading dimensions, strides or device pointer
/// arrays.
template <typename Shape, typename T>
__global__ void __launch_bounds__(Shape::kThreads, Shape::template min_blocks_per_sm<T, false>()) small_cached_kernel(SmallBatchParams<T> const params) {
  static_assert(Shape::kStages == 0);
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");  // as in small_batched_kernel
#endif
  constexpr int kRows = Shape::kRowsPerThread, kCols = Shape::kColsPerThread;
  KernelParams<T> const& p = params.gemm;
  ThreadBlockOfC<Shape> const t;
  if (!t.computes) return;
  int const m = int(p.m), n = int(p.n), k = int(p.k);
  bool const arrays = params.A_array != nullptr;
  // op(A)(i, kk) and op(B)(kk, j) as stored: a step along i or kk, and along kk or j.
  std::int64_t const a_row = p.trans_a ? p.lda : 1, a_depth = p.trans_a ? 1 : p.lda;
  std::int64_t const b_depth = p.trans_b ? p.ldb : 1, b_col = p.trans_b ? 1 : p.ldb;
  std::int64_t const grid_problems = std::int64_t(gridDim.x) * Shape::kProblemsPerBlock;
  for (std::int64_t problem = std::int64_t(blockIdx.x) * Shape::kProblemsPerBlock + t.local; problem < p.batch;
       problem += grid_problems) {
    T const* const a = arrays ? params.A_array[problem] : p.A + problem * p.stride_a;
    T const* const b = arrays ? params.B_array[problem] : p.B + problem * p.stride_b;
    T* const c = arrays ? params.C_array[problem] : p.C + problem * p.stride_c;
    T acc[kRows][kCols];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int q = 0; q < kCols; ++q) acc[r][q] = T(0);
    }
#pragma unroll
    for (int kk = 0; kk < Shape::kK; ++kk) {
      if (kk < k) {
        T a_values[kRows], b_values[kCols];
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          a_values[r] = t.row(r) < m ? __ldg(a + t.row(r) * a_row + kk * a_depth) : T(0);
        }
#pragma unroll
        for (int q = 0; q < kCols; ++q) {
          b_values[q] = t.col(q) < n ? __ldg(b + kk * b_depth + t.col(q) * b_col) : T(0);
        }
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
#pragma unroll
          for (int q = 0; q < kCols; ++q) acc[r][q] += a_values[r] * b_values[q];
        }
      }
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int q = 0; q < kCols; ++q) {
        if (t.row(r) < m && t.col(q) < n) {
          T* const out = c + t.row(r) + t.col(q) * p.ldc;
          T value = p.alpha * acc[r][q];
          if (p.beta != T(0)) value += p.beta * *out;  // beta = 0: C is not read (it may hold NaN)
          *out = value;
        }
      }
    }
  }
}

}  // namespace gemmkit::small
