/*! \file
    \brief Launch cost of an empty kernel: the round trip (launch, then wait for it, on the host
    clock) and the interval of back-to-back launches on one stream (CUDA events).
*/
#include <chrono>

#include "microbench/device_timing.hpp"

namespace gemmkit::microbench {

namespace {

__global__ void empty_kernel() {}

constexpr int kLaunchesPerRep = 1000;

}  // namespace

std::vector<Measurement> measure_launch_latency(Settings const& s) {
  char const* const round_trip_what = "<<<1, 32>>> empty kernel + cudaStreamSynchronize, host clock, per launch";
  char const* const interval_what = "back-to-back <<<1, 32>>> empty kernels on one stream, events, per launch";
  Stream stream;
  if (std::string e = stream.init(s.device); !e.empty()) {
    return {failed_row("launch_latency", "us", round_trip_what, e),
            failed_row("launch_interval", "us", interval_what, e)};
  }
  cudaStream_t const st = stream.get();
  std::vector<Measurement> rows;

  Measurement round_trip{"launch_latency", "us", round_trip_what, {}, {}, {}};
  for (int rep = -1; rep < s.reps && round_trip.error.empty(); ++rep) {  // rep -1: untimed warm-up
    auto const start = std::chrono::steady_clock::now();
    for (int i = 0; i < kLaunchesPerRep && round_trip.error.empty(); ++i) {
      empty_kernel<<<1, 32, 0, st>>>();
      round_trip.error = cuda_error_text(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    }
    double const us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (rep >= 0) round_trip.samples.push_back(us / kLaunchesPerRep);
  }
  rows.push_back(round_trip);

  std::vector<double> ms;
  std::string const e = time_on_stream(
      [&] {
        for (int i = 0; i < kLaunchesPerRep; ++i) empty_kernel<<<1, 32, 0, st>>>();
      },
      st, s.reps, &ms);
  if (!e.empty()) {
    rows.push_back(failed_row("launch_interval", "us", interval_what, e));
  } else {
    // rate_row gives launches per microsecond; the row reports microseconds per launch.
    Measurement interval = rate_row("launch_interval", "us", interval_what, kLaunchesPerRep, 1e6, ms);
    for (double& sample : interval.samples) sample = 1 / sample;
    rows.push_back(interval);
  }
  return rows;
}

}  // namespace gemmkit::microbench
