/*! \file
    \brief Global memory: the copy bandwidth by access width and offset (seed 001 Fig. 2), the
    device-to-device memcpy rate, the L2 read rate, and load latency from L2 and from DRAM.

    Fig. 2's kernel: one word per thread, blocks of 1024 threads, source and destination shifted by
    `offset` words, so a warp's accesses straddle 128-byte segments unless offset x width is a
    multiple of 128 bytes. Bandwidths count bytes read plus bytes written, as the H100 anchor (model::h100_sxm) does.
*/
#include <algorithm>
#include <cstdint>

#include "microbench/device_timing.hpp"

namespace gemmkit::microbench {

namespace {

constexpr int kCopyThreads = 1024;
constexpr int kOffsets[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 32};
constexpr int kMaxOffset = 32;
constexpr std::size_t kMaxWordBytes = 16;

template <class Word>
__global__ void __launch_bounds__(kCopyThreads)
    copy_kernel(Word const* __restrict__ src, Word* __restrict__ dst, std::size_t count) {
  std::size_t const i = std::size_t(blockIdx.x) * kCopyThreads + threadIdx.x;
  if (i < count) dst[i] = src[i];
}

constexpr int kL2Threads = 256;
constexpr int kL2BlocksPerSm = 4;  ///< 32 warps per SM, four loads in flight each
constexpr int kL2Unroll = 4;

/// Reads `count` 16-byte words `passes` times through L2 only (ld.global.cg: L1 would hold an SM's
/// share after the first pass). Thread t reads words t, t + T, t + 2T, ... (T = all threads).
__global__ void __launch_bounds__(kL2Threads)
    l2_read_kernel(uint4 const* data, std::size_t count, long long passes, unsigned* sink) {
  std::size_t const threads = std::size_t(gridDim.x) * kL2Threads;
  std::size_t const first = std::size_t(blockIdx.x) * kL2Threads + threadIdx.x;
  unsigned acc = 0;
  for (long long pass = 0; pass < passes; ++pass) {
    for (std::size_t i = first; i < count; i += kL2Unroll * threads) {
      uint4 v[kL2Unroll];
#pragma unroll
      for (int u = 0; u < kL2Unroll; ++u) v[u] = __ldcg(data + i + u * threads);
#pragma unroll
      for (int u = 0; u < kL2Unroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;  // keeps the loads; almost never true
}

constexpr int kLineBytes = 128;
/// A full-period walk over 2^k lines (Hull-Dobell: odd increment, multiplier = 1 mod 4), so the
/// chain visits every line once in an order with no locality.
constexpr std::uint64_t kWalkMultiplier = 2891336453ull, kWalkIncrement = 12345ull;

/// Line j's first word holds the address of line walk(j).
__global__ void build_chain_kernel(char* base, std::uint64_t lines) {
  std::uint64_t const j = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= lines) return;
  std::uint64_t const next = (kWalkMultiplier * j + kWalkIncrement) & (lines - 1);
  *reinterpret_cast<std::uint64_t*>(base + j * kLineBytes) = reinterpret_cast<std::uint64_t>(base + next * kLineBytes);
}

constexpr int kChaseUnroll = 8;

/// One thread follows the chain: `warm` untimed steps, then `steps` timed by clock64.
__global__ void chase_kernel(std::uint64_t start, int warm, int steps, std::uint64_t* sink, long long* cycles) {
  std::uint64_t p = start;
  for (int i = 0; i < warm; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  long long const t0 = clock64();
  for (int i = 0; i < steps; i += kChaseUnroll) {
#pragma unroll
    for (int u = 0; u < kChaseUnroll; ++u) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  }
  long long const t1 = clock64();
  sink[0] = p;
  cycles[0] = t1 - t0;
}

struct Buffers {
  DeviceArray<char> src, dst;
  DeviceArray<unsigned> sink;
  DeviceArray<long long> cycles;
};

template <class Word>
void copy_rows(Settings const& s, cudaStream_t stream, Buffers const& b, std::vector<Measurement>* rows) {
  int const bits = int(8 * sizeof(Word));
  std::size_t const count = s.device_bytes / sizeof(Word);
  unsigned const blocks = unsigned((count + kCopyThreads - 1) / kCopyThreads);
  for (int const offset : kOffsets) {
    std::string const name = "copy_w" + std::to_string(bits) + "_o" + std::to_string(offset);
    std::string const what = "copy kernel, one " + std::to_string(bits) + "-bit word per thread, offset " +
                             std::to_string(offset) + " words (" + std::to_string(offset * sizeof(Word)) + " B)";
    Word const* src = reinterpret_cast<Word const*>(b.src.get()) + offset;
    Word* dst = reinterpret_cast<Word*>(b.dst.get()) + offset;
    std::vector<double> ms;
    std::string const e = time_on_stream(
        [&] { copy_kernel<Word><<<blocks, kCopyThreads, 0, stream>>>(src, dst, count); }, stream, s.reps, &ms);
    Measurement row = e.empty() ? rate_row(name, "GB/s", what, 2.0 * double(count * sizeof(Word)), 1e9, ms)
                                : failed_row(name, "GB/s", what, e);
    row.parameters = {{"width_bits", bits}, {"offset_words", offset}, {"offset_bytes", double(offset * sizeof(Word))}};
    rows->push_back(row);
  }
}

Measurement memcpy_row(Settings const& s, cudaStream_t stream, Buffers const& b) {
  char const* const what = "cudaMemcpyAsync device to device, read + write";
  std::vector<double> ms;
  std::string const e = time_on_stream(
      [&] { cudaMemcpyAsync(b.dst.get(), b.src.get(), s.device_bytes, cudaMemcpyDeviceToDevice, stream); }, stream,
      s.reps, &ms);
  return e.empty() ? rate_row("d2d_memcpy", "GB/s", what, 2.0 * double(s.device_bytes), 1e9, ms)
                   : failed_row("d2d_memcpy", "GB/s", what, e);
}

/// The L2 read rate; with `energy`, the picojoules per byte of the same kernel run on.
Measurement l2_read_row(Settings const& s, cudaStream_t stream, Buffers const& b, Measurement* energy = nullptr) {
  std::string e;
  int l2_bytes = 0, sms = 0;
  e = cuda_error_text(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, s.device), "cudaDeviceGetAttribute");
  if (e.empty())
    e = cuda_error_text(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s.device),
                        "cudaDeviceGetAttribute");
  // Half the L2 (the rest of it holds what else is resident), in whole rounds of every thread's loads.
  unsigned const blocks = unsigned(sms * kL2BlocksPerSm);
  std::size_t const round = std::size_t(blocks) * kL2Threads * kL2Unroll;
  std::size_t const count = std::max<std::size_t>(1, std::size_t(l2_bytes) / 2 / sizeof(uint4) / round) * round;
  std::string const what =
      "ld.global.cg of " + std::to_string(count * sizeof(uint4) >> 20) + " MiB (half the L2) again and again, one wave";
  if (e.empty() && count * sizeof(uint4) > s.device_bytes) e = "the buffer is smaller than half the L2";
  long long passes = 1;
  std::vector<double> ms;
  auto const* data = reinterpret_cast<uint4 const*>(b.src.get());
  if (e.empty()) {
    e = time_calibrated(
        [&](long long n) { l2_read_kernel<<<blocks, kL2Threads, 0, stream>>>(data, count, n, b.sink.get()); }, stream,
        s, &passes, &ms);
  }
  double const bytes = double(passes) * double(count * sizeof(uint4));
  if (energy != nullptr) {
    *energy = sustained_energy_row(
        [&] { l2_read_kernel<<<blocks, kL2Threads, 0, stream>>>(data, count, passes, b.sink.get()); }, stream, s,
        "energy_l2_read", "pJ/B", what, bytes, e);
  }
  return e.empty() ? rate_row("l2_read", "GB/s", what, bytes, 1e9, ms) : failed_row("l2_read", "GB/s", what, e);
}

/// The chase over `bytes` of the destination buffer (a power of two of lines); `flush` first
/// overwrites the source buffer so the chain is not in L2.
Measurement latency_row(Settings const& s, cudaStream_t stream, Buffers const& b, char const* name, std::size_t bytes,
                        bool flush, std::string const& what) {
  std::uint64_t lines = 1;
  while (lines * 2 * kLineBytes <= bytes) lines *= 2;
  int const steps = 4096;
  int const warm = flush ? 0 : int(std::min<std::uint64_t>(lines, 1 << 20));  // L2: touch every line first
  std::uint64_t const start = reinterpret_cast<std::uint64_t>(b.dst.get());
  auto* sink = reinterpret_cast<std::uint64_t*>(b.sink.get());
  Measurement row{name, "cycles", what, {}, {}, {}};
  build_chain_kernel<<<unsigned((lines + 255) / 256), 256, 0, stream>>>(b.dst.get(), lines);
  row.error = cuda_error_text(cudaGetLastError(), "build_chain_kernel");
  if (row.error.empty()) {
    time_chain(
        [&] {
          if (flush) cudaMemsetAsync(b.src.get(), 0, s.device_bytes, stream);  // its error shows at the launch check
          chase_kernel<<<1, 1, 0, stream>>>(start, warm, steps, sink, b.cycles.get());
        },
        stream, b.cycles.get(), steps, s.reps, &row);
  }
  return row;
}

}  // namespace

std::vector<Measurement> measure_global_memory(Settings const& s) {
  Stream stream;
  Buffers b;
  std::size_t const bytes = s.device_bytes + kMaxOffset * kMaxWordBytes;  // room for the largest offset
  std::string e = stream.init(s.device);
  if (e.empty()) e = device_alloc(bytes, &b.src);
  if (e.empty()) e = device_alloc(bytes, &b.dst);
  if (e.empty()) e = device_alloc(64, &b.sink);
  if (e.empty()) e = device_alloc(1, &b.cycles);
  if (e.empty()) e = cuda_error_text(cudaMemset(b.src.get(), 1, bytes), "cudaMemset");
  if (!e.empty()) return {failed_row("d2d_memcpy", "GB/s", "", e)};
  std::vector<Measurement> rows;
  copy_rows<unsigned>(s, stream.get(), b, &rows);
  copy_rows<uint2>(s, stream.get(), b, &rows);
  copy_rows<uint4>(s, stream.get(), b, &rows);
  rows.push_back(memcpy_row(s, stream.get(), b));
  Measurement l2_energy;
  rows.push_back(l2_read_row(s, stream.get(), b, s.energy_seconds > 0 ? &l2_energy : nullptr));
  if (s.energy_seconds > 0) rows.push_back(l2_energy);
  rows.push_back(latency_row(s, stream.get(), b, "l2_load_latency", std::size_t(4) << 20, false,
                             "ld.global.cg pointer chase, one thread, 4 MiB of 128-byte lines in a random cycle, "
                             "after a pass over all of them"));
  rows.push_back(latency_row(s, stream.get(), b, "dram_load_latency", s.device_bytes, true,
                             "ld.global.cg pointer chase, one thread, random 128-byte lines of the copy buffer, "
                             "L2 flushed by a memset first"));
  return rows;
}

}  // namespace gemmkit::microbench
