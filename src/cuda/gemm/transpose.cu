/*! \file
    \brief The batched transpose (32 x 32 tiles through shared memory, so both the reads of src and
    the writes of dst run along columns: coalesced) and copy, and the operand packing that runs them.
*/
#include "cuda/gemm/transpose.hpp"
#include "cuda/kernel_params.hpp"

namespace gemmkit::gemm {

namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;  // a block is kTile x kRowsPerPass threads
constexpr int kPerThread = kTile / kRowsPerPass;

template <typename T, bool kTranspose>
__global__ void __launch_bounds__(kTile * kRowsPerPass)
    repack_kernel(T const* __restrict__ src, std::int64_t rows, std::int64_t cols, std::int64_t ld_src,
                  std::int64_t stride_src, T* __restrict__ dst, std::int64_t ld_dst, std::int64_t stride_dst,
                  std::int64_t batch) {
  // One padding column: a warp reading a tile column touches 32 rows 33 elements apart, every
  // bank once (floats) or every bank pair once per half-warp (doubles).
  __shared__ T tile[kTile][kTile + 1];
  std::int64_t const tiles_r = (rows + kTile - 1) / kTile, tiles_c = (cols + kTile - 1) / kTile;
  int const x = threadIdx.x, y = threadIdx.y;
  for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    T const* s = src + b * stride_src;
    T* d = dst + b * stride_dst;
    for (std::int64_t tc = blockIdx.y; tc < tiles_c; tc += gridDim.y) {
      for (std::int64_t tr = blockIdx.x; tr < tiles_r; tr += gridDim.x) {
        std::int64_t const r0 = tr * kTile, c0 = tc * kTile;
        // Read: lane x walks src's rows within column c0 + j (contiguous). Every load of the pass
        // is issued before the first store (src and dst do not alias), so a thread keeps
        // kPerThread loads in flight rather than one.
        T v[kPerThread];
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) {
          int const j = y + i * kRowsPerPass;
          v[i] = r0 + x < rows && c0 + j < cols ? s[(r0 + x) + (c0 + j) * ld_src] : T(0);
        }
        if constexpr (!kTranspose) {  // a copy: lane x walks the same rows of dst's column c0 + j
#pragma unroll
          for (int i = 0; i < kPerThread; ++i) {
            int const j = y + i * kRowsPerPass;
            if (r0 + x < rows && c0 + j < cols) d[(r0 + x) + (c0 + j) * ld_dst] = v[i];
          }
        } else {
#pragma unroll
          for (int i = 0; i < kPerThread; ++i) tile[y + i * kRowsPerPass][x] = v[i];
          __syncthreads();
          // Write: lane x walks dst's rows (src's columns) within dst column r0 + j.
          for (int j = y; j < kTile; j += kRowsPerPass) {
            if (c0 + x < cols && r0 + j < rows) d[(c0 + x) + (r0 + j) * ld_dst] = tile[x][j];
          }
          __syncthreads();  // the tile is refilled by the next iteration
        }
      }
    }
  }
}

}  // namespace

template <typename T>
cudaError_t launch_repack(T const* src, std::int64_t rows, std::int64_t cols, std::int64_t ld_src,
                          std::int64_t stride_src, T* dst, std::int64_t ld_dst, std::int64_t stride_dst,
                          std::int64_t batch, bool transpose, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0 || batch <= 0) return cudaSuccess;
  dim3 const grid = tile_grid((rows + kTile - 1) / kTile, (cols + kTile - 1) / kTile, batch);
  dim3 const block(kTile, kRowsPerPass);
  if (transpose) {
    repack_kernel<T, true><<<grid, block, 0, stream>>>(src, rows, cols, ld_src, stride_src, dst, ld_dst, stride_dst,
                                                       batch);
  } else {
    repack_kernel<T, false><<<grid, block, 0, stream>>>(src, rows, cols, ld_src, stride_src, dst, ld_dst, stride_dst,
                                                        batch);
  }
  return cudaGetLastError();
}

namespace {

/// Copies one operand into its place in the workspace and points the operand's fields at it.
template <typename T>
cudaError_t pack_operand(PackedMatrix const& copy, T* workspace, T const*& operand, std::int64_t& ld,
                         std::int64_t& stride, bool& transposed, cudaStream_t stream) {
  if (!copy.pack) return cudaSuccess;
  T* const packed = workspace + copy.offset;
  cudaError_t const e = launch_repack(operand, copy.rows, copy.cols, ld, stride, packed, copy.ld, copy.stride,
                                      copy.copies, copy.transpose, stream);
  operand = packed, ld = copy.ld, stride = copy.stride;
  if (copy.transpose) transposed = !transposed;
  return e;
}

}  // namespace

template <typename T>
cudaError_t launch_packed_operands(PackedOperands const& plan, T* workspace, KernelParams<T>& params,
                                   cudaStream_t stream) {
  if (cudaError_t e = pack_operand(plan.a, workspace, params.A, params.lda, params.stride_a, params.trans_a, stream);
      e != cudaSuccess) {
    return e;
  }
  return pack_operand(plan.b, workspace, params.B, params.ldb, params.stride_b, params.trans_b, stream);
}

template cudaError_t launch_repack<double>(double const*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                           double*, std::int64_t, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_repack<float>(float const*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                          float*, std::int64_t, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_packed_operands<double>(PackedOperands const&, double*, KernelParams<double>&,
                                                    cudaStream_t);
template cudaError_t launch_packed_operands<float>(PackedOperands const&, float*, KernelParams<float>&, cudaStream_t);

}  // namespace gemmkit::gemm
