/*! \file
    \brief The FMA peak: picks this CPU's loop, sizes it to about 50 ms on the calling thread (which
           also lifts the clock), then times it on every thread of one OpenMP region, best of 3.
*/
#include "cpu/fma_peak.hpp"

#include "cpu/cpu_features.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

namespace gemmkit::cpu {

namespace {

/// One ISA and type's loop and what one of its iterations computes.
struct FmaLoop {
  double (*run)(std::int64_t iterations) = nullptr;
  double flops_per_iteration = 0;
  char const* vectors = "";
};

FmaLoop loop_for_this_cpu(int element_bytes) {
  if (element_bytes != 4 && element_bytes != 8) return {};
  bool const f64 = element_bytes == 8;
  if (cpu_has_avx512()) {
    return {f64 ? &fma_chains_avx512_f64 : &fma_chains_avx512_f32, 2.0 * kFmaChainsAvx512 * (64 / element_bytes),
            "zmm (AVX-512)"};
  }
  if (cpu_has_avx2_fma()) {
    return {f64 ? &fma_chains_avx2_f64 : &fma_chains_avx2_f32, 2.0 * kFmaChainsAvx2 * (32 / element_bytes),
            "ymm (AVX2)"};
  }
  return {};
}

/// Where the loops' results end up, so the compiler must run them.
volatile double g_fma_peak_sink = 0;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

constexpr double kTimedSeconds = 0.05;
constexpr double kCalibrationSeconds = 0.01;
constexpr int kRuns = 3;

}  // namespace

char const* fma_peak_vectors() { return loop_for_this_cpu(8).vectors; }

double fma_peak_gflops(int element_bytes, int threads) {
  FmaLoop const loop = loop_for_this_cpu(element_bytes);
  if (loop.run == nullptr || threads < 1) return 0;

  // Calibration, which doubles as the calling thread's warm-up: grow the loop until it lasts 10 ms.
  std::int64_t iterations = 1 << 12;
  double seconds = 0;
  double kept = 0;
  for (;;) {
    auto const start = std::chrono::steady_clock::now();
    kept += loop.run(iterations);
    seconds = seconds_since(start);
    if (seconds >= kCalibrationSeconds || iterations > (std::int64_t(1) << 40)) break;
    iterations *= 4;
  }
  iterations = std::max<std::int64_t>(1, std::int64_t(double(iterations) * kTimedSeconds / seconds));

  // seconds_of[run][thread]; a run takes as long as its slowest thread.
  std::vector<std::vector<double>> seconds_of(kRuns, std::vector<double>(std::size_t(threads), 0.0));
  int team = 1;
#pragma omp parallel num_threads(threads) reduction(+ : kept)
  {
    int thread = 0;
#if defined(_OPENMP)
    thread = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();  // fewer than asked for inside another region
#endif
    kept += loop.run(iterations / 2);  // all threads at once, so the scheduler spreads them over the cores
    for (int run = 0; run < kRuns; ++run) {
#pragma omp barrier
      auto const start = std::chrono::steady_clock::now();
      kept += loop.run(iterations);
      seconds_of[std::size_t(run)][std::size_t(thread)] = seconds_since(start);
    }
  }
  g_fma_peak_sink = kept;

  double best = std::numeric_limits<double>::infinity();
  for (std::vector<double> const& run : seconds_of) {
    best = std::min(best, *std::max_element(run.begin(), run.begin() + team));
  }
  return double(team) * double(iterations) * loop.flops_per_iteration / (best * 1e9);
}

}  // namespace gemmkit::cpu
