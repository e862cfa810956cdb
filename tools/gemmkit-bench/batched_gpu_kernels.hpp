/*! \file
    \brief The device kernels of `batched` on the GPU: the bound's pass with the GEMM's access mix,
           random operands made on the device, and pointer arrays over a strided batch.

    Built only when the project builds CUDA (batched_gpu_kernels.cu). Every function queues its
    kernel on `stream` and returns the launch's error.
*/
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmkit::bench {

/// Fills data[0, count) with values in [-1, 1), never zero, each a hash of (seed, index): fresh,
/// reproducible operands without a host copy. The host reads back what it checks.
template <typename T>
cudaError_t fill_random_device(T* data, std::int64_t count, std::uint64_t seed, cudaStream_t stream);

/// array[i] = base + i * stride for i in [0, batch): the pointer arrays of a strided batch.
template <typename T>
cudaError_t fill_pointer_array(T** array, T* base, std::int64_t stride, std::int64_t batch, cudaStream_t stream);

/// Launch shape of the bound's pass: `blocks` of kStreamThreads threads, each thread striding over
/// 16-byte vectors by the grid's size. blocks = 0 gives one vector per thread (no loop).
inline constexpr int kStreamThreads = 256;

/// The bound's pass over the same arrays as the GEMM: reads a[0, la) and b[0, lb), and reads and
/// writes c[0, lc) in place (writes only, without read_c): c = c + a*b over the common length,
/// then the rest of each array alone, 16-byte accesses throughout (cudaMalloc'd bases). Values
/// read from a and b beyond c's length reach a conditional store to `sink` (one element), so no
/// load is optimised away.
template <typename T>
cudaError_t stream_pass_device(T const* a, std::int64_t la, T const* b, std::int64_t lb, T* c, std::int64_t lc,
                               bool read_c, T* sink, int blocks, cudaStream_t stream);

}  // namespace gemmkit::bench
