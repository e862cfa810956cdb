/*! \file
    \brief fma_peak_gflops: a finite positive rate where AVX2 or AVX-512 exists, loops that compute
           the chains they are counted as (closed form), and 0 for what it cannot measure. No
           assertion on rates: tests run beside each other on a shared machine.
*/
#include "cpu/fma_peak.hpp"

#include "cpu/cpu_features.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>

namespace {

using gemmkit::cpu::fma_peak_gflops;
using gemmkit::cpu::fma_peak_vectors;

bool has_fma_probe() { return std::string(fma_peak_vectors()) != ""; }

TEST(FmaPeak, OneThreadIsFinitePositiveAndQuick) {
  if (!has_fma_probe()) GTEST_SKIP() << "this CPU has neither AVX-512 nor AVX2 with FMA";
  auto const start = std::chrono::steady_clock::now();
  double const f64 = fma_peak_gflops(8, 1);
  double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(std::isfinite(f64)) << f64;
  EXPECT_GT(f64, 0.5) << "GFLOP/s of one core's " << fma_peak_vectors() << " FMAs";
  EXPECT_LT(f64, 1000.0) << "more than any core computes: the loop was not what was counted";
  EXPECT_LT(seconds, 10.0) << "the probe lasts about 0.2 s: its calibration ran away";
}

/// What the loops compute, in closed form: chain c starts at c and steps x = 0.999 x + 0.001, so after
/// n steps it holds 0.999^n c + (1 - 0.999^n); each of `lanes` lanes holds every chain once.
double expected_sum(int chains, int lanes, std::int64_t n) {
  double const decay = std::pow(0.999, double(n));
  double total = 0;
  for (int c = 0; c < chains; ++c) total += decay * c + (1 - decay);
  return total * lanes;
}

TEST(FmaPeak, LoopsComputeWhatIsCounted) {
  using namespace gemmkit::cpu;
  bool const avx512 = cpu_has_avx512();
  bool const avx2 = cpu_has_avx2_fma();
  if (!avx512 && !avx2) GTEST_SKIP() << "this CPU has neither AVX-512 nor AVX2 with FMA";
  for (std::int64_t n : {1, 7, 1000}) {
    if (avx512) {
      double const f64 = expected_sum(kFmaChainsAvx512, 8, n), f32 = expected_sum(kFmaChainsAvx512, 16, n);
      EXPECT_NEAR(fma_chains_avx512_f64(n), f64, 1e-9 * f64) << n;
      EXPECT_NEAR(fma_chains_avx512_f32(n), f32, 1e-4 * f32) << n;
    }
    if (avx2) {
      double const f64 = expected_sum(kFmaChainsAvx2, 4, n), f32 = expected_sum(kFmaChainsAvx2, 8, n);
      EXPECT_NEAR(fma_chains_avx2_f64(n), f64, 1e-9 * f64) << n;
      EXPECT_NEAR(fma_chains_avx2_f32(n), f32, 1e-4 * f32) << n;
    }
  }
}

TEST(FmaPeak, ZeroForWhatItCannotMeasure) {
  EXPECT_EQ(fma_peak_gflops(2, 1), 0.0);   // no half-precision loop
  EXPECT_EQ(fma_peak_gflops(16, 1), 0.0);
  EXPECT_EQ(fma_peak_gflops(8, 0), 0.0);
  EXPECT_EQ(fma_peak_gflops(8, -3), 0.0);
}

}  // namespace
