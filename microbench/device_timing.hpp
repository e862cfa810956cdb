/*! \file
    \brief What the micro-benchmarks' host sides share: device buffers, event timing of launches,
    one wave of blocks, and rows made from timings.
*/
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/cuda_check.hpp"
#include "microbench/microbench.hpp"

namespace gemmkit::microbench {

struct CudaFree {
  void operator()(void* pointer) const { cudaFree(pointer); }
};
/// Device memory released with cudaFree.
template <class T>
using DeviceArray = std::unique_ptr<T[], CudaFree>;

/// cudaMalloc of `count` elements; "" or an error.
template <class T>
std::string device_alloc(std::size_t count, DeviceArray<T>* out) {
  void* pointer = nullptr;
  std::string e = cuda_error_text(cudaMalloc(&pointer, count * sizeof(T)), "cudaMalloc");
  if (e.empty()) out->reset(static_cast<T*>(pointer));
  return e;
}

/// Copies `count` elements to the device; "" or an error.
template <class T>
std::string device_upload(T* device, T const* host, std::size_t count) {
  return cuda_error_text(cudaMemcpy(device, host, count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
}

/// Milliseconds of each of `reps` runs of `launch` (which queues work on `stream`), each between
/// two events, after one untimed run.
std::string time_on_stream(std::function<void()> const& launch, cudaStream_t stream, int reps, std::vector<double>* ms);

/// Times `launch(iterations)` like time_on_stream, with `iterations` first grown from `*iterations`
/// until one run lasts about `target_ms`; the count used is left in `*iterations`.
std::string time_calibrated(std::function<void(long long iterations)> const& launch, cudaStream_t stream,
                            Settings const& settings, long long* iterations, std::vector<double>* ms);

/// Fills `row` (name, unit and what set) with cycles per step: `reps` runs of `launch`, after one
/// untimed, each queueing on `stream` a kernel that writes the clock64 cycles of its `steps`
/// dependent steps to `*device_cycles`.
void time_chain(std::function<void()> const& launch, cudaStream_t stream, long long const* device_cycles, int steps,
                int reps, Measurement* row);

/// Blocks of `threads` threads of `kernel` that are resident at once on the whole device (one wave),
/// or 0 with `error` set.
int one_wave_blocks(void const* kernel, int threads, int dynamic_shared_bytes, int device, std::string* error);

/// A row from `work` units done per run and the runs' milliseconds: samples work / time / unit_scale
/// (unit_scale 1e12 for TFLOP/s from flops, 1e9 for GB/s from bytes).
Measurement rate_row(std::string name, std::string unit, std::string what, double work, double unit_scale,
                     std::vector<double> const& ms);

/// Energy of sustained work, from the board's energy counter (NVML): what sustained_energy saw.
struct EnergyRun {
  double joules = 0, seconds = 0;
  long long runs = 0;
  double sm_mhz = 0;         ///< NVML's SM clock, read halfway through
  double power_limit_w = 0;  ///< the limit the board enforced
};

/// Queues `launch` (one run on `stream`) again and again, each run waited for, for a third of
/// `seconds` to reach a steady clock and power, then for `seconds` while the energy counter runs.
std::string sustained_energy(std::function<void()> const& launch, cudaStream_t stream, int device, double seconds,
                             EnergyRun* out);

/// The board's mean draw over `seconds` with nothing queued, watts.
std::string idle_watts(int device, double seconds, double* out);

/// A row of picojoules per unit of work above the idle draw: (joules - idle x seconds) / (runs x
/// work_per_run), in `unit` ("pJ/flop", "pJ/B"); the mean and idle watts, the SM clock and the power
/// limit ride along as parameters.
Measurement energy_row(std::string name, std::string unit, std::string what, double work_per_run, EnergyRun const& run,
                       double idle_w);

/// energy_row for `launch` run on and on (sustained_energy) over settings.energy_seconds, net of the
/// idle draw read over 0.5 s just before; a failed row where `cannot` (e.g. the rate run's error),
/// the idle reading or the run says why not.
Measurement sustained_energy_row(std::function<void()> const& launch, cudaStream_t stream, Settings const& settings,
                                 std::string name, std::string unit, std::string what, double work_per_run,
                                 std::string const& cannot = {});

/// A row that could not be measured.
Measurement failed_row(std::string name, std::string unit, std::string what, std::string error);

/// "" when the device's compute capability (major*10+minor) is at least `min_sm`, else why not.
std::string needs_sm(int device, int min_sm);

/// A stream created on `device` and destroyed with the object.
class Stream {
 public:
  Stream() = default;
  ~Stream();
  Stream(Stream const&) = delete;
  Stream& operator=(Stream const&) = delete;
  std::string init(int device);
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace gemmkit::microbench
