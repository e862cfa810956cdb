/*! \file
    \brief Kernels for GEMMs with m, n, k <= 32 on the CPU: the table an ISA exports.

    Every kernel computes, column-major and untransposed, C = alpha*A*B + beta*C for each problem
    of a strided run of problems (beta = 0: C is not read). Sizes are compile-time constants inside the kernels; the table maps
    a descriptor to the kernel at run time.
*/
#pragma once

#include <cstdint>

namespace gemmkit::cpu {

inline constexpr int kSmallMax = 32;  ///< the largest m, n, k the small kernels take

/// Runs `count` problems of a strided batch; the per-problem loop sits inside the ISA's translation
/// unit so the fixed-size kernel inlines into it (no indirect call per problem).
template <typename T>
using SmallGemmFn = void (*)(std::int64_t count, int n, int k, T alpha, T const* A, std::int64_t lda,
                             std::int64_t stride_a, T const* B, std::int64_t ldb, std::int64_t stride_b, T beta, T* C,
                             std::int64_t ldc, std::int64_t stride_c);

/// How a square kernel splits its columns into register blocks (each block: the rows' vectors,
/// up to the ISA's kMaxRowVectors, by some columns). kBalanced: as few blocks as the widest width
/// allows, the columns spread evenly over them; kWidest: blocks of the widest width and a narrower
/// remainder; kNarrow: blocks of at most half that width (fewer accumulators, more loads of A),
/// spread evenly. Which one a size runs is data (small_blocking.csv, written by the tuner).
enum class SmallBlocking : int { kBalanced, kWidest, kNarrow };
inline constexpr int kSmallBlockings = 3;

/// Whether a kernel prefetches a later problem's A, B and C while it computes: kNextProblem the
/// next one, all its lines before the problem starts; kAhead the one about kPrefetchAheadBytes
/// further on in each operand (the next one at least); kSpread the next one, a column block at a
/// time: before each block of columns computes, the lines that block will read in the next problem
/// (those columns of B and C and its share of A's columns), so the prefetches do not come in one
/// burst of a few hundred lines that fills the miss queue (AMD Zen 5, f64 32x32x32 from memory:
/// 31 GB/s without prefetch, 45 spread; 28x28x28: 41 and 47). The packed kernels prefetch a run
/// at a time, so kSpread and kStep are kNextProblem there. kStep spreads the prefetches of the
/// problem about kStepLeadBytes further on (the next one at least) over the k loop: each step asks
/// for that problem's column of A and one line of its B, and each column of C stored for the same
/// column of its C. The burst forms cost where the data is already in cache: their loops of
/// prefetches, not the prefetches, took AMD Zen 5 f64 16x8x32 in L2 (512 KiB, 1 thread) from 115 to
/// 84 GF/s, while kStep ran at 113; from 1 GiB it ran 31 -> 34-36 GF/s against kNextProblem, f32
/// 8x4x16 32 -> 40-44.
/// A square kernel always prefetches as its mode says; a by_m kernel with a burst mode does up to
/// kPrefetchMaxRows rows and above that while the problem's operands are small (below). It pays on
/// some CPUs and sizes and costs on others (Intel Xeon: +5..29 % at 10..24, -8..12 % at 28 and 32;
/// AMD Zen 4: -13..45 % at every size measured; AMD Zen 5, where masked accesses that miss the
/// cache are slow: x2-2.5 at 5..7), so which one runs is data too, per CPU (this_cpu_tuning_key).
enum class SmallPrefetch : int { kNone, kNextProblem, kAhead, kSpread, kStep };
inline constexpr int kSmallPrefetches = 5;
inline constexpr std::int64_t kPrefetchAheadBytes = 1024;
/// How far ahead kStep prefetches: problems in flight hold about this many bytes (AMD Zen 5, from
/// 1 GiB, 1 thread: one problem ahead left f32 8x4x16 at 28 GF/s, 16 KiB ran it at 40-44; 32 and 64
/// KiB less).
inline constexpr std::int64_t kStepLeadBytes = 16 * 1024;

/// How a column of m rows is cut into vectors. kWide: as few vectors as the widest width allows, the
/// last one narrowed to the rows it holds. kSplit, where one wide vector would hold the column with
/// lanes to spare (AVX-512: f32 9..12 rows, f64 5..6): a half-width vector and a narrower one (f32
/// 12 rows: 256 + 128 bits, not 512 with 4 lanes idle). CPUs that pay per 256 bits (AMD Zen 4) gain
/// (f32 11 and 12 in L2: +10..13 %); with two 512-bit FMA ports it doubles the FMAs. Which one a
/// size runs is data; kSplit exists only where it differs (split_differs).
enum class SmallVectors : int { kWide, kSplit };
inline constexpr int kSmallVectorChoices = 2;

/// What runs a packed batch of s x s x s problems (ld = s, stride = s^2) where the size has a packed
/// kernel (SmallKernelTable::packed_variant): kFlat that kernel, kColumns the square kernel. From 4
/// to 8 (AVX-512 f32; f64 at 4) the packed kernel is the column-group kernel for s columns
/// (SmallKernelTable::grouped). The packed kernels of 2 and 3 fill whole vectors with several
/// problems at once (at 3: whole-vector loads of A and B and lane permutes; until 2026-11-24 masked
/// merges, which on AMD Zen 5 ran f64 3^3 from memory at 43 % of the bound against 98 % for the
/// square kernel). Which one wins is data, per CPU.
enum class SmallPacked : int { kFlat, kColumns };
inline constexpr int kSmallPackedChoices = 2;

/// A by_m kernel with kNextProblem prefetches up to this many rows, and above that while the
/// problem's A, B and C take at most kPrefetchMaxBytesByM bytes.
inline constexpr int kPrefetchMaxRows = 24;
inline constexpr std::int64_t kPrefetchMaxBytesByM = 8 * 1024;

/// What a size runs on a CPU that has no rows in the tuning table: prefetch from 10 to 24
/// rows (by_m kernels: from 10 rows), as measured on the Intel Xeon the kernels were first tuned on.
constexpr SmallPrefetch default_square_prefetch(int size) {
  return size >= 10 && size <= 24 ? SmallPrefetch::kNextProblem : SmallPrefetch::kNone;
}
constexpr SmallPrefetch default_by_m_prefetch(int m) {
  return m >= 10 ? SmallPrefetch::kNextProblem : SmallPrefetch::kNone;
}

/// One ISA's kernels for one type. square[s] has m = n = k = s all compile-time; by_m[m] has m
/// compile-time and n, k taken at run time. Index 0 is unused.
template <typename T>
struct SmallKernelTable {
  char const* isa = "";
  /// The square kernel a size runs: square_variant[b][p][v][s] for the blocking b, prefetch p and
  /// vectors v the tuning table names.
  SmallGemmFn<T> square[kSmallMax + 1] = {};
  /// Every blocking, prefetch and vector cut of every square size (the tuner's and the tests' way
  /// in), and the columns per block of its first rows (blockings that split alike compile to the
  /// same code).
  SmallGemmFn<T> square_variant[kSmallBlockings][kSmallPrefetches][kSmallVectorChoices][kSmallMax + 1] = {};
  int square_block_columns[kSmallBlockings][kSmallVectorChoices][kSmallMax + 1] = {};
  /// Whether kSplit cuts a column of s rows differently from kWide (elsewhere both are one kernel).
  bool split_differs[kSmallMax + 1] = {};
  /// The run-time n, k kernel an m runs: by_m_variant[p][v][m] for the prefetch p and vectors v the
  /// table names.
  SmallGemmFn<T> by_m[kSmallMax + 1] = {};
  SmallGemmFn<T> by_m_variant[kSmallPrefetches][kSmallVectorChoices][kSmallMax + 1] = {};
  /// packed[s]: s x s x s problems stored back to back (ld = s, stride = s^2, untransposed), run
  /// as a flat stream that fills whole vectors; nullptr where the square kernel is the one to run.
  /// It is packed_variant[p][s] for the prefetch p the tuning table names for s, or nullptr where
  /// the table says kColumns. The 2x2 kernel streams whole vectors and has one variant for every p.
  SmallGemmFn<T> packed[kSmallMax + 1] = {};
  SmallGemmFn<T> packed_variant[kSmallPrefetches][kSmallMax + 1] = {};
  /// grouped[m]: problems of m rows with k = m whose columns of B and C lie back to back (ldb = k,
  /// ldc = m; lda any), n at run time, where a vector holds two or more whole columns (column groups,
  /// small_kernels.inl); nullptr for the other m. It runs where n is at least grouped_min_n[m] (the
  /// columns of one vector); below that the by_m kernel does.
  SmallGemmFn<T> grouped[kSmallMax + 1] = {};
  int grouped_min_n[kSmallMax + 1] = {};

  /// The kernel for a problem; n and k are passed to it at the call.
  SmallGemmFn<T> lookup(int m, int n, int k) const { return (m == n && n == k) ? square[m] : by_m[m]; }
};

/// Tables per ISA, defined in translation units compiled for that ISA. Call only when the CPU
/// supports it (small_kernels_for_this_cpu checks).
SmallKernelTable<double> const& small_kernels_avx512_f64();
SmallKernelTable<float> const& small_kernels_avx512_f32();
SmallKernelTable<double> const& small_kernels_avx2_f64();
SmallKernelTable<float> const& small_kernels_avx2_f32();

/// The best table this CPU runs (AVX-512 > AVX2+FMA), with each size's blocking, prefetch and
/// vector cut from the tuning table's rows for this CPU's key (small_blocking.csv), or nullptr
/// when neither ISA is supported.
template <typename T>
SmallKernelTable<T> const* small_kernels_for_this_cpu();

}  // namespace gemmkit::cpu
