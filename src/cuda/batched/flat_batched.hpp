/*! \file
    \brief Host side of the flat small batched GPU kernel: sizes known only at run time, operands
    staged as stored (no padding), each thread a list of elements of C fixed for the whole launch.
    For batches that no bucket of the size-templated kernel holds exactly (small_batched.hpp).
*/
#pragma once

#include "cuda/batched/small_batched.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gemmkit::small {

/// x / d for 0 <= x < 2^31 and a divisor fixed per launch: a multiply-high, an add and a shift,
/// where the hardware's integer division is a long instruction sequence.
struct FastDivisor {
  std::uint32_t multiplier = 0;
  std::uint32_t shift = 0;

  FastDivisor() = default;
  explicit FastDivisor(std::uint32_t divisor) {
    while ((std::uint64_t(1) << shift) < divisor) ++shift;  // shift = ceil(log2(divisor))
    multiplier = std::uint32_t(((std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift) - divisor)) / divisor + 1);
  }
  __host__ __device__ int quotient(int x) const {
#ifdef __CUDA_ARCH__
    std::uint32_t const high = __umulhi(std::uint32_t(x), multiplier);
#else
    std::uint32_t const high = std::uint32_t((std::uint64_t(std::uint32_t(x)) * multiplier) >> 32);
#endif
    return int((high + std::uint32_t(x)) >> shift);
  }
};

/// How one operand of a group reaches its stage: 16-byte copies over the group's whole span
/// (packed strided batch), 16-byte copies problem by problem (each problem stored contiguously, a
/// whole number of copies), element by element along each problem's run (stored contiguously),
/// 16-byte copies column by column (columns, leading dimension and tile pitch all whole copies,
/// the pitch or leading dimension not the rows), or element by element (anything else).
enum class FlatCopyMode : int { kSpans, kChunks, kRuns, kColumns, kElements };

/// One stored operand (rows x cols, column-major) of every problem, as the kernel copies it.
struct FlatOperand {
  FlatCopyMode mode = FlatCopyMode::kElements;
  int rows = 0, cols = 0;
  int pitch = 0;  ///< leading dimension of its tile in shared memory (rows, or rows + 1)
  int tile = 0;   ///< elements of one problem's tile: pitch * cols
  FastDivisor by_elements;  ///< rows * cols (kElements), or 16-byte chunks per problem (kChunks, kColumns)
  FastDivisor by_rows;      ///< rows (kElements), or 16-byte chunks per column (kColumns)
};

/// The launch's parameters: the batch and the layout of a group of `problems` problems in a stage
/// (op(A) tiles, then op(B) tiles, then C tiles where beta != 0).
template <typename T>
struct FlatBatchParams {
  SmallBatchParams<T> batch;
  int problems = 0;        ///< per group
  int b_offset = 0, c_offset = 0;  ///< where op(B)'s and C's tiles start in a stage (16-byte aligned)
  int stage_elements = 0;          ///< one stage: problems x (A, B and C tiles), 16-byte aligned
  FlatOperand a, b, c;
  /// op(A)(r, kk) is at a tile's r * a_row_step + kk * a_k_step; op(B)(kk, q) at kk * b_k_step + q * b_col_step.
  int a_row_step = 0, a_k_step = 0, b_k_step = 0, b_col_step = 0;
  /// A thread computes blocks of block x block elements of C (1, or 2 where each value loaded is
  /// used twice: half the shared-memory loads per multiply-add); a problem has row_blocks x
  /// col_blocks of them.
  int block = 1;
  int row_blocks = 0, col_blocks = 0;
  FastDivisor by_blocks, by_row_blocks;  ///< a block's problem = e / blocks a problem, its column block
  /// op(A)'s rows and op(B)'s columns both run along k in their tiles (A transposed, B not, k a
  /// whole number of 16-byte vectors, A's pitch an odd number of them): the multiply loads 16
  /// bytes of k values of each at once, a quarter (float) or half (double) of the loads. Else the
  /// loads are element by element.
  bool k_vectors = false;
};

/// Threads of a block of the flat kernel, elements of C a thread computes per group (at most),
/// stages of its copy pipeline, problems a group holds (at most), blocks an SM holds (registers
/// and shared memory are planned for them), shared memory of a block (1 KiB of an SM's 227 KiB is
/// reserved per block; 1 KiB more for the tiles' alignment).
inline constexpr int kFlatThreads = 256;
inline constexpr int kFlatStages = 3;
inline constexpr int kFlatMaxProblems = 128;
inline constexpr int kFlatBlocksPerSm = 3;
inline constexpr std::size_t kFlatBlockBytes = 227 * 1024 / kFlatBlocksPerSm - 2048;
/// Staged pointers of pointer-array batches: groups ahead, slots.
inline constexpr int kFlatPointerLead = 2 * kFlatStages - 1;
inline constexpr int kFlatPointerSlots = kFlatPointerLead + 1;

/// Blocks of C (block x block elements each) a thread computes per group, at most. Single
/// elements: 8 for strided batches; on pointer arrays, whose staged pointers' addressing takes
/// registers, 6 in float and 4 in double (more spill). Strided double at 4 ran 24x24x8 at 72 % of
/// the bound against 87 % at 8 (H100, 2026-11-22). 2 x 2 blocks: 2 for strided float, else 1
/// (shared memory holds too few double problems of the sizes that take them to fill a second;
/// 20x12x28 f64 77 % of the bound with one, 52 % with two, when a thread's unused blocks were
/// still multiplied).
template <typename T>
constexpr int flat_blocks_per_thread(bool pointer_arrays, int block) {
  if (block == 2) return sizeof(T) == 4 && !pointer_arrays ? 2 : 1;
  return pointer_arrays ? (sizeof(T) == 8 ? 4 : 6) : 8;
}

/// The launch's layout for this batch (m, n, k >= 1; params.batch's strides, leading dimensions,
/// pointers and beta decide the copy modes); problems == 0 when a group would not fit shared memory.
template <typename T>
FlatBatchParams<T> plan_flat_batched(SmallBatchParams<T> const& params);

/// Dynamic shared memory of a launch: the stages, and for pointer arrays the staged pointers.
template <typename T>
std::size_t flat_shared_bytes(FlatBatchParams<T> const& plan);

/// Launches the flat kernel with one resident wave of blocks on `multiprocessors` SMs on `stream`
/// (options.candidate is ignored).
template <typename T>
cudaError_t launch_flat_batched(SmallBatchParams<T> const& params, int multiprocessors, cudaStream_t stream,
                                SmallLaunchOptions const& options);

}  // namespace gemmkit::small
