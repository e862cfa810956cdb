/*! \file
    \brief The small batched GPU kernel (seed 003 §4.2, the shared-memory design): a block stages
    op(A) and op(B) of kProblemsPerBlock problems in shared memory with coalesced loads across the
    problems, each thread accumulates kRowsPerThread rows of one column of C in registers over a
    fully unrolled K, and C is read (beta != 0, first, so its latency overlaps the staging) and
    written once.
*/
#pragma once

#include "cuda/batched/small_batched.hpp"
#include "cuda/batched/small_batched_config.hpp"

#include <cstdint>

namespace gemmkit::small {

/// Matrix pointers of problem `b`: a strided batch, or device arrays of pointers.
template <typename T>
__device__ __forceinline__ T const* operand_of(T const* base, T const* const* array, std::int64_t stride, std::int64_t b) {
  return array != nullptr ? array[b] : base + b * stride;
}

/// Stages op(X) (rows x cols, column-major with pitch Shape::kPitch) of the block's problems into
/// `tile`, zero past rows, cols and the batch. Elements are visited in the stored matrix's memory
/// order (stored rows fastest), so neighbouring threads read neighbouring addresses.
template <typename Shape, typename T>
__device__ __forceinline__ void stage_operand(T* tile, T const* base, T const* const* array, std::int64_t ld,
                                              std::int64_t stride, bool transposed, int rows, int cols,
                                              std::int64_t first, std::int64_t batch) {
  constexpr int S = Shape::kSize;
  int const stored_rows = transposed ? cols : rows;
  int const stored_cols = transposed ? rows : cols;
  constexpr int kElements = Shape::kProblemsPerBlock * S * S;
#pragma unroll
  for (int pass = 0; pass < (kElements + Shape::kThreads - 1) / Shape::kThreads; ++pass) {
    int const e = int(threadIdx.x) + pass * Shape::kThreads;
    if (kElements % Shape::kThreads != 0 && e >= kElements) break;
    int const local = e / (S * S);
    int const i = e % S;              // stored row
    int const j = (e / S) % S;        // stored column
    std::int64_t const problem = first + local;
    T value = T(0);
    if (problem < batch && i < stored_rows && j < stored_cols) {
      value = operand_of(base, array, stride, problem)[i + j * ld];
    }
    int const row = transposed ? j : i, col = transposed ? i : j;  // in op(X)
    tile[local * S * Shape::kPitch + row + col * Shape::kPitch] = value;
  }
}

template <typename Shape, typename T>
__global__ void __launch_bounds__(Shape::kThreads) small_batched_kernel(SmallBatchParams<T> const params) {
  KernelParams<T> const& p = params.gemm;
  static_assert(Shape::valid());
  constexpr int S = Shape::kSize, kPitch = Shape::kPitch, kRows = Shape::kRowsPerThread;
  __shared__ T a_tile[Shape::kOperandElements];  // (PROBLEMS, S, PITCH): op(A), zero-padded
  __shared__ T b_tile[Shape::kOperandElements];  // (PROBLEMS, S, PITCH): op(B), zero-padded

  int const local = threadIdx.x / Shape::kThreadsPerProblem;
  int const q = threadIdx.x % Shape::kThreadsPerProblem;
  int const row0 = q % Shape::kRowGroups;
  int const col = q / Shape::kRowGroups;
  T const* a = a_tile + local * S * kPitch;
  T const* b = b_tile + local * S * kPitch;

  for (std::int64_t first = std::int64_t(blockIdx.x) * Shape::kProblemsPerBlock; first < p.batch;
       first += std::int64_t(gridDim.x) * Shape::kProblemsPerBlock) {
    // C is read (beta != 0) before A and B are staged, so its latency overlaps theirs.
    std::int64_t const problem = first + local;
    bool const owns_column = problem < p.batch && col < p.n;
    T* c = nullptr;
    T c_old[kRows];
    if (owns_column) {
      c = (params.C_array != nullptr ? params.C_array[problem] : p.C + problem * p.stride_c) + std::int64_t(col) * p.ldc;
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        int const row = row0 + r * Shape::kRowGroups;
        c_old[r] = p.beta != T(0) && row < p.m ? c[row] : T(0);
      }
    }
    stage_operand<Shape>(a_tile, p.A, params.A_array, p.lda, p.stride_a, p.trans_a, int(p.m), int(p.k), first, p.batch);
    stage_operand<Shape>(b_tile, p.B, params.B_array, p.ldb, p.stride_b, p.trans_b, int(p.k), int(p.n), first, p.batch);
    __syncthreads();

    T acc[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) acc[r] = T(0);
#pragma unroll
    for (int kk = 0; kk < S; ++kk) {  // zero padding past k: no predicate in the loop
      T const bv = b[kk + col * kPitch];
#pragma unroll
      for (int r = 0; r < kRows; ++r) acc[r] += a[row0 + r * Shape::kRowGroups + kk * kPitch] * bv;
    }

    if (owns_column) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        int const row = row0 + r * Shape::kRowGroups;
        if (row < p.m) c[row] = p.beta == T(0) ? p.alpha * acc[r] : p.alpha * acc[r] + p.beta * c_old[r];
      }
    }
    __syncthreads();  // the tiles are restaged for the next problems
  }
}

}  // namespace gemmkit::small
