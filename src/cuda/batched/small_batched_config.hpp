/*! \file
    \brief Shapes of the small batched GPU kernel (seed 003 §4.2) as data: for each bucket of sizes
    M x N x K, the register block of C per thread and problems per thread block (the seed's
    thread-block aggregation, tba).

    A problem with m <= M, n <= N, k <= K runs in the kernel of a bucket that holds it, fully
    unrolled to the bucket's sizes (shared memory zero-padded past m, n, k). The buckets are the
    square sizes of the issue and every M x N x K with sides in {2, 4, 8, 16, 32}; among those that
    hold a problem, the one that moves the fewest padded elements runs it. Which candidate shape a
    bucket uses is data: small_tuning.csv, written by the device tuner.
*/
#pragma once

#include <cstddef>
#include <iterator>
#include <tuple>
#include <type_traits>
#include <utility>

namespace gemmkit::small {

/// Shared-memory pitch of an operand tile whose contiguous side holds `length` elements: a
/// multiple of 4 (whole 16-byte vectors for both precisions) but not of 8, so the copy's
/// transposed stores spread over 8 banks and not 1 or 2.
constexpr int tile_pitch(int length) {
  int const whole_vectors = (length + 3) / 4 * 4;
  return whole_vectors % 8 == 0 ? whole_vectors + 4 : whole_vectors;
}

/// One bucket: problems up to kM x kN x kK; each thread computes kRowsPerThread x kColsPerThread
/// elements of C (contiguous rows and columns, so they load as vectors); kProblemsPerBlock problems
/// share a block so tiny sizes still fill it. kRegisterBudget: registers per thread the compiler
/// is held to (more resident warps to hide the copies' latency, or more room for a register block).
/// kStages: groups of problems whose operands are in shared memory at once (one multiplied, the
/// others' copies in flight: more bytes in flight per block where too few warps fit to hide the
/// copies' latency); 0: the cache-based design (small_cached.cuh), no shared memory at all.
template <int kM_, int kN_, int kK_, int kRowsPerThread_, int kColsPerThread_, int kProblemsPerBlock_,
          int kRegisterBudget_ = 80, int kStages_ = 2>
struct SmallShape {
  static constexpr int kM = kM_;
  static constexpr int kN = kN_;
  static constexpr int kK = kK_;
  static constexpr int kRowsPerThread = kRowsPerThread_;
  static constexpr int kColsPerThread = kColsPerThread_;
  static constexpr int kProblemsPerBlock = kProblemsPerBlock_;
  static constexpr int kRegisterBudget = kRegisterBudget_;
  static constexpr int kStages = kStages_;
  static constexpr int kRowGroups = kM / kRowsPerThread;
  static constexpr int kColGroups = kN / kColsPerThread;
  static constexpr int kThreadsPerProblem = kRowGroups * kColGroups;
  static constexpr int kComputeThreads = kThreadsPerProblem * kProblemsPerBlock;
  /// Whole warps; the threads past kComputeThreads only copy.
  static constexpr int kThreads = (kComputeThreads + 31) / 32 * 32;
  /// op(A) is held k-major (kK lines of kM rows), op(B) column-major (kN lines of kK values).
  static constexpr int kPitchA = tile_pitch(kM);
  static constexpr int kPitchB = tile_pitch(kK);
  static constexpr int kTileElementsA = kK * kPitchA;  ///< op(A) of one problem, padded
  static constexpr int kTileElementsB = kN * kPitchB;  ///< op(B) of one problem, padded
  /// One stage of the copy pipeline: A and B of the block's problems, and for the exact instance C
  /// too. Padded tiles (pitches kPitchA, kPitchB) take element copies and transposes, and C goes
  /// through registers there; the exact instance's tiles are the operands as stored (the bucket's
  /// sides as pitch), so they take less shared memory (at 5, 6 or 7 under half) and C is copied
  /// with A and B (no global load of C waits in the multiply, no registers hold it across groups).
  template <bool kPadded>
  struct Stage {
    static constexpr int kTileA = kPadded ? kTileElementsA : kM * kK;
    static constexpr int kTileB = kPadded ? kTileElementsB : kK * kN;
    static constexpr int kTileC = kPadded ? 0 : kM * kN;
    static constexpr int kOperandA = kProblemsPerBlock * kTileA;                  ///< op(B)'s tiles start here
    static constexpr int kOperandC = kOperandA + kProblemsPerBlock * kTileB;      ///< C's tiles start here
    static constexpr int kElements = kOperandC + kProblemsPerBlock * kTileC;
  };
  template <typename T, bool kPadded = true>
  static constexpr std::size_t shared_bytes() {
    return std::size_t(kStages) * Stage<kPadded>::kElements * sizeof(T);
  }
  /// A problem of the bucket's exact sizes: its A, B and C are whole 16-byte copies.
  template <typename T>
  static constexpr bool problems_whole_copies() {
    return kM * kK * sizeof(T) % 16 == 0 && kK * kN * sizeof(T) % 16 == 0 && kM * kN * sizeof(T) % 16 == 0;
  }
  /// A packed group of such problems: its A, B and C spans are whole 16-byte copies.
  template <typename T>
  static constexpr bool group_spans_whole_copies() {
    constexpr auto whole = [](int elements) { return kProblemsPerBlock * elements * sizeof(T) % 16 == 0; };
    return whole(kM * kK) && whole(kK * kN) && whole(kM * kN);
  }
  /// Pointer-array batches also stage the A, B and C pointers of groups in shared memory, after
  /// the stages: a group's pointers are copied 2 * kStages - 1 iterations before it is multiplied
  /// (landed before its operands are copied, kStages - 1 iterations before) and stay until its C
  /// is stored.
  static constexpr int kPointerLead = 2 * kStages - 1;
  static constexpr int kPointerRingSlots = kPointerLead + 1;
  static constexpr std::size_t kPointerRingBytes = std::size_t(kPointerRingSlots) * 3 * kProblemsPerBlock * sizeof(void*);

  /// Blocks per SM the registers are budgeted for: as many as shared memory holds (227 KiB per
  /// SM on sm_90, 1 KiB of it reserved per block), down to kRegisterBudget registers a thread.
  template <typename T, bool kPadded = true>
  static constexpr int min_blocks_per_sm() {
    int const by_shared = int((227 * 1024) / (shared_bytes<T, kPadded>() + 1024));
    int const by_registers = 65536 / (kRegisterBudget * kThreads);
    int const blocks = by_shared < by_registers ? by_shared : by_registers;
    return blocks > 0 ? blocks : 1;
  }

  static constexpr bool valid() {
    return kM % kRowsPerThread == 0 && kN % kColsPerThread == 0 && kThreads <= 1024 && kM <= 32 && kN <= 32 &&
           kK <= 32 && (kStages >= 2 || kStages == 0);
  }
};

/// A square bucket of side kSize.
template <int kSize, int kRowsPerThread, int kColsPerThread, int kProblemsPerBlock, int kRegisterBudget = 80,
          int kStages = 2>
using SquareShape =
    SmallShape<kSize, kSize, kSize, kRowsPerThread, kColsPerThread, kProblemsPerBlock, kRegisterBudget, kStages>;

/// A square bucket run by the cache-based kernel (operands read through the read-only cache, no
/// shared memory: seed 003's first GPU design), 64 registers.
template <int kSize, int kRowsPerThread, int kColsPerThread, int kProblemsPerBlock>
using CachedShape = SquareShape<kSize, kRowsPerThread, kColsPerThread, kProblemsPerBlock, 64, 0>;

/// The sides of the power-of-two buckets (every M x N x K of them is a bucket).
inline constexpr int kGridSides[] = {2, 4, 8, 16, 32};
inline constexpr int kGridSideCount = int(std::size(kGridSides));

/// The shape a non-square power-of-two bucket runs: 2 x 2 register blocks, and problems per
/// block for about 256 threads (1 to 128 problems), no more than keep a double-precision block's
/// two stages within 96 KiB of shared memory (two blocks per SM); 64 registers, so four such
/// blocks fit an SM (three at 80).
template <int kM, int kN, int kK>
struct GridShapeOf {
  static constexpr int kThreadsPerProblem = (kM / 2) * (kN / 2);
  static constexpr int kByThreads = 256 / kThreadsPerProblem;
  static constexpr int kByShared = int((96 * 1024) / SmallShape<kM, kN, kK, 2, 2, 1>::template shared_bytes<double>());
  static constexpr int kWanted = kByThreads < kByShared ? kByThreads : kByShared;
  static constexpr int kProblems = kWanted < 1 ? 1 : (kWanted > 128 ? 128 : kWanted);
  using type = SmallShape<kM, kN, kK, 2, 2, kProblems, 64>;
};

/// Bucket I of the grid (M fastest) as a one-element tuple, or an empty one where it is square
/// (the square buckets have their own candidates below).
template <std::size_t I, int kM = kGridSides[I % kGridSideCount], int kN = kGridSides[I / kGridSideCount % kGridSideCount],
          int kK = kGridSides[I / (kGridSideCount * kGridSideCount)]>
using GridEntry = std::conditional_t<kM == kN && kN == kK, std::tuple<>, std::tuple<typename GridShapeOf<kM, kN, kK>::type>>;

template <std::size_t... I>
auto grid_shapes(std::index_sequence<I...>) -> decltype(std::tuple_cat(std::declval<GridEntry<I>>()...));

/// One shape per non-square power-of-two bucket.
using GridCandidates =
    decltype(grid_shapes(std::make_index_sequence<kGridSideCount * kGridSideCount * kGridSideCount>{}));

/// Every shape a square bucket may run, by size (then the three-stage ones, then column blocks at
/// low register budgets): the tuner times them all
/// on the device and small_tuning.csv names the one each (precision, bucket) uses. Per bucket: about
/// 128 to 512 threads, register blocks from 1x1 (tiny sizes: every thread copies and stores) to
/// 4x4 (large sizes: fewer shared-memory reads per multiply-add).
using SquareCandidates = std::tuple<
    SquareShape<2, 1, 1, 64>, SquareShape<2, 1, 1, 128>, SquareShape<2, 1, 1, 256>, SquareShape<2, 2, 1, 128>, SquareShape<2, 2, 2, 256>,
    SquareShape<3, 1, 1, 56>, SquareShape<3, 3, 1, 64>, SquareShape<3, 3, 1, 128>, SquareShape<3, 3, 3, 256>,
    SquareShape<4, 1, 1, 32>, SquareShape<4, 1, 1, 64>, SquareShape<4, 2, 2, 64>, SquareShape<4, 2, 2, 128>, SquareShape<4, 4, 1, 64>, SquareShape<4, 4, 4, 256>,
    SquareShape<4, 1, 1, 32, 40>, SquareShape<4, 2, 2, 128, 64>, SquareShape<4, 4, 1, 64, 40>,
    SquareShape<5, 1, 1, 20>, SquareShape<5, 1, 1, 40>, SquareShape<5, 5, 1, 50>, SquareShape<5, 1, 1, 20, 40>,
    SquareShape<5, 1, 1, 40, 32>, SquareShape<5, 1, 1, 20, 32>,
    SquareShape<6, 1, 1, 14>, SquareShape<6, 2, 2, 28>, SquareShape<6, 2, 2, 56>, SquareShape<6, 3, 3, 64>, SquareShape<6, 6, 1, 42>,
    SquareShape<6, 1, 1, 14, 40>, SquareShape<6, 2, 2, 28, 64>, SquareShape<6, 1, 1, 14, 32>, SquareShape<6, 2, 2, 56, 48>,
    SquareShape<7, 1, 1, 10>, SquareShape<7, 1, 1, 20>, SquareShape<7, 7, 1, 36>, SquareShape<7, 1, 1, 20, 32>,
    SquareShape<7, 1, 1, 10, 40>, SquareShape<7, 1, 1, 10, 32>,
    SquareShape<8, 1, 1, 4>, SquareShape<8, 1, 1, 8>, SquareShape<8, 2, 2, 16>, SquareShape<8, 2, 2, 32>, SquareShape<8, 4, 2, 32>,
    SquareShape<8, 2, 4, 32>, SquareShape<8, 4, 4, 32>,
    SquareShape<10, 2, 2, 5>, SquareShape<10, 2, 2, 10>, SquareShape<10, 1, 1, 5>, SquareShape<10, 2, 1, 10>, SquareShape<10, 5, 2, 20>,
    SquareShape<10, 1, 1, 5, 40>, SquareShape<10, 2, 1, 10, 48>,
    SquareShape<12, 2, 2, 4>, SquareShape<12, 2, 2, 7>, SquareShape<12, 1, 1, 3>, SquareShape<12, 2, 1, 4>, SquareShape<12, 4, 2, 8>,
    SquareShape<16, 2, 2, 2>, SquareShape<16, 2, 2, 4>, SquareShape<16, 1, 2, 4>, SquareShape<16, 4, 4, 8>, SquareShape<16, 2, 4, 4>, SquareShape<16, 4, 2, 4>,
    SquareShape<20, 2, 2, 1>, SquareShape<20, 2, 2, 2>, SquareShape<20, 1, 2, 2>, SquareShape<20, 4, 4, 4>, SquareShape<20, 1, 1, 1>,
    SquareShape<24, 2, 2, 1>, SquareShape<24, 2, 2, 2>, SquareShape<24, 1, 2, 1>, SquareShape<24, 4, 4, 4>, SquareShape<24, 3, 3, 2>,
    SquareShape<28, 2, 2, 1>, SquareShape<28, 2, 2, 2>, SquareShape<28, 1, 2, 1>, SquareShape<28, 4, 4, 4>,
    SquareShape<28, 2, 2, 1, 64>,
    SquareShape<32, 2, 2, 1>, SquareShape<32, 2, 2, 2>, SquareShape<32, 1, 2, 1>, SquareShape<32, 1, 1, 1>, SquareShape<32, 4, 4, 4>,
    SquareShape<32, 2, 4, 2>,
    // Three stages where two left warps waiting on the copies (Nsight Compute at 5, 6, 7 and 10).
    SquareShape<4, 1, 1, 32, 40, 3>, SquareShape<5, 1, 1, 20, 40, 3>, SquareShape<5, 1, 1, 20, 32, 3>,
    SquareShape<5, 1, 1, 40, 32, 3>, SquareShape<6, 2, 2, 28, 80, 3>, SquareShape<6, 1, 1, 14, 40, 3>,
    SquareShape<6, 6, 1, 42, 80, 3>, SquareShape<7, 1, 1, 10, 40, 3>, SquareShape<7, 7, 1, 36, 80, 3>,
    SquareShape<7, 1, 1, 20, 32, 3>, SquareShape<10, 1, 1, 5, 40, 3>, SquareShape<10, 2, 1, 10, 48, 3>,
    SquareShape<12, 2, 1, 4, 80, 3>, SquareShape<20, 2, 2, 2, 80, 3>, SquareShape<28, 2, 2, 1, 64, 3>,
    SquareShape<28, 2, 2, 1, 80, 3>,
    // Column blocks at fewer registers, so more blocks fit (f32 at 5, 7 and 10 issue an instruction
    // most cycles with 1x1 blocks: their per-group overhead is paid per element).
    SquareShape<2, 2, 1, 256, 40>, SquareShape<3, 3, 1, 128, 40>, SquareShape<3, 3, 1, 256, 40>,
    SquareShape<4, 4, 1, 64, 48>, SquareShape<5, 5, 1, 50, 40>, SquareShape<5, 5, 1, 100, 40>,
    SquareShape<5, 5, 1, 50, 48, 3>, SquareShape<7, 7, 1, 36, 40>, SquareShape<7, 7, 1, 72, 40>,
    SquareShape<7, 7, 1, 36, 48, 3>, SquareShape<10, 2, 2, 10, 48>, SquareShape<10, 2, 2, 20, 48>,
    SquareShape<10, 5, 1, 20, 40>,
    // Two problems of 20 and 28 at 72 registers: two 416-thread blocks an SM for 28 (at 80 the
    // compiler may take up to 157 and fit one).
    SquareShape<20, 2, 2, 2, 72>, SquareShape<28, 2, 2, 2, 72>,
    // Column blocks of 5 and 7 at budgets for 4 blocks an SM, which the exact instance's unpadded
    // stages leave room for (padded, 2 or 3 fit).
    SquareShape<5, 5, 1, 100, 32>, SquareShape<7, 7, 1, 36, 64>,
    SquareShape<7, 7, 1, 36, 64, 3>,
    // Four stages at 5 and 7: a float problem of these sizes moves few bytes for the threads it
    // takes, so a block needs more groups in flight.
    SquareShape<5, 1, 1, 40, 32, 4>, SquareShape<5, 1, 1, 20, 32, 4>, SquareShape<7, 1, 1, 20, 32, 4>,
    SquareShape<7, 1, 1, 12, 32, 4>,
    // A whole problem per thread (f32 at 5 and 7 issued an instruction on most cycles with the
    // element-per-thread shapes: two shared loads a multiply-add, and each element's epilogue and
    // each group's bookkeeping paid by a warp holding under one problem). In the exact instance such
    // a thread writes its C back into the stage and the block stores it in 16-byte pieces.
    SquareShape<3, 3, 3, 128, 64, 3>, SquareShape<5, 5, 5, 32, 128, 3>, SquareShape<5, 5, 5, 64, 128, 3>,
    SquareShape<5, 5, 5, 64, 128, 2>, SquareShape<7, 7, 7, 32, 168, 3>, SquareShape<7, 7, 7, 32, 168, 2>,
    SquareShape<7, 7, 7, 64, 168, 2>,
    // The cache-based design at every square size, about 256 threads a block: measured beside the
    // shared-memory shapes, it runs a bucket only where the tuner finds it faster.
    CachedShape<2, 1, 1, 64>, CachedShape<3, 1, 1, 28>, CachedShape<4, 1, 1, 16>, CachedShape<5, 1, 1, 10>,
    CachedShape<6, 1, 1, 7>, CachedShape<7, 1, 1, 5>, CachedShape<8, 1, 1, 4>, CachedShape<10, 2, 1, 5>,
    CachedShape<12, 2, 2, 7>, CachedShape<16, 2, 2, 4>, CachedShape<20, 2, 2, 2>, CachedShape<24, 2, 2, 2>,
    CachedShape<28, 2, 2, 1>, CachedShape<32, 2, 2, 1>>;
/// Every candidate: the square buckets' first, then the grid's.
using SmallCandidates = decltype(std::tuple_cat(std::declval<SquareCandidates>(), std::declval<GridCandidates>()));
inline constexpr int kSmallCandidateCount = std::tuple_size_v<SmallCandidates>;

/// The square bucket sizes: the sizes 2 .. 32.
inline constexpr int kSmallSizes[] = {2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 28, 32};

inline constexpr int kSmallMaxSize = 32;

}  // namespace gemmkit::small
