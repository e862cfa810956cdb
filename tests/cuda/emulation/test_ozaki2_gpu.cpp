/*! \file
    \brief The Ozaki scheme II on the GPU (both engines, forced by id or through the context's setting, on
    device pointers and on the host-resident pipeline's blocks): within rounding of the host scheme over
    exponent spreads and transposes, as accurate as cuBLAS's DGEMM on full-mantissa inputs, the accurate
    scaling's per-element bound, padding untouched, beta = 0 reads no C, a non-finite operand leaves the
    scheme with C unwritten, the same bits on every run.
*/
#include "cpu/emulation/ozaki2.hpp"
#include "cpu/reference_gemm.hpp"
#include "support/device_memory.hpp"

#include <gemmkit/gemmkit.h>

#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace gemmkit::test {
namespace {

constexpr char const* kVariant = "dgemm_ozaki2_int8_cublas";
/// Both engines: gemmkit's own sm_90a INT8 GEMM (skipped where it cannot run) and cuBLAS's.
constexpr char const* kVariants[] = {"dgemm_ozaki2_int8_sm90", kVariant};

/// Whether the device can run `variant` (the own engine needs an sm_90a GPU).
bool runs_here(char const* variant) {
  int device = 0, major = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  return std::string(variant) != "dgemm_ozaki2_int8_sm90" || major == 9;
}

/// (U(0,1) - 0.5) exp(phi N(0,1)), the padding NaN.
std::vector<double> spread(std::int64_t rows, std::int64_t cols, std::int64_t ld, double phi, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> x(std::size_t(ld * cols), std::numeric_limits<double>::quiet_NaN());
  for (std::int64_t j = 0; j < cols; ++j) {
    for (std::int64_t i = 0; i < rows; ++i) x[std::size_t(i + j * ld)] = (uniform(rng) - 0.5) * std::exp(phi * normal(rng));
  }
  return x;
}

struct EmulationCase {
  GemmProblem p;
  std::vector<double> A, B, C0;
};

EmulationCase make_run(gk_op ta, gk_op tb, std::int64_t m, std::int64_t n, std::int64_t k, double phi, bool nan_c,
             std::mt19937_64& rng) {
  EmulationCase r;
  r.p.trans_a = ta, r.p.trans_b = tb, r.p.m = m, r.p.n = n, r.p.k = k;
  r.p.lda = r.p.a_rows() + 5, r.p.ldb = r.p.b_rows() + 2, r.p.ldc = m + 3;
  r.A = spread(r.p.a_rows(), r.p.a_cols(), r.p.lda, phi, rng);
  r.B = spread(r.p.b_rows(), r.p.b_cols(), r.p.ldb, phi, rng);
  r.C0 = spread(m, n, r.p.ldc, 0.0, rng);
  if (nan_c) {
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t i = 0; i < m; ++i) r.C0[std::size_t(i + j * r.p.ldc)] = std::numeric_limits<double>::quiet_NaN();
    }
  }
  return r;
}

/// gk_dgemm with the emulation forced at `bits` (0: what FP64 accuracy needs), on device copies; the status
/// and C, and the variant's report when asked for.
gk_status on_gpu(EmulationCase const& r, double alpha, double beta, std::vector<double>* C, int bits = 53,
                 std::string* report = nullptr, char const* variant = kVariant,
                 gk_fp64_emulation_scaling scaling = GK_FP64_EMULATION_SCALING_DEFAULT) {
  DeviceBuffer<double> A(r.A), B(r.B), Cd(r.C0);
  gk_context ctx = nullptr;
  EXPECT_EQ(gk_create(&ctx), GK_SUCCESS);
  EXPECT_EQ(gk_set_variant(ctx, variant), GK_SUCCESS);
  EXPECT_EQ(gk_set_fp64_emulation_bits(ctx, bits), GK_SUCCESS);
  EXPECT_EQ(gk_set_fp64_emulation_scaling(ctx, scaling), GK_SUCCESS);
  if (report != nullptr) gk_set_verbosity(ctx, 2);
  gk_status const s = gk_dgemm(ctx, GK_COL_MAJOR, r.p.trans_a, r.p.trans_b, r.p.m, r.p.n, r.p.k, alpha, A.get(), r.p.lda,
                               B.get(), r.p.ldb, beta, Cd.get(), r.p.ldc);
  cudaDeviceSynchronize();
  *C = Cd.download();
  if (report != nullptr) *report = gk_last_call_report(ctx);
  gk_destroy(ctx);
  return s;
}

/// gk_dgemm through the context's FP64 emulation setting (ON, no forced variant) with this scaling and device-memory
/// budget (0: the default), on device copies: the status, C, and the variant that ran (or the error).
gk_status with_setting(EmulationCase const& r, gk_fp64_emulation_scaling scaling, std::size_t budget, double alpha,
                       double beta, std::vector<double>* C, std::string* ran) {
  DeviceBuffer<double> A(r.A), B(r.B), Cd(r.C0);
  gk_context ctx = nullptr;
  EXPECT_EQ(gk_create(&ctx), GK_SUCCESS);
  EXPECT_EQ(gk_set_fp64_emulation(ctx, GK_FP64_EMULATION_ON), GK_SUCCESS);
  EXPECT_EQ(gk_set_fp64_emulation_scaling(ctx, scaling), GK_SUCCESS);
  EXPECT_EQ(gk_set_device_memory_budget(ctx, budget), GK_SUCCESS);
  gk_status const s = gk_dgemm(ctx, GK_COL_MAJOR, r.p.trans_a, r.p.trans_b, r.p.m, r.p.n, r.p.k, alpha, A.get(), r.p.lda,
                               B.get(), r.p.ldb, beta, Cd.get(), r.p.ldc);
  cudaDeviceSynchronize();
  *C = Cd.download();
  *ran = s == GK_SUCCESS ? gk_last_variant(ctx) : gk_last_error(ctx);
  gk_destroy(ctx);
  return s;
}

/// op(A) large in the first half of k and 2^-30 of that in the second, op(B) the other way round: every element
/// of |op(A)||op(B)| is 2^-30 of what the rows' and columns' largest suggest.
void split_magnitudes(EmulationCase& r) {
  GemmProblem const& p = r.p;
  for (std::int64_t h = 0; h < p.k; ++h) {
    bool const first_half = h < p.k / 2;
    for (std::int64_t i = 0; i < p.m && !first_half; ++i) {
      r.A[std::size_t(is_transposed(p.trans_a) ? h + i * p.lda : i + h * p.lda)] *= 0x1p-30;
    }
    for (std::int64_t j = 0; j < p.n && first_half; ++j) {
      r.B[std::size_t(is_transposed(p.trans_b) ? j + h * p.ldb : h + j * p.ldb)] *= 0x1p-30;
    }
  }
}

#define REQUIRE_GPU() \
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device"

TEST(Ozaki2Gpu, AgreesWithTheHostSchemeOverSpreadsAndTransposes) {
  REQUIRE_GPU();
  std::mt19937_64 rng(52);
  double const u = std::ldexp(1.0, -53);
  for (char const* variant : kVariants) {
  if (!runs_here(variant)) continue;
  for (double phi : {0.0, 1.0, 2.0}) {
    for (auto [ta, tb] : {std::pair{GK_OP_N, GK_OP_N}, {GK_OP_T, GK_OP_N}, {GK_OP_N, GK_OP_T}, {GK_OP_C, GK_OP_C}}) {
      for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{257, 129, 300}, {33, 70, 1000}}) {
        bool const beta_zero = phi == 1.0;
        double const alpha = -1.5, beta = beta_zero ? 0.0 : 0.75;
        EmulationCase const r = make_run(ta, tb, m, n, k, phi, beta_zero, rng);
        std::vector<double> gpu;
        ASSERT_EQ(on_gpu(r, alpha, beta, &gpu, 53, nullptr, variant), GK_SUCCESS);
        std::vector<double> host = r.C0;
        ASSERT_EQ(ozaki2::host_dgemm(r.p, ozaki2::plan_for_bits(53, k), alpha, r.A.data(), r.B.data(), beta, host.data()),
                  GK_SUCCESS);
        int bad = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          for (std::int64_t i = 0; i < r.p.ldc; ++i) {
            std::size_t const at = std::size_t(i + j * r.p.ldc);
            if (i >= m) {  // padding: untouched
              if (!std::isnan(gpu[at]) && ++bad <= 3) ADD_FAILURE() << "padding written at " << i << "," << j;
              continue;
            }
            double magnitude = 0;  // |alpha| (|op(A)| |op(B)|)(i, j) + |beta c|
            for (std::int64_t h = 0; h < k; ++h) {
              double const a = is_transposed(ta) ? r.A[std::size_t(h + i * r.p.lda)] : r.A[std::size_t(i + h * r.p.lda)];
              double const b = is_transposed(tb) ? r.B[std::size_t(j + h * r.p.ldb)] : r.B[std::size_t(h + j * r.p.ldb)];
              magnitude += std::fabs(a * b);
            }
            magnitude = std::fabs(alpha) * magnitude + (beta_zero ? 0.0 : std::fabs(beta * r.C0[at]));
            if (!(std::fabs(gpu[at] - host[at]) <= 4 * u * magnitude) && ++bad <= 3) {
              ADD_FAILURE() << "phi " << phi << " C(" << i << "," << j << "): gpu " << gpu[at] << ", host " << host[at];
            }
          }
        }
        EXPECT_EQ(bad, 0) << variant << " phi " << phi << " m " << m << " n " << n << " k " << k;
      }
    }
  }
  }
}

/// Normwise error against a long-double reference, emulated and cuBLAS's DGEMM on the same inputs.
TEST(Ozaki2Gpu, AsAccurateAsCublasOnFullMantissaInputs) {
  REQUIRE_GPU();
  std::mt19937_64 rng(2025);
  EmulationCase const r = make_run(GK_OP_N, GK_OP_N, 384, 320, 2048, 0.0, true, rng);
  std::vector<long double> ref(std::size_t(r.p.m * r.p.n));
  reference_gemm<double>(r.p, 1.0, r.A.data(), r.B.data(), 0.0, nullptr, ref.data());
  auto const worst = [&](std::vector<double> const& C) {
    double e = 0;
    for (std::int64_t j = 0; j < r.p.n; ++j) {
      for (std::int64_t i = 0; i < r.p.m; ++i) {
        long double const x = ref[std::size_t(i + j * r.p.m)];
        e = std::max(e, double(std::fabs(C[std::size_t(i + j * r.p.ldc)] - x) / (std::fabs(x) + 1e-300L)));
      }
    }
    return e;
  };
  std::vector<double> emulated;
  std::string report;
  ASSERT_EQ(on_gpu(r, 1.0, 0.0, &emulated, 0, &report), GK_SUCCESS);  // the bits FP64 accuracy needs
  // cuBLAS's DGEMM on the same device copies.
  DeviceBuffer<double> A(r.A), B(r.B), C(r.C0);
  cublasHandle_t handle = nullptr;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  double const one = 1.0, zero = 0.0;
  ASSERT_EQ(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(r.p.m), int(r.p.n), int(r.p.k), &one, A.get(),
                        int(r.p.lda), B.get(), int(r.p.ldb), &zero, C.get(), int(r.p.ldc)),
            CUBLAS_STATUS_SUCCESS);
  cublasDestroy(handle);
  std::vector<double> const native = C.download();
  double const e_emulated = worst(emulated), e_native = worst(native);
  EXPECT_LE(e_emulated, e_native) << "emulated " << e_emulated << ", cuBLAS " << e_native << "; " << report;
  RecordProperty("emulated_error", std::to_string(e_emulated));
  RecordProperty("cublas_error", std::to_string(e_native));
}

/// Beyond a double's 53 bits per operand element (62 at most), as wide exponent spreads need.
TEST(Ozaki2Gpu, MoreBitsThanADoubleHoldsAgreeWithTheHostScheme) {
  REQUIRE_GPU();
  std::mt19937_64 rng(60);
  double const u = std::ldexp(1.0, -53);
  for (int bits : {58, 62}) {
    char const* const variant = kVariants[bits == 62 && runs_here(kVariants[0]) ? 0 : 1];
    EmulationCase const r = make_run(GK_OP_T, GK_OP_N, 70, 45, 500, 2.0, false, rng);
    std::vector<double> gpu;
    ASSERT_EQ(on_gpu(r, 1.0, 0.5, &gpu, bits, nullptr, variant), GK_SUCCESS);
    std::vector<double> host = r.C0;
    ASSERT_EQ(ozaki2::host_dgemm(r.p, ozaki2::plan_for_bits(bits, r.p.k), 1.0, r.A.data(), r.B.data(), 0.5,
                                 host.data()),
              GK_SUCCESS);
    int bad = 0;
    for (std::int64_t j = 0; j < r.p.n; ++j) {
      for (std::int64_t i = 0; i < r.p.m; ++i) {
        std::size_t const at = std::size_t(i + j * r.p.ldc);
        double magnitude = std::fabs(0.5 * r.C0[at]);
        for (std::int64_t h = 0; h < r.p.k; ++h) {
          magnitude += std::fabs(r.A[std::size_t(h + i * r.p.lda)] * r.B[std::size_t(h + j * r.p.ldb)]);
        }
        if (!(std::fabs(gpu[at] - host[at]) <= 4 * u * magnitude) && ++bad <= 3) {
          ADD_FAILURE() << bits << " bits C(" << i << "," << j << "): gpu " << gpu[at] << ", host " << host[at];
        }
      }
    }
    EXPECT_EQ(bad, 0) << bits << " bits";
  }
}

/// Without a bits setting the plan follows the inputs' spread: 51 bits (15 moduli at this k) for uniform
/// data, more for spread data. A row whose one large element stands k = 4096 times over its mean needs
/// more bits than the scheme carries: the context's ON setting declines it (the native path runs),
/// while a forced variant takes the most bits there are.
TEST(Ozaki2Gpu, WithoutABitsSettingThePlanFollowsTheSpread) {
  REQUIRE_GPU();
  std::mt19937_64 rng(15);
  EmulationCase const uniform = make_run(GK_OP_N, GK_OP_N, 100, 90, 1000, 0.0, false, rng);
  std::vector<double> C;
  std::string report;
  ASSERT_EQ(on_gpu(uniform, 1.0, 0.0, &C, 0, &report), GK_SUCCESS);
  EXPECT_EQ(report.rfind("15 moduli, 51 bits", 0), 0u) << report;
  EmulationCase const spread_half = make_run(GK_OP_N, GK_OP_N, 100, 90, 1000, 0.5, false, rng);
  ASSERT_EQ(on_gpu(spread_half, 1.0, 0.0, &C, 0, &report), GK_SUCCESS);
  int moduli = 0, bits = 0;
  ASSERT_EQ(std::sscanf(report.c_str(), "%d moduli, %d bits", &moduli, &bits), 2) << report;
  EXPECT_GT(bits, 51) << report;
  EXPECT_GT(moduli, 15) << report;
  EmulationCase wide = make_run(GK_OP_N, GK_OP_N, 8, 8, 4096, 0.0, false, rng);
  for (std::int64_t h = 0; h < wide.p.k; ++h) wide.A[std::size_t(h * wide.p.lda)] = h == 0 ? 1.0 : 1e-30;
  ASSERT_EQ(on_gpu(wide, 1.0, 0.0, &C, 0, &report), GK_SUCCESS);
  EXPECT_NE(report.find(" 62 bits"), std::string::npos) << report;
  // The same wide inputs through the context's setting: native.
  std::string ran;
  ASSERT_EQ(with_setting(wide, GK_FP64_EMULATION_SCALING_DEFAULT, 0, 1.0, 0.0, &C, &ran), GK_SUCCESS) << ran;
  EXPECT_EQ(ran.rfind("dgemm_ozaki2", 0), std::string::npos);
}

TEST(Ozaki2Gpu, NonFiniteOperandLeavesTheSchemeWithCUnwritten) {
  REQUIRE_GPU();
  std::mt19937_64 rng(9);
  for (double bad : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    EmulationCase r = make_run(GK_OP_N, GK_OP_T, 40, 30, 50, 0.0, false, rng);
    r.B[7] = bad;
    std::vector<double> C;
    EXPECT_EQ(on_gpu(r, 1.0, 1.0, &C), GK_NOT_SUPPORTED);
    EXPECT_EQ(std::memcmp(C.data(), r.C0.data(), C.size() * sizeof(double)), 0);
  }
}

TEST(Ozaki2Gpu, SameBitsOnEveryRun) {
  REQUIRE_GPU();
  std::mt19937_64 rng(1);
  EmulationCase const r = make_run(GK_OP_T, GK_OP_N, 300, 200, 2100, 0.5, false, rng);
  std::vector<double> first, second;
  ASSERT_EQ(on_gpu(r, 2.0, -1.0, &first), GK_SUCCESS);
  ASSERT_EQ(on_gpu(r, 2.0, -1.0, &second), GK_SUCCESS);
  EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(double)), 0);
  if (runs_here(kVariants[0])) {  // exact products either way: the engines give the same bits
    std::vector<double> own;
    ASSERT_EQ(on_gpu(r, 2.0, -1.0, &own, 53, nullptr, kVariants[0]), GK_SUCCESS);
    EXPECT_EQ(std::memcmp(first.data(), own.data(), own.size() * sizeof(double)), 0);
  }
}

/// The context's setting, without a forced variant: ON emulates device-pointer DGEMMs; Inf or NaN
/// sends the call to the native path (and the NaN through); AUTO follows the machine description's
/// bound on the work (far above this call's); fewer bits keep their bound.
TEST(Ozaki2Gpu, TheContextSettingChoosesItAndInfOrNanTakeTheNativePath) {
  REQUIRE_GPU();
  std::mt19937_64 rng(77);
  EmulationCase r = make_run(GK_OP_N, GK_OP_N, 130, 70, 300, 0.0, true, rng);
  DeviceBuffer<double> A(r.A), B(r.B), C(r.C0);
  gk_context ctx = nullptr;
  ASSERT_EQ(gk_create(&ctx), GK_SUCCESS);
  auto const call = [&] {
    return gk_dgemm(ctx, GK_COL_MAJOR, r.p.trans_a, r.p.trans_b, r.p.m, r.p.n, r.p.k, 1.0, A.get(), r.p.lda, B.get(),
                    r.p.ldb, 0.0, C.get(), r.p.ldc);
  };
  ASSERT_EQ(gk_set_fp64_emulation(ctx, GK_FP64_EMULATION_ON), GK_SUCCESS);
  ASSERT_EQ(call(), GK_SUCCESS) << gk_last_error(ctx);
  EXPECT_STREQ(gk_last_variant(ctx), runs_here(kVariants[0]) ? kVariants[0] : kVariant);
  ASSERT_EQ(gk_set_fp64_emulation(ctx, GK_FP64_EMULATION_AUTO), GK_SUCCESS);
  ASSERT_EQ(call(), GK_SUCCESS) << gk_last_error(ctx);
  EXPECT_EQ(std::string(gk_last_variant(ctx)).rfind("dgemm_ozaki2", 0), std::string::npos)
      << "AUTO emulates only from the machine's measured work";
  // 24 bits: within that bound, and further from the reference than 53 bits.
  ASSERT_EQ(gk_set_fp64_emulation(ctx, GK_FP64_EMULATION_ON), GK_SUCCESS);
  ASSERT_EQ(gk_set_fp64_emulation_bits(ctx, 24), GK_SUCCESS);
  ASSERT_EQ(call(), GK_SUCCESS) << gk_last_error(ctx);
  cudaDeviceSynchronize();
  std::vector<double> const coarse = C.download();
  std::vector<long double> ref(std::size_t(r.p.m * r.p.n));
  reference_gemm<double>(r.p, 1.0, r.A.data(), r.B.data(), 0.0, nullptr, ref.data());
  double worst = 0;
  for (std::int64_t j = 0; j < r.p.n; ++j) {
    for (std::int64_t i = 0; i < r.p.m; ++i) {
      double a_sum = 0, b_sum = 0, a_max = 0, b_max = 0;
      for (std::int64_t h = 0; h < r.p.k; ++h) {
        double const a = std::fabs(r.A[std::size_t(i + h * r.p.lda)]), b = std::fabs(r.B[std::size_t(h + j * r.p.ldb)]);
        a_sum += a, b_sum += b, a_max = std::max(a_max, a), b_max = std::max(b_max, b);
      }
      double const bound = std::ldexp(1.0, -24) * (b_max * a_sum + a_max * b_sum) * 1.01 +
                           double(r.p.k) * std::ldexp(1.0, -48) * a_max * b_max;
      double const error = std::fabs(double(coarse[std::size_t(i + j * r.p.ldc)] - ref[std::size_t(i + j * r.p.m)]));
      EXPECT_LE(error, bound) << i << "," << j;
      worst = std::max(worst, error / (a_max * b_max * double(r.p.k)));
    }
  }
  EXPECT_GT(worst, std::ldexp(1.0, -50)) << "24 bits should show in the error";
  ASSERT_EQ(gk_set_fp64_emulation_bits(ctx, 53), GK_SUCCESS);
  // A NaN in A: the native path runs and the NaN reaches C.
  r.A[3] = std::numeric_limits<double>::quiet_NaN();
  A.upload(r.A);
  ASSERT_EQ(call(), GK_SUCCESS) << gk_last_error(ctx);
  EXPECT_EQ(std::string(gk_last_variant(ctx)).rfind("dgemm_ozaki2", 0), std::string::npos);
  cudaDeviceSynchronize();
  std::vector<double> const with_nan = C.download();
  EXPECT_TRUE(std::isnan(with_nan[3]));  // row 3 of C reads row 3 of A
  EXPECT_FALSE(std::isnan(with_nan[4]));
  gk_destroy(ctx);
}

/// Long-double op(A) op(B) and |op(A)| |op(B)|, column-major m x n.
void exact_product(EmulationCase const& r, std::vector<long double>* product, std::vector<long double>* magnitude) {
  GemmProblem const& p = r.p;
  product->assign(std::size_t(p.m * p.n), 0.0L);
  magnitude->assign(std::size_t(p.m * p.n), 0.0L);
  for (std::int64_t j = 0; j < p.n; ++j) {
    for (std::int64_t i = 0; i < p.m; ++i) {
      long double sum = 0, size = 0;
      for (std::int64_t h = 0; h < p.k; ++h) {
        long double const a = is_transposed(p.trans_a) ? r.A[std::size_t(h + i * p.lda)] : r.A[std::size_t(i + h * p.lda)];
        long double const b = is_transposed(p.trans_b) ? r.B[std::size_t(j + h * p.ldb)] : r.B[std::size_t(h + j * p.ldb)];
        sum += a * b;
        size += std::fabs(a * b);
      }
      (*product)[std::size_t(i + j * p.m)] = sum;
      (*magnitude)[std::size_t(i + j * p.m)] = size;
    }
  }
}

/// Elements of C (alpha = 1, beta = 0) further from the exact product than `relative` (|A||B|)_ij plus four
/// units of their own rounding; NaN counts.
int outside_bound(EmulationCase const& r, std::vector<double> const& C, double relative) {
  std::vector<long double> product, magnitude;
  exact_product(r, &product, &magnitude);
  int bad = 0;
  for (std::int64_t j = 0; j < r.p.n; ++j) {
    for (std::int64_t i = 0; i < r.p.m; ++i) {
      long double const exact = product[std::size_t(i + j * r.p.m)];
      long double const bound = relative * magnitude[std::size_t(i + j * r.p.m)] + std::ldexp(1.0L, -51) * std::fabs(exact);
      if (!(std::fabs(C[std::size_t(i + j * r.p.ldc)] - exact) <= bound)) ++bad;
    }
  }
  return bad;
}

/// The moduli and bits a report names ("15 moduli, 51 bits, ...").
std::pair<int, int> plan_in(std::string const& report) {
  int moduli = 0, bits = 0;
  EXPECT_EQ(std::sscanf(report.c_str(), "%d moduli, %d bits", &moduli, &bits), 2) << report;
  return {moduli, bits};
}

/// The accurate scaling's promise (ozaki2::kAccurateErrorBound): every element within 2^-49 (|A||B|)_ij
/// beyond its rounding, over spreads and transposes, on both engines; the plan it reports is the host
/// scheme's result to rounding.
TEST(Ozaki2Gpu, AccurateScalingKeepsEveryElementWithinItsBound) {
  REQUIRE_GPU();
  std::mt19937_64 rng(49);
  double const u = std::ldexp(1.0, -53);
  for (char const* variant : kVariants) {
    if (!runs_here(variant)) continue;
    for (double phi : {0.0, 1.0}) {
      for (auto [ta, tb] : {std::pair{GK_OP_N, GK_OP_N}, {GK_OP_T, GK_OP_N}, {GK_OP_N, GK_OP_T}}) {
        EmulationCase const r = make_run(ta, tb, 161, 97, 1500, phi, true, rng);
        std::vector<double> gpu;
        std::string report;
        ASSERT_EQ(on_gpu(r, 1.0, 0.0, &gpu, 0, &report, variant, GK_FP64_EMULATION_SCALING_ACCURATE), GK_SUCCESS);
        EXPECT_NE(report.find("accurate scaling"), std::string::npos) << report;
        EXPECT_EQ(outside_bound(r, gpu, ozaki2::kAccurateErrorBound), 0) << variant << " phi " << phi << ": " << report;
        auto const [moduli, bits] = plan_in(report);
        std::vector<double> host = r.C0;
        ASSERT_EQ(ozaki2::host_dgemm(r.p, {moduli, bits, 0}, 1.0, r.A.data(), r.B.data(), 0.0, host.data()), GK_SUCCESS);
        std::vector<long double> product, magnitude;
        exact_product(r, &product, &magnitude);
        int differ = 0;
        for (std::int64_t j = 0; j < r.p.n; ++j) {
          for (std::int64_t i = 0; i < r.p.m; ++i) {
            std::size_t const at = std::size_t(i + j * r.p.ldc);
            if (!(std::fabs(gpu[at] - host[at]) <= 4 * u * double(magnitude[std::size_t(i + j * r.p.m)]))) ++differ;
          }
          for (std::int64_t i = r.p.m; i < r.p.ldc; ++i) {
            if (!std::isnan(gpu[std::size_t(i + j * r.p.ldc)])) ++differ;  // padding untouched
          }
        }
        EXPECT_EQ(differ, 0) << variant << " phi " << phi;
      }
    }
  }
}

/// Where the fast scaling's bound is loose the accurate one takes fewer moduli: long k on uniform data (the
/// worst case of k elements all at their row's largest is far from k/4 on average), and spread data.
TEST(Ozaki2Gpu, AccurateScalingTakesFewerModuliWhereTheFastBoundIsLoose) {
  REQUIRE_GPU();
  std::mt19937_64 rng(14);
  for (auto [m, n, k, phi] : {std::tuple<std::int64_t, std::int64_t, std::int64_t, double>{24, 20, 40000, 0.0},
                              {100, 90, 2000, 1.0}}) {
    EmulationCase const r = make_run(GK_OP_N, GK_OP_N, m, n, k, phi, false, rng);
    std::vector<double> fast_c, accurate_c;
    std::string fast, accurate;
    ASSERT_EQ(on_gpu(r, 1.0, 0.0, &fast_c, 0, &fast, kVariant, GK_FP64_EMULATION_SCALING_FAST), GK_SUCCESS);
    ASSERT_EQ(on_gpu(r, 1.0, 0.0, &accurate_c, 0, &accurate, kVariant, GK_FP64_EMULATION_SCALING_ACCURATE),
              GK_SUCCESS);
    EXPECT_LT(plan_in(accurate).first, plan_in(fast).first) << "fast: " << fast << "; accurate: " << accurate;
    EXPECT_EQ(outside_bound(r, accurate_c, ozaki2::kAccurateErrorBound), 0) << accurate;
  }
}

/// Rows of A large in the first half of k and 2^-30 of that in the second, columns of B the other way
/// round: every element of |A||B| is 2^-30 of what the rows' and columns' largest suggest. The fast
/// scaling (moderate spread: 53 bits) loses the bound; the accurate one sees it, so the context's setting
/// declines to the native path, while a forced variant takes the most bits there are.
TEST(Ozaki2Gpu, SplitMagnitudesLeaveTheAccurateScaling) {
  REQUIRE_GPU();
  std::mt19937_64 rng(30);
  EmulationCase r = make_run(GK_OP_N, GK_OP_N, 48, 40, 4096, 0.0, false, rng);
  split_magnitudes(r);
  std::vector<double> C;
  std::string report;
  ASSERT_EQ(on_gpu(r, 1.0, 0.0, &C, 0, &report, kVariant, GK_FP64_EMULATION_SCALING_FAST), GK_SUCCESS);
  EXPECT_GT(outside_bound(r, C, ozaki2::kAccurateErrorBound), 0) << "the fast scaling's blind spot: " << report;
  ASSERT_EQ(on_gpu(r, 1.0, 0.0, &C, 0, &report, kVariant, GK_FP64_EMULATION_SCALING_ACCURATE), GK_SUCCESS);
  EXPECT_NE(report.find(" 62 bits"), std::string::npos) << report;

  std::string ran;
  ASSERT_EQ(with_setting(r, GK_FP64_EMULATION_SCALING_ACCURATE, 0, 1.0, 0.0, &C, &ran), GK_SUCCESS) << ran;
  EXPECT_EQ(ran.rfind("dgemm_ozaki2", 0), std::string::npos);
  EXPECT_EQ(outside_bound(r, C, ozaki2::kAccurateErrorBound), 0);
}

/// Host operands through the context's setting: the host-resident pipeline runs its blocks emulated, and a
/// block the accurate scaling declines natively; either way within the bound.
TEST(Ozaki2Gpu, HostOperandsRunEmulatedBlocksThroughThePipeline) {
  REQUIRE_GPU();
  std::mt19937_64 rng(32768);
  for (bool split : {false, true}) {
    EmulationCase r = make_run(GK_OP_N, GK_OP_T, 300, 260, 900, 0.0, false, rng);
    if (split) split_magnitudes(r);
    std::vector<double> C = r.C0;
    gk_context ctx = nullptr;
    ASSERT_EQ(gk_create(&ctx), GK_SUCCESS);
    ASSERT_EQ(gk_set_backend(ctx, GK_BACKEND_GPU), GK_SUCCESS);
    ASSERT_EQ(gk_set_fp64_emulation(ctx, GK_FP64_EMULATION_ON), GK_SUCCESS);
    ASSERT_EQ(gk_set_fp64_emulation_scaling(ctx, GK_FP64_EMULATION_SCALING_ACCURATE), GK_SUCCESS);
    ASSERT_EQ(gk_set_verbosity(ctx, 2), GK_SUCCESS);
    ASSERT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, r.p.trans_a, r.p.trans_b, r.p.m, r.p.n, r.p.k, 1.0, r.A.data(), r.p.lda,
                       r.B.data(), r.p.ldb, 0.0, C.data(), r.p.ldc),
              GK_SUCCESS)
        << gk_last_error(ctx);
    std::string const report = gk_last_call_report(ctx);
    EXPECT_STREQ(gk_last_variant(ctx), "dgemm_host_resident");
    EXPECT_NE(report.find(split ? "(0 kernel calls emulated" : " 0 declined"), std::string::npos) << report;
    EXPECT_NE(report.find("dgemm_ozaki2"), std::string::npos) << report;
    EXPECT_EQ(outside_bound(r, C, ozaki2::kAccurateErrorBound), 0) << report;
    gk_destroy(ctx);
  }
}

/// Within a device-memory budget below its workspace the emulation runs in blocks of rows and columns of C,
/// with the same plan, so the same bits as without a budget; with both scalings.
TEST(Ozaki2Gpu, ABudgetBlocksTheWorkAndKeepsTheBits) {
  REQUIRE_GPU();
  std::mt19937_64 rng(12);
  EmulationCase const r = make_run(GK_OP_N, GK_OP_T, 700, 600, 900, 0.5, false, rng);
  for (gk_fp64_emulation_scaling scaling : {GK_FP64_EMULATION_SCALING_FAST, GK_FP64_EMULATION_SCALING_ACCURATE}) {
    std::vector<double> results[2];
    for (std::size_t budget : {std::size_t(0), std::size_t(12) << 20}) {
      std::string ran;
      std::vector<double>& C = results[budget == 0 ? 0 : 1];
      ASSERT_EQ(with_setting(r, scaling, budget, 1.25, -0.5, &C, &ran), GK_SUCCESS) << ran;
      EXPECT_EQ(ran.rfind("dgemm_ozaki2", 0), 0u) << ran;
    }
    ASSERT_EQ(results[0].size(), results[1].size());
    EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), results[0].size() * sizeof(double)), 0)
        << "scaling " << int(scaling);
  }
}

}  // namespace
}  // namespace gemmkit::test
