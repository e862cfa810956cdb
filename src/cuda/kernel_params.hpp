/*! \file
    \brief Parameters every GEMM kernel receives: the column-major strided batch, built on the host.
*/
#pragma once

#include "base/problem.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmkit {

/// Column-major operands of a strided batch, built once on the host from GemmArguments.
template <typename T>
struct KernelParams {
  std::int64_t m, n, k;
  T alpha, beta;
  T const* A;
  std::int64_t lda, stride_a;
  T const* B;
  std::int64_t ldb, stride_b;
  T* C;
  std::int64_t ldc, stride_c;
  std::int64_t batch;
  bool trans_a, trans_b;
  /// Split-K: when > 0, grid.z indexes K slices of this many elements instead of the batch; slice
  /// z writes alpha-free partial sums to C + z*stride_c (a workspace), reduced by a second kernel.
  /// (Kernels built with the split-K fixup cover slice s of K from s * split_k_slice; what else
  /// they need comes as a second kernel argument, SplitKFixup, not here: past 128 bytes the FP32
  /// kernel read these parameters through a pointer, and at 152 it ran 5 % slower.)
  std::int64_t split_k_slice = 0;
};

template <typename T>
KernelParams<T> make_params(GemmArguments const& args) {
  GemmProblem const& p = args.problem;
  return KernelParams<T>{p.m,          p.n,
                   p.k,          T(args.alpha),
                   T(args.beta), static_cast<T const*>(args.A),
                   p.lda,        p.stride_a,
                   static_cast<T const*>(args.B), p.ldb,
                   p.stride_b,   static_cast<T*>(args.C),
                   p.ldc,        p.stride_c,
                   p.batch,      is_transposed(p.trans_a),
                   is_transposed(p.trans_b), 0};
}

/// The problem the params describe, make_params' inverse (what the split-K and packing plans take).
template <typename T>
GemmProblem problem_shape(KernelParams<T> const& p) {
  GemmProblem shape;
  shape.dtype = sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
  shape.trans_a = p.trans_a ? GK_OP_T : GK_OP_N;
  shape.trans_b = p.trans_b ? GK_OP_T : GK_OP_N;
  shape.m = p.m, shape.n = p.n, shape.k = p.k, shape.batch = p.batch;
  shape.lda = p.lda, shape.ldb = p.ldb, shape.ldc = p.ldc;
  shape.stride_a = p.stride_a, shape.stride_b = p.stride_b, shape.stride_c = p.stride_c;
  return shape;
}

/// The same product written for C^T = op(B)^T op(A)^T: the operands trade places and transposes, m
/// and n swap. A kernel that stores its C transposed (element (i, j) at C + i * ldc + j) computes
/// the original C from it: A^T B^T runs as an NN product. Split-K slices and batches are unchanged.
template <typename T>
KernelParams<T> transposed_product(KernelParams<T> const& p) {
  KernelParams<T> t = p;
  t.m = p.n;
  t.n = p.m;
  t.A = p.B;
  t.lda = p.ldb;
  t.stride_a = p.stride_b;
  t.B = p.A;
  t.ldb = p.lda;
  t.stride_b = p.stride_a;
  t.trans_a = !p.trans_b;
  t.trans_b = !p.trans_a;
  return t;
}

/// Rows (x) and columns (y) of tiles and the batch (z) each wrapper walks with grid strides, so
/// problems larger than the grid limits still map.
inline dim3 tile_grid(std::int64_t tiles_m, std::int64_t tiles_n, std::int64_t batch) {
  auto clamp = [](std::int64_t v, std::int64_t limit) { return unsigned(v < limit ? v : limit); };
  return dim3(clamp(tiles_m, 2147483647), clamp(tiles_n, 65535), clamp(batch, 65535));
}

}  // namespace gemmkit
