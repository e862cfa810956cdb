/*! \file
    \brief The small batched GPU kernel (seed 003 §4.2, the shared-memory design, pipelined): each
    block walks groups of kProblemsPerBlock problems; A, B and C of the next group are copied into
    shared memory with cp.async (coalesced across the group's problems, zero-padded to kSize) while
    the current group is multiplied from the other stage, each thread holding a register block of C
    over a fully unrolled K; results go back through the shared C tile so the stores are coalesced.
    Global memory sees A and B read once, C read once (beta != 0) and written once.
*/
#pragma once

#include "cuda/arch/cp_async.cuh"
#include "cuda/batched/small_batched.hpp"
#include "cuda/batched/small_batched_config.hpp"

#include <cstdint>

namespace gemmkit::small {

/// Matrix pointer of problem `b`: a strided batch, or a device array of pointers.
template <typename T>
__device__ __forceinline__ T* operand_of(T* base, T* const* array, std::int64_t stride, std::int64_t b) {
  return array != nullptr ? array[b] : base + b * stride;
}

/// Starts copying one stored operand (stored_rows x stored_cols, column-major, leading dimension
/// ld) of the group's problems into `tile` (kSize x kSize per problem at pitch kPitch), as stored:
/// transposes are read from shared memory. Slots past the stored size or the batch are zeroed, so
/// the unrolled K loop needs no predicate. Neighbouring threads copy neighbouring addresses.
template <typename Shape, typename T>
__device__ __forceinline__ void stage_operand(T* tile, T const* base, T const* const* array, std::int64_t ld,
                                              std::int64_t stride, int stored_rows, int stored_cols,
                                              std::int64_t first, std::int64_t batch) {
  constexpr int S = Shape::kSize;
  constexpr int kElements = Shape::kProblemsPerBlock * S * S;
#pragma unroll 4  // cp.async holds no registers: a short unroll keeps addresses out of the register file
  for (int pass = 0; pass < (kElements + Shape::kThreads - 1) / Shape::kThreads; ++pass) {
    int const e = int(threadIdx.x) + pass * Shape::kThreads;
    if (kElements % Shape::kThreads != 0 && e >= kElements) break;
    int const local = e / (S * S);
    int const i = e % S;        // stored row
    int const j = (e / S) % S;  // stored column
    std::int64_t const problem = first + local;
    T* slot = tile + local * Shape::kTileElements + i + j * Shape::kPitch;
    if (problem < batch && i < stored_rows && j < stored_cols) {
      arch::cp_async<int(sizeof(T))>(slot, operand_of(base, array, stride, problem) + i + j * ld, int(sizeof(T)));
    } else {
      *slot = T(0);
    }
  }
}

/// C(rows, cols) of the group's problems from the C tile back to global memory, coalesced.
template <typename Shape, typename T>
__device__ __forceinline__ void store_c(T const* tile, KernelParams<T> const& p, T* const* array, std::int64_t first) {
  constexpr int S = Shape::kSize;
  constexpr int kElements = Shape::kProblemsPerBlock * S * S;
#pragma unroll 4
  for (int pass = 0; pass < (kElements + Shape::kThreads - 1) / Shape::kThreads; ++pass) {
    int const e = int(threadIdx.x) + pass * Shape::kThreads;
    if (kElements % Shape::kThreads != 0 && e >= kElements) break;
    int const local = e / (S * S);
    int const i = e % S;
    int const j = (e / S) % S;
    std::int64_t const problem = first + local;
    if (problem < p.batch && i < p.m && j < p.n) {
      operand_of(p.C, array, p.stride_c, problem)[i + j * p.ldc] = tile[local * Shape::kTileElements + i + j * Shape::kPitch];
    }
  }
}

/// This thread's register block of alpha * op(A) op(B) + beta * C, read from and written to the
/// shared tiles of its problem. Transposes are template arguments so every shared-memory offset
/// is an immediate.
template <typename Shape, bool kTransA, bool kTransB, typename T>
__device__ __forceinline__ void multiply_block(T const* a, T const* b, T* c, int row0, int col0, T alpha, T beta) {
  constexpr int S = Shape::kSize, kPitch = Shape::kPitch;
  constexpr int kRows = Shape::kRowsPerThread, kCols = Shape::kColsPerThread;
  T acc[kRows][kCols];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int q = 0; q < kCols; ++q) acc[r][q] = T(0);
  }
#pragma unroll
  for (int kk = 0; kk < S; ++kk) {  // zero padding past k: no predicate in the loop
    T a_values[kRows], b_values[kCols];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      int const row = row0 + r * Shape::kRowGroups;
      a_values[r] = kTransA ? a[kk + row * kPitch] : a[row + kk * kPitch];
    }
#pragma unroll
    for (int q = 0; q < kCols; ++q) {
      int const col = col0 + q * Shape::kColGroups;
      b_values[q] = kTransB ? b[col + kk * kPitch] : b[kk + col * kPitch];
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int q = 0; q < kCols; ++q) acc[r][q] += a_values[r] * b_values[q];
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int q = 0; q < kCols; ++q) {
      T& slot = c[row0 + r * Shape::kRowGroups + (col0 + q * Shape::kColGroups) * kPitch];
      slot = beta == T(0) ? alpha * acc[r][q] : alpha * acc[r][q] + beta * slot;
    }
  }
}

template <typename Shape, typename T>
__global__ void __launch_bounds__(Shape::kThreads) small_batched_kernel(SmallBatchParams<T> const params) {
  static_assert(Shape::valid());
  KernelParams<T> const& p = params.gemm;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* const stages = reinterpret_cast<T*>(shared_bytes);
  constexpr int kOperand = Shape::kProblemsPerBlock * Shape::kTileElements;

  std::int64_t const groups = (p.batch + Shape::kProblemsPerBlock - 1) / Shape::kProblemsPerBlock;
  auto stage_group = [&](std::int64_t group, int stage) {
    T* const tiles = stages + stage * Shape::kStageElements;
    std::int64_t const first = group * Shape::kProblemsPerBlock;
    int const a_rows = p.trans_a ? int(p.k) : int(p.m), a_cols = p.trans_a ? int(p.m) : int(p.k);
    int const b_rows = p.trans_b ? int(p.n) : int(p.k), b_cols = p.trans_b ? int(p.k) : int(p.n);
    stage_operand<Shape>(tiles, p.A, params.A_array, p.lda, p.stride_a, a_rows, a_cols, first, p.batch);
    stage_operand<Shape>(tiles + kOperand, p.B, params.B_array, p.ldb, p.stride_b, b_rows, b_cols, first, p.batch);
    if (p.beta != T(0)) {
      stage_operand<Shape>(tiles + 2 * kOperand, static_cast<T const*>(p.C),
                           reinterpret_cast<T const* const*>(params.C_array), p.ldc, p.stride_c, int(p.m), int(p.n),
                           first, p.batch);
    }
  };

  // This thread's problem in the group and the first row and column of its register block.
  int const local = int(threadIdx.x) / Shape::kThreadsPerProblem;
  int const within = int(threadIdx.x) % Shape::kThreadsPerProblem;
  int const row0 = within % Shape::kRowGroups, col0 = within / Shape::kRowGroups;
  bool const computes = int(threadIdx.x) < Shape::kComputeThreads;
  int const mode = (p.trans_a ? 2 : 0) + (p.trans_b ? 1 : 0);

  int stage = 0;
  if (std::int64_t(blockIdx.x) < groups) stage_group(blockIdx.x, 0);
  arch::cp_async_commit();
  for (std::int64_t group = blockIdx.x; group < groups; group += gridDim.x) {
    if (group + gridDim.x < groups) stage_group(group + gridDim.x, stage ^ 1);
    arch::cp_async_commit();
    arch::cp_async_wait<1>();  // this thread's copies of `group` have landed
    __syncthreads();           // and everyone's

    T* const tiles = stages + stage * Shape::kStageElements;
    if (computes) {
      int const offset = local * Shape::kTileElements;
      T const* a = tiles + offset;
      T const* b = tiles + kOperand + offset;
      T* c = tiles + 2 * kOperand + offset;
      switch (mode) {
        case 0: multiply_block<Shape, false, false>(a, b, c, row0, col0, p.alpha, p.beta); break;
        case 1: multiply_block<Shape, false, true>(a, b, c, row0, col0, p.alpha, p.beta); break;
        case 2: multiply_block<Shape, true, false>(a, b, c, row0, col0, p.alpha, p.beta); break;
        default: multiply_block<Shape, true, true>(a, b, c, row0, col0, p.alpha, p.beta); break;
      }
    }
    __syncthreads();
    store_c<Shape>(tiles + 2 * kOperand, p, params.C_array, group * Shape::kProblemsPerBlock);
    __syncthreads();  // this stage is refilled by the next iteration's copies
    stage ^= 1;
  }
  arch::cp_async_wait<0>();
}

}  // namespace gemmkit::small
