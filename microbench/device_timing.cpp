/*! \file
    \brief Host helpers of the micro-benchmarks: event timing, calibration, one wave, rows; and the
    machine description made from the rows.
*/
#include "microbench/device_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include "base/nvml.hpp"

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

namespace {

std::string pci_bus_id(int device, std::string* out) {
  char id[32] = {};
  std::string e = cuda_error_text(cudaDeviceGetPCIBusId(id, int(sizeof id), device), "cudaDeviceGetPCIBusId");
  *out = id;
  return e;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string sustained_energy(std::function<void()> const& launch, cudaStream_t stream, int device, double seconds,
                             EnergyRun* out) {
  std::string bus;
  if (std::string e = pci_bus_id(device, &bus); !e.empty()) return e;
  auto const run_once = [&]() -> std::string {
    launch();
    std::string e = cuda_error_text(cudaGetLastError(), "launch");
    if (e.empty()) e = cuda_error_text(cudaStreamSynchronize(stream), "the sustained run");
    return e;
  };
  for (auto const warm = std::chrono::steady_clock::now(); seconds_since(warm) < seconds / 3;) {
    if (std::string e = run_once(); !e.empty()) return e;
  }
  std::optional<double> const before = nvml::total_energy_joules(bus);
  if (!before) return "NVML's energy counter is not available";
  *out = EnergyRun{};
  auto const start = std::chrono::steady_clock::now();
  while (seconds_since(start) < seconds) {
    if (std::string e = run_once(); !e.empty()) return e;
    ++out->runs;
    if (out->sm_mhz == 0 && seconds_since(start) > seconds / 2) out->sm_mhz = nvml::sm_clock_mhz(bus).value_or(0);
  }
  std::optional<double> const after = nvml::total_energy_joules(bus);
  out->seconds = seconds_since(start);
  if (!after) return "NVML's energy counter is not available";
  out->joules = *after - *before;
  out->power_limit_w = nvml::power_limit_watts(bus).value_or(0);
  return {};
}

std::string idle_watts(int device, double seconds, double* out) {
  std::string bus;
  if (std::string e = pci_bus_id(device, &bus); !e.empty()) return e;
  if (std::string e = cuda_error_text(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); !e.empty()) return e;
  std::optional<double> const before = nvml::total_energy_joules(bus);
  auto const start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  std::optional<double> const after = nvml::total_energy_joules(bus);
  if (!before || !after) return "NVML's energy counter is not available";
  *out = (*after - *before) / seconds_since(start);
  return {};
}

Measurement energy_row(std::string name, std::string unit, std::string what, double work_per_run, EnergyRun const& run,
                       double idle_w) {
  Measurement m{std::move(name), std::move(unit), std::move(what), {}, {}, {}};
  double const work = work_per_run * double(run.runs);
  if (work <= 0 || run.seconds <= 0) {
    m.error = "no work measured";
    return m;
  }
  m.samples.push_back((run.joules - idle_w * run.seconds) / work * 1e12);
  m.parameters = {{"mean_watts", run.joules / run.seconds},
                  {"idle_watts", idle_w},
                  {"sm_mhz", run.sm_mhz},
                  {"power_limit_watts", run.power_limit_w},
                  {"seconds", run.seconds},
                  {"gross_pj_per_unit", run.joules / work * 1e12}};
  return m;
}

Measurement sustained_energy_row(std::function<void()> const& launch, cudaStream_t stream, Settings const& settings,
                                 std::string name, std::string unit, std::string what, double work_per_run,
                                 std::string const& cannot) {
  what += ", run on for " + std::to_string(int(std::lround(settings.energy_seconds * 1000))) +
          " ms; NVML energy counter, net of the idle draw";
  double idle_w = 0;
  std::string e = cannot.empty() ? idle_watts(settings.device, 0.5, &idle_w) : cannot;
  EnergyRun run;
  if (e.empty()) e = sustained_energy(launch, stream, settings.device, settings.energy_seconds, &run);
  if (!e.empty()) return failed_row(std::move(name), std::move(unit), std::move(what), e);
  return energy_row(std::move(name), std::move(unit), std::move(what), work_per_run, run, idle_w);
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
