/*! \file
    \brief Shared memory: load latency by width (32, 64, 128 bit) and the cost of bank conflicts
    (seed 001 Table 2), and the read bandwidth per SM and clock.

    Latency: one warp, each lane following its own chain of dependent loads (a slot holds the
    shared address of the lane's next slot), timed by clock64. Lane l's slots lie `stride` words
    apart from lane l-1's, so 32-bit loads with a stride of 2^k words are 2^k-way conflicts. The
    other words of a 64- and 128-bit load are folded into a sink off the chain, so the load stays
    as wide as asked. Bandwidth: one wave of blocks streaming conflict-free 128-bit loads.
*/
#include <algorithm>
#include <cstdint>

#include "microbench/device_timing.hpp"

namespace gemmkit::microbench {

namespace {

constexpr int kSharedWords = 8192;  ///< 32 KiB of chains
constexpr int kChaseSteps = 2048;
constexpr int kUnroll = 16;

/// One step of the chain: the load of kWords words at `address`; the first word is the next address.
template <int kWords>
__device__ __forceinline__ std::uint32_t chase_step(std::uint32_t address, std::uint32_t& sink) {
  if constexpr (kWords == 1) {
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(address));
  } else if constexpr (kWords == 2) {
    std::uint32_t other;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%0];" : "+r"(address), "=r"(other));
    sink ^= other;
  } else {
    std::uint32_t other[3];
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];"
                 : "+r"(address), "=r"(other[0]), "=r"(other[1]), "=r"(other[2]));
    sink ^= other[0] ^ other[1] ^ other[2];
  }
  return address;
}

template <int kWords>
__global__ void __launch_bounds__(32)
    shared_chase_kernel(int stride_words, int steps, unsigned* sink, long long* cycles) {
  __shared__ __align__(16) std::uint32_t words[kSharedWords];
  int const lane = threadIdx.x;
  int const chain_length = kSharedWords / (32 * stride_words);
  auto const base = static_cast<std::uint32_t>(__cvta_generic_to_shared(words));
  for (int j = 0; j < chain_length; ++j) {
    int const slot = (j * 32 + lane) * stride_words;
    int const next = (((j + 1) % chain_length) * 32 + lane) * stride_words;
    words[slot] = base + 4 * next;
    for (int w = 1; w < kWords; ++w) words[slot + w] = w;
  }
  __syncwarp();
  std::uint32_t address = base + 4 * lane * stride_words;
  std::uint32_t other = 0;
  long long const t0 = clock64();
  for (int i = 0; i < steps; i += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) address = chase_step<kWords>(address, other);
  }
  long long const t1 = clock64();
  if (address == 1 || other == 0x9e3779b9u) sink[lane] = address ^ other;  // never true (addresses are even)
  if (lane == 0) cycles[0] = t1 - t0;
}

constexpr int kReadThreads = 256;
constexpr int kReadUnroll = 8;
constexpr int kReadWords = kReadThreads * 4 * kReadUnroll;  ///< 32 KiB per block

/// Every thread reads 16 bytes at a time; a warp's 32 loads are 512 contiguous bytes (no
/// conflict). `ld.volatile` so the unchanging addresses are read again every trip.
__global__ void __launch_bounds__(kReadThreads)
    shared_read_kernel(long long iterations, unsigned* sink, long long* cycles) {
  __shared__ __align__(16) std::uint32_t words[kReadWords];
  for (int i = threadIdx.x; i < kReadWords; i += kReadThreads) words[i] = i;
  __syncthreads();
  auto const base = static_cast<std::uint32_t>(__cvta_generic_to_shared(words)) + 16 * threadIdx.x;
  unsigned acc = 0;
  long long const start = clock64();
  for (long long i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < kReadUnroll; ++u) {
      std::uint32_t x, y, z, w;
      asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                   : "r"(base + u * 16 * kReadThreads));
      acc ^= x ^ y ^ z ^ w;
    }
  }
  long long const stop = clock64();
  if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
  if (threadIdx.x == 0) cycles[blockIdx.x] = stop - start;
}

struct Buffers {
  DeviceArray<unsigned> sink;
  DeviceArray<long long> cycles;
};

template <int kWords>
Measurement chase_row(cudaStream_t stream, Buffers const& b, int reps, int stride_words, std::string name,
                      std::string what) {
  Measurement row{std::move(name), "cycles", std::move(what), {}, {}, {}};
  time_chain(
      [&] {
        shared_chase_kernel<kWords><<<1, 32, 0, stream>>>(stride_words, kChaseSteps, b.sink.get(), b.cycles.get());
      },
      stream, b.cycles.get(), kChaseSteps, reps, &row);
  row.parameters = {{"width_bits", 32 * kWords}, {"stride_words", stride_words}};
  return row;
}

/// Bytes per clock per SM: the bytes one SM's blocks read over the cycles of the longest block
/// (one wave: the blocks of an SM run side by side for the whole kernel), scaled rep by rep with
/// the event times.
/// With `energy`, also the picojoules per byte of the same kernel run on.
Measurement bandwidth_row(Settings const& s, cudaStream_t stream, Buffers const& b, Measurement* energy = nullptr) {
  char const* const what = "conflict-free ld.shared.v4 by one wave of 256-thread blocks, bytes per SM per clock";
  std::string e;
  int const blocks = one_wave_blocks(reinterpret_cast<void const*>(&shared_read_kernel), kReadThreads, 0, s.device, &e);
  int sms = 0;
  if (e.empty())
    e = cuda_error_text(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s.device),
                        "cudaDeviceGetAttribute");
  DeviceArray<long long> cycles;
  if (e.empty()) e = device_alloc(std::size_t(blocks), &cycles);
  long long iterations = 64;
  std::vector<double> ms;
  if (e.empty()) {
    e = time_calibrated(
        [&](long long n) { shared_read_kernel<<<blocks, kReadThreads, 0, stream>>>(n, b.sink.get(), cycles.get()); },
        stream, s, &iterations, &ms);
  }
  std::vector<long long> block_cycles(std::size_t(blocks), 0);
  if (e.empty()) {
    e = cuda_error_text(
        cudaMemcpy(block_cycles.data(), cycles.get(), block_cycles.size() * sizeof(long long), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  }
  if (energy != nullptr) {
    *energy = sustained_energy_row(
        [&] { shared_read_kernel<<<blocks, kReadThreads, 0, stream>>>(iterations, b.sink.get(), cycles.get()); },
        stream, s, "energy_smem_read", "pJ/B", what,
        double(blocks) * kReadThreads * 16.0 * kReadUnroll * double(iterations), e);
  }
  if (!e.empty()) return failed_row("smem_bandwidth", "B/clk/SM", what, e);
  double const bytes_per_sm = double(blocks) * kReadThreads * 16.0 * kReadUnroll * double(iterations) / sms;
  double const last = bytes_per_sm / double(*std::max_element(block_cycles.begin(), block_cycles.end()));
  Measurement row{"smem_bandwidth", "B/clk/SM", what, {}, {}, {}};
  for (double const t : ms) row.samples.push_back(last * ms.back() / t);
  return row;
}

}  // namespace

std::vector<Measurement> measure_shared_memory(Settings const& s) {
  Stream stream;
  Buffers b;
  std::string e = stream.init(s.device);
  if (e.empty()) e = device_alloc(kReadThreads, &b.sink);
  if (e.empty()) e = device_alloc(1, &b.cycles);
  if (!e.empty()) return {failed_row("lds32_latency", "cycles", "", e)};
  cudaStream_t const st = stream.get();
  std::string const chase = "dependent ld.shared chain, one warp, lanes on consecutive ";
  std::vector<Measurement> rows;
  rows.push_back(chase_row<1>(st, b, s.reps, 1, "lds32_latency", chase + "32-bit words"));
  rows.push_back(chase_row<2>(st, b, s.reps, 2, "lds64_latency", chase + "64-bit words"));
  rows.push_back(chase_row<4>(st, b, s.reps, 4, "lds128_latency", chase + "128-bit words"));
  for (int ways = 1; ways <= 32; ways *= 2) {
    rows.push_back(chase_row<1>(st, b, s.reps, ways, "lds32_conflict_" + std::to_string(ways) + "way",
                                "dependent ld.shared.u32 chain, one warp, lanes " + std::to_string(ways) +
                                    " words apart: " + std::to_string(ways) + "-way bank conflict"));
  }
  Measurement smem_energy;
  rows.push_back(bandwidth_row(s, st, b, s.energy_seconds > 0 ? &smem_energy : nullptr));
  if (s.energy_seconds > 0) rows.push_back(smem_energy);
  return rows;
}

}  // namespace gemmkit::microbench
