/*! \file
    \brief The small-GEMM kernel templates, instantiated once per ISA by a translation unit compiled
    for it (kernels_avx512.inl, kernels_avx2.inl) that supplies the SIMD traits V.

    Blocking (seed 003, Algorithm 1, in column-major form): a block of C of up to kRowVectors SIMD
    vectors of rows by NB columns lives in registers; for each k the kernel loads the block's
    slice of column k of A once and multiplies it by NB broadcast elements of row k of B. Each
    element of C is loaded and stored once. Rows past a multiple of the width use masked loads and
    stores. Keep this file free of standard-library templates: it is compiled with ISA flags, and
    inline library code instantiated here could be merged into callers that run on other CPUs.
*/
#pragma once

#include "cpu/small/small_kernels.hpp"
#include "cpu/small/small_kernels_built.hpp"

#include <utility>  // integer_sequence: a type only, no code

namespace gemmkit::cpu::small_detail {

/// Independent accumulators a block needs to keep the FMA pipes busy: pipes times FMA latency (two
/// 4-cycle pipes on AMD Zen 4/5 and recent Intel cores). Blocks with fewer split the k loop in two.
inline constexpr int kMinChains = 8;
/// The k from which such a block splits (below it the next problem's chains fill the gaps).
inline constexpr int kMinSplitK = 16;

/// Registers the block shape may use: accumulators, the A vectors and one broadcast.
template <class V>
constexpr int row_vectors(int m) {
  int const vectors = (m + V::kWidth - 1) / V::kWidth;
  return vectors < V::kMaxRowVectors ? vectors : V::kMaxRowVectors;
}

template <class V>
constexpr int block_columns(int row_vectors) {
  int const nb = (V::kRegisters - row_vectors - 1) / row_vectors;
  return nb < V::kMaxBlockColumns ? nb : V::kMaxBlockColumns;
}

/// Columns per block for a compile-time n: as many blocks as block_columns allows, the columns
/// spread evenly over them, so no block is a short remainder (f32 20x20x20: 7, 7 and 6 columns
/// instead of 8, 8 and 4). Wider blocks (up to 16 columns) measured slower at n = 16, 28, 32.
template <class V, int N>
constexpr int balanced_block_columns(int row_vectors) {
  int const nb_max = block_columns<V>(row_vectors);
  int const blocks = (N + nb_max - 1) / nb_max;
  return (N + blocks - 1) / blocks;
}

/// Stores the first kTail lanes of `v` at p. Where the ISA can rotate lanes, the vector is stored
/// end-aligned: rotated up by W - kTail lanes and stored, masked to its top kTail lanes, at
/// p + kTail - W, so the store's byte range ends where the column ends. A masked store whose range
/// (masked-out lanes included) reaches into the next column or problem blocks every later load
/// that overlaps it until the store has retired and committed: that put each column's C load
/// behind the previous column's store, in a chain, at every m that is not a multiple of the width.
/// Loads extend forward (masked-out lanes past the column end), stores backward: no overlap.
template <class V, int kTail, class Mask>
[[gnu::always_inline]] inline void store_tail(typename V::T* p, typename V::Reg v, Mask tail_mask) {
  if constexpr (requires { V::template rotate_up<kTail>(v); }) {
    constexpr unsigned kAll = (1u << V::kWidth) - 1u;
    constexpr unsigned kTop = kAll & ~((1u << (V::kWidth - kTail)) - 1u);
    V::store(p - (V::kWidth - kTail), V::template rotate_up<kTail>(v), decltype(tail_mask)(kTop));
  } else {
    V::store(p, v, tail_mask);
  }
}

/// The traits of the last row vector of a column of MR rows: the narrowest vector in V's chain of
/// halves (V::Half, where the ISA has one) that holds the rows past the last whole V. On CPUs that
/// run 512-bit operations as two 256-bit halves (AMD Zen 4) a 256- or 128-bit tail costs half or a
/// quarter of a 512-bit one: f32 20 rows are one 512-bit and one 128-bit vector, not two 512-bit.
template <class V, int kTail>
struct TailVector {
  using type = V;
};
template <class V, int kTail>
  requires requires { typename V::Half; } && (V::Half::kWidth >= kTail)
struct TailVector<V, kTail> {
  using type = typename TailVector<typename V::Half, kTail>::type;
};

/// The low lanes of a V register as a register of the narrower traits TV (a cast: no instruction).
template <class TV, class V>
[[gnu::always_inline]] inline typename TV::Reg low_lanes(typename V::Reg r) {
  if constexpr (TV::kWidth == V::kWidth) {
    return r;
  } else {
    return low_lanes<TV, typename V::Half>(V::low_half(r));
  }
}

/// Under SmallPrefetch::kStep, what a block prefetches of the next problem: its A from the block's
/// first row, its B and C from the block's first column.
template <typename T>
struct NextBlock {
  T const* A = nullptr;
  T const* B = nullptr;
  T const* C = nullptr;
};

/// Prefetches (into L1) the lines of a column of kRows elements at p, at any alignment.
template <int kRows, typename T>
[[gnu::always_inline]] inline void prefetch_column(T const* p) {
  constexpr int kBytes = kRows * int(sizeof(T));
  auto const* bytes = reinterpret_cast<char const*>(p);
#pragma GCC unroll 8
  for (int offset = 0; offset < kBytes; offset += 64) __builtin_prefetch(bytes + offset, 0, 3);
  if constexpr (kBytes % 64 != 0) __builtin_prefetch(bytes + kBytes - 1, 0, 3);
}

/// C(0:MR, 0:NB) = alpha * A(0:MR, 0:k) * B(0:k, 0:NB) + beta * C. K > 0: k is compile-time. The
/// rows are kWide vectors of V and, where the last rows fit a narrower vector, one vector of TV.
/// kStep (SmallPrefetch::kStep): each step l also prefetches column l of the next problem's A and
/// one line of its B (a block's B is at most 8 columns: k lines cover it where ldb = k), and each
/// column stored prefetches that column of the next C, so its lines are asked for at the pace
/// they are used instead of in a burst before the problem.
template <class V, int MR, int NB, int K, bool kStep = false>
[[gnu::always_inline]]
inline void block_body(int k_runtime, typename V::T alpha, typename V::T const* A, std::int64_t lda,
                       typename V::T const* B, std::int64_t ldb, typename V::T beta, typename V::T* C, std::int64_t ldc,
                       NextBlock<typename V::T> next = {}) {
  using Reg = typename V::Reg;
  constexpr int kVectors = (MR + V::kWidth - 1) / V::kWidth;
  constexpr int kTail = MR - (kVectors - 1) * V::kWidth;  // rows in the last vector
  using TV = typename TailVector<V, kTail>::type;
  constexpr bool kNarrowTail = TV::kWidth < V::kWidth;
  constexpr int kWide = kNarrowTail ? kVectors - 1 : kVectors;  // vectors of V
  int const k_count = K > 0 ? K : k_runtime;
  auto const tail_mask = V::tail_mask(kTail);
  auto const narrow_mask = TV::tail_mask(kTail);

  // Each accumulator is a chain of k dependent FMAs. A block of fewer than kMinChains of them with
  // k of at least kMinSplitK leaves FMA pipes idle for the latency, so it adds the odd steps into a
  // second set, summed with the first before the stores (AMD Zen 5, 2026-11-28, 512 KiB batch,
  // 1 thread, three rounds: 8x1x32 +10-18 %, 4x4x32 +6 %, f32 16x2x32 +11 %, 8x4x16 +2-4 %). With
  // shorter k the next problem's chains overlap this one's and the split only cost (7x7x7: -7-8 %).
  constexpr int kChains = (kWide + (kNarrowTail ? 1 : 0)) * NB;
  constexpr bool kTwoSetsFit = 2 * kChains + kVectors + 1 <= V::kRegisters;  // AVX2 has 16
  constexpr int kSets = kChains < kMinChains && kTwoSetsFit && (K == 0 || K >= kMinSplitK) ? 2 : 1;
  Reg acc[kSets][kWide > 0 ? kWide : 1][NB];  // (SETS, ROW_VECTORS, NB)
  typename TV::Reg acc_tail[kSets][NB];
#pragma GCC unroll 2
  for (int s = 0; s < kSets; ++s) {
#pragma GCC unroll 8
    for (int v = 0; v < kWide; ++v)
#pragma GCC unroll 16
      for (int j = 0; j < NB; ++j) acc[s][v][j] = V::zero();
    if constexpr (kNarrowTail) {
#pragma GCC unroll 16
      for (int j = 0; j < NB; ++j) acc_tail[s][j] = TV::zero();
    }
  }

  // Column pointers of B, once per block: with B[l + j * ldb] in a fully unrolled k loop, GCC made
  // an address per (l, j) and kept them on the stack (f32 16x16x16: 492 movs, 120 FMAs).
  typename V::T const* b_column[NB];
#pragma GCC unroll 16
  for (int j = 0; j < NB; ++j) b_column[j] = B + j * ldb;
  // Each A vector is loaded into a register once per k and the empty asm pins it there: without it
  // GCC folded the load into every FMA that uses it, one load per FMA instead of one per NB FMAs,
  // and the loads, not the FMAs, set the pace (AMD Zen 5, 2 MiB in cache, f64 28x28x28: 63 -> 93 GF/s,
  // 32x32x32: 82 -> 107).
  auto const step = [&]<int kSet>(int l) __attribute__((always_inline)) {
    Reg a[kWide > 0 ? kWide : 1];
#pragma GCC unroll 8
    for (int v = 0; v < kWide; ++v) {
      auto const* column = A + l * lda + v * V::kWidth;
      a[v] = (v == kVectors - 1 && kTail != V::kWidth) ? V::load(column, tail_mask) : V::load(column);
      asm("" : "+v"(a[v]));
    }
    typename TV::Reg a_tail{};
    if constexpr (kNarrowTail) {
      auto const* column = A + l * lda + kWide * V::kWidth;
      a_tail = kTail == TV::kWidth ? TV::load(column) : TV::load(column, narrow_mask);
      asm("" : "+v"(a_tail));
    }
    // One broadcast per column feeds every row vector. FMAs with the broadcast folded into their own
    // load (asm, one load per FMA) ran slower where a column has two or more vectors (AMD Zen 5, in
    // L2, GF/s: f64 16^3 86 -> 68, 32^3 109 -> 76, 32x16x8 78 -> 59).
#pragma GCC unroll 16
    for (int j = 0; j < NB; ++j) {
      Reg const b = V::broadcast(b_column[j][l]);
#pragma GCC unroll 8
      for (int v = 0; v < kWide; ++v) acc[kSet][v][j] = V::fma(a[v], b, acc[kSet][v][j]);
      if constexpr (kNarrowTail) acc_tail[kSet][j] = TV::fma(a_tail, low_lanes<TV, V>(b), acc_tail[kSet][j]);
    }
    if constexpr (kStep) {
      prefetch_column<MR>(next.A + l * lda);
      __builtin_prefetch(reinterpret_cast<char const*>(next.B) + 64 * l, 0, 3);
    }
  };
  // A compile-time k of up to 16 is unrolled whole for one-vector columns (GCC left k = 7, 8 and 12
  // as loops: a counter, a compare and a branch per step, and address arithmetic it could not fold).
  // Not for longer columns: unrolled with two vectors, f64 16x16x16 measured 0.88x LIBXSMM against
  // 0.98x as a loop.
  if constexpr (kSets == 2) {
    if (k_count >= kMinSplitK) {  // always, where k is a compile-time constant (kSets says K >= 16)
      if constexpr (K > 0 && K <= 16 && kVectors == 1) {
#pragma GCC unroll 8
        for (int l = 0; l + 1 < K; l += 2) step.template operator()<0>(l), step.template operator()<1>(l + 1);
        if constexpr (K % 2 == 1) step.template operator()<0>(K - 1);
      } else {
        int l = 0;
        for (; l + 1 < k_count; l += 2) step.template operator()<0>(l), step.template operator()<1>(l + 1);
        if (l < k_count) step.template operator()<0>(l);
      }
#pragma GCC unroll 16
      for (int j = 0; j < NB; ++j) {
#pragma GCC unroll 8
        for (int v = 0; v < kWide; ++v) acc[0][v][j] = V::add(acc[0][v][j], acc[1][v][j]);
        if constexpr (kNarrowTail) acc_tail[0][j] = TV::add(acc_tail[0][j], acc_tail[1][j]);
      }
    } else {
      for (int l = 0; l < k_count; ++l) step.template operator()<0>(l);
    }
  } else if constexpr (K > 0 && K <= 16 && kVectors == 1) {
#pragma GCC unroll 16
    for (int l = 0; l < K; ++l) step.template operator()<0>(l);
  } else {
    for (int l = 0; l < k_count; ++l) step.template operator()<0>(l);
  }

  // alpha = 1 (the common case) skips the multiply: 1 of every 17 vector operations at 32 rows.
  // Starting the accumulators from beta * C instead, which would remove the add too, measured 10-20 %
  // slower at 32 (each block's first FMAs wait for its loads of C).
  Reg const alpha_v = V::broadcast(alpha);
  Reg const beta_v = V::broadcast(beta);
  // One copy of the stores per (alpha = 1, beta = 0) case: tested per vector, GCC kept a compare and
  // two branches beside each store.
  auto const store_block = [&]<bool kScale, bool kReadC>() __attribute__((always_inline)) {
#pragma GCC unroll 16
    for (int j = 0; j < NB; ++j) {
      if constexpr (kStep) prefetch_column<MR>(next.C + j * ldc);
#pragma GCC unroll 8
      for (int v = 0; v < kWide; ++v) {
        auto* c = C + j * ldc + v * V::kWidth;
        bool const masked = v == kVectors - 1 && kTail != V::kWidth;
        Reg result = kScale ? V::mul(alpha_v, acc[0][v][j]) : acc[0][v][j];
        if constexpr (kReadC) result = V::fma(beta_v, masked ? V::load(c, tail_mask) : V::load(c), result);
        if (masked) store_tail<V, kTail>(c, result, tail_mask);
        else V::store(c, result);
      }
      if constexpr (kNarrowTail) {
        auto* c = C + j * ldc + kWide * V::kWidth;
        constexpr bool kMasked = kTail != TV::kWidth;
        typename TV::Reg result = kScale ? TV::mul(low_lanes<TV, V>(alpha_v), acc_tail[0][j]) : acc_tail[0][j];
        if constexpr (kReadC) {
          result = TV::fma(low_lanes<TV, V>(beta_v), kMasked ? TV::load(c, narrow_mask) : TV::load(c), result);
        }
        if constexpr (kMasked) store_tail<TV, kTail>(c, result, narrow_mask);
        else TV::store(c, result);
      }
    }
  };
  bool const scale = alpha != typename V::T(1), read_c = beta != typename V::T(0);
  if (scale) {
    if (read_c) store_block.template operator()<true, true>();
    else store_block.template operator()<true, false>();
  } else {
    if (read_c) store_block.template operator()<false, true>();
    else store_block.template operator()<false, false>();
  }
}

/// A block called out of line, so that several blocks of one problem do not share one register
/// allocation (inlined, f32 24x24x24's three blocks spilled the A vectors to the stack).
template <class V, int MR, int NB, int K, bool kStep>
[[gnu::noinline]] void block_call(int k, typename V::T alpha, typename V::T const* A, std::int64_t lda,
                                  typename V::T const* B, std::int64_t ldb, typename V::T beta, typename V::T* C,
                                  std::int64_t ldc, NextBlock<typename V::T> next) {
  block_body<V, MR, NB, K, kStep>(k, alpha, A, lda, B, ldb, beta, C, ldc, next);
}

/// One block: inlined into the batch loop where a column is one vector (m <= width: a call per
/// problem, its arguments reloaded from the stack, was a large part of the time of a 5x5x5 f64
/// problem, and GCC inlined some sizes and not others), called otherwise.
template <class V, int MR, int NB, int K, bool kStep>
[[gnu::always_inline]] inline void block(int k, typename V::T alpha, typename V::T const* A, std::int64_t lda,
                                         typename V::T const* B, std::int64_t ldb, typename V::T beta,
                                         typename V::T* C, std::int64_t ldc, NextBlock<typename V::T> next) {
  if constexpr (MR <= V::kWidth) {
    block_body<V, MR, NB, K, kStep>(k, alpha, A, lda, B, ldb, beta, C, ldc, next);
  } else {
    block_call<V, MR, NB, K, kStep>(k, alpha, A, lda, B, ldb, beta, C, ldc, next);
  }
}

/// Prefetches (into L1) the lines of a column-major rows x cols matrix with leading dimension ld.
/// Columns stored back to back (ld = rows, as in packed batches) are one range: a prefetch per line
/// and nothing per column (f64 16x8x32: 112 lines a problem, each column's first and last line
/// computed before).
template <typename T>
[[gnu::always_inline]] inline void prefetch_columns(T const* p, int rows, int cols, std::int64_t ld) {
  if (ld == rows) {
    rows *= cols;
    cols = 1;
  }
  for (int j = 0; j < cols; ++j) {
    std::uintptr_t const first = reinterpret_cast<std::uintptr_t>(p + j * ld) & ~std::uintptr_t(63);
    std::uintptr_t const last = reinterpret_cast<std::uintptr_t>(p + j * ld + rows - 1) & ~std::uintptr_t(63);
    for (std::uintptr_t line = first; line <= last; line += 64) {
      __builtin_prefetch(reinterpret_cast<void const*>(line), 0, 3);
    }
  }
}

/// Columns per block for a compile-time n under blocking kBlocking (SmallBlocking's order).
template <class V, int N, int kBlocking>
constexpr int columns_per_block(int row_vectors) {
  int const widest = block_columns<V>(row_vectors);
  if (kBlocking == int(SmallBlocking::kWidest)) return widest < N ? widest : N;  // no wider than the problem
  if (kBlocking == int(SmallBlocking::kNarrow)) {
    int const narrow = (widest + 1) / 2;
    int const blocks = (N + narrow - 1) / narrow;
    return (N + blocks - 1) / blocks;
  }
  return balanced_block_columns<V, N>(row_vectors);
}

/// Runs `block` for a remainder of `columns` < NB columns, as a compile-time column count.
template <class V, int MR, int NB, int K, bool kStep>
[[gnu::always_inline]]
inline void tail_columns(int columns, int k, typename V::T alpha, typename V::T const* A, std::int64_t lda,
                         typename V::T const* B, std::int64_t ldb, typename V::T beta, typename V::T* C,
                         std::int64_t ldc, NextBlock<typename V::T> next) {
  if constexpr (NB > 0) {
    if (columns == NB) {
      block<V, MR, NB, K, kStep>(k, alpha, A, lda, B, ldb, beta, C, ldc, next);
    } else {
      tail_columns<V, MR, NB - 1, K, kStep>(columns, k, alpha, A, lda, B, ldb, beta, C, ldc, next);
    }
  }
}

/// Prefetches what the column block [j, j + columns) of a rows x n x k problem reads: those columns
/// of B and C and the block's share of the columns of A (all of them for the whole problem, j = 0
/// and columns = n).
template <typename T>
[[gnu::always_inline]] inline void prefetch_problem_columns(T const* A, std::int64_t lda, T const* B, std::int64_t ldb,
                                                            T const* C, std::int64_t ldc, int rows, int n, int k,
                                                            int j, int columns) {
  // The whole problem divides by nothing: a run-time n may be 0 there.
  int const a_first = j == 0 ? 0 : j * k / n, a_last = j + columns == n ? k : (j + columns) * k / n;
  prefetch_columns(A + a_first * lda, rows, a_last - a_first, lda);
  prefetch_columns(B + j * ldb, k, columns, ldb);
  prefetch_columns(C + j * ldc, rows, columns, ldc);
}

/// All columns for rows [0, MR): full NB-column blocks, then the remainder. With A_next, the next
/// problem's A, B and C at these rows: kSpread has each block first prefetch its part of them,
/// kStep hands each block its part (NextBlock).
template <class V, int MR, int N, int K, int kBlocking, bool kStep = false>
[[gnu::always_inline]]
inline void row_block(int n_runtime, int k, typename V::T alpha, typename V::T const* A, std::int64_t lda,
                      typename V::T const* B, std::int64_t ldb, typename V::T beta, typename V::T* C,
                      std::int64_t ldc, typename V::T const* A_next, typename V::T const* B_next,
                      typename V::T const* C_next) {
  constexpr int kNB = N > 0 ? columns_per_block<V, N, kBlocking>(row_vectors<V>(MR)) : block_columns<V>(row_vectors<V>(MR));
  int const n = N > 0 ? N : n_runtime, k_all = K > 0 ? K : k;
  // Every block reads all of A: the first asks for the next problem's, the others for their own A's
  // lines (in L1 by then: the instructions stay branch-free, the memory system does not see them twice).
  auto const next = [&](int j) {
    return NextBlock<typename V::T>{j == 0 ? A_next : A, B_next + j * ldb, C_next + j * ldc};
  };
  int j = 0;
  for (; j + kNB <= n; j += kNB) {
    if (!kStep && A_next != nullptr) prefetch_problem_columns(A_next, lda, B_next, ldb, C_next, ldc, MR, n, k_all, j, kNB);
    block<V, MR, kNB, K, kStep>(k, alpha, A, lda, B + j * ldb, ldb, beta, C + j * ldc, ldc,
                                kStep ? next(j) : NextBlock<typename V::T>{});
  }
  if (j < n) {
    if (!kStep && A_next != nullptr) {
      prefetch_problem_columns(A_next, lda, B_next, ldb, C_next, ldc, MR, n, k_all, j, n - j);
    }
    tail_columns<V, MR, kNB - 1, K, kStep>(n - j, k, alpha, A, lda, B + j * ldb, ldb, beta, C + j * ldc, ldc,
                                           kStep ? next(j) : NextBlock<typename V::T>{});
  }
}

/// The whole problem: rows in blocks of kRowVectors vectors, the last block possibly shorter.
template <class V, int M, int N, int K, int kBlocking = 0, bool kStep = false, int Row0 = 0>
[[gnu::always_inline]]
inline void small_gemm(int n, int k, typename V::T alpha, typename V::T const* A, std::int64_t lda,
                       typename V::T const* B, std::int64_t ldb, typename V::T beta, typename V::T* C,
                       std::int64_t ldc, typename V::T const* A_next = nullptr, typename V::T const* B_next = nullptr,
                       typename V::T const* C_next = nullptr) {
  constexpr int kRows = row_vectors<V>(M - Row0) * V::kWidth;
  constexpr int kMR = (M - Row0) < kRows ? (M - Row0) : kRows;
  row_block<V, kMR, N, K, kBlocking, kStep>(n, k, alpha, A + Row0, lda, B, ldb, beta, C + Row0, ldc,
                                            A_next ? A_next + Row0 : nullptr, B_next, C_next ? C_next + Row0 : nullptr);
  if constexpr (Row0 + kMR < M) {
    small_gemm<V, M, N, K, kBlocking, kStep, Row0 + kMR>(n, k, alpha, A, lda, B, ldb, beta, C, ldc, A_next, B_next,
                                                         C_next);
  }
}

/// The next problem's A, B and C are prefetched into L1 while the current one computes, where
/// the tuning table says so (SmallPrefetch). From 16x16 on, a problem takes more instructions than
/// the out-of-order window holds, so without it the next problem's loads were not issued until its
/// own k loop began: time per problem about the time in L2 plus the time of the memory traffic,
/// one after the other. Measured on an Intel Xeon, 1 thread, ratio to LIBXSMM without -> with:
/// f64 16 0.96 -> 1.02-1.05, 20 1.01 -> 1.13-1.15; f32 16 1.00 -> 1.14, 20 0.76 -> 0.89-0.91, 24
/// 0.93 -> 1.01; f64 10 0.94-0.97 -> 1.09-1.11, 12 0.98-1.00 -> 1.13-1.29. At 28 and 32 it lost
/// (into L1: f64 32 1.05 -> 0.92, f32 28 1.05 -> 0.96; into L2: f64 28 0.98 -> 0.88). Two problems
/// ahead instead of one (2026-11-22): f32 10 0.95 -> 1.04, but f64 16 1.10 -> 1.05, f32 20 0.90 ->
/// 0.88, f32 24 1.00-1.03 -> 0.94-0.96; not taken. On an AMD Zen 4 every software prefetch tried
/// (into L1, L2 or L3, 10 to 32 rows) lost: f64 20 0.67 with against 1.07 without.
/// by_m kernels (n, k at run time) with a burst form prefetch up to kPrefetchMaxRows rows, and above
/// that while the problem's A, B and C take at most kPrefetchMaxBytesByM bytes (small_kernels.hpp);
/// kStep spreads its prefetches over the k loop and always runs.

constexpr int larger(int a, int b) { return a > b ? a : b; }  // no <algorithm> here (file comment)

/// Problems (or runs) of `bytes` each that fit in `lead_bytes`, at least 1: how far ahead a prefetch reaches.
constexpr std::int64_t problems_within(std::int64_t lead_bytes, std::int64_t bytes) {
  return lead_bytes > bytes ? lead_bytes / bytes : 1;
}

template <class V, int M, int N, int K, int kBlocking = 0, int kPrefetch = 0>
void small_gemm_entry(std::int64_t count, int n, int k, typename V::T alpha, typename V::T const* A, std::int64_t lda,
                      std::int64_t stride_a, typename V::T const* B, std::int64_t ldb, std::int64_t stride_b,
                      typename V::T beta, typename V::T* C, std::int64_t ldc, std::int64_t stride_c) {
  // Square kernels as the table says; by_m kernels (N == 0) by rows, above that by bytes.
  int const n_all = N > 0 ? N : n, k_all = K > 0 ? K : k;
  bool const prefetch =
      kPrefetch != int(SmallPrefetch::kNone) &&
      (N > 0 || M <= kPrefetchMaxRows ||
       std::int64_t(M * k + k * n + M * n) * std::int64_t(sizeof(typename V::T)) <= kPrefetchMaxBytesByM);
  constexpr bool kStep = kPrefetch == int(SmallPrefetch::kStep);
  constexpr std::int64_t kElement = sizeof(typename V::T);
  std::int64_t ahead = 1;  // kAhead: by the largest operand; kStep: by the whole problem
  if constexpr (kPrefetch == int(SmallPrefetch::kAhead)) {
    ahead = problems_within(kPrefetchAheadBytes, larger(larger(M * k_all, k_all * n_all), M * n_all) * kElement);
  } else if constexpr (kStep) {
    ahead = problems_within(kStepLeadBytes, std::int64_t(M * k_all + k_all * n_all + M * n_all) * kElement);
  }
  for (std::int64_t b = 0; b < count; ++b) {
    typename V::T const *A_next = nullptr, *B_next = nullptr, *C_next = nullptr;
    if constexpr (kStep) {
      // The last problems prefetch their own lines: no branch in the blocks, nothing read past the batch.
      std::int64_t const next = b + ahead < count ? b + ahead : b;
      A_next = A + next * stride_a;
      B_next = B + next * stride_b;
      C_next = C + next * stride_c;
    } else if (prefetch && b + ahead < count) {
      if constexpr (kPrefetch == int(SmallPrefetch::kSpread)) {
        A_next = A + (b + 1) * stride_a;
        B_next = B + (b + 1) * stride_b;
        C_next = C + (b + 1) * stride_c;
      } else {
        prefetch_problem_columns(A + (b + ahead) * stride_a, lda, B + (b + ahead) * stride_b, ldb,
                                 C + (b + ahead) * stride_c, ldc, M, n_all, k_all, 0, n_all);
      }
    }
    small_gemm<V, M, N, K, kBlocking, kStep>(n, k, alpha, A + b * stride_a, lda, B + b * stride_b, ldb, beta,
                                             C + b * stride_c, ldc, A_next, B_next, C_next);
  }
}

/// Packed 2x2 problems (4 elements each, column-major): a vector holds kWidth/4 whole problems, and
/// C = A(:,0) B(0,:) + A(:,1) B(1,:) becomes two lane permutes of A and of B and two multiplies,
/// instead of masked 2-row vectors per column. Permutes act on groups of 4 lanes.
template <class V>
void packed_2x2_entry(std::int64_t count, int, int, typename V::T alpha, typename V::T const* A, std::int64_t,
                      std::int64_t, typename V::T const* B, std::int64_t, std::int64_t, typename V::T beta,
                      typename V::T* C, std::int64_t, std::int64_t) {
  constexpr int kPerVector = V::kWidth / 4;
  using Reg = typename V::Reg;
  Reg const alpha_v = V::broadcast(alpha);
  Reg const beta_v = V::broadcast(beta);
  std::int64_t b = 0;
  for (; b + kPerVector <= count; b += kPerVector) {
    Reg const a = V::load(A + 4 * b);
    Reg const bm = V::load(B + 4 * b);
    Reg r = V::mul(V::template permute<0x44>(a), V::template permute<0xA0>(bm));  // (a00 a10 a00 a10)(b00 b00 b01 b01)
    r = V::fma(V::template permute<0xEE>(a), V::template permute<0xF5>(bm), r);   // (a01 a11 a01 a11)(b10 b10 b11 b11)
    r = V::mul(alpha_v, r);
    if (beta != typename V::T(0)) r = V::fma(beta_v, V::load(C + 4 * b), r);
    V::store(C + 4 * b, r);
  }
  for (; b < count; ++b) small_gemm<V, 2, 2, 2>(2, 2, alpha, A + 4 * b, 2, B + 4 * b, 2, beta, C + 4 * b, 2);
}

/// Lanes of vector `vector` of a run of packed N x N problems (element g of the run is problem
/// g / N^2, row g % N, column g % N^2 / N) whose column (by_column) or row is `index`, as a mask.
template <int N, int kWidth>
constexpr unsigned lanes_where(int vector, bool by_column, int index) {
  unsigned mask = 0;
  for (int t = 0; t < kWidth; ++t) {
    int const f = (vector * kWidth + t) % (N * N);
    if ((by_column ? f / N : f % N) == index) mask |= 1u << t;
  }
  return mask;
}

constexpr int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

/// How the flat packed kernel fills one vector of A's or B's values for term l of vector `vector`
/// of a run: from the run's whole vectors (slots) that hold them, a pair of slots at a time (one
/// slot where one is left): each step loads its slots, permutes lanes by a constant index and,
/// after the first, blends into the lanes it serves. Loads are whole vectors of the run, so
/// aligned runs read whole lines. Where more than kMaxGatherSteps would be needed, masked merges
/// (one per column or row, as lanes_where says).
inline constexpr int kMaxGatherSteps = 3;

template <class V>
struct GatherPlan {
  int steps = 0;                    ///< 0: masked merges
  int base[kMaxGatherSteps] = {};   ///< run offset of a step's first slot
  bool pair[kMaxGatherSteps] = {};  ///< two slots (base, base + W), else one
  unsigned lanes[kMaxGatherSteps] = {};
  alignas(64) typename V::IndexElement index[kMaxGatherSteps][V::kWidth] = {};
};

/// Lane t of vector `vector` of a run multiplies, in term l, A(row(f), l) and B(l, column(f)) of
/// problem(f), f = vector * W + t: run offsets problem * N^2 + N l + row and problem * N^2 + N column
/// + l.
template <class V, int N, bool kOfA>
constexpr GatherPlan<V> make_gather_plan(int vector, int l) {
  constexpr int W = V::kWidth, kArea = N * N;
  int offset[W] = {};
  int lo = 1 << 30, hi = -1;
  for (int t = 0; t < W; ++t) {
    int const f = vector * W + t, problem = f / kArea, row = f % N, column = f % kArea / N;
    offset[t] = problem * kArea + (kOfA ? N * l + row : N * column + l);
    lo = offset[t] < lo ? offset[t] : lo;
    hi = offset[t] > hi ? offset[t] : hi;
  }
  GatherPlan<V> plan;
  int const first_slot = lo / W, last_slot = hi / W;
  if (last_slot - first_slot >= 2 * kMaxGatherSteps) return plan;
  for (int slot = first_slot; slot <= last_slot; slot += 2) {
    unsigned lanes = 0;
    for (int t = 0; t < W; ++t) {
      if (offset[t] / W == slot || offset[t] / W == slot + 1) lanes |= 1u << t;
    }
    if (lanes == 0) continue;
    int const step = plan.steps++;
    plan.base[step] = slot * W;
    plan.pair[step] = slot + 1 <= last_slot;
    plan.lanes[step] = lanes;
    for (int t = 0; t < W; ++t) {
      int const from = offset[t] - slot * W;
      plan.index[step][t] = typename V::IndexElement((lanes >> t) & 1u ? from : 0);
    }
  }
  return plan;
}

template <class V, int N, bool kOfA, int kVector, int kL>
inline constexpr GatherPlan<V> kGatherPlan = make_gather_plan<V, N, kOfA>(kVector, kL);

/// A's (kOfA) or B's values of term kL for vector kVector of the run at `run` (A + first or
/// B + first), as kGatherPlan says.
template <class V, int N, bool kOfA, int kVector, int kL>
[[gnu::always_inline]] inline typename V::Reg gather_term(typename V::T const* run) {
  using Reg = typename V::Reg;
  constexpr GatherPlan<V> const& plan = kGatherPlan<V, N, kOfA, kVector, kL>;
  if constexpr (plan.steps == 0) {
    Reg value = V::zero();
    std::int64_t const g = kVector * V::kWidth;
#pragma GCC unroll 8
    for (int x = 0; x < N; ++x) {
      unsigned const lanes = lanes_where<N, V::kWidth>(kVector, kOfA, x);
      if (lanes != 0) value = V::load_merge(value, lanes, run + g + (kOfA ? N * (kL - x) : kL - x));
    }
    return value;
  } else {
    auto const step = [&]<int kStep>() __attribute__((always_inline)) {
      typename V::Index const index = V::load_index(plan.index[kStep]);
      Reg const low = V::load(run + plan.base[kStep]);
      if constexpr (plan.pair[kStep]) return V::permute_lanes(low, index, V::load(run + plan.base[kStep] + V::kWidth));
      else return V::permute_lanes(index, low);
    };
    static_assert(kMaxGatherSteps == 3, "one blend per step after the first");
    Reg value = step.template operator()<0>();
    if constexpr (plan.steps > 1) value = V::blend(plan.lanes[1], value, step.template operator()<1>());
    if constexpr (plan.steps > 2) value = V::blend(plan.lanes[2], value, step.template operator()<2>());
    return value;
  }
}

/// Packed N x N problems (ld = N, stride = N^2, untransposed) as one flat stream of C: a run of
/// lcm(N^2, width) elements is a whole number of vectors and problems, and each vector of C is
/// the sum over l of A[g + N (l - column(g))] * B[g + l - row(g)]. The two operands' values come
/// from whole-vector loads of the run and lane permutes with constant indices (gather_term). Every
/// lane does useful work and A, B and C are loaded and stored in whole vectors, where the column kernel
/// would run masked short columns (AMD Zen 5: a masked access that misses the cache runs at about
/// half the rate of a whole one). Problems past the last whole run use the column kernel.
/// kPrefetch (SmallPrefetch): each run prefetches the next run's lines (kNextProblem) or those
/// about kPrefetchAheadBytes ahead (kAhead) of A, B and C into L1.
template <class V, class Column, int N, int kPrefetch = 0>
void packed_flat_entry(std::int64_t count, int, int, typename V::T alpha, typename V::T const* A, std::int64_t,
                       std::int64_t, typename V::T const* B, std::int64_t, std::int64_t, typename V::T beta,
                       typename V::T* C, std::int64_t, std::int64_t) {
  using Reg = typename V::Reg;
  constexpr int W = V::kWidth, kArea = N * N;
  constexpr int kRun = kArea / gcd(kArea, W) * W;  // lcm: elements per run
  constexpr int kVectors = kRun / W, kProblems = kRun / kArea;
  // Runs start where C is 64-byte aligned (a thread's share may begin at any problem): a run's
  // vectors are then whole lines, not each split across two (the problems before run in the column kernel).
  std::int64_t peel = 0;
  while (peel < kProblems && reinterpret_cast<std::uintptr_t>(C + peel * kArea) % 64 != 0) ++peel;
  peel = peel == kProblems ? 0 : (peel < count ? peel : count);
  small_gemm_entry<Column, N, N, N>(peel, N, N, alpha, A, N, kArea, B, N, kArea, beta, C, N, kArea);
  A += peel * kArea;
  B += peel * kArea;
  C += peel * kArea;
  count -= peel;
  Reg const alpha_v = V::broadcast(alpha);
  Reg const beta_v = V::broadcast(beta);
  std::int64_t const runs = count / kProblems;
  constexpr std::int64_t kRunBytes = kRun * std::int64_t(sizeof(typename V::T));
  constexpr std::int64_t kAheadRuns =
      kPrefetch == int(SmallPrefetch::kAhead) ? problems_within(kPrefetchAheadBytes, kRunBytes) : 1;
  for (std::int64_t run = 0; run < runs; ++run) {
    std::int64_t const first = run * kRun;
    if constexpr (kPrefetch != int(SmallPrefetch::kNone)) {
      if (run + kAheadRuns < runs) {  // a prefetch past the batch would not fault, but it would cost
        std::int64_t const later = first + kAheadRuns * kRun;
        prefetch_columns(A + later, kRun, 1, kRun);
        prefetch_columns(B + later, kRun, 1, kRun);
        prefetch_columns(C + later, kRun, 1, kRun);
      }
    }
    [&]<int... kVector>(std::integer_sequence<int, kVector...>) {
      ([&] {
        constexpr int v = kVector;
        std::int64_t const g = first + v * W;
        Reg const acc = [&]<int... kL>(std::integer_sequence<int, kL...>) {
          Reg sum = V::zero();
          ((sum = V::fma(gather_term<V, N, true, v, kL>(A + first), gather_term<V, N, false, v, kL>(B + first), sum)),
           ...);
          return sum;
        }(std::make_integer_sequence<int, N>{});
        Reg result = V::mul(alpha_v, acc);
        if (beta != typename V::T(0)) result = V::fma(beta_v, V::load(C + g), result);
        V::store(C + g, result);
      }(), ...);
    }(std::make_integer_sequence<int, kVectors>{});
  }
  std::int64_t const done = runs * kProblems;
  small_gemm_entry<Column, N, N, N>(count - done, N, N, alpha, A + done * kArea, N, kArea, B + done * kArea, N, kArea,
                                    beta, C + done * kArea, N, kArea);
}

/// Column groups: where a vector holds two or more whole columns of M rows (M <= W / 2), k = M and
/// the columns of B and C are stored back to back (ldb = k, ldc = m), a vector holds G = W / M whole
/// columns of C (its first G M lanes) and the same columns of B, lane for lane. Term l of every lane
/// group is then A's column l repeated in each group (group_broadcast) times the group's own B(l, j)
/// (an in-register permute: group_select), so the lanes a vector holds all work and A, B and C move
/// in whole vectors. The column kernel runs one narrow vector per column and one broadcast load of B
/// per FMA (AMD Zen 5, f32 4x8x4 in L2, 1 thread: 22 GF/s, core-bound; 65 in column groups).
template <class V, int M>
struct ColumnGroups {
  static constexpr int kColumns = V::kWidth / M;  ///< whole columns a vector holds
  static constexpr int kLanes = kColumns * M;     ///< the lanes they fill
};

/// A constant vector of lane indices: for kL >= 0 lane t reads lane kL of its group (group_select),
/// for kL < 0 lane t reads t % M (A's column repeated, group_broadcast); lanes past the groups read 0.
template <class V>
struct LaneIndex {
  alignas(64) typename V::IndexElement lane[V::kWidth] = {};
};
template <class V, int M, int kL>
constexpr LaneIndex<V> make_group_index() {
  LaneIndex<V> index;
  for (int t = 0; t < ColumnGroups<V, M>::kLanes; ++t) index.lane[t] = kL < 0 ? t % M : t / M * M + kL;
  return index;
}
template <class V, int M, int kL>
inline constexpr LaneIndex<V> kGroupIndex = make_group_index<V, M, kL>();

/// A's column at p (M elements) repeated in every group: the ISA's broadcast load where M divides
/// the width, else a masked load and a lane permute.
template <class V, int M>
[[gnu::always_inline]] inline typename V::Reg group_broadcast(typename V::T const* p) {
  if constexpr (V::kWidth % M == 0) {
    return V::template group_broadcast<M>(p);
  } else {
    return V::permute_lanes(V::load_index(kGroupIndex<V, M, -1>.lane), V::load(p, V::tail_mask(M)));
  }
}

/// Every lane of each group from the group's lane kL: the ISA's permute by an immediate for groups of
/// 2 and 4 (within 128- or 256-bit lanes), else a lane permute by a constant index.
template <class V, int M, int kL>
[[gnu::always_inline]] inline typename V::Reg group_select(typename V::Reg v) {
  if constexpr (M <= 4 && V::kWidth % M == 0) {
    return V::template group_select<M, kL>(v);
  } else {
    return V::permute_lanes(V::load_index(kGroupIndex<V, M, kL>.lane), v);
  }
}

/// A block of kFull vectors of G columns and, where kTail > 0, a last vector of kTail lanes. Vectors
/// with lanes to spare (G M < W) load masked and store end-aligned (store_tail).
template <class V, int M, int kFull, int kTail>
[[gnu::always_inline]] inline void group_block(typename V::T alpha, typename V::T const* A, std::int64_t lda,
                                               typename V::T const* B, typename V::T beta, typename V::T* C) {
  using Reg = typename V::Reg;
  constexpr int W = V::kWidth, kLanes = ColumnGroups<V, M>::kLanes, kVectors = kFull + (kTail > 0 ? 1 : 0);
  auto const full_mask = V::tail_mask(kLanes);
  auto const tail_mask = V::tail_mask(kTail > 0 ? kTail : W);
  auto const load = [&](typename V::T const* p, int v) __attribute__((always_inline)) {
    if (v == kFull) return V::load(p, tail_mask);
    return kLanes == W ? V::load(p) : V::load(p, full_mask);
  };
  Reg b[kVectors], acc[kVectors];
#pragma GCC unroll 16
  for (int v = 0; v < kVectors; ++v) {
    b[v] = load(B + v * kLanes, v);
    acc[v] = V::zero();
  }
  [&]<int... kL>(std::integer_sequence<int, kL...>) __attribute__((always_inline)) {
    ([&]() __attribute__((always_inline)) {
      Reg const a = group_broadcast<V, M>(A + kL * lda);
#pragma GCC unroll 16
      for (int v = 0; v < kVectors; ++v) acc[v] = V::fma(a, group_select<V, M, kL>(b[v]), acc[v]);
    }(), ...);
  }(std::make_integer_sequence<int, M>{});
  Reg const alpha_v = V::broadcast(alpha);
  Reg const beta_v = V::broadcast(beta);
  bool const scale = alpha != typename V::T(1), read_c = beta != typename V::T(0);
#pragma GCC unroll 16
  for (int v = 0; v < kVectors; ++v) {
    typename V::T* c = C + v * kLanes;
    Reg result = scale ? V::mul(alpha_v, acc[v]) : acc[v];
    if (read_c) result = V::fma(beta_v, load(c, v), result);
    if (v < kFull) {
      if constexpr (kLanes == W) V::store(c, result);
      else store_tail<V, kLanes>(c, result, full_mask);
    } else if constexpr (kTail > 0) {
      store_tail<V, kTail>(c, result, tail_mask);
    }
  }
}

/// Blocks of this many whole vectors of C: accumulators and B's vectors take 2 registers each.
inline constexpr int kGroupBlockVectors = 8;

/// The last block of a problem, its whole vectors (full, at most kGroupBlockVectors) and its tail
/// (tail_groups columns of M rows) picked at run time among the compile-time forms.
template <class V, int M, int kFull>
[[gnu::always_inline]] inline void group_last_block(int full, int tail_groups, typename V::T alpha,
                                                    typename V::T const* A, std::int64_t lda, typename V::T const* B,
                                                    typename V::T beta, typename V::T* C) {
  if constexpr (kFull <= kGroupBlockVectors) {
    if (full != kFull) {
      group_last_block<V, M, kFull + 1>(full, tail_groups, alpha, A, lda, B, beta, C);
      return;
    }
    auto const with_tail = [&]<int kGroups>() __attribute__((always_inline)) {
      if constexpr (kFull + kGroups > 0) {  // an empty block has no form
        if (tail_groups == kGroups) group_block<V, M, kFull, kGroups * M>(alpha, A, lda, B, beta, C);
      }
    };
    [&]<int... kGroups>(std::integer_sequence<int, kGroups...>) __attribute__((always_inline)) {
      (with_tail.template operator()<kGroups>(), ...);  // tail_groups < G: one of them matches
    }(std::make_integer_sequence<int, ColumnGroups<V, M>::kColumns>{});
  }
}

/// Runs `count` problems of M rows, k = M, n columns (N at compile time where N > 0), ldb = k and
/// ldc = m (lda any): the caller checks the layout. Each problem first prefetches the lines of the
/// one about kStepLeadBytes further on (AMD Zen 5, 1 GiB, 1 thread, % of the stream bound, without
/// -> with: f32 4x8x4 84 -> 98-100, 8x8x8 88 -> 101, f64 4x8x4 91 -> 105; the groups lost from
/// memory without it).
template <class V, int M, int N>
void grouped_entry(std::int64_t count, int n_runtime, int, typename V::T alpha, typename V::T const* A,
                   std::int64_t lda, std::int64_t stride_a, typename V::T const* B, std::int64_t, std::int64_t stride_b,
                   typename V::T beta, typename V::T* C, std::int64_t, std::int64_t stride_c) {
  constexpr int G = ColumnGroups<V, M>::kColumns, kLanes = ColumnGroups<V, M>::kLanes;
  static_assert(G >= 2, "two or more whole columns per vector");
  int const n = N > 0 ? N : n_runtime;
  int const vectors = n / G, tail_groups = n % G;
  std::int64_t const ahead = problems_within(kStepLeadBytes, std::int64_t(M * M + 2 * M * n) * sizeof(typename V::T));
  for (std::int64_t p = 0; p < count; ++p) {
    auto const* a = A + p * stride_a;
    auto const* b = B + p * stride_b;
    auto* c = C + p * stride_c;
    // The last problems prefetch their own lines: no branch, nothing read past the batch.
    std::int64_t const later = p + ahead < count ? ahead : 0;
    if constexpr (N > 0) {  // whole ranges of compile-time length: a few prefetches, no loop
      if (lda == M) prefetch_column<M * M>(a + later * stride_a);
      else prefetch_columns(a + later * stride_a, M, M, lda);
      prefetch_column<M * N>(b + later * stride_b);
      prefetch_column<M * N>(c + later * stride_c);
    } else {
      prefetch_columns(a + later * stride_a, M, M, lda);
      prefetch_columns(b + later * stride_b, M * n, 1, M * n);
      prefetch_columns(c + later * stride_c, M * n, 1, M * n);
    }
    int v = 0;
    for (; vectors - v > kGroupBlockVectors; v += kGroupBlockVectors) {
      group_block<V, M, kGroupBlockVectors, 0>(alpha, a, lda, b + v * kLanes, beta, c + v * kLanes);
    }
    group_last_block<V, M, 0>(vectors - v, tail_groups, alpha, a, lda, b + v * kLanes, beta, c + v * kLanes);
  }
}

/// The traits of a column of M rows: Select::For<M>, or Select::Split<M> where kSplit.
template <bool kSplit, class Select, int M>
struct ColumnTraits {
  using type = typename Select::template For<M>;
};
template <class Select, int M>
struct ColumnTraits<true, Select, M> {
  using type = typename Select::template Split<M>;
};

/// Whether kSplit cuts a column of M rows differently from kWide.
template <class Select, int M>
inline constexpr bool kSplitDiffers = Select::template Split<M>::kWidth != Select::template For<M>::kWidth;

/// table.square_variant[kBlocking][kPrefetch][kSplit][S], where this build compiles it.
template <class Select, int S, int kBlocking, int kPrefetch, int kSplit>
void set_square_variant(SmallKernelTable<typename Select::Packed::T>& table) {
  if constexpr (small_square_built(Select::kIsa, int(sizeof(typename Select::Packed::T)), S, SmallBlocking(kBlocking),
                                   SmallPrefetch(kPrefetch), SmallVectors(kSplit), kSplitDiffers<Select, S>)) {
    table.square_variant[kBlocking][kPrefetch][kSplit][S] =
        &small_gemm_entry<typename ColumnTraits<kSplit == 1, Select, S>::type, S, S, S, kBlocking, kPrefetch>;
  }
}

/// table.by_m_variant[kPrefetch][kSplit][M], where this build compiles it.
template <class Select, int M, int kPrefetch, int kSplit>
void set_by_m_variant(SmallKernelTable<typename Select::Packed::T>& table) {
  if constexpr (small_by_m_built(Select::kIsa, int(sizeof(typename Select::Packed::T)), M, SmallPrefetch(kPrefetch),
                                 SmallVectors(kSplit), kSplitDiffers<Select, M>)) {
    table.by_m_variant[kPrefetch][kSplit][M] =
        &small_gemm_entry<typename ColumnTraits<kSplit == 1, Select, M>::type, M, 0, 0, 0, kPrefetch>;
  }
}

/// The by_m kernels of a table (by_m_variant, and by_m with the defaults).
template <class Select, int... S>
void fill_by_m(SmallKernelTable<typename Select::Packed::T>& table, std::integer_sequence<int, S...>) {
  [&]<int... kCombination>(std::integer_sequence<int, kCombination...>) {
    ([&]<int kPrefetch, int kSplit>(std::integer_sequence<int, kPrefetch, kSplit>) {
      (set_by_m_variant<Select, S + 1, kPrefetch, kSplit>(table), ...);
    }(std::integer_sequence<int, kCombination / 2, kCombination % 2>{}), ...);
  }(std::make_integer_sequence<int, kSmallPrefetches * kSmallVectorChoices>{});
  int constexpr kWide = int(SmallVectors::kWide);
  ((table.by_m[S + 1] = table.by_m_variant[int(default_by_m_prefetch(S + 1))][kWide][S + 1]), ...);
}

/// Fills a table. Select::For<M> is the SIMD traits used for m = M (an ISA may use narrower
/// vectors for small m, so short columns are whole vectors rather than masked wide ones),
/// Select::Split<M> those of SmallVectors::kSplit, and Select::Packed the traits of the packed
/// kernels. Square and by_m variants that small_kernels_built.hpp leaves out stay nullptr. Without
/// kByM the by_m kernels are left to fill_by_m (an ISA may compile them in a translation unit of
/// their own).
template <class Select, bool kByM = true, int... S>
SmallKernelTable<typename Select::Packed::T> make_table(char const* isa, std::integer_sequence<int, S...>) {
  SmallKernelTable<typename Select::Packed::T> table;
  table.isa = isa;
  auto const fill = [&]<int kBlocking, int kPrefetch, int kSplit>(std::integer_sequence<int, kBlocking, kPrefetch, kSplit>) {
    (set_square_variant<Select, S + 1, kBlocking, kPrefetch, kSplit>(table), ...);
    ((table.square_block_columns[kBlocking][kSplit][S + 1] =
          columns_per_block<typename ColumnTraits<kSplit == 1, Select, S + 1>::type, S + 1, kBlocking>(
              row_vectors<typename ColumnTraits<kSplit == 1, Select, S + 1>::type>(S + 1))),
     ...);
  };
  static_assert(kSmallBlockings == 3 && kSmallPrefetches == 5 && kSmallVectorChoices == 2);
  [&]<int... kCombination>(std::integer_sequence<int, kCombination...>) {
    (fill(std::integer_sequence<int, kCombination / 10, kCombination / 2 % 5, kCombination % 2>{}), ...);
  }(std::make_integer_sequence<int, 30>{});
  ((table.split_differs[S + 1] = kSplitDiffers<Select, S + 1>), ...);
  int constexpr kBalanced = int(SmallBlocking::kBalanced), kWide = int(SmallVectors::kWide);
  ((table.square[S + 1] = table.square_variant[kBalanced][int(default_square_prefetch(S + 1))][kWide][S + 1]), ...);
  if constexpr (kByM) fill_by_m<Select>(table, std::integer_sequence<int, S...>{});
  table.packed[2] = &packed_2x2_entry<typename Select::Packed>;
  for (auto& variant : table.packed_variant) variant[2] = table.packed[2];
  return table;
}

}  // namespace gemmkit::cpu::small_detail
