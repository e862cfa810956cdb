/*! \file
    \brief The small batched GPU kernel (seed 003 §4.2, the shared-memory design, pipelined): each
    block walks groups of kProblemsPerBlock problems; A and B of the next group are copied into
    shared memory with cp.async (coalesced across the group's problems, zero-padded to kSize) and
    its C is loaded into registers while the current group is multiplied from the other stage, each
    thread holding a register block of C over a fully unrolled K. Global memory sees A and B read
    once, C read once (beta != 0) and written once.
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

/// This thread's register block of C: which problem of the group, and its first row and column
/// (rows kRowGroups apart, columns kColGroups apart, so neighbouring threads touch neighbouring rows).
template <typename Shape>
struct ThreadBlockOfC {
  int local, row0, col0;
  bool computes;
  __device__ ThreadBlockOfC()
      : local(int(threadIdx.x) / Shape::kThreadsPerProblem),
        row0(int(threadIdx.x) % Shape::kThreadsPerProblem % Shape::kRowGroups),
        col0(int(threadIdx.x) % Shape::kThreadsPerProblem / Shape::kRowGroups),
        computes(int(threadIdx.x) < Shape::kComputeThreads) {}
  __device__ int row(int r) const { return row0 + r * Shape::kRowGroups; }
  __device__ int col(int q) const { return col0 + q * Shape::kColGroups; }
};

/// Loads (beta != 0) this thread's elements of C of problem `problem` into registers; they are used
/// one group later, so the loads are in flight while the current group is multiplied.
template <typename Shape, typename T>
__device__ __forceinline__ void load_c(T (&c)[Shape::kRowsPerThread][Shape::kColsPerThread], ThreadBlockOfC<Shape> const& t,
                                       KernelParams<T> const& p, T* const* array, std::int64_t problem) {
  bool const live = t.computes && problem < p.batch && p.beta != T(0);
  T const* base = live ? operand_of(p.C, array, p.stride_c, problem) : nullptr;
#pragma unroll
  for (int r = 0; r < Shape::kRowsPerThread; ++r) {
#pragma unroll
    for (int q = 0; q < Shape::kColsPerThread; ++q) {
      c[r][q] = live && t.row(r) < p.m && t.col(q) < p.n ? base[t.row(r) + t.col(q) * p.ldc] : T(0);
    }
  }
}

/// alpha * op(A) op(B) of this thread's register block, from the shared tiles of its problem.
/// Transposes are template arguments so every shared-memory offset is an immediate.
template <typename Shape, bool kTransA, bool kTransB, typename T>
__device__ __forceinline__ void multiply_block(T (&acc)[Shape::kRowsPerThread][Shape::kColsPerThread], T const* a,
                                               T const* b, ThreadBlockOfC<Shape> const& t) {
  constexpr int S = Shape::kSize, kPitch = Shape::kPitch;
  constexpr int kRows = Shape::kRowsPerThread, kCols = Shape::kColsPerThread;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int q = 0; q < kCols; ++q) acc[r][q] = T(0);
  }
#pragma unroll
  for (int kk = 0; kk < S; ++kk) {  // zero padding past k: no predicate in the loop
    T a_values[kRows], b_values[kCols];
#pragma unroll
    for (int r = 0; r < kRows; ++r) a_values[r] = kTransA ? a[kk + t.row(r) * kPitch] : a[t.row(r) + kk * kPitch];
#pragma unroll
    for (int q = 0; q < kCols; ++q) b_values[q] = kTransB ? b[t.col(q) + kk * kPitch] : b[kk + t.col(q) * kPitch];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int q = 0; q < kCols; ++q) acc[r][q] += a_values[r] * b_values[q];
    }
  }
}

template <typename Shape, typename T>
__global__ void __launch_bounds__(Shape::kThreads, Shape::template min_blocks_per_sm<T>()) small_batched_kernel(SmallBatchParams<T> const params) {
  static_assert(Shape::valid());
  constexpr int kRows = Shape::kRowsPerThread, kCols = Shape::kColsPerThread;
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
  };
  auto problem_of = [](std::int64_t group, int local) { return group * Shape::kProblemsPerBlock + local; };

  ThreadBlockOfC<Shape> const t;
  int const mode = (p.trans_a ? 2 : 0) + (p.trans_b ? 1 : 0);
  T c_now[kRows][kCols], c_next[kRows][kCols];
  std::int64_t group = blockIdx.x;
  if (group < groups) stage_group(group, 0);
  arch::cp_async_commit();
  load_c<Shape>(c_now, t, p, params.C_array, problem_of(group, t.local));
  for (int stage = 0; group < groups; group += gridDim.x, stage ^= 1) {
    std::int64_t const next = group + gridDim.x;
    if (next < groups) stage_group(next, stage ^ 1);
    arch::cp_async_commit();
    load_c<Shape>(c_next, t, p, params.C_array, problem_of(next, t.local));
    arch::cp_async_wait<1>();  // this thread's copies of `group` have landed
    __syncthreads();           // and everyone's

    std::int64_t const problem = problem_of(group, t.local);
    if (t.computes && problem < p.batch) {
      T const* tiles = stages + stage * Shape::kStageElements + t.local * Shape::kTileElements;
      T acc[kRows][kCols];
      switch (mode) {
        case 0: multiply_block<Shape, false, false>(acc, tiles, tiles + kOperand, t); break;
        case 1: multiply_block<Shape, false, true>(acc, tiles, tiles + kOperand, t); break;
        case 2: multiply_block<Shape, true, false>(acc, tiles, tiles + kOperand, t); break;
        default: multiply_block<Shape, true, true>(acc, tiles, tiles + kOperand, t); break;
      }
      T* c = operand_of(p.C, params.C_array, p.stride_c, problem);
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
#pragma unroll
        for (int q = 0; q < kCols; ++q) {
          if (t.row(r) < p.m && t.col(q) < p.n) {
            c[t.row(r) + t.col(q) * p.ldc] =
                p.beta == T(0) ? p.alpha * acc[r][q] : p.alpha * acc[r][q] + p.beta * c_now[r][q];
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int q = 0; q < kCols; ++q) c_now[r][q] = c_next[r][q];
    }
    __syncthreads();  // this stage is refilled by the next iteration's copies
  }
  arch::cp_async_wait<0>();
}

}  // namespace gemmkit::small
