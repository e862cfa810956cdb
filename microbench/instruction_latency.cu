/*! \file
    \brief Read-after-write latency of the instructions a GEMM loop is made of (seed 001 Table 3):
    DFMA, FFMA, DADD, DMUL, integer add and multiply-add, and FP64 MMA of every shape (accumulator
    to accumulator). One warp runs a chain in which every instruction reads the previous one's
    result; clock64 around the chain, cycles per instruction. Also the block barrier (bar.sync) a
    GEMM block crosses at every k-tile: one block of 4 or 8 warps, barriers back to back, cycles per
    barrier. Shared-memory loads are in shared_memory.cu.
*/
#include <cstdint>

#include "cuda/arch/mma_f64_shapes.cuh"
#include "microbench/device_timing.hpp"

namespace gemmkit::microbench {

namespace {

constexpr int kSteps = 4096;
constexpr int kUnroll = 32;
constexpr int kNever = 7;  ///< seeds[kNever] never equals a chain's result

// Each chain type: construction from the seeds, one dependent step (inline PTX, so each step is
// one instruction the compiler cannot merge with the next), and the value the chain ends with.

struct DfmaChain {
  double x, a, b;
  __device__ explicit DfmaChain(double const* s) : x(s[0]), a(s[1]), b(s[2]) {}
  __device__ void step() { asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(a), "d"(b)); }
  __device__ double result() const { return x; }
};

struct FfmaChain {
  float x, a, b;
  __device__ explicit FfmaChain(double const* s) : x(float(s[0])), a(float(s[1])), b(float(s[2])) {}
  __device__ void step() { asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b)); }
  __device__ double result() const { return x; }
};

struct DaddChain {
  double x, a;
  __device__ explicit DaddChain(double const* s) : x(s[0]), a(s[2]) {}
  __device__ void step() { asm volatile("add.f64 %0, %0, %1;" : "+d"(x) : "d"(a)); }
  __device__ double result() const { return x; }
};

struct DmulChain {
  double x, a;
  __device__ explicit DmulChain(double const* s) : x(s[0]), a(s[1]) {}
  __device__ void step() { asm volatile("mul.f64 %0, %0, %1;" : "+d"(x) : "d"(a)); }
  __device__ double result() const { return x; }
};

/// Adds alternate between two addends, so no pair of steps is the same add twice.
struct IaddChain {
  std::int32_t x, a, b;
  bool odd = false;
  __device__ explicit IaddChain(double const* s) : x(int(s[3])), a(int(s[4])), b(int(s[5])) {}
  __device__ void step() {
    asm volatile("add.s32 %0, %0, %1;" : "+r"(x) : "r"(odd ? b : a));
    odd = !odd;
  }
  __device__ double result() const { return x; }
};

struct ImadChain {
  std::int32_t x, a, b;
  __device__ explicit ImadChain(double const* s) : x(int(s[3])), a(int(s[4])), b(int(s[5])) {}
  __device__ void step() { asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b)); }
  __device__ double result() const { return x; }
};

template <class Shape>
struct MmaChain {
  double a[Shape::kA], b[Shape::kB], c[Shape::kC];
  __device__ explicit MmaChain(double const* s) {
    for (int i = 0; i < Shape::kA; ++i) a[i] = s[1] * (1 + 0.001 * i);
    for (int i = 0; i < Shape::kB; ++i) b[i] = s[2] * (1 - 0.001 * i);
    for (int i = 0; i < Shape::kC; ++i) c[i] = s[0] + i;
  }
  __device__ void step() { arch::mma_f64<Shape>(c, a, b); }
  __device__ double result() const {
    double sum = 0;
    for (int i = 0; i < Shape::kC; ++i) sum += c[i];
    return sum;
  }
};

template <class Chain, int kMinSm>
__global__ void __launch_bounds__(32) chain_kernel(double const* seeds, double* sink, long long* cycles) {
#if defined(__CUDA_ARCH__)
  if constexpr (__CUDA_ARCH__ >= kMinSm * 10) {  // the sm_80 pass of an sm_90 chain is empty
    Chain chain(seeds);
    long long const t0 = clock64();
    for (int i = 0; i < kSteps; i += kUnroll) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) chain.step();
    }
    long long const t1 = clock64();
    double const r = chain.result();
    if (r == seeds[kNever]) sink[threadIdx.x] = r;
    if (threadIdx.x == 0) cycles[0] = t1 - t0;
  }
#endif
}

/// kThreads threads cross kSteps barriers back to back; thread 0 reports the cycles.
template <int kThreads>
__global__ void __launch_bounds__(kThreads) barrier_kernel(long long* cycles) {
  long long const t0 = clock64();
  for (int i = 0; i < kSteps; i += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) asm volatile("bar.sync 0;" ::: "memory");
  }
  long long const t1 = clock64();
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

struct Buffers {
  DeviceArray<double> seeds, sink;
  DeviceArray<long long> cycles;
};

template <class Chain, int kMinSm = 80>
Measurement chain_row(Settings const& s, cudaStream_t stream, Buffers const& b, char const* name, char const* what) {
  Measurement row{name, "cycles", what, {}, needs_sm(s.device, kMinSm), {}};
  if (row.error.empty()) {
    time_chain([&] { chain_kernel<Chain, kMinSm><<<1, 32, 0, stream>>>(b.seeds.get(), b.sink.get(), b.cycles.get()); },
               stream, b.cycles.get(), kSteps, s.reps, &row);
  }
  return row;
}

template <int kThreads>
Measurement barrier_row(Settings const& s, cudaStream_t stream, Buffers const& b, char const* name, char const* what) {
  Measurement row{name, "cycles", what, {}, {}, {}};
  time_chain([&] { barrier_kernel<kThreads><<<1, kThreads, 0, stream>>>(b.cycles.get()); }, stream, b.cycles.get(),
             kSteps, s.reps, &row);
  return row;
}

}  // namespace

std::vector<Measurement> measure_instruction_latency(Settings const& s) {
  Stream stream;
  Buffers b;
  double const seeds[8] = {0.5, 0.999, 0.001, 3, 5, 7, 0, -12345};
  std::string e = stream.init(s.device);
  if (e.empty()) e = device_alloc(8, &b.seeds);
  if (e.empty()) e = device_upload(b.seeds.get(), seeds, 8);
  if (e.empty()) e = device_alloc(32, &b.sink);
  if (e.empty()) e = device_alloc(1, &b.cycles);
  if (!e.empty()) return {failed_row("dfma_latency", "cycles", "", e)};
  cudaStream_t const st = stream.get();
  using arch::MmaF64Shape;
  return {
      chain_row<DfmaChain>(s, st, b, "dfma_latency", "fma.rn.f64 x = x*a + b, one warp"),
      chain_row<FfmaChain>(s, st, b, "ffma_latency", "fma.rn.f32 x = x*a + b, one warp"),
      chain_row<DaddChain>(s, st, b, "dadd_latency", "add.f64 x = x + a, one warp"),
      chain_row<DmulChain>(s, st, b, "dmul_latency", "mul.f64 x = x * a, one warp"),
      chain_row<IaddChain>(s, st, b, "iadd_latency", "add.s32 x = x + (a or b, alternating), one warp"),
      chain_row<ImadChain>(s, st, b, "imad_latency", "mad.lo.s32 x = x*a + b, one warp"),
      chain_row<MmaChain<MmaF64Shape<8, 8, 4>>, 80>(s, st, b, "dmma_m8n8k4_latency",
                                                    "mma.sync m8n8k4 .f64, D = A*B + D, one warp"),
      chain_row<MmaChain<MmaF64Shape<16, 8, 4>>, 90>(s, st, b, "dmma_m16n8k4_latency",
                                                     "mma.sync m16n8k4 .f64, D = A*B + D, one warp"),
      chain_row<MmaChain<MmaF64Shape<16, 8, 8>>, 90>(s, st, b, "dmma_m16n8k8_latency",
                                                     "mma.sync m16n8k8 .f64, D = A*B + D, one warp"),
      chain_row<MmaChain<MmaF64Shape<16, 8, 16>>, 90>(s, st, b, "dmma_m16n8k16_latency",
                                                      "mma.sync m16n8k16 .f64, D = A*B + D, one warp"),
      barrier_row<128>(s, st, b, "bar_sync_4warps", "bar.sync back to back, one block of 4 warps"),
      barrier_row<256>(s, st, b, "bar_sync_8warps", "bar.sync back to back, one block of 8 warps"),
  };
}

}  // namespace gemmkit::microbench
