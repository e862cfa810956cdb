/*! \file
    \brief The small batched GPU kernel (seed 003 §4.2, the shared-memory design, pipelined): each
    block walks groups of kProblemsPerBlock problems; A and B of the next group are copied into
    shared memory with cp.async (coalesced across the group's problems, zero-padded to kSize) and
    its C is loaded into registers while the current group is multiplied from the other stage, each
    thread holding a register block of C over a fully unrolled K. Shared memory holds op(A) and
    op(B) k-major (rows of op(A), columns of op(B) contiguous; transposes are applied by the copy),
    so a thread's rows and columns come in vector loads. Global memory sees A and B read once, C
    read once (beta != 0) and written once.
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
/// ld) of the group's problems into `tile` (kSize x kPitch per problem): stored element (i, j) goes
/// to slot i + j * kPitch, or j + i * kPitch when `swap` (the copy transposes). Slots past the
/// stored size or the batch are zeroed, so the unrolled K loop needs no predicate. Neighbouring
/// threads copy neighbouring global addresses.
template <typename Shape, typename T>
__device__ __forceinline__ void stage_operand(T* tile, T const* base, T const* const* array, std::int64_t ld,
                                              std::int64_t stride, int stored_rows, int stored_cols, bool swap,
                                              std::int64_t first, std::int64_t batch) {
  constexpr int S = Shape::kSize;
  constexpr int kElements = Shape::kProblemsPerBlock * S * S;
  int const i_step = swap ? Shape::kPitch : 1, j_step = swap ? 1 : Shape::kPitch;
  // Packed problems of exactly the bucket's size: the group's operands are one contiguous span, so
  // element e of the span is at span[e] (no 64-bit address arithmetic per element).
  bool const packed = array == nullptr && stored_rows == S && stored_cols == S && ld == S && stride == S * S;
  T const* const span = packed ? base + first * (S * S) : nullptr;
#pragma unroll 4  // cp.async holds no registers: a short unroll keeps addresses out of the register file
  for (int pass = 0; pass < (kElements + Shape::kThreads - 1) / Shape::kThreads; ++pass) {
    int const e = int(threadIdx.x) + pass * Shape::kThreads;
    if (kElements % Shape::kThreads != 0 && e >= kElements) break;
    int const local = e / (S * S);
    int const i = e % S;        // stored row
    int const j = (e / S) % S;  // stored column
    std::int64_t const problem = first + local;
    T* slot = tile + local * Shape::kTileElements + i * i_step + j * j_step;
    if (problem < batch && i < stored_rows && j < stored_cols) {
      T const* from = packed ? span + e : operand_of(base, array, stride, problem) + i + j * ld;
      arch::cp_async<int(sizeof(T))>(slot, from, int(sizeof(T)));
    } else {
      *slot = T(0);
    }
  }
}

/// This thread's register block of C: which problem of the group, and its first row and column
/// (kRowsPerThread contiguous rows, kColsPerThread contiguous columns, so they load as vectors).
template <typename Shape>
struct ThreadBlockOfC {
  int local, row0, col0;
  bool computes;
  __device__ ThreadBlockOfC()
      : local(int(threadIdx.x) / Shape::kThreadsPerProblem),
        row0(int(threadIdx.x) % Shape::kThreadsPerProblem % Shape::kRowGroups * Shape::kRowsPerThread),
        col0(int(threadIdx.x) % Shape::kThreadsPerProblem / Shape::kRowGroups * Shape::kColsPerThread),
        computes(int(threadIdx.x) < Shape::kComputeThreads) {}
  __device__ int row(int r) const { return row0 + r; }
  __device__ int col(int q) const { return col0 + q; }
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

/// The CUDA vector type of kWidth elements of T (1, 2 or 4 floats; 1 or 2 doubles).
template <typename T, int kWidth> struct VectorOf;
template <> struct VectorOf<float, 1> { using type = float; };
template <> struct VectorOf<float, 2> { using type = float2; };
template <> struct VectorOf<float, 4> { using type = float4; };
template <> struct VectorOf<double, 1> { using type = double; };
template <> struct VectorOf<double, 2> { using type = double2; };

/// kCount contiguous elements of shared memory in the widest loads their alignment allows (the
/// tile pitch and the first index are multiples of Shape::kVector<T>, see small_batched_config.hpp).
template <int kCount, int kVector, typename T>
__device__ __forceinline__ void load_contiguous(T (&out)[kCount], T const* from) {
  constexpr int kWidth = kCount % kVector == 0 ? kVector : (kCount % 2 == 0 ? 2 : 1);
  using Vector = typename VectorOf<T, kWidth>::type;
#pragma unroll
  for (int v = 0; v < kCount / kWidth; ++v) {
    Vector const chunk = reinterpret_cast<Vector const*>(from)[v];
    if constexpr (kWidth == 1) {
      out[v] = chunk;
    } else if constexpr (kWidth == 2) {
      out[2 * v] = chunk.x;
      out[2 * v + 1] = chunk.y;
    } else {
      out[4 * v] = chunk.x;
      out[4 * v + 1] = chunk.y;
      out[4 * v + 2] = chunk.z;
      out[4 * v + 3] = chunk.w;
    }
  }
}

/// op(A) op(B) of this thread's register block, from the k-major shared tiles of its problem.
template <typename Shape, typename T>
__device__ __forceinline__ void multiply_block(T (&acc)[Shape::kRowsPerThread][Shape::kColsPerThread], T const* a,
                                               T const* b, ThreadBlockOfC<Shape> const& t) {
  constexpr int S = Shape::kSize, kPitch = Shape::kPitch, kVector = Shape::template kVector<T>;
  constexpr int kRows = Shape::kRowsPerThread, kCols = Shape::kColsPerThread;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int q = 0; q < kCols; ++q) acc[r][q] = T(0);
  }
  a += t.row0;
  b += t.col0;
  // Zero padding past k: no predicate in the loop. Unrolled by 8, not fully: a full unroll lets the
  // scheduler hoist every load of the tile into registers and spill.
#pragma unroll 8
  for (int kk = 0; kk < S; ++kk) {
    T a_values[kRows], b_values[kCols];
    load_contiguous<kRows, kVector>(a_values, a + kk * kPitch);
    load_contiguous<kCols, kVector>(b_values, b + kk * kPitch);
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
    // Slots: op(A) row + k * pitch, op(B) column + k * pitch.
    stage_operand<Shape>(tiles, p.A, params.A_array, p.lda, p.stride_a, a_rows, a_cols, p.trans_a, first, p.batch);
    stage_operand<Shape>(tiles + kOperand, p.B, params.B_array, p.ldb, p.stride_b, b_rows, b_cols, !p.trans_b, first,
                         p.batch);
  };
  auto problem_of = [](std::int64_t group, int local) { return group * Shape::kProblemsPerBlock + local; };

  ThreadBlockOfC<Shape> const t;
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
      multiply_block<Shape>(acc, tiles, tiles + kOperand, t);
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
