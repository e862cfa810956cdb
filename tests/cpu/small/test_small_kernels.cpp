/*! \file
    \brief The small-GEMM kernel tables of every ISA this CPU runs (AVX-512 and AVX2 both, where
    present), called directly: sizes 1..32 in m with a spread of n and k, alpha/beta cases, padded
    leading dimensions with poisoned padding, beta = 0 with NaN-filled C; strided runs of several
    problems with guards around C.
*/
#include "cpu/cpu_features.hpp"
#include "cpu/small/small_blocking.hpp"
#include "cpu/small/small_kernels.hpp"
#include "cpu/small/small_kernels_built.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gemmkit::test {
namespace {

template <typename T>
struct IsaTable {
  std::string name;
  cpu::SmallKernelTable<T> const* table;
};

template <typename T>
std::vector<IsaTable<T>> tables_this_cpu_runs() {
  std::vector<IsaTable<T>> tables;
  bool const avx512 = cpu::cpu_has_avx512();
  bool const avx2 = cpu::cpu_has_avx2_fma();
  if constexpr (sizeof(T) == 8) {
    if (avx512) tables.push_back({"avx512", &cpu::small_kernels_avx512_f64()});
    if (avx2) tables.push_back({"avx2", &cpu::small_kernels_avx2_f64()});
  } else {
    if (avx512) tables.push_back({"avx512", &cpu::small_kernels_avx512_f32()});
    if (avx2) tables.push_back({"avx2", &cpu::small_kernels_avx2_f32()});
  }
  return tables;
}

/// Runs the table's kernel for one untransposed problem (or `forced`, where given) and checks it
/// against the reference.
template <typename T>
::testing::AssertionResult check_kernel(cpu::SmallKernelTable<T> const& table, std::int64_t m, std::int64_t n,
                                        std::int64_t k, double alpha, double beta, std::int64_t ld_pad,
                                        cpu::SmallGemmFn<T> forced = nullptr) {
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, m, n, k, ld_pad);
  Operands<T> ops = make_operands<T>(p, beta);
  Matrix<T> const C0 = ops.C;
  auto const reference = reference_result(p, alpha, ops.A, ops.B, beta, C0);
  cpu::SmallGemmFn<T> const kernel = forced != nullptr ? forced : table.lookup(int(m), int(n), int(k));
  if (kernel == nullptr) return ::testing::AssertionFailure() << "no kernel for " << describe(p);
  kernel(1, int(n), int(k), T(alpha), ops.A.data(), p.lda, 0, ops.B.data(), p.ldb, 0, T(beta), ops.C.data(), p.ldc, 0);
  return check_result(p, alpha, beta, ops.A, ops.B, C0, ops.C, reference) << " (" << table.isa << ")";
}

template <typename T>
class SmallKernels : public ::testing::Test {};
using Types = ::testing::Types<double, float>;
TYPED_TEST_SUITE(SmallKernels, Types);

TYPED_TEST(SmallKernels, EveryMWithASpreadOfNAndK) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  for (auto const& t : tables) {
    for (int m = 1; m <= cpu::kSmallMax; ++m) {
      for (int n : {1, 2, 3, 7, 8, 9, 13, 17, 32}) {
        for (int k : {1, 2, 5, 16, 31, 32}) {
          EXPECT_TRUE(check_kernel(*t.table, m, n, k, 1.0, 1.0, 0)) << t.name;
        }
      }
    }
  }
}

TYPED_TEST(SmallKernels, SquaresWithScalarsAndPadding) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  for (auto const& t : tables) {
    for (int s = 1; s <= cpu::kSmallMax; ++s) {
      EXPECT_TRUE(check_kernel(*t.table, s, s, s, 1.0, 0.0, 0)) << t.name;    // C is NaN: must not be read
      EXPECT_TRUE(check_kernel(*t.table, s, s, s, -1.5, 0.25, 3)) << t.name;  // padded, poisoned ld
      EXPECT_TRUE(check_kernel(*t.table, s, s, s, 2.0, -1.0, 1)) << t.name;
    }
  }
}

/// Every blocking, prefetch and vector cut the tuner may pick, at every square size, and every
/// prefetch and vector cut of the by_m kernels: beta = 0 on a NaN C, and padded, poisoned leading
/// dimensions. Only the variants this build compiled (all with GEMMKIT_BUILD_ALL_CONFIGS).
TYPED_TEST(SmallKernels, EveryBlockingPrefetchAndVectorCutOfEverySize) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  for (auto const& t : tables) {
    for (int s = 1; s <= cpu::kSmallMax; ++s) {
      for (int v = 0; v < cpu::kSmallVectorChoices; ++v) {
        if (v == int(cpu::SmallVectors::kSplit) && !t.table->split_differs[s]) {
          EXPECT_EQ(t.table->square_variant[0][0][v][s], t.table->square_variant[0][0][0][s]) << t.name << " " << s;
          continue;
        }
        for (int p = 0; p < cpu::kSmallPrefetches; ++p) {
          std::string const variant = std::string(cpu::to_string(cpu::SmallPrefetch(p))) + " " +
                                      cpu::to_string(cpu::SmallVectors(v));
          for (int b = 0; b < cpu::kSmallBlockings; ++b) {
            std::string const what = t.name + " " + cpu::to_string(cpu::SmallBlocking(b)) + " " + variant;
            auto const kernel = t.table->square_variant[b][p][v][s];
            if (!cpu::kSmallAllKernelsBuilt && kernel == nullptr) continue;
            ASSERT_NE(kernel, nullptr) << what << " " << s;
            EXPECT_TRUE(check_kernel(*t.table, s, s, s, 1.0, 0.0, 0, kernel)) << what;
            EXPECT_TRUE(check_kernel(*t.table, s, s, s, -0.5, 1.5, 2, kernel)) << what;
          }
          auto const by_m = t.table->by_m_variant[p][v][s];
          if (!cpu::kSmallAllKernelsBuilt && by_m == nullptr) continue;
          ASSERT_NE(by_m, nullptr) << t.name << " by_m " << variant << " " << s;
          for (auto const& [n, k] : {std::pair{s, s}, std::pair{3, 29}, std::pair{32, 1}}) {
            EXPECT_TRUE(check_kernel(*t.table, s, n, k, 1.0, 0.0, 0, by_m)) << t.name << " by_m " << variant;
            EXPECT_TRUE(check_kernel(*t.table, s, n, k, 0.5, -1.0, 3, by_m)) << t.name << " by_m " << variant;
          }
        }
      }
    }
  }
}

/// The split cut exists where a 512-bit vector would leave lanes idle: f32 9..12 rows, f64 5..6.
TEST(SmallKernels, SplitVectorsWhereAWideVectorHasLanesToSpare) {
  if (!cpu::cpu_has_avx512()) GTEST_SKIP() << "no AVX-512";
  for (int s = 1; s <= cpu::kSmallMax; ++s) {
    EXPECT_EQ(cpu::small_kernels_avx512_f64().split_differs[s], s == 5 || s == 6) << s;
    EXPECT_EQ(cpu::small_kernels_avx512_f32().split_differs[s], s >= 9 && s <= 12) << s;
  }
}

/// The packed kernels (several problems per vector): whole runs and every remainder, with beta 0
/// on a NaN C, 1 and -0.5; the batch also goes in as two calls split at problem 1 or 7, so the
/// second starts at another alignment of C (the flat kernel peels problems up to a 64-byte line).
TYPED_TEST(SmallKernels, PackedKernelsRunWholeVectorsAndTheRemainder) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  for (auto const& t : tables) {
    EXPECT_NE(t.table->packed[2], nullptr) << t.name;
    for (int s = 1; s <= cpu::kSmallMax; ++s) {
      EXPECT_EQ(t.table->packed[s], t.table->packed_variant[int(cpu::SmallPrefetch::kNone)][s]) << t.name << " " << s;
      for (int prefetch = 0; prefetch < cpu::kSmallPrefetches; ++prefetch) {
        cpu::SmallGemmFn<TypeParam> const kernel = t.table->packed_variant[prefetch][s];
        if (kernel == nullptr) continue;
        for (std::int64_t batch : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 33, 40, 71}) {
          for (std::int64_t split : {0, 1, 7}) {
            if (split > batch) continue;
            for (double beta : {0.0, 1.0, -0.5}) {
              GemmProblem const p = make_problem(dtype_of<TypeParam>(), GK_OP_N, GK_OP_N, s, s, s, 0, batch);
              ASSERT_EQ(p.stride_a, s * s);
              Operands<TypeParam> ops = make_operands<TypeParam>(p, beta);
              Matrix<TypeParam> const C0 = ops.C;
              auto const reference = reference_result(p, 1.5, ops.A, ops.B, beta, C0);
              std::int64_t const at = split * s * s;
              kernel(split, s, s, TypeParam(1.5), ops.A.data(), s, s * s, ops.B.data(), s, s * s, TypeParam(beta),
                     ops.C.data(), s, s * s);
              kernel(batch - split, s, s, TypeParam(1.5), ops.A.data() + at, s, s * s, ops.B.data() + at, s, s * s,
                     TypeParam(beta), ops.C.data() + at, s, s * s);
              EXPECT_TRUE(check_result(p, 1.5, beta, ops.A, ops.B, C0, ops.C, reference))
                  << t.name << " size " << s << " prefetch " << prefetch << " batch " << batch << " split " << split
                  << " beta " << beta;
            }
          }
        }
      }
    }
  }
}

/// One strided run of `count` problems through the table's kernel (the path the batched variant
/// takes for untransposed strided batches), C with guard elements before its first and after its
/// last element, padded ld and gaps between problems all poisoned: every C element checked against
/// a double-precision reference, and nothing outside the C windows written (the kernels store
/// masked tails end-aligned, reaching back before a column's start, so the guard before C matters).
template <typename T>
::testing::AssertionResult check_strided_run(cpu::SmallKernelTable<T> const& table, int m, int n, int k,
                                             std::int64_t count, std::int64_t ld_pad, std::int64_t gap, double alpha,
                                             double beta, cpu::SmallGemmFn<T> forced = nullptr,
                                             std::int64_t lda_extra = 0) {
  std::int64_t const lda = m + ld_pad + lda_extra, ldb = k + ld_pad, ldc = m + ld_pad;
  std::int64_t const stride_a = lda * k + gap, stride_b = ldb * n + gap, stride_c = ldc * n + gap;
  constexpr std::int64_t kGuard = 64;
  std::mt19937_64 rng = fresh_generator();
  auto filled = [&](std::int64_t size) {
    std::vector<T> v(static_cast<std::size_t>(size));
    for (T& x : v) x = random_value<T>(rng);
    return v;
  };
  std::vector<T> const A = filled(stride_a * count), B = filled(stride_b * count);
  std::vector<T> C(std::size_t(2 * kGuard + stride_c * count), poison_value<T>());
  T* const c0 = C.data() + kGuard;
  auto in_window = [&](std::int64_t e) {  // e: offset from c0
    if (e < 0 || e >= stride_c * count) return false;
    std::int64_t const within = e % stride_c;
    return within < ldc * n && within % ldc < m;
  };
  for (std::int64_t e = 0; e < stride_c * count; ++e)
    if (in_window(e)) c0[e] = beta == 0.0 ? std::numeric_limits<T>::quiet_NaN() : random_value<T>(rng);
  std::vector<T> const C_before = C;

  cpu::SmallGemmFn<T> const kernel = forced != nullptr ? forced : table.lookup(m, n, k);
  if (kernel == nullptr) return ::testing::AssertionFailure() << "no kernel";
  kernel(count, n, k, T(alpha), A.data(), lda, stride_a, B.data(), ldb, stride_b, T(beta), c0, ldc, stride_c);

  double const eps = std::numeric_limits<T>::epsilon();
  for (std::int64_t e = -kGuard; e < stride_c * count + kGuard; ++e) {
    std::size_t const at = std::size_t(e + kGuard);
    if (!in_window(e)) {
      if (!same_bits(C[at], C_before[at]))
        return ::testing::AssertionFailure() << "element " << e << " outside C's windows written";
      continue;
    }
    std::int64_t const b = e / stride_c, i = e % stride_c % ldc, j = e % stride_c / ldc;
    double sum = 0.0, magnitude = 0.0;
    for (int l = 0; l < k; ++l) {
      double const a = double(A[std::size_t(b * stride_a + i + l * lda)]);
      double const product = a * double(B[std::size_t(b * stride_b + l + j * ldb)]);
      sum += product;
      magnitude += std::abs(product);
    }
    double const c_in = beta == 0.0 ? 0.0 : double(C_before[at]);
    double const expected = alpha * sum + (beta == 0.0 ? 0.0 : beta * c_in);
    double const tolerance = 4.0 * (k + 2) * eps * (std::abs(alpha) * magnitude + std::abs(beta * c_in));
    if (!(std::abs(double(C[at]) - expected) <= tolerance))
      return ::testing::AssertionFailure() << "problem " << b << " C(" << i << "," << j << ") = " << C[at]
                                           << ", expected " << expected;
  }
  return ::testing::AssertionSuccess();
}

TYPED_TEST(SmallKernels, StridedRunsWriteOnlyTheirWindows) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  for (auto const& t : tables) {
    for (int m = 1; m <= cpu::kSmallMax; ++m) {
      for (auto const& [n, k] : {std::pair{m, m}, std::pair{3, 7}, std::pair{17, 2}}) {
        for (std::int64_t ld_pad : {0, 3}) {
          for (std::int64_t gap : {0, 5}) {
            for (double beta : {0.0, 1.0, -0.5}) {
              EXPECT_TRUE(check_strided_run(*t.table, m, n, k, 4, ld_pad, gap, 0.75, beta))
                  << t.name << " m=" << m << " n=" << n << " k=" << k << " ld_pad=" << ld_pad << " gap=" << gap
                  << " beta=" << beta;
            }
          }
        }
      }
    }
  }
}

/// The column-group kernels (two or more columns per vector, k = m, ldb = k, ldc = m): every n up to 32
/// (whole vectors, blocks of 8 vectors and every tail of groups), strided runs with gaps between
/// problems and guards around C, beta 0 on a NaN C, 1 and -0.5, and A with a longer ld (its columns
/// are broadcast from any ld). With AVX-512 they exist where a vector holds two or more columns: f64
/// m = 2..4, f32 m = 2..8.
TYPED_TEST(SmallKernels, ColumnGroupKernelsRunEveryNAndTail) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  for (auto const& t : tables) {
    for (int m = 1; m <= cpu::kSmallMax; ++m) {
      int const width = 64 / int(sizeof(TypeParam));
      bool const expected = t.name == "avx512" && m >= 2 && 2 * m <= width;
      ASSERT_EQ(t.table->grouped[m] != nullptr, expected) << t.name << " m=" << m;
      if (!expected) continue;
      EXPECT_EQ(t.table->grouped_min_n[m], width / m) << m;
      for (int n = 1; n <= cpu::kSmallMax; ++n) {
        for (std::int64_t gap : {0, 5}) {
          for (double beta : {0.0, 1.0, -0.5}) {
            EXPECT_TRUE(check_strided_run(*t.table, m, n, m, 5, 0, gap, 0.75, beta, t.table->grouped[m], gap))
                << t.name << " m=" << m << " n=" << n << " gap=" << gap << " beta=" << beta;
          }
        }
        EXPECT_TRUE(check_strided_run(*t.table, m, n, m, 3, 0, 0, 1.0, 0.0, t.table->grouped[m]))
            << t.name << " alpha 1, beta 0: m=" << m << " n=" << n;
      }
    }
  }
}

/// Every prefetch of the square and by_m kernels on strided runs: each problem hands the next one's
/// operands to its blocks (SmallPrefetch::kStep) or prefetches them itself, and the last has none.
TYPED_TEST(SmallKernels, EveryPrefetchRunsAStridedBatch) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  int const wide = int(cpu::SmallVectors::kWide);
  for (auto const& t : tables) {
    for (int s : {1, 3, 5, 8, 13, 16, 20, 24, 31, 32}) {
      for (int p = 0; p < cpu::kSmallPrefetches; ++p) {
        std::string const what = t.name + " " + cpu::to_string(cpu::SmallPrefetch(p)) + " s=" + std::to_string(s);
        for (int b = 0; b < cpu::kSmallBlockings; ++b) {
          if (t.table->square_variant[b][p][wide][s] == nullptr) continue;  // not built
          for (double beta : {0.0, -0.5}) {
            EXPECT_TRUE(check_strided_run(*t.table, s, s, s, 5, 3, 5, 0.75, beta, t.table->square_variant[b][p][wide][s]))
                << what << " " << cpu::to_string(cpu::SmallBlocking(b)) << " beta=" << beta;
          }
        }
        for (auto const& [n, k] : {std::pair{s / 2 + 1, 2 * s}, std::pair{17, 2}, std::pair{3, 29}}) {
          if (t.table->by_m_variant[p][wide][s] == nullptr) break;  // not built
          EXPECT_TRUE(check_strided_run(*t.table, s, n, k, 5, 0, 0, 1.0, 1.0, t.table->by_m_variant[p][wide][s]))
              << what << " by_m n=" << n << " k=" << k;
          EXPECT_TRUE(check_strided_run(*t.table, s, n, k, 4, 3, 5, 0.75, 0.0, t.table->by_m_variant[p][wide][s]))
              << what << " by_m padded n=" << n << " k=" << k;
        }
      }
    }
  }
}

TEST(SmallBlockingTable, ParsesRowsAndRefusesBadOnes) {
  std::string const header = "# comment\n" + std::string(cpu::kSmallBlockingHeader) + "\n";
  auto const rows = cpu::parse_small_blocking(header + "amd-zen5,avx512,f64,20,widest,none,wide,next,flat\n" +
                                              "intel,avx2,f32,7,narrow,ahead,split,none,columns\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].cpu, "amd-zen5");
  EXPECT_EQ(rows[0].isa, "avx512");
  EXPECT_EQ(rows[0].element_bytes, 8);
  EXPECT_EQ(rows[0].size, 20);
  EXPECT_EQ(rows[0].blocking, cpu::SmallBlocking::kWidest);
  EXPECT_EQ(rows[0].prefetch, cpu::SmallPrefetch::kNone);
  EXPECT_EQ(rows[0].vectors, cpu::SmallVectors::kWide);
  EXPECT_EQ(rows[0].by_m_prefetch, cpu::SmallPrefetch::kNextProblem);
  EXPECT_EQ(rows[1].cpu, "intel");
  EXPECT_EQ(rows[1].element_bytes, 4);
  EXPECT_EQ(rows[1].blocking, cpu::SmallBlocking::kNarrow);
  EXPECT_EQ(rows[1].prefetch, cpu::SmallPrefetch::kAhead);
  EXPECT_EQ(rows[1].vectors, cpu::SmallVectors::kSplit);
  EXPECT_EQ(rows[1].by_m_prefetch, cpu::SmallPrefetch::kNone);
  EXPECT_EQ(rows[0].packed, cpu::SmallPacked::kFlat);
  EXPECT_EQ(rows[1].packed, cpu::SmallPacked::kColumns);
  EXPECT_EQ(cpu::format_small_blocking_row(rows[0]), "amd-zen5,avx512,f64,20,widest,none,wide,next,flat");
  EXPECT_EQ(cpu::format_small_blocking_row(rows[1]), "intel,avx2,f32,7,narrow,ahead,split,none,columns");
  for (char const* key : {"intel", "amd-zen4", "amd-zen5", "amd"}) {
    EXPECT_EQ(cpu::parse_small_blocking(header + key + ",avx512,f64,8,widest,none,wide,none,flat\n").at(0).cpu, key);
  }
  for (char const* bad : {"amd,avx512,f64,33,widest,none,wide,none,flat\n", "amd,avx512,f64,0,widest,none,wide,none,flat\n",
                          "amd,avx512,f16,8,widest,none,wide,none,flat\n", "amd,sse,f64,8,widest,none,wide,none,flat\n",
                          "arm,avx512,f64,8,widest,none,wide,none,flat\n", "other,avx512,f64,8,widest,none,wide,none,flat\n",
                          "amd-zen6,avx512,f64,8,widest,none,wide,none,flat\n", "amd,avx512,f64,8,wide,none,wide,none,flat\n",
                          "amd,avx512,f64,8,widest,some,wide,none,flat\n", "amd,avx512,f64,8,widest,none,wide,all,flat\n",
                          "amd,avx512,f64,8,widest,none,half,none,flat\n", "amd,avx512,f64,8,widest,none,wide,flat\n",
                          "amd,avx512,f64,8,widest,none,wide,none,1,flat\n", "amd,avx512,f64,8x,widest,none,wide,none,flat\n",
                          "amd,avx512,f64,8,widest,none,wide,none,packed\n",
                          "amd,avx512,f64,8,widest,none,wide,none,flat\namd,avx512,f64,8,narrow,none,wide,none,flat\n"}) {
    EXPECT_THROW(cpu::parse_small_blocking(header + bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(cpu::parse_small_blocking("amd,avx512,f64,8,widest,none,wide,none,flat\n"), std::invalid_argument);  // no header
  EXPECT_THROW(cpu::parse_small_blocking("isa,dtype,n,blocking\navx512,f64,8,widest\n"), std::invalid_argument);
  EXPECT_NO_THROW(cpu::small_blocking_table());  // the committed table parses
}

/// The table small_kernels_for_this_cpu returns runs, per size, the blocking and prefetches the
/// committed table names for this CPU's tuning key, ISA and precision (the defaults where it names none).
template <typename T>
void check_tuned_blocking_applied() {
  auto const* table = cpu::small_kernels_for_this_cpu<T>();
  if (table == nullptr) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  std::string const key = cpu::this_cpu_tuning_key();
  for (int s = 1; s <= cpu::kSmallMax; ++s) {
    cpu::SmallBlockingRow wanted{key, table->isa, int(sizeof(T)), s, cpu::SmallBlocking::kBalanced,
                                 cpu::default_square_prefetch(s), cpu::SmallVectors::kWide,
                                 cpu::default_by_m_prefetch(s)};
    for (cpu::SmallBlockingRow const& row : cpu::small_blocking_table()) {
      if (row.cpu == key && row.isa == table->isa && row.element_bytes == int(sizeof(T)) && row.size == s) {
        wanted = row;
      }
    }
    int const vectors = int(wanted.vectors);
    EXPECT_EQ(table->square[s], table->square_variant[int(wanted.blocking)][int(wanted.prefetch)][vectors][s])
        << table->isa << " " << s;
    EXPECT_EQ(table->by_m[s], table->by_m_variant[int(wanted.by_m_prefetch)][vectors][s]) << table->isa << " " << s;
    EXPECT_EQ(table->packed[s],
              wanted.packed == cpu::SmallPacked::kFlat ? table->packed_variant[int(wanted.prefetch)][s] : nullptr)
        << table->isa << " " << s;
  }
  // A row applies to its own CPU key, ISA and precision only (Zen 4's rows not to Zen 5).
  cpu::SmallKernelTable<T> const& base = *table;
  auto const row = [&](char const* cpu, std::string const& isa, int bytes, int size) {
    return cpu::SmallBlockingRow{cpu,
                                 isa,
                                 bytes,
                                 size,
                                 cpu::SmallBlocking::kNarrow,
                                 cpu::SmallPrefetch::kNextProblem,
                                 cpu::SmallVectors::kSplit,
                                 cpu::SmallPrefetch::kNextProblem};
  };
  int const bytes = int(sizeof(T)), other_bytes = sizeof(T) == 8 ? 4 : 8;
  std::vector<cpu::SmallBlockingRow> const rows = {row("amd-zen5", base.isa, bytes, 9),
                                                   row("amd-zen5", "other", bytes, 10),
                                                   row("amd-zen5", base.isa, other_bytes, 11),
                                                   row("amd-zen4", base.isa, bytes, 12)};
  cpu::SmallKernelTable<T> const tuned = cpu::with_tuned_blocking(base, rows, "amd-zen5");
  int const narrow = int(cpu::SmallBlocking::kNarrow), next = int(cpu::SmallPrefetch::kNextProblem);
  int const split = int(cpu::SmallVectors::kSplit);
  EXPECT_EQ(tuned.square[9], base.square_variant[narrow][next][split][9]);
  EXPECT_EQ(tuned.by_m[9], base.by_m_variant[next][split][9]);
  for (int s : {10, 11, 12}) {
    EXPECT_EQ(tuned.square[s], base.square[s]) << s;
    EXPECT_EQ(tuned.by_m[s], base.by_m[s]) << s;
  }
  // flat: the packed kernel with the row's prefetch (the 2x2 kernel is the same for every prefetch);
  // columns: none, the square kernel runs packed batches too.
  std::vector<cpu::SmallBlockingRow> packed_rows = {row("amd-zen5", base.isa, bytes, 2),
                                                    row("amd-zen5", base.isa, bytes, 3)};
  cpu::SmallKernelTable<T> const flat = cpu::with_tuned_blocking(base, packed_rows, "amd-zen5");
  EXPECT_NE(flat.packed[2], nullptr);
  EXPECT_EQ(flat.packed[2], base.packed_variant[int(cpu::SmallPrefetch::kNone)][2]);
  EXPECT_EQ(flat.packed[3], base.packed_variant[next][3]);
  EXPECT_EQ(cpu::with_tuned_blocking(base, packed_rows, "intel").packed[3], base.packed[3]);
  for (cpu::SmallBlockingRow& r : packed_rows) r.packed = cpu::SmallPacked::kColumns;
  cpu::SmallKernelTable<T> const columns = cpu::with_tuned_blocking(base, packed_rows, "amd-zen5");
  EXPECT_EQ(columns.packed[2], nullptr);
  EXPECT_EQ(columns.packed[3], nullptr);
}

/// Every variant a row of the committed table names (for any CPU) and every default is compiled,
/// in the ISA tables this CPU runs; with GEMMKIT_BUILD_ALL_CONFIGS every variant is.
template <typename T>
void check_picked_variants_built() {
  for (auto const& t : tables_this_cpu_runs<T>()) {
    for (int s = 1; s <= cpu::kSmallMax; ++s) {
      EXPECT_NE(t.table->square[s], nullptr) << t.name << " " << s;
      EXPECT_NE(t.table->by_m[s], nullptr) << t.name << " " << s;
      EXPECT_NE(t.table->square_variant[0][int(cpu::default_square_prefetch(s))][0][s], nullptr) << t.name << " " << s;
      EXPECT_NE(t.table->by_m_variant[int(cpu::default_by_m_prefetch(s))][0][s], nullptr) << t.name << " " << s;
      int built = 0;
      for (auto const& by_blocking : t.table->square_variant) {
        for (auto const& by_prefetch : by_blocking) {
          for (auto const& by_vectors : by_prefetch) built += by_vectors[s] != nullptr ? 1 : 0;
        }
      }
      if (cpu::kSmallAllKernelsBuilt) {
        EXPECT_EQ(built, cpu::kSmallBlockings * cpu::kSmallPrefetches * cpu::kSmallVectorChoices) << t.name << " " << s;
      }
    }
    for (cpu::SmallBlockingRow const& row : cpu::small_blocking_table()) {
      if (row.isa != t.name || row.element_bytes != int(sizeof(T))) continue;
      std::string const what = cpu::format_small_blocking_row(row);
      EXPECT_NE(t.table->square_variant[int(row.blocking)][int(row.prefetch)][int(row.vectors)][row.size], nullptr)
          << what;
      EXPECT_NE(t.table->by_m_variant[int(row.by_m_prefetch)][int(row.vectors)][row.size], nullptr) << what;
    }
  }
}

TEST(SmallBlockingTable, EveryVariantTheTableNamesIsBuilt) {
  if (tables_this_cpu_runs<double>().empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  check_picked_variants_built<double>();
  check_picked_variants_built<float>();
}

TEST(SmallBlockingTable, TheKernelTableRunsTheTunedBlockingAndPrefetch) {
  check_tuned_blocking_applied<double>();
  check_tuned_blocking_applied<float>();
}

/// The defaults (no row for the CPU) are what the kernels ran before the table held prefetches:
/// balanced, the next problem prefetched from 10 to 24 rows (by_m kernels: from 10 rows), wide.
TEST(SmallBlockingTable, DefaultsWithoutRows) {
  auto const* table = cpu::small_kernels_for_this_cpu<double>();
  if (table == nullptr) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  cpu::SmallKernelTable<double> const* isa_table =
      std::string(table->isa) == "avx512" ? &cpu::small_kernels_avx512_f64() : &cpu::small_kernels_avx2_f64();
  int const balanced = int(cpu::SmallBlocking::kBalanced);
  for (int s = 1; s <= cpu::kSmallMax; ++s) {
    int const square_prefetch = s >= 10 && s <= 24 ? 1 : 0;
    EXPECT_EQ(isa_table->square[s], isa_table->square_variant[balanced][square_prefetch][0][s]) << s;
    EXPECT_EQ(isa_table->by_m[s], isa_table->by_m_variant[s >= 10 ? 1 : 0][0][s]) << s;
  }
}

TEST(SmallKernels, LookupUsesTheSquareKernelOnlyForSquares) {
  auto const* table = cpu::small_kernels_for_this_cpu<double>();
  if (table == nullptr) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  EXPECT_EQ(table->lookup(8, 8, 8), table->square[8]);
  EXPECT_EQ(table->lookup(8, 8, 7), table->by_m[8]);
  EXPECT_EQ(table->lookup(8, 9, 8), table->by_m[8]);
  for (int s = 1; s <= cpu::kSmallMax; ++s) {
    EXPECT_NE(table->square[s], nullptr);
    EXPECT_NE(table->by_m[s], nullptr);
  }
}

}  // namespace
}  // namespace gemmkit::test
