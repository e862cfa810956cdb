/*! \file
    \brief The flat small batched GPU kernel and its launcher. Each block walks groups of problems;
    a group's A, B and C are copied into a stage as stored (16 bytes a copy over a packed span or a
    contiguous problem, else element by element) while an earlier group is multiplied; one barrier
    a group. The group's elements of C, single or in 2 x 2 blocks, are dealt round the block's
    threads once per launch (block e to thread e mod 256, its problem, rows and columns worked out
    then), so a group costs a thread only its multiply-adds and one store per element: no padding,
    no per-size instance, no division in the loop. Where the size-templated kernel would pad a
    problem to a larger bucket and copy it element by element, this one moves only its bytes.
*/
#include "cuda/batched/flat_batched.hpp"

#include "cuda/arch/cp_async.cuh"
#include "cuda/batched/small_batched.cuh"
#include "cuda/batched/small_batched_config.hpp"
#include "cuda/batched/small_tuning.hpp"

#include <algorithm>
#include <numeric>
#include <type_traits>

namespace gemmkit::small {

namespace {

/// Pointer arrays' entries of a few groups ahead (kFlatPointerLead), staged in shared memory after
/// the stages so no copy waits on a pointer load: slot s holds the group's A pointers, then B's,
/// then C's.
template <typename T>
struct FlatRing {
  T const** entries;
  int problems;
  __device__ T const* const* slot(int s) const { return entries + s * 3 * problems; }
  __device__ T* c(int s, int local) const { return const_cast<T*>(entries[(s * 3 + 2) * problems + local]); }
  /// Thread i starts copying problem i's three pointers (first = the group's first problem).
  __device__ void stage(SmallBatchParams<T> const& params, std::int64_t first, int s) const {
    int const local = int(threadIdx.x);
    if (local >= problems || first + local >= params.gemm.batch) return;
    T const** const to = entries + s * 3 * problems + local;
    constexpr int kBytes = int(sizeof(void*));
    arch::cp_async<kBytes>(to, params.A_array + first + local, kBytes);
    arch::cp_async<kBytes>(to + problems, params.B_array + first + local, kBytes);
    arch::cp_async<kBytes>(to + 2 * problems, params.C_array + first + local, kBytes);
  }
};

/// Starts copying one operand of a group (problems [first, first + live) exist; `pointers`: the
/// group's staged pointers (kArrays), else a strided batch) into its tiles.
template <bool kArrays, typename T>
__device__ __forceinline__ void copy_operand(T* tiles, FlatOperand const& op, T const* base,
                                             std::int64_t stride, std::int64_t ld, T const* const* pointers,
                                             std::int64_t first, int live) {
  constexpr int kPerCopy = 16 / int(sizeof(T));
  int const per_problem = op.rows * op.cols;
  // Which of the two is known per instance: the other's address arithmetic is not compiled in.
  auto of = [&](int local) {
    if constexpr (kArrays) return pointers[local];
    else return base + (first + local) * stride;
  };
  if (!kArrays && op.mode == FlatCopyMode::kSpans) {
    // Packed, tile == rows * cols: the group's problems are one span, and so are their tiles.
    T const* const span = base + first * per_problem;
    int const elements = live * per_problem;
    for (int copy = int(threadIdx.x); copy * kPerCopy < elements; copy += kFlatThreads) {
      int const left = elements - copy * kPerCopy;
      if (left >= kPerCopy) {
        arch::cp_async<16>(tiles + copy * kPerCopy, span + copy * kPerCopy, 16);
      } else {
        // The batch ends inside this copy: element by element, so nothing past it is read.
        for (int e = 0; e < left; ++e) {
          arch::cp_async<int(sizeof(T))>(tiles + copy * kPerCopy + e, span + copy * kPerCopy + e, int(sizeof(T)));
        }
      }
    }
  } else if (op.mode == FlatCopyMode::kChunks) {
    int const chunks = per_problem / kPerCopy;  // per problem
    for (int copy = int(threadIdx.x); copy < live * chunks; copy += kFlatThreads) {
      int const local = op.by_elements.quotient(copy);
      int const offset = (copy - local * chunks) * kPerCopy;
      T const* const from = of(local) + offset;
      T* const to = tiles + local * op.tile + offset;
      if (reinterpret_cast<std::uintptr_t>(from) % 16 == 0) {
        arch::cp_async<16>(to, from, 16);
      } else {
#pragma unroll
        for (int e = 0; e < kPerCopy; ++e) arch::cp_async<int(sizeof(T))>(to + e, from + e, int(sizeof(T)));
      }
    }
  } else if (op.mode == FlatCopyMode::kColumns) {
    // Each stored column is whole 16-byte copies; its tile column starts at a multiple of the pitch.
    int const column_chunks = op.rows / kPerCopy;
    int const chunks = column_chunks * op.cols;  // per problem
    for (int copy = int(threadIdx.x); copy < live * chunks; copy += kFlatThreads) {
      int const local = op.by_elements.quotient(copy);
      int const in_problem = copy - local * chunks;
      int const j = op.by_rows.quotient(in_problem);
      int const offset = (in_problem - j * column_chunks) * kPerCopy;
      T const* const from = of(local) + j * ld + offset;
      T* const to = tiles + local * op.tile + j * op.pitch + offset;
      if (reinterpret_cast<std::uintptr_t>(from) % 16 == 0) {
        arch::cp_async<16>(to, from, 16);
      } else {
#pragma unroll
        for (int e = 0; e < kPerCopy; ++e) arch::cp_async<int(sizeof(T))>(to + e, from + e, int(sizeof(T)));
      }
    }
  } else if (op.mode == FlatCopyMode::kRuns) {
    // Each problem's operand is one run and its tile the same run: element e of the group is
    // element e of the tiles.
    for (int e = int(threadIdx.x); e < live * per_problem; e += kFlatThreads) {
      int const local = op.by_elements.quotient(e);
      arch::cp_async<int(sizeof(T))>(tiles + e, of(local) + (e - local * per_problem), int(sizeof(T)));
    }
  } else {
    for (int e = int(threadIdx.x); e < live * per_problem; e += kFlatThreads) {
      int const local = op.by_elements.quotient(e);
      int const in_problem = e - local * per_problem;
      int const j = op.by_rows.quotient(in_problem);
      int const i = in_problem - j * op.rows;
      arch::cp_async<int(sizeof(T))>(tiles + local * op.tile + i + j * op.pitch, of(local) + i + j * ld,
                                     int(sizeof(T)));
    }
  }
}

template <typename T, bool kArrays, int kBlock>
__global__ void __launch_bounds__(kFlatThreads, kFlatBlocksPerSm) flat_batched_kernel(FlatBatchParams<T> const params) {
#if __CUDA_ARCH__ >= 900
  // A kernel launched to overlap this one (the next group of a grouped call) may start as this
  // one's blocks retire; it touches other memory, so it need not wait for this one's stores.
  asm volatile("griddepcontrol.launch_dependents;");
#endif
  constexpr int kSlots = flat_blocks_per_thread<T>(kArrays, kBlock);
  KernelParams<T> const& p = params.batch.gemm;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* const stages = reinterpret_cast<T*>(shared_bytes);
  int const problems = params.problems;
  FlatRing<T> const ring{reinterpret_cast<T const**>(shared_bytes + std::size_t(kFlatStages) * params.stage_elements * sizeof(T)),
                         problems};
  int const m = int(p.m), n = int(p.n);
  int const mn = m * n;
  bool const reads_c = p.beta != T(0);
  int const b_offset = params.b_offset, c_offset = params.c_offset;

  // This thread's kBlock x kBlock blocks of C in every group: block e = threadIdx.x + i * kFlatThreads
  // of the group's problems x column blocks x row blocks, worked out once: where its rows of op(A)
  // and columns of op(B) start in a stage, and its problem | first row << 8 | first column << 16
  // (problem `problems` past the group's blocks: never live, and its loads stay in the stage; rows
  // and columns past m and n read neighbouring tiles or the stage's tail, and are not stored).
  int a_start[kSlots], b_start[kSlots], place[kSlots];
  int const blocks_per_problem = params.row_blocks * params.col_blocks;
  int const used_slots = (problems * blocks_per_problem + kFlatThreads - 1) / kFlatThreads;  // by some thread
#pragma unroll
  for (int i = 0; i < kSlots; ++i) {
    int const e = int(threadIdx.x) + i * kFlatThreads;
    bool const exists = e < problems * blocks_per_problem;
    int const local = exists ? params.by_blocks.quotient(e) : problems;
    int const in_problem = exists ? e - local * blocks_per_problem : 0;
    int const col_block = params.by_row_blocks.quotient(in_problem);
    int const row = (in_problem - col_block * params.row_blocks) * kBlock, col = col_block * kBlock;
    a_start[i] = int(sizeof(T)) * (exists ? local * params.a.tile + row * params.a_row_step : 0);
    b_start[i] = int(sizeof(T)) * (exists ? b_offset + local * params.b.tile + col * params.b_col_step : 0);
    place[i] = local | row << 8 | col << 16;
  }

  auto stage_group = [&](std::int64_t first, int stage, int slot) {
    T* const tiles = stages + stage * params.stage_elements;
    int const live = int(p.batch - first < problems ? p.batch - first : problems);
    T const* const* const pointers = kArrays ? ring.slot(slot) : nullptr;
    copy_operand<kArrays>(tiles, params.a, p.A, p.stride_a, p.lda, pointers, first, live);
    copy_operand<kArrays>(tiles + b_offset, params.b, p.B, p.stride_b, p.ldb, kArrays ? pointers + problems : nullptr,
                 first, live);
    if (reads_c) {
      copy_operand<kArrays, T>(tiles + c_offset, params.c, p.C, p.stride_c, p.ldc,
                      kArrays ? pointers + 2 * problems : nullptr, first, live);
    }
  };

  auto slot_plus = [](int slot, int steps) {
    return slot + steps >= kFlatPointerSlots ? slot + steps - kFlatPointerSlots : slot + steps;
  };
  std::int64_t const grid_problems = std::int64_t(gridDim.x) * problems;
  std::int64_t first = std::int64_t(blockIdx.x) * problems;
  if constexpr (kArrays) {
    for (int ahead = 0; ahead < kFlatPointerLead; ++ahead) ring.stage(params.batch, first + ahead * grid_problems, ahead);
    arch::cp_async_commit();
    arch::cp_async_wait<0>();
    __syncthreads();
  }
#pragma unroll
  for (int ahead = 0; ahead < kFlatStages - 1; ++ahead) {
    if (first + ahead * grid_problems < p.batch) stage_group(first + ahead * grid_problems, ahead, ahead);
    arch::cp_async_commit();
  }
  // As in the size-templated kernel: iteration j multiplies the group of stage j % kFlatStages after
  // one barrier, past which the copies of the group kFlatStages - 1 on go into the stage every
  // thread is done with.
  for (int stage = 0, slot = 0; first < p.batch; first += grid_problems) {
    arch::cp_async_wait<kFlatStages - 2>();
    __syncthreads();
    if (std::int64_t const far = first + (kFlatStages - 1) * grid_problems; far < p.batch) {
      stage_group(far, stage == 0 ? kFlatStages - 1 : stage - 1, slot_plus(slot, kFlatStages - 1));
    }
    if constexpr (kArrays) ring.stage(params.batch, first + kFlatPointerLead * grid_problems, slot_plus(slot, kFlatPointerLead));
    arch::cp_async_commit();

    T const* const tiles = stages + stage * params.stage_elements;
    T acc[kSlots][kBlock][kBlock];
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
#pragma unroll
      for (int r = 0; r < kBlock; ++r) {
#pragma unroll
        for (int q = 0; q < kBlock; ++q) acc[i][r][q] = T(0);
      }
    }
    int const k = int(p.k);
    // k outermost: its step is the same for every element, so each slot's row of op(A) and column
    // of op(B) are two pointers stepped by a uniform amount, a load and an add each. Where shared
    // memory holds fewer problems than the block has slots for, the slots no thread of the block
    // has are skipped (a uniform branch), not multiplied.
    // The starts are in bytes and each k's offset is the same for every thread: a load is the
    // thread's start plus a uniform base.
    auto element = [](unsigned char const* base, int bytes) { return *reinterpret_cast<T const*>(base + bytes); };
    auto vector_at = [](unsigned char const* base, int bytes) { return reinterpret_cast<T const*>(base + bytes); };
    unsigned char const* const stage_bytes = reinterpret_cast<unsigned char const*>(tiles);
    int const a_row_bytes = params.a_row_step * int(sizeof(T)), b_col_bytes = params.b_col_step * int(sizeof(T));
    auto multiply = [&](auto some_slots_unused) {
#pragma unroll 1
      for (int kk = 0; kk < k; ++kk) {
        unsigned char const* const a_k = stage_bytes + kk * params.a_k_step * int(sizeof(T));
        unsigned char const* const b_k = stage_bytes + kk * params.b_k_step * int(sizeof(T));
#pragma unroll
        for (int i = 0; i < kSlots; ++i) {
          if (some_slots_unused && i >= used_slots) break;
          T a[kBlock], b[kBlock];
#pragma unroll
          for (int r = 0; r < kBlock; ++r) a[r] = element(a_k, a_start[i] + r * a_row_bytes);
#pragma unroll
          for (int q = 0; q < kBlock; ++q) b[q] = element(b_k, b_start[i] + q * b_col_bytes);
#pragma unroll
          for (int r = 0; r < kBlock; ++r) {
#pragma unroll
            for (int q = 0; q < kBlock; ++q) acc[i][r][q] += a[r] * b[q];
          }
        }
      }
    };
    // The same with kVector values of k a load (params.k_vectors: a_k_step = b_k_step = 1, k a
    // multiple of kVector, every row of op(A) and column of op(B) 16-byte aligned).
    constexpr int kVector = 16 / int(sizeof(T));
    auto multiply_vectors = [&](auto some_slots_unused) {
#pragma unroll 1
      for (int kk = 0; kk < k; kk += kVector) {
        unsigned char const* const k_at = stage_bytes + kk * int(sizeof(T));  // a_k_step = b_k_step = 1
#pragma unroll
        for (int i = 0; i < kSlots; ++i) {
          if (some_slots_unused && i >= used_slots) break;
          T a[kBlock][kVector], b[kBlock][kVector];
#pragma unroll
          for (int r = 0; r < kBlock; ++r) load_contiguous<kVector, kVector>(a[r], vector_at(k_at, a_start[i] + r * a_row_bytes));
#pragma unroll
          for (int q = 0; q < kBlock; ++q) load_contiguous<kVector, kVector>(b[q], vector_at(k_at, b_start[i] + q * b_col_bytes));
#pragma unroll
          for (int u = 0; u < kVector; ++u) {
#pragma unroll
            for (int r = 0; r < kBlock; ++r) {
#pragma unroll
              for (int q = 0; q < kBlock; ++q) acc[i][r][q] += a[r][u] * b[q][u];
            }
          }
        }
      }
    };
    // 2 x 2 blocks only (plan_flat_batched): with 1 x 1 blocks' many slots the vectors spill.
    if (kBlock == 2 && params.k_vectors) {
      if constexpr (kBlock == 2) {
        if (used_slots < kSlots) multiply_vectors(std::true_type{});
        else multiply_vectors(std::false_type{});
      }
    } else {
      if (used_slots < kSlots) multiply(std::true_type{});
      else multiply(std::false_type{});
    }
    int const live = int(p.batch - first < problems ? p.batch - first : problems);
    T* const c_strided = kArrays ? nullptr : p.C + first * p.stride_c;
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      int const local = place[i] & 0xFF;
      if (local >= live) continue;
      int const row0 = place[i] >> 8 & 0xFF, col0 = place[i] >> 16;
      T* const c = kArrays ? ring.c(slot, local) : c_strided + local * p.stride_c;
      // C's tiles are m x n with pitch m: with 1 x 1 blocks, block e of the group is at e.
      T const* const c_tile = tiles + c_offset + (kBlock == 1 ? int(threadIdx.x) + i * kFlatThreads : local * mn + row0 + col0 * m);
#pragma unroll
      for (int r = 0; r < kBlock; ++r) {
#pragma unroll
        for (int q = 0; q < kBlock; ++q) {
          int const row = row0 + r, col = col0 + q;
          if (kBlock == 1 || (row < m && col < n)) {
            T value = p.alpha * acc[i][r][q];
            if (reads_c) value += p.beta * c_tile[r + q * m];
            c[row + col * p.ldc] = value;
          }
        }
      }
    }
    stage = stage + 1 == kFlatStages ? 0 : stage + 1;
    slot = slot_plus(slot, 1);
  }
  arch::cp_async_wait<0>();
}

/// The element-copy fields of an operand of rows x cols (leading dimension `ld`) staged with
/// pitch `pitch`, then the 16-byte modes where the batch's layout allows them.
FlatOperand plan_operand(int rows, int cols, int pitch, int element_bytes, int problems, bool strided,
                         std::int64_t stride, std::int64_t ld, void const* base) {
  FlatOperand op;
  op.rows = rows, op.cols = cols, op.pitch = pitch, op.tile = pitch * cols;
  op.by_elements = FastDivisor(std::uint32_t(rows * cols));
  op.by_rows = FastDivisor(std::uint32_t(rows));
  int const per_copy = 16 / element_bytes;
  bool const contiguous = pitch == rows && (cols == 1 || ld == rows);  // each problem's operand as one run
  if (!contiguous) {
    if (rows % per_copy == 0 && pitch % per_copy == 0 && ld % per_copy == 0) {
      op.mode = FlatCopyMode::kColumns;
      op.by_elements = FastDivisor(std::uint32_t(rows / per_copy * cols));
      op.by_rows = FastDivisor(std::uint32_t(rows / per_copy));
    }
    return op;
  }
  op.mode = FlatCopyMode::kRuns;
  if (strided && stride == std::int64_t(rows) * cols && reinterpret_cast<std::uintptr_t>(base) % 16 == 0 &&
      std::int64_t(problems) * rows * cols % per_copy == 0) {
    op.mode = FlatCopyMode::kSpans;  // every group's span starts 16-byte aligned
  } else if (rows * cols % per_copy == 0) {
    op.mode = FlatCopyMode::kChunks;
    op.by_elements = FastDivisor(std::uint32_t(rows * cols / per_copy));
  }
  return op;
}

/// One resident wave of the instance for this plan (as many blocks an SM as its shared memory lets fit).
template <typename T, bool kArrays, int kBlock>
cudaError_t launch_flat_instance(FlatBatchParams<T> const& plan, int multiprocessors, cudaStream_t stream,
                                 SmallLaunchOptions const& options) {
  auto const kernel = flat_batched_kernel<T, kArrays, kBlock>;
  static cudaError_t const raised = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024);
  std::size_t const bytes = flat_shared_bytes(plan);
  int per_sm = 0;
  if (raised != cudaSuccess || cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kFlatThreads, bytes) != cudaSuccess) {
    (void)cudaGetLastError();  // the error is returned; later calls must not see it
    return cudaErrorInvalidConfiguration;
  }
  if (per_sm == 0) return cudaErrorInvalidConfiguration;
  std::int64_t const groups = (plan.batch.gemm.batch + plan.problems - 1) / plan.problems;
  WaveLaunch const launch(groups, per_sm, multiprocessors, kFlatThreads, bytes, stream, options);
  return cudaLaunchKernelEx(&launch.config, kernel, plan);
}

}  // namespace

template <typename T>
FlatBatchParams<T> plan_flat_batched(SmallBatchParams<T> const& params) {
  KernelParams<T> const& p = params.gemm;
  FlatBatchParams<T> plan;
  plan.batch = params;
  int const m = int(p.m), n = int(p.n), k = int(p.k);
  int const mn = m * n;
  constexpr int kPerCopy = 16 / int(sizeof(T));
  bool const strided = params.A_array == nullptr;
  bool const reads_c = p.beta != T(0);
  int const a_rows = p.trans_a ? k : m, a_cols = p.trans_a ? m : k;
  int const b_rows = p.trans_b ? n : k, b_cols = p.trans_b ? k : n;
  plan.block = flat_two_by_two(int(sizeof(T)), m, n, k) ? 2 : 1;
  // op(A) and op(B) both along k as stored (A transposed, B not), 2 x 2 blocks, k whole vectors:
  // 16-byte loads of k values. A's tile pitch is k where that is an odd number of vectors (copied
  // as stored), else k plus one vector (copied column by column): the rows a quarter-warp loads
  // then start in different bank groups, but for the blocks' row pairs (two ways). Otherwise
  // transposed A is read along its columns an element at a time: an odd pitch keeps a warp's rows
  // in distinct banks.
  plan.k_vectors = plan.block == 2 && p.trans_a && !p.trans_b && k % kPerCopy == 0;
  int const a_pitch = plan.k_vectors ? ((k / kPerCopy) % 2 == 1 ? k : k + kPerCopy)
                                     : (p.trans_a && a_rows % 2 == 0 ? a_rows + 1 : a_rows);
  plan.row_blocks = (m + plan.block - 1) / plan.block;
  plan.col_blocks = (n + plan.block - 1) / plan.block;
  int const blocks_per_problem = plan.row_blocks * plan.col_blocks;
  // A 2 x 2 block past m or n reads up to a pitch past its operand's last tile: a tail per stage.
  int const tail = plan.block > 1 ? std::max(a_pitch, b_rows) : 0;
  // Problems per group: enough to give each thread its elements of C, no more than let
  // kFlatBlocksPerSm blocks fit an SM's shared memory, and a multiple of what keeps every packed
  // span 16-byte aligned.
  std::size_t const per_problem_bytes =
      kFlatStages * sizeof(T) * std::size_t(a_pitch * a_cols + b_rows * b_cols + (reads_c ? mn : 0)) +
      (strided ? 0 : kFlatPointerSlots * 3 * sizeof(void*));
  // The tail, and up to 4 elements of 16-byte rounding after each of the stage's three regions.
  std::size_t const tail_bytes = kFlatStages * sizeof(T) * std::size_t(tail + 3 * 4);
  int const slots = flat_blocks_per_thread<T>(!strided, plan.block);
  int problems = std::min({kFlatMaxProblems, kFlatThreads * slots / blocks_per_problem,
                           int((kFlatBlockBytes - tail_bytes) / per_problem_bytes)});
  int aligned_multiple = 1;  // problems whose A, B and C each span whole 16-byte copies
  for (int elements : {a_rows * a_cols, b_rows * b_cols, mn}) {
    aligned_multiple = std::lcm(aligned_multiple, kPerCopy / std::gcd(kPerCopy, elements));
  }
  if (problems >= aligned_multiple) problems -= problems % aligned_multiple;
  problems = std::max(problems, 1);
  int const element_bytes = int(sizeof(T));
  plan.a = plan_operand(a_rows, a_cols, a_pitch, element_bytes, problems, strided, p.stride_a, p.lda, p.A);
  plan.b = plan_operand(b_rows, b_cols, b_rows, element_bytes, problems, strided, p.stride_b, p.ldb, p.B);
  plan.c = plan_operand(m, n, m, element_bytes, problems, strided, p.stride_c, p.ldc, p.C);
  // Each operand's tiles start 16-byte aligned in the stage, for the 16-byte copies.
  auto whole_copies = [](int elements) { return (elements + kPerCopy - 1) / kPerCopy * kPerCopy; };
  plan.problems = problems;
  plan.b_offset = whole_copies(problems * plan.a.tile);
  plan.c_offset = plan.b_offset + whole_copies(problems * plan.b.tile);
  plan.stage_elements = plan.c_offset + whole_copies((reads_c ? problems * plan.c.tile : 0) + tail);
  plan.a_row_step = p.trans_a ? a_pitch : 1;
  plan.a_k_step = p.trans_a ? 1 : a_pitch;
  plan.b_k_step = p.trans_b ? b_rows : 1;
  plan.b_col_step = p.trans_b ? 1 : b_rows;
  plan.by_blocks = FastDivisor(std::uint32_t(blocks_per_problem));
  plan.by_row_blocks = FastDivisor(std::uint32_t(plan.row_blocks));
  if (flat_shared_bytes(plan) > 227 * 1024 - 1024) plan.problems = 0;  // past any m, n, k <= 32
  return plan;
}

template <typename T>
std::size_t flat_shared_bytes(FlatBatchParams<T> const& plan) {
  std::size_t const ring = plan.batch.A_array != nullptr ? std::size_t(kFlatPointerSlots) * 3 * plan.problems * sizeof(void*) : 0;
  return std::size_t(kFlatStages) * plan.stage_elements * sizeof(T) + ring;
}

template <typename T>
cudaError_t launch_flat_batched(SmallBatchParams<T> const& params, int multiprocessors, cudaStream_t stream,
                                SmallLaunchOptions const& options) {
  KernelParams<T> const& p = params.gemm;
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.m > kSmallMaxSize || p.n > kSmallMaxSize || p.k > kSmallMaxSize) {
    return cudaErrorInvalidValue;
  }
  bool const arrays = params.A_array != nullptr;
  if (arrays != (params.B_array != nullptr) || arrays != (params.C_array != nullptr)) return cudaErrorInvalidValue;
  FlatBatchParams<T> const plan = plan_flat_batched(params);
  if (plan.problems == 0) return cudaErrorInvalidValue;
  bool const two = plan.block == 2;
  if (arrays) {
    return two ? launch_flat_instance<T, true, 2>(plan, multiprocessors, stream, options)
               : launch_flat_instance<T, true, 1>(plan, multiprocessors, stream, options);
  }
  return two ? launch_flat_instance<T, false, 2>(plan, multiprocessors, stream, options)
             : launch_flat_instance<T, false, 1>(plan, multiprocessors, stream, options);
}

template FlatBatchParams<double> plan_flat_batched<double>(SmallBatchParams<double> const&);
template FlatBatchParams<float> plan_flat_batched<float>(SmallBatchParams<float> const&);
template std::size_t flat_shared_bytes<double>(FlatBatchParams<double> const&);
template std::size_t flat_shared_bytes<float>(FlatBatchParams<float> const&);
template cudaError_t launch_flat_batched<double>(SmallBatchParams<double> const&, int, cudaStream_t,
                                                 SmallLaunchOptions const&);
template cudaError_t launch_flat_batched<float>(SmallBatchParams<float> const&, int, cudaStream_t, SmallLaunchOptions const&);

}  // namespace gemmkit::small
