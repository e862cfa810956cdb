/*! \file
    \brief The small batched GPU kernel (seed 003 §4.2, the shared-memory design, pipelined): each block
    walks groups of kProblemsPerBlock problems; A and B of the groups ahead are copied into shared
    memory with cp.async (coalesced across the group's problems, zero-padded to the bucket's M x N x K)
    while the current group is multiplied from its stage, each thread holding a register block of C over
    K; one barrier a group. C is copied with A and B where the operands are copied as stored (the exact
    instance), else loaded into registers a group ahead. Shared memory holds op(A) k-major and op(B)
    column-major (transposes are applied by the copy), so a thread's rows and each column's k values
    come in vector loads; untransposed operands of the bucket's exact sizes are copied as they are, 16
    bytes a copy (over a packed group's whole span, or problem by problem for other strides and pointer
    arrays). Pointer arrays are themselves copied into shared memory ahead of use, so no copy waits on a
    pointer load. Three instances per shape (SmallKernelKind): strided batches that take the 16-byte
    copies, other strided batches, pointer arrays; each carries only its own paths' code and registers
    (the ring, the element copies and run-time bounds cost the exact sizes 2-7 points when they shared
    an instance). Global memory sees A and B read once, C read once (beta != 0) and written once.
*/
#pragma once

#include "cuda/arch/cp_async.cuh"
#include "cuda/batched/small_batched.hpp"
#include "cuda/batched/small_batched_config.hpp"

#include <cstdint>

namespace gemmkit::small {

/// The CUDA vector type of kWidth elements of T (1, 2 or 4 floats; 1 or 2 doubles).
template <typename T, int kWidth> struct VectorOf;
template <> struct VectorOf<float, 1> { using type = float; };
template <> struct VectorOf<float, 2> { using type = float2; };
template <> struct VectorOf<float, 4> { using type = float4; };
template <> struct VectorOf<double, 1> { using type = double; };
template <> struct VectorOf<double, 2> { using type = double2; };

/// One operand of a group of kProblemsPerBlock problems starting at problem `first`: a strided
/// batch, or the group's pointers as staged in shared memory (one per problem of the group).
template <typename T>
struct GroupOperand {
  T const* base;
  T const* const* pointers;  ///< shared memory, indexed by the problem's place in the group; or null
  std::int64_t stride;
  std::int64_t first;
  __device__ T const* of(int local) const {
    return pointers != nullptr ? pointers[local] : base + (first + local) * stride;
  }
};

/// Element-by-element copies of one stored operand (column-major, leading dimension ld) of a
/// group's problems into padded tiles (kTileElements per problem, pitch kPitch). A tile holds the
/// operand as kLines lines of kLineLength elements: stored element (i, j) goes to slot
/// i + j * kPitch, or j + i * kPitch when `swap` (the copy transposes; the stored operand is then
/// kLines x kLineLength). Slots past the stored size are zero, so the unrolled K loop needs no
/// predicate. Neighbouring threads copy neighbouring global addresses.
///
/// A thread's copies take the same slots and stored elements in every group of a launch (the sizes
/// are the launch's), so where a thread has few of them (kPlanned) they are worked out once, and
/// the padding slots zeroed once in every stage, never to be written again: a group's copy is then
/// an unpack, an address and a cp.async. Otherwise each copy works out its slot and zeroes padding
/// as it goes. Slots of problems past the batch keep stale values; nothing stores their results.
/// Planned in single precision only: in double, whose addresses and values take more registers,
/// the plan's registers cost more than the copies it saves (5x7x3 f64 on pointer arrays 78 % of
/// the bound without it, 61 % with it; f32 51 % and 63 %; H100, 2026-11-22).
template <typename Shape, typename T, int kLineLength, int kLines, int kPitch, int kTileElements>
struct ElementCopies {
  static constexpr int kPerProblem = kLineLength * kLines;
  static constexpr int kElements = Shape::kProblemsPerBlock * kPerProblem;
  static constexpr int kPasses = (kElements + Shape::kThreads - 1) / Shape::kThreads;
  static constexpr bool kPlanned = kPasses <= 4 && sizeof(T) == 4;  // two registers a copy
  static_assert(Shape::kProblemsPerBlock * kTileElements < (1 << 16) && Shape::kProblemsPerBlock < (1 << 15));

  int target[kPlanned ? kPasses : 1];   ///< slot in the group's tiles | problem in the group << 16; -1: none
  int element[kPlanned ? kPasses : 1];  ///< stored row | stored column << 8

  /// Works out the copies and (kPlanned) zeroes the padding slots of this operand in each stage
  /// (`tiles`: the operand's tiles in the first stage; stages kStageElements apart).
  template <int kStageElements>
  __device__ void init(T* tiles, int rows, int cols, bool swap) {
    if constexpr (kPlanned) {
#pragma unroll
      for (int pass = 0; pass < kPasses; ++pass) {
        int local = 0, i = 0, j = 0, slot = 0;
        bool const exists = place(pass, swap, &local, &i, &j, &slot);
        target[pass] = exists && i < rows && j < cols ? slot | local << 16 : -1;
        element[pass] = i | j << 8;
        if (exists && target[pass] < 0) {
#pragma unroll
          for (int stage = 0; stage < Shape::kStages; ++stage) tiles[stage * kStageElements + slot] = T(0);
        }
      }
    }
  }

  /// Starts copying the group's elements of the operand (stored rows x cols) into `tiles`. The sizes
  /// come from the kernel's parameters at each call, not from registers held across groups.
  __device__ __forceinline__ void copy(T* tiles, GroupOperand<T> const& operand, std::int64_t ld, int rows, int cols,
                                       bool swap, std::int64_t batch) const {
#pragma unroll 4  // cp.async holds no registers: a short unroll keeps addresses out of the register file
    for (int pass = 0; pass < kPasses; ++pass) {
      if constexpr (kPlanned) {
        if (target[pass] < 0) continue;
        int const local = target[pass] >> 16;
        if (operand.first + local >= batch) continue;
        T const* const from = operand.of(local) + (element[pass] & 0xFF) + (element[pass] >> 8) * ld;
        arch::cp_async<int(sizeof(T))>(tiles + (target[pass] & 0xFFFF), from, int(sizeof(T)));
      } else {
        int local = 0, i = 0, j = 0, slot = 0;
        if (!place(pass, swap, &local, &i, &j, &slot)) break;
        if (operand.first + local < batch && i < rows && j < cols) {
          arch::cp_async<int(sizeof(T))>(tiles + slot, operand.of(local) + i + j * ld, int(sizeof(T)));
        } else {
          tiles[slot] = T(0);
        }
      }
    }
  }

 private:
  /// This thread's copy of pass `pass`: the problem in the group, the stored row and column, the
  /// slot; false past the group's elements.
  __device__ static bool place(int pass, bool swap, int* local, int* i, int* j, int* slot) {
    int const e = int(threadIdx.x) + pass * Shape::kThreads;
    if (kElements % Shape::kThreads != 0 && e >= kElements) return false;
    *local = e / kPerProblem;
    int const in_problem = e % kPerProblem;
    // Stored rows run along the tile's lines, or across them when the copy transposes.
    *i = swap ? in_problem % kLines : in_problem % kLineLength;
    *j = swap ? in_problem / kLines : in_problem / kLineLength;
    *slot = *local * kTileElements + (swap ? *i * kPitch + *j : *i + *j * kPitch);
    return true;
  }
};

/// Starts copying the group's span of a packed operand of exactly the bucket's sizes (problem b's
/// kPerProblem elements at base + b * kPerProblem, 16-byte aligned) as it is, 16 bytes per copy:
/// the tile then has the operand's own leading dimension as pitch. Copies past the batch's end are
/// zero-filled.
template <typename Shape, int kPerProblem, typename T>
__device__ __forceinline__ void stage_span(T* tile, T const* base, std::int64_t first, std::int64_t batch) {
  constexpr int kPerCopy = 16 / int(sizeof(T));
  constexpr int kCopies = Shape::kProblemsPerBlock * kPerProblem / kPerCopy;
  T const* const span = base + first * kPerProblem;
  std::int64_t const span_end = (batch - first) * kPerProblem;  // elements of the batch from the span on
  constexpr int kPasses = (kCopies + Shape::kThreads - 1) / Shape::kThreads;
  if (span_end >= std::int64_t(kCopies) * kPerCopy) {
    // Every group but the batch's last: one copy a pass, at offsets known at compile time.
#pragma unroll 4
    for (int pass = 0; pass < kPasses; ++pass) {
      int const copy = int(threadIdx.x) + pass * Shape::kThreads;
      if (kCopies % Shape::kThreads != 0 && copy >= kCopies) break;
      arch::cp_async<16>(tile + copy * kPerCopy, span + copy * kPerCopy, 16);
    }
    return;
  }
  int const left_in_batch = int(span_end);  // under kCopies * kPerCopy
#pragma unroll 1
  for (int pass = 0; pass < kPasses; ++pass) {
    int const copy = int(threadIdx.x) + pass * Shape::kThreads;
    if (kCopies % Shape::kThreads != 0 && copy >= kCopies) break;
    int const left = left_in_batch - copy * kPerCopy;  // batch elements from here on
    if (left >= kPerCopy) {
      arch::cp_async<16>(tile + copy * kPerCopy, span + copy * kPerCopy, 16);
    } else {
      // The batch ends inside or before this copy: element by element, so nothing past it is read.
#pragma unroll
      for (int e = 0; e < kPerCopy; ++e) {
        if (e < left) {
          arch::cp_async<int(sizeof(T))>(tile + copy * kPerCopy + e, span + copy * kPerCopy + e, int(sizeof(T)));
        } else {
          tile[copy * kPerCopy + e] = T(0);
        }
      }
    }
  }
}

/// Starts copying one operand of the group's problems, each stored contiguously (kPerProblem
/// elements, leading dimension the bucket's side), into tiles of kPerProblem elements with that
/// side as pitch: 16 bytes a copy where the problem's start is 16-byte aligned, element by element
/// where it is not (a pointer array may mix both). Tiles past the batch are zero-filled.
template <typename Shape, int kPerProblem, typename T>
__device__ __forceinline__ void stage_problem_chunks(T* tile, GroupOperand<T> const& operand, std::int64_t batch) {
  constexpr int kPerCopy = 16 / int(sizeof(T));
  constexpr int kChunks = kPerProblem / kPerCopy;  // per problem
  static_assert(kPerProblem % kPerCopy == 0);
  constexpr int kCopies = Shape::kProblemsPerBlock * kChunks;
#pragma unroll 4
  for (int pass = 0; pass < (kCopies + Shape::kThreads - 1) / Shape::kThreads; ++pass) {
    int const copy = int(threadIdx.x) + pass * Shape::kThreads;
    if (kCopies % Shape::kThreads != 0 && copy >= kCopies) break;
    int const local = copy / kChunks;
    T* const slot = tile + local * kPerProblem + copy % kChunks * kPerCopy;
    if (operand.first + local >= batch) {
#pragma unroll
      for (int e = 0; e < kPerCopy; ++e) slot[e] = T(0);
      continue;
    }
    T const* const from = operand.of(local) + copy % kChunks * kPerCopy;
    if (reinterpret_cast<std::uintptr_t>(from) % 16 == 0) {
      arch::cp_async<16>(slot, from, 16);
    } else {
#pragma unroll
      for (int e = 0; e < kPerCopy; ++e) arch::cp_async<int(sizeof(T))>(slot + e, from + e, int(sizeof(T)));
    }
  }
}

/// Stores a group's C from its tiles in a stage (problem `local`'s m x n elements at
/// tile + local * kPerProblem, as the exact instance stages C) to strided global memory, 16 bytes a
/// store: over the group's whole span where the batch is packed (kSpans), else problem by problem,
/// element by element where a problem's start is not 16-byte aligned. Nothing past the batch is
/// written. Neighbouring threads store neighbouring addresses, where a thread holding a whole
/// problem would store addresses a problem apart.
template <typename Shape, int kPerProblem, typename T>
__device__ __forceinline__ void store_staged_c(T const* tile, T* c, std::int64_t stride_c, std::int64_t first,
                                               std::int64_t batch, bool packed) {
  constexpr int kPerCopy = 16 / int(sizeof(T));
  using Vector = typename VectorOf<T, kPerCopy>::type;
  int const live = int(batch - first < Shape::kProblemsPerBlock ? batch - first : Shape::kProblemsPerBlock);
  if (packed) {
    T* const span = c + first * kPerProblem;
    int const elements = live * kPerProblem;
    for (int copy = int(threadIdx.x); copy * kPerCopy < elements; copy += Shape::kThreads) {
      int const at = copy * kPerCopy;
      if (elements - at >= kPerCopy) {
        *reinterpret_cast<Vector*>(span + at) = *reinterpret_cast<Vector const*>(tile + at);
      } else {
        for (int e = at; e < elements; ++e) span[e] = tile[e];
      }
    }
    return;
  }
  constexpr int kChunks = (kPerProblem + kPerCopy - 1) / kPerCopy;  // per problem, the last maybe short
  for (int copy = int(threadIdx.x); copy < live * kChunks; copy += Shape::kThreads) {
    int const local = copy / kChunks;
    int const at = copy % kChunks * kPerCopy;
    T* const to = c + (first + local) * stride_c + at;
    T const* const from = tile + local * kPerProblem + at;
    if (at + kPerCopy <= kPerProblem && reinterpret_cast<std::uintptr_t>(to) % 16 == 0 &&
        reinterpret_cast<std::uintptr_t>(from) % 16 == 0) {
      *reinterpret_cast<Vector*>(to) = *reinterpret_cast<Vector const*>(from);
    } else {
      for (int e = 0; e < kPerCopy && at + e < kPerProblem; ++e) to[e] = from[e];
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

/// Loads (beta != 0) this thread's elements of its problem's C (m x n at `base`; `live`: the
/// thread has a problem in this group) into registers; they are used one group later, so the
/// loads are in flight while the current group is multiplied.
template <typename Shape, typename T>
__device__ __forceinline__ void load_c(T (&c)[Shape::kRowsPerThread][Shape::kColsPerThread], ThreadBlockOfC<Shape> const& t,
                                       int m, int n, KernelParams<T> const& p, bool live_problem, T const* base) {
  bool const live = live_problem && p.beta != T(0);
#pragma unroll
  for (int r = 0; r < Shape::kRowsPerThread; ++r) {
#pragma unroll
    for (int q = 0; q < Shape::kColsPerThread; ++q) {
      c[r][q] = live && t.row(r) < m && t.col(q) < n ? base[t.row(r) + t.col(q) * p.ldc] : T(0);
    }
  }
}

/// Elements per vector load: the widest of 16 bytes, 2 elements or 1 that divides both the count
/// of contiguous elements wanted and the tile pitch (so every such load is aligned).
template <typename T>
constexpr int vector_width(int count, int pitch) {
  for (int width = int(16 / sizeof(T)); width > 1; width /= 2) {
    if (count % width == 0 && pitch % width == 0) return width;
  }
  return 1;
}

/// kCount contiguous elements of shared memory, kWidth per load.
template <int kCount, int kWidth, typename T>
__device__ __forceinline__ void load_contiguous(T (&out)[kCount], T const* from) {
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

/// op(A) op(B) of this thread's register block from its problem's shared tiles: op(A) k-major
/// (a[k * kPitchA + row]) and op(B) column-major (b[col * kPitchB + k]), so the thread's rows come
/// in vectors along the row and each of its columns in vectors along k.
template <typename Shape, int kPitchA, int kPitchB, typename T>
__device__ __forceinline__ void multiply_block(T (&acc)[Shape::kRowsPerThread][Shape::kColsPerThread], T const* a,
                                               T const* b, ThreadBlockOfC<Shape> const& t) {
  constexpr int K = Shape::kK;
  constexpr int kRows = Shape::kRowsPerThread, kCols = Shape::kColsPerThread;
  constexpr int kRowWidth = vector_width<T>(kRows, kPitchA);
  constexpr int kDepth = vector_width<T>(K, kPitchB);  // k values per load of a column of op(B)
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int q = 0; q < kCols; ++q) acc[r][q] = T(0);
  }
  a += t.row0;
  b += t.col0 * kPitchB;
  // Zero padding past k: no predicate in the loop. Partly unrolled: a full unroll lets the
  // scheduler hoist every load of the tile into registers and spill.
#pragma unroll(kDepth >= 4 ? 2 : 8 / kDepth)
  for (int k0 = 0; k0 < K; k0 += kDepth) {
    T b_values[kCols][kDepth];
#pragma unroll
    for (int q = 0; q < kCols; ++q) load_contiguous<kDepth, kDepth>(b_values[q], b + q * kPitchB + k0);
#pragma unroll
    for (int u = 0; u < kDepth; ++u) {
      T a_values[kRows];
      load_contiguous<kRows, kRowWidth>(a_values, a + (k0 + u) * kPitchA);
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
#pragma unroll
        for (int q = 0; q < kCols; ++q) acc[r][q] += a_values[r] * b_values[q][u];
      }
    }
  }
}

/// The pointer arrays' entries of groups of problems (A, B and C pointers of each problem), staged
/// in shared memory after the operand stages (Shape::kPointerRingSlots slots, see
/// kPointerLead): no copy of an operand waits on a load of its pointer.
template <typename Shape, typename T>
struct PointerRing {
  static constexpr int kProblems = Shape::kProblemsPerBlock;
  static constexpr int kPerSlot = 3 * kProblems;  ///< A's pointers, then B's, then C's
  T const** entries;
  __device__ T const* const* a(int slot) const { return entries + slot * kPerSlot; }
  __device__ T const* const* b(int slot) const { return entries + slot * kPerSlot + kProblems; }
  /// C's pointers, stored as pointers to const like the others (the copy moves bytes).
  __device__ T* c(int slot, int local) const { return const_cast<T*>(entries[slot * kPerSlot + 2 * kProblems + local]); }
  /// Starts copying the entries of the group's problems (the first is `first`) into `slot`, thread
  /// i those of problem i (a block has a thread per problem at least); entries past the batch are
  /// not written (nothing reads them).
  __device__ void stage(SmallBatchParams<T> const& params, std::int64_t first, int slot) const {
    static_assert(Shape::kThreads >= kProblems);
    int const local = int(threadIdx.x);
    std::int64_t const problem = first + local;
    if (local >= kProblems || problem >= params.gemm.batch) return;
    T const** const to = entries + slot * kPerSlot + local;
    constexpr int kBytes = int(sizeof(void*));
    arch::cp_async<kBytes>(to, params.A_array + problem, kBytes);
    arch::cp_async<kBytes>(to + kProblems, params.B_array + problem, kBytes);
    arch::cp_async<kBytes>(to + 2 * kProblems, params.C_array + problem, kBytes);
  }
};

/// How a launch's operands reach shared memory, decided from its parameters alone (the host picks
/// the kernel family by it, the kernel its copies).
enum class CopyPath {
  kSpans,          ///< packed strided batch of the bucket's exact sizes: 16-byte copies over each group's span
  kProblemChunks,  ///< the bucket's exact sizes, problems of whole 16-byte copies: any stride, pointer arrays
  kElements,       ///< anything else: element by element into zero-padded tiles
};

template <typename Shape, typename T>
__host__ __device__ inline CopyPath copy_path(SmallBatchParams<T> const& params) {
  constexpr int M = Shape::kM, N = Shape::kN, K = Shape::kK;
  KernelParams<T> const& p = params.gemm;
  bool const arrays = params.A_array != nullptr;
  bool const reads_c = p.beta != T(0);
  // C is copied into the stages too where it is read (the exact instance): stored with the bucket's
  // rows as leading dimension.
  bool const exact = !p.trans_a && !p.trans_b && p.m == M && p.n == N && p.k == K && p.lda == M && p.ldb == K &&
                     (!reads_c || p.ldc == M);
  auto aligned = [](T const* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; };
  bool const packed = !arrays && p.stride_a == M * K && p.stride_b == K * N && aligned(p.A) && aligned(p.B) &&
                      (!reads_c || (p.stride_c == M * N && aligned(p.C)));
  if (Shape::template group_spans_whole_copies<T>() && exact && packed) return CopyPath::kSpans;
  if (Shape::template problems_whole_copies<T>() && exact) return CopyPath::kProblemChunks;
  return CopyPath::kElements;
}

/// Which batches an instance of the kernel runs (the launcher picks by copy_path).
enum class SmallKernelKind {
  kStridedExact,   ///< strided, copy path kSpans or kProblemChunks: C's bounds are the bucket's sides, C is staged
  kStridedAny,     ///< strided, copy path kElements
  kPointerArrays,  ///< device pointer arrays (params' A_array, B_array, C_array), any copy path but kSpans
};

template <typename Shape, typename T, SmallKernelKind kKind>
__global__ void __launch_bounds__(Shape::kThreads, Shape::template min_blocks_per_sm<T, kKind != SmallKernelKind::kStridedExact>()) small_batched_kernel(SmallBatchParams<T> const params) {
  static_assert(Shape::valid());
#if __CUDA_ARCH__ >= 900
  // A kernel launched to overlap this one (the next group of a grouped call) may start as this
  // one's blocks retire; it touches other memory, so it need not wait for this one's stores.
  asm volatile("griddepcontrol.launch_dependents;");
#endif
  constexpr int kRows = Shape::kRowsPerThread, kCols = Shape::kColsPerThread;
  constexpr int M = Shape::kM, N = Shape::kN, K = Shape::kK;
  KernelParams<T> const& p = params.gemm;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* const stages = reinterpret_cast<T*>(shared_bytes);
  constexpr bool arrays = kKind == SmallKernelKind::kPointerArrays;
  constexpr bool kExact = kKind == SmallKernelKind::kStridedExact;
  constexpr bool kMayCopyElements = !kExact;
  // The exact instance's tiles are unpadded and hold C as well; the others load C into registers a
  // group ahead.
  constexpr bool kStagedC = kExact;
  // A thread holding a whole problem would store C a problem apart from its neighbours: with C
  // staged, it writes its results back over its problem's C in the stage, and the block stores the
  // group from there after a barrier, neighbouring threads neighbouring addresses.
  constexpr bool kStoresThroughStage = kStagedC && Shape::kThreadsPerProblem == 1;
  using Stage = typename Shape::template Stage<kMayCopyElements>;
  constexpr int kOperandA = Stage::kOperandA;  // op(B)'s tiles start here in a stage
  // Pointer arrays' entries go through the ring after the stages.
  PointerRing<Shape, T> const ring{reinterpret_cast<T const**>(shared_bytes + Shape::template shared_bytes<T, kMayCopyElements>())};

  CopyPath const path = kKind == SmallKernelKind::kStridedAny ? CopyPath::kElements : copy_path<Shape>(params);
  bool const contiguous_tiles = path == CopyPath::kSpans || path == CopyPath::kProblemChunks;
  bool const reads_c = p.beta != T(0);
  // The exact instance runs only the bucket's sizes: C's bounds are constants there.
  int const m = kExact ? M : int(p.m), n = kExact ? N : int(p.n);
  // Element copies (path kElements): op(A) as K lines of M rows, op(B) as N lines of K values.
  ElementCopies<Shape, T, M, K, Shape::kPitchA, Shape::kTileElementsA> copies_a;
  ElementCopies<Shape, T, K, N, Shape::kPitchB, Shape::kTileElementsB> copies_b;
  // The stored operands' sizes, read from the parameters where used.
  auto a_rows = [&] { return p.trans_a ? int(p.k) : int(p.m); };
  auto a_cols = [&] { return p.trans_a ? int(p.m) : int(p.k); };
  auto b_rows = [&] { return p.trans_b ? int(p.n) : int(p.k); };
  auto b_cols = [&] { return p.trans_b ? int(p.k) : int(p.n); };
  if (kMayCopyElements && path == CopyPath::kElements) {
    copies_a.template init<Stage::kElements>(stages, a_rows(), a_cols(), p.trans_a);
    copies_b.template init<Stage::kElements>(stages + kOperandA, b_rows(), b_cols(), p.trans_b);
  }
  // The group whose first problem is `first`; `slot`: where its pointers are in the ring (unused
  // for strided batches).
  auto stage_group = [&](std::int64_t first, int stage, int slot) {
    T* const tiles = stages + stage * Stage::kElements;
    if (kExact && path == CopyPath::kSpans) {
      stage_span<Shape, M * K>(tiles, p.A, first, p.batch);
      stage_span<Shape, K * N>(tiles + kOperandA, p.B, first, p.batch);
      if (kStagedC && reads_c) stage_span<Shape, M * N>(tiles + Stage::kOperandC, p.C, first, p.batch);
      return;
    }
    GroupOperand<T> const a{p.A, arrays ? ring.a(slot) : nullptr, p.stride_a, first};
    GroupOperand<T> const b{p.B, arrays ? ring.b(slot) : nullptr, p.stride_b, first};
    if constexpr (Shape::template problems_whole_copies<T>()) {
      if (path == CopyPath::kProblemChunks) {
        stage_problem_chunks<Shape, M * K>(tiles, a, p.batch);
        stage_problem_chunks<Shape, K * N>(tiles + kOperandA, b, p.batch);
        if (kStagedC && reads_c) {
          stage_problem_chunks<Shape, M * N>(tiles + Stage::kOperandC, GroupOperand<T>{p.C, nullptr, p.stride_c, first},
                                             p.batch);
        }
        return;
      }
    }
    if constexpr (kMayCopyElements) {
      copies_a.copy(tiles, a, p.lda, a_rows(), a_cols(), p.trans_a, p.batch);
      copies_b.copy(tiles + kOperandA, b, p.ldb, b_rows(), b_cols(), p.trans_b, p.batch);
    }
  };
  ThreadBlockOfC<Shape> const t;
  constexpr int kStages = Shape::kStages;
  constexpr int kLead = Shape::kPointerLead;
  constexpr int kSlots = Shape::kPointerRingSlots;
  static_assert(kSlots % kStages == 0 && kLead < kSlots && kLead >= 2 * kStages - 2);
  auto slot_plus = [](int slot, int steps) {  // steps < kSlots: a compare, not a division
    return slot + steps >= kSlots ? slot + steps - kSlots : slot + steps;
  };
  std::int64_t const grid_problems = std::int64_t(gridDim.x) * Shape::kProblemsPerBlock;
  // Whether this thread has an element of C in the group whose first problem is `first`.
  auto live = [&](std::int64_t first) { return t.computes && first + t.local < p.batch; };

  // Iteration j multiplies the group of problems first = (blockIdx.x + j * gridDim.x) * kProblemsPerBlock
  // from stage j % kStages, its pointers in ring slot j % kSlots. It waits for that group's copies
  // (started kStages - 1 iterations ago), then, past the one barrier of the iteration (every thread
  // is done with the previous group), starts the copies of the group kStages - 1 on into the
  // previous group's stage, those of the pointers of the group kLead on into the previous group's
  // slot, and (C in registers) the loads of the next group's C. Strided C is stepped by
  // params.c_advance (no 64-bit multiply in the loop).
  T c_now[kStagedC ? 1 : kRows][kStagedC ? 1 : kCols], c_next[kStagedC ? 1 : kRows][kStagedC ? 1 : kCols];
  std::int64_t first = std::int64_t(blockIdx.x) * Shape::kProblemsPerBlock;
  T* c_here = arrays ? nullptr : p.C + (first + t.local) * p.stride_c;  // strided: this group's C
  if constexpr (arrays) {
    for (int ahead = 0; ahead < kLead; ++ahead) ring.stage(params, first + ahead * grid_problems, ahead);
    arch::cp_async_commit();
    arch::cp_async_wait<0>();
    __syncthreads();
  }
#pragma unroll
  for (int ahead = 0; ahead < kStages - 1; ++ahead) {
    if (first + ahead * grid_problems < p.batch) stage_group(first + ahead * grid_problems, ahead, ahead);
    arch::cp_async_commit();
  }
  if constexpr (!kStagedC) {
    load_c<Shape>(c_now, t, m, n, p, live(first), arrays && live(first) ? ring.c(0, t.local) : c_here);
  }
  for (int stage = 0, slot = 0; first < p.batch; first += grid_problems) {
    arch::cp_async_wait<kStages - 2>();  // this thread's copies of `first`'s group have landed
    __syncthreads();                     // and everyone's; everyone is done with the previous group
    if (std::int64_t const far = first + (kStages - 1) * grid_problems; far < p.batch) {
      stage_group(far, stage == 0 ? kStages - 1 : stage - 1, slot_plus(slot, kStages - 1));
    }
    if constexpr (arrays) ring.stage(params, first + kLead * grid_problems, slot_plus(slot, kLead));
    arch::cp_async_commit();
    T* c_after = nullptr;  // the next group's C (strided: this thread's problem there)
    if constexpr (!kStagedC) {
      bool const live_next = live(first + grid_problems);
      c_after = arrays ? (live_next ? ring.c(slot_plus(slot, 1), t.local) : nullptr) : c_here + params.c_advance;
      load_c<Shape>(c_next, t, m, n, p, live_next, c_after);
    } else {
      c_after = c_here + params.c_advance;
    }

    if (live(first)) {
      T* const c = arrays ? ring.c(slot, t.local) : c_here;
      T* const stage_tiles = stages + stage * Stage::kElements;
      T const* const a_tiles = stage_tiles;
      T const* const b_tiles = a_tiles + kOperandA;
      T acc[kRows][kCols];
      if (contiguous_tiles) {
        multiply_block<Shape, M, K>(acc, a_tiles + t.local * M * K, b_tiles + t.local * K * N, t);
      } else if (kMayCopyElements) {
        multiply_block<Shape, Shape::kPitchA, Shape::kPitchB>(acc, a_tiles + t.local * Shape::kTileElementsA,
                                                              b_tiles + t.local * Shape::kTileElementsB, t);
      }
      T* const c_tile = stage_tiles + Stage::kOperandC + t.local * M * N;  // kStagedC: this problem's C as stored
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
#pragma unroll
        for (int q = 0; q < kCols; ++q) {
          if (t.row(r) < m && t.col(q) < n) {
            T value = p.alpha * acc[r][q];
            if (reads_c) {
              if constexpr (kStagedC) value += p.beta * c_tile[t.row(r) + t.col(q) * M];
              else value += p.beta * c_now[r][q];
            }
            if constexpr (kStoresThroughStage) c_tile[t.row(r) + t.col(q) * M] = value;
            else c[t.row(r) + t.col(q) * p.ldc] = value;
          }
        }
      }
    }
    if constexpr (kStoresThroughStage) {
      __syncthreads();  // every result of the group is in the stage
      store_staged_c<Shape, M * N>(stages + stage * Stage::kElements + Stage::kOperandC, p.C, p.stride_c, first, p.batch,
                                   path == CopyPath::kSpans);
    }
    if constexpr (!kStagedC) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
#pragma unroll
        for (int q = 0; q < kCols; ++q) c_now[r][q] = c_next[r][q];
      }
    }
    if constexpr (!arrays) c_here = c_after;
    stage = stage + 1 == kStages ? 0 : stage + 1;
    slot = slot_plus(slot, 1);
  }
  arch::cp_async_wait<0>();
}

}  // namespace gemmkit::small
