/*! \file
    \brief fma_peak_gflops: a finite positive rate where AVX2 or AVX-512 exists, f32 about twice f64
           (twice the lanes on the same pipes), quick, and 0 for what it cannot measure.
*/
#include "cpu/fma_peak.hpp"

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
  EXPECT_LT(seconds, 2.0) << "the probe should last about 0.2 s";
}

TEST(FmaPeak, SinglePrecisionIsAboutTwiceDouble) {
  if (!has_fma_probe()) GTEST_SKIP() << "this CPU has neither AVX-512 nor AVX2 with FMA";
  double const f64 = fma_peak_gflops(8, 1);
  double const f32 = fma_peak_gflops(4, 1);
  EXPECT_GT(f32, 1.5 * f64) << "f32 " << f32 << " GF/s, f64 " << f64 << " GF/s";
  EXPECT_LT(f32, 2.5 * f64) << "f32 " << f32 << " GF/s, f64 " << f64 << " GF/s";
}

TEST(FmaPeak, TwoThreadsCountBothThreads) {
  if (!has_fma_probe()) GTEST_SKIP() << "this CPU has neither AVX-512 nor AVX2 with FMA";
  // Loose on purpose: on a shared or SMT core two threads may gain little, but never lose half.
  double const one = fma_peak_gflops(8, 1);
  double const two = fma_peak_gflops(8, 2);
  EXPECT_TRUE(std::isfinite(two)) << two;
  EXPECT_GT(two, 0.5 * one) << "2 threads " << two << " GF/s, 1 thread " << one << " GF/s";
}

TEST(FmaPeak, ZeroForWhatItCannotMeasure) {
  EXPECT_EQ(fma_peak_gflops(2, 1), 0.0);   // no half-precision loop
  EXPECT_EQ(fma_peak_gflops(16, 1), 0.0);
  EXPECT_EQ(fma_peak_gflops(8, 0), 0.0);
  EXPECT_EQ(fma_peak_gflops(8, -3), 0.0);
}

}  // namespace
