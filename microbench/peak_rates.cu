/*! \file
    \brief Peak rates: FP64 and FP32 FMA (no tensor core) and FP64 tensor-core MMA per shape
    (m8n8k4, m16n8k4, m16n8k8, m16n8k16), and the SM clock under the DFMA and m16n8k16 loads.

    One wave of blocks (as many as are resident at once), each thread running independent chains
    long enough that the pipes, not the dependences, set the rate; CUDA events around the kernel.
*/
#include <algorithm>

#include "cuda/arch/mma_f64_shapes.cuh"
#include "microbench/device_timing.hpp"

namespace gemmkit::microbench {

namespace {

constexpr int kThreads = 256;
/// Independent accumulators per thread. 8 (latency x issue rate, and 8 blocks of 256 per SM) held
/// DFMA at 118 of 128 flop/clk/SM at 1970 MHz; 16 (5 blocks per SM) reach 128.2
/// (bench/probes/dfma_peak.cu, logs/dfma-probe-a329b4c.txt).
constexpr int kFmaChains = 16;
constexpr int kMmaChains = 4;
constexpr int kUnroll = 16;  ///< chain steps per loop trip, so the loop's own instructions are few

/// Seeds read at run time, so nothing is a compile-time constant; seeds[kNever] never equals a result.
constexpr int kNever = 7;

template <class T>
__device__ __forceinline__ T fused_multiply_add(T x, T a, T b) {
  if constexpr (sizeof(T) == 8)
    return __fma_rn(x, a, b);
  else
    return __fmaf_rn(x, a, b);
}

/// x = x * a + b on kFmaChains chains per thread; a < 1 keeps the values finite and normal.
template <class T>
__global__ void __launch_bounds__(kThreads)
    fma_chains_kernel(T const* seeds, long long iterations, T* sink, long long* cycles) {
  T x[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) x[c] = seeds[2] + T(threadIdx.x + c);
  T const a = seeds[0], b = seeds[1];
  long long const start = clock64();
  for (long long i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kFmaChains; ++c) x[c] = fused_multiply_add(x[c], a, b);
    }
  }
  T sum = 0;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) sum += x[c];
  if (sum == seeds[kNever]) sink[threadIdx.x] = sum;
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
}

/// D = A*B + D on kMmaChains accumulators per warp, A and B fixed.
template <class Shape>
__global__ void __launch_bounds__(kThreads)
    mma_chains_kernel(double const* seeds, long long iterations, double* sink, long long* cycles) {
#if defined(__CUDA_ARCH__)
  if constexpr (__CUDA_ARCH__ >= Shape::kMinSm * 10) {  // the sm_80 pass of an sm_90 shape is empty
    double a[Shape::kA], b[Shape::kB], c[kMmaChains][Shape::kC];
    int const lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < Shape::kA; ++i) a[i] = seeds[0] * (1 + 0.01 * lane + 0.001 * i);
#pragma unroll
    for (int i = 0; i < Shape::kB; ++i) b[i] = seeds[1] * (1 - 0.01 * lane + 0.002 * i);
#pragma unroll
    for (int k = 0; k < kMmaChains; ++k) {
#pragma unroll
      for (int i = 0; i < Shape::kC; ++i) c[k][i] = seeds[2] + k + i;
    }
    long long const start = clock64();
    for (long long i = 0; i < iterations; ++i) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
        for (int k = 0; k < kMmaChains; ++k) arch::mma_f64<Shape>(c[k], a, b);
      }
    }
    double sum = 0;
#pragma unroll
    for (int k = 0; k < kMmaChains; ++k) {
#pragma unroll
      for (int i = 0; i < Shape::kC; ++i) sum += c[k][i];
    }
    if (sum == seeds[kNever]) sink[threadIdx.x] = sum;
    if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
  }
#endif
}

/// One rate kernel timed over one wave: its device buffers (seeds, sink, per-block cycle counts),
/// the calibrated iteration count and the runs' milliseconds.
template <class T>
struct RateRun {
  using Kernel = void (*)(T const*, long long, T*, long long*);
  DeviceArray<T> seeds, sink;
  DeviceArray<long long> cycles;
  int blocks = 0;
  long long iterations = 16;
  std::vector<double> ms;

  std::string run(Kernel kernel, Settings const& s, cudaStream_t stream) {
    T const host[8] = {T(0.999), T(0.001), T(0.5), T(0), T(0), T(0), T(0), T(-12345)};
    std::string e;
    blocks = one_wave_blocks(reinterpret_cast<void const*>(kernel), kThreads, 0, s.device, &e);
    if (e.empty()) e = device_alloc(8, &seeds);
    if (e.empty()) e = device_upload(seeds.get(), host, 8);
    if (e.empty()) e = device_alloc(kThreads, &sink);
    if (e.empty()) e = device_alloc(std::size_t(blocks), &cycles);
    if (e.empty()) {
      e = time_calibrated(
          [&](long long n) { kernel<<<blocks, kThreads, 0, stream>>>(seeds.get(), n, sink.get(), cycles.get()); },
          stream, s, &iterations, &ms);
    }
    return e;
  }
};

/// The SM clock during a rate kernel's last run, as row `name`: cycles of the longest block over the
/// kernel's time (one wave, so every block runs the whole kernel).
template <class T>
Measurement clock_during(RateRun<T> const& r, std::string const& name, char const* kernel) {
  std::string const what = "clock64 cycles / event time of the " + std::string(kernel) + " kernel";
  std::vector<long long> cycles(std::size_t(r.blocks), 0);
  std::string const copy = cuda_error_text(
      cudaMemcpy(cycles.data(), r.cycles.get(), cycles.size() * sizeof(long long), cudaMemcpyDeviceToHost),
      "cudaMemcpy");
  if (!copy.empty()) return failed_row(name, "MHz", what, copy);
  double const longest = double(*std::max_element(cycles.begin(), cycles.end()));
  return Measurement{name, "MHz", what, {longest / (r.ms.back() * 1e3)}, {}, {}};
}

/// The FMA rate; with `clock`, also the SM clock under that load (the FP64 pipe's rate is
/// 64 lanes x 2 flops per clock per SM, so the clock tells a throttled pipe from an idle one).
template <class T>
Measurement fma_rate(Settings const& s, cudaStream_t stream, char const* name, char const* what,
                     Measurement* clock = nullptr, char const* clock_name = nullptr) {
  RateRun<T> r;
  if (std::string e = r.run(&fma_chains_kernel<T>, s, stream); !e.empty()) {
    if (clock != nullptr) *clock = failed_row(clock_name, "MHz", "", e);
    return failed_row(name, "TFLOP/s", what, e);
  }
  if (clock != nullptr) *clock = clock_during(r, clock_name, name);
  double const flops = 2.0 * kFmaChains * kUnroll * double(r.iterations) * r.blocks * kThreads;
  return rate_row(name, "TFLOP/s", what, flops, 1e12, r.ms);
}

/// The shape's rate; with `clock`, also the SM clock during the last run; with `energy`, the
/// picojoules per flop of the same kernel run on.
template <class Shape>
Measurement mma_rate(Settings const& s, cudaStream_t stream, char const* name, Measurement* clock,
                     Measurement* energy = nullptr) {
  std::string const what = "mma.sync .f64, " + std::to_string(kMmaChains) + " accumulators per warp, one wave";
  RateRun<double> r;
  std::string e = needs_sm(s.device, Shape::kMinSm);
  if (e.empty()) e = r.run(&mma_chains_kernel<Shape>, s, stream);
  if (!e.empty()) {
    if (clock != nullptr) *clock = failed_row("sm_clock", "MHz", "", e);
    if (energy != nullptr) *energy = failed_row(std::string("energy_") + name, "pJ/flop", what, e);
    return failed_row(name, "TFLOP/s", what, e);
  }
  if (clock != nullptr) *clock = clock_during(r, "sm_clock", name);
  double const flops = Shape::kFlops * kMmaChains * kUnroll * double(r.iterations) * r.blocks * (kThreads / 32);
  if (energy != nullptr) {
    *energy = sustained_energy_row(
        [&] { mma_chains_kernel<Shape><<<r.blocks, kThreads, 0, stream>>>(r.seeds.get(), r.iterations, r.sink.get(),
                                                                           r.cycles.get()); },
        stream, s, std::string("energy_") + name, "pJ/flop", what, flops);
  }
  return rate_row(name, "TFLOP/s", what, flops, 1e12, r.ms);
}

}  // namespace

std::vector<Measurement> measure_peak_rates(Settings const& s) {
  Stream stream;
  if (std::string e = stream.init(s.device); !e.empty()) return {failed_row("fp64_fma", "TFLOP/s", "", e)};
  std::vector<Measurement> rows;
  std::string const chains = std::to_string(kFmaChains) + " chains per thread, one wave";
  Measurement fma_clock, clock;
  rows.push_back(fma_rate<double>(s, stream.get(), "fp64_fma", ("DFMA, " + chains).c_str(), &fma_clock,
                                  "sm_clock_fp64_fma"));
  rows.push_back(fma_clock);
  rows.push_back(fma_rate<float>(s, stream.get(), "fp32_fma", ("FFMA, " + chains).c_str()));
  rows.push_back(mma_rate<arch::MmaF64Shape<8, 8, 4>>(s, stream.get(), "fp64_mma_m8n8k4", nullptr));
  rows.push_back(mma_rate<arch::MmaF64Shape<16, 8, 4>>(s, stream.get(), "fp64_mma_m16n8k4", nullptr));
  rows.push_back(mma_rate<arch::MmaF64Shape<16, 8, 8>>(s, stream.get(), "fp64_mma_m16n8k8", nullptr));
  Measurement energy;
  rows.push_back(mma_rate<arch::MmaF64Shape<16, 8, 16>>(s, stream.get(), "fp64_mma_m16n8k16", &clock,
                                                        s.energy_seconds > 0 ? &energy : nullptr));
  rows.push_back(clock);
  if (s.energy_seconds > 0) rows.push_back(energy);
  return rows;
}

}  // namespace gemmkit::microbench
