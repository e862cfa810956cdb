/*! \file
    \brief Host <-> device copy rates: pinned and pageable host memory, each direction alone, and
    pinned both directions at once (two streams; both directions' bytes counted). Host clock around
    the copies and the wait for them; the buffers are touched first so no first-touch page fault is
    timed.
*/
#include <chrono>
#include <cstring>

#include "microbench/device_timing.hpp"

namespace gemmkit::microbench {

namespace {

struct CudaFreeHost {
  void operator()(void* pointer) const { cudaFreeHost(pointer); }
};
using PinnedBytes = std::unique_ptr<char[], CudaFreeHost>;

struct Buffers {
  PinnedBytes pinned_in, pinned_out;  ///< sources of H2D, destinations of D2H
  std::unique_ptr<char[]> pageable;
  DeviceArray<char> device_in, device_out;
};

/// One copy in each listed direction, issued at once on its own stream.
struct Copy {
  void* dst;
  void const* src;
  cudaMemcpyKind kind;
};

/// Gigabytes per second of each rep of `copies` (all at once), after one untimed rep.
Measurement copy_row(Settings const& s, cudaStream_t const (&streams)[2], std::vector<Copy> const& copies,
                     std::string name, std::string what) {
  Measurement row{std::move(name), "GB/s", std::move(what), {}, {}, {}};
  double const bytes = double(s.host_bytes) * double(copies.size());
  for (int rep = -1; rep < s.reps && row.error.empty(); ++rep) {
    auto const start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < copies.size() && row.error.empty(); ++i) {
      row.error = cuda_error_text(
          cudaMemcpyAsync(copies[i].dst, copies[i].src, s.host_bytes, copies[i].kind, streams[i]), "cudaMemcpyAsync");
    }
    for (std::size_t i = 0; i < copies.size() && row.error.empty(); ++i) {
      row.error = cuda_error_text(cudaStreamSynchronize(streams[i]), "cudaStreamSynchronize");
    }
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rep >= 0 && row.error.empty()) row.samples.push_back(bytes / seconds / 1e9);
  }
  return row;
}

}  // namespace

std::vector<Measurement> measure_host_copy(Settings const& s) {
  std::size_t const n = s.host_bytes;
  Stream streams[2];
  Buffers b;
  std::string e = streams[0].init(s.device);
  if (e.empty()) e = streams[1].init(s.device);
  for (PinnedBytes* p : {&b.pinned_in, &b.pinned_out}) {
    void* pointer = nullptr;
    if (e.empty()) e = cuda_error_text(cudaMallocHost(&pointer, n), "cudaMallocHost");
    if (e.empty()) {
      p->reset(static_cast<char*>(pointer));
      std::memset(pointer, 1, n);
    }
  }
  if (e.empty()) {
    b.pageable.reset(new (std::nothrow) char[n]);
    if (b.pageable == nullptr)
      e = "no host memory for the pageable buffer";
    else
      std::memset(b.pageable.get(), 1, n);
  }
  if (e.empty()) e = device_alloc(n, &b.device_in);
  if (e.empty()) e = device_alloc(n, &b.device_out);
  if (e.empty()) e = cuda_error_text(cudaMemset(b.device_out.get(), 1, n), "cudaMemset");
  if (!e.empty()) return {failed_row("h2d_pinned", "GB/s", "", e)};

  cudaStream_t const st[2] = {streams[0].get(), streams[1].get()};
  std::string const size = std::to_string(n >> 20) + " MiB";
  Copy const h2d_pinned{b.device_in.get(), b.pinned_in.get(), cudaMemcpyHostToDevice};
  Copy const d2h_pinned{b.pinned_out.get(), b.device_out.get(), cudaMemcpyDeviceToHost};
  std::vector<Measurement> rows;
  rows.push_back(copy_row(s, st, {h2d_pinned}, "h2d_pinned", "cudaMemcpyAsync " + size + " pinned host to device"));
  rows.push_back(copy_row(s, st, {d2h_pinned}, "d2h_pinned", "cudaMemcpyAsync " + size + " device to pinned host"));
  rows.push_back(copy_row(s, st, {h2d_pinned, d2h_pinned}, "bidirectional_pinned",
                          "H2D and D2H of " + size + " each at once on two streams, both counted"));
  rows.push_back(copy_row(s, st, {{b.device_in.get(), b.pageable.get(), cudaMemcpyHostToDevice}}, "h2d_pageable",
                          "cudaMemcpyAsync " + size + " pageable host to device"));
  rows.push_back(copy_row(s, st, {{b.pageable.get(), b.device_out.get(), cudaMemcpyDeviceToHost}}, "d2h_pageable",
                          "cudaMemcpyAsync " + size + " device to pageable host"));
  return rows;
}

}  // namespace gemmkit::microbench
