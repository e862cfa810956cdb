/*! \file
    \brief Host helpers of the micro-benchmarks: event timing, calibration, one wave, rows; and the
    machine description made from the rows.
*/
#include "microbench/device_timing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gemmkit::microbench {

namespace {

/// A start/stop event pair, destroyed with the object.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  ~EventPair() {
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
  }
  std::string init() {
    std::string e = cuda_error_text(cudaEventCreate(&start), "cudaEventCreate");
    if (e.empty()) e = cuda_error_text(cudaEventCreate(&stop), "cudaEventCreate");
    return e;
  }
};

/// One run of `launch` between the events, in milliseconds.
std::string time_once(std::function<void()> const& launch, cudaStream_t stream, EventPair const& events, float* ms) {
  std::string e = cuda_error_text(cudaEventRecord(events.start, stream), "cudaEventRecord");
  if (!e.empty()) return e;
  launch();
  e = cuda_error_text(cudaGetLastError(), "launch");
  if (e.empty()) e = cuda_error_text(cudaEventRecord(events.stop, stream), "cudaEventRecord");
  if (e.empty()) e = cuda_error_text(cudaEventSynchronize(events.stop), "the timed run");
  if (e.empty()) e = cuda_error_text(cudaEventElapsedTime(ms, events.start, events.stop), "cudaEventElapsedTime");
  return e;
}

}  // namespace

std::string time_on_stream(std::function<void()> const& launch, cudaStream_t stream, int reps,
                           std::vector<double>* ms) {
  EventPair events;
  if (std::string e = events.init(); !e.empty()) return e;
  ms->clear();
  for (int rep = -1; rep < reps; ++rep) {  // rep -1: untimed warm-up
    float elapsed = 0;
    if (std::string e = time_once(launch, stream, events, &elapsed); !e.empty()) return e;
    if (rep >= 0) ms->push_back(elapsed);
  }
  return {};
}

std::string time_calibrated(std::function<void(long long iterations)> const& launch, cudaStream_t stream,
                            Settings const& settings, long long* iterations, std::vector<double>* ms) {
  EventPair events;
  if (std::string e = events.init(); !e.empty()) return e;
  constexpr long long kMaxIterations = 1ll << 30;
  // Short probes are mostly launch cost: grow until a run is a quarter of the target, then scale.
  for (int probe = 0; probe < 8; ++probe) {
    float elapsed = 0;
    if (std::string e = time_once([&] { launch(*iterations); }, stream, events, &elapsed); !e.empty()) return e;
    double const grow = settings.target_ms / std::max(double(elapsed), 1e-3);
    if (elapsed >= settings.target_ms / 4 || *iterations >= kMaxIterations) {
      *iterations = std::clamp(static_cast<long long>(double(*iterations) * grow), 1ll, kMaxIterations);
      break;
    }
    *iterations = std::min(kMaxIterations, *iterations * static_cast<long long>(std::clamp(grow, 2.0, 64.0)));
  }
  return time_on_stream([&] { launch(*iterations); }, stream, settings.reps, ms);
}

void time_chain(std::function<void()> const& launch, cudaStream_t stream, long long const* device_cycles, int steps,
                int reps, Measurement* row) {
  for (int rep = -1; rep < reps && row->error.empty(); ++rep) {  // rep -1: untimed warm-up
    launch();
    long long cycles = 0;
    row->error = cuda_error_text(cudaGetLastError(), "launch");
    if (row->error.empty()) {
      row->error = cuda_error_text(
          cudaMemcpyAsync(&cycles, device_cycles, sizeof cycles, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    }
    if (row->error.empty()) row->error = cuda_error_text(cudaStreamSynchronize(stream), "the chain kernel");
    if (rep >= 0 && row->error.empty()) row->samples.push_back(double(cycles) / steps);
  }
}

int one_wave_blocks(void const* kernel, int threads, int dynamic_shared_bytes, int device, std::string* error) {
  int per_sm = 0, sms = 0;
  *error = cuda_error_text(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, std::size_t(dynamic_shared_bytes)),
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (error->empty())
    *error =
        cuda_error_text(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  if (error->empty() && per_sm == 0) *error = "the kernel does not fit on an SM";
  return error->empty() ? per_sm * sms : 0;
}

Measurement rate_row(std::string name, std::string unit, std::string what, double work, double unit_scale,
                     std::vector<double> const& ms) {
  Measurement m{std::move(name), std::move(unit), std::move(what), {}, {}, {}};
  for (double const t : ms) m.samples.push_back(work / (t * 1e-3) / unit_scale);
  return m;
}

Measurement failed_row(std::string name, std::string unit, std::string what, std::string error) {
  return Measurement{std::move(name), std::move(unit), std::move(what), {}, std::move(error), {}};
}

std::string needs_sm(int device, int min_sm) {
  int major = 0, minor = 0;
  std::string e = cuda_error_text(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
                                  "cudaDeviceGetAttribute");
  if (e.empty())
    e = cuda_error_text(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device),
                        "cudaDeviceGetAttribute");
  if (e.empty() && major * 10 + minor < min_sm) {
    e = "needs sm_" + std::to_string(min_sm) + ", the device is sm_" + std::to_string(major * 10 + minor);
  }
  return e;
}

Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

std::string Stream::init(int device) {
  std::string e = cuda_error_text(cudaSetDevice(device), "cudaSetDevice");
  if (e.empty()) e = cuda_error_text(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  return e;
}

double median(std::vector<double> samples) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(samples.begin(), samples.end());
  std::size_t const n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

}  // namespace gemmkit::microbench
