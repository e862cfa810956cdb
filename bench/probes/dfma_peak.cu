/*! \file
    \brief Probe (not part of the build): the DFMA rate by chain count, block size and operand
    form, with the SM clock under each load, to tell why `gemmkit-bench micro`'s fp64_fma stays at
    92 % of 64 lanes x 2 flops x clock per SM. Build and run on the device:
        nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a bench/probes/dfma_peak.cu -o dfma_peak && ./dfma_peak
*/
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>

namespace {

constexpr int kUnroll = 16;

/// x[c] = x[c] * a + b (kForm 0), a * x[c] + b (1), or x[c] * x[c] + b (2) on kChains chains.
template <int kChains, int kForm>
__global__ void dfma_chains(double const* seeds, long long iterations, double* sink, long long* cycles) {
  double x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = seeds[2] + double(threadIdx.x + c) * 1e-9;
  double const a = seeds[0], b = seeds[1];
  long long const start = clock64();
  for (long long i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) {
        if constexpr (kForm == 0) x[c] = __fma_rn(x[c], a, b);
        if constexpr (kForm == 1) x[c] = __fma_rn(a, x[c], b);
        if constexpr (kForm == 2) x[c] = __fma_rn(x[c], x[c], b);
      }
    }
  }
  double sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += x[c];
  if (sum == seeds[7]) sink[threadIdx.x] = sum;
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
}

template <int kChains, int kForm>
void measure(int threads, double const* seeds, double* sink, long long* cycles) {
  int device = 0, sms = 0, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dfma_chains<kChains, kForm>, threads, 0);
  int const blocks = sms * per_sm;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  long long const iterations = 4096;
  dfma_chains<kChains, kForm><<<blocks, threads>>>(seeds, 64, sink, cycles);  // warm-up
  float best = 1e30f;
  for (int rep = 0; rep < 5; ++rep) {
    cudaEventRecord(start);
    dfma_chains<kChains, kForm><<<blocks, threads>>>(seeds, iterations, sink, cycles);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    best = std::min(best, ms);
  }
  long long host_cycles[4096];
  cudaMemcpy(host_cycles, cycles, sizeof(long long) * blocks, cudaMemcpyDeviceToHost);
  long long const longest = *std::max_element(host_cycles, host_cycles + blocks);
  double const flops = 2.0 * kChains * kUnroll * double(iterations) * blocks * threads;
  double const tflops = flops / (best * 1e-3) / 1e12;
  double const mhz = double(longest) / (best * 1e3);
  double const per_clock_per_sm = flops / double(longest) / sms;  // lower bound: longest block
  std::printf("chains %2d form %d threads %4d blocks/SM %2d: %6.2f TFLOP/s, %6.0f MHz (last run), %6.1f flop/clk/SM"
              " (of 128)  %s\n",
              kChains, kForm, threads, per_sm, tflops, mhz, per_clock_per_sm, cudaGetErrorString(cudaGetLastError()));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

}  // namespace

int main() {
  double host[8] = {0.999, 0.001, 0.5, 0, 0, 0, 0, -12345};
  double *seeds = nullptr, *sink = nullptr;
  long long* cycles = nullptr;
  cudaMalloc(&seeds, sizeof host);
  cudaMemcpy(seeds, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMalloc(&sink, 1024 * sizeof(double));
  cudaMalloc(&cycles, 4096 * sizeof(long long));
  for (int threads : {128, 256, 512, 1024}) measure<8, 0>(threads, seeds, sink, cycles);
  measure<4, 0>(256, seeds, sink, cycles);
  measure<16, 0>(256, seeds, sink, cycles);
  measure<32, 0>(256, seeds, sink, cycles);
  measure<8, 1>(256, seeds, sink, cycles);
  measure<8, 2>(256, seeds, sink, cycles);
  measure<16, 2>(256, seeds, sink, cycles);
  return 0;
}
