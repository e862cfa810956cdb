/*! \file
    \brief The scalar epilogue every GEMM kernel shares (device code; include from .cu files only).
*/
#pragma once

#include "cuda/kernel_params.hpp"

namespace gemmkit {

/// The epilogue every kernel shares: alpha*acc + beta*C, with C unread when beta = 0.
template <typename T>
__device__ __forceinline__ void store_c(KernelParams<T> const& p, T* c, T acc) {
  *c = p.beta == T(0) ? p.alpha * acc : p.alpha * acc + p.beta * *c;
}

/// The same for two vertically adjacent elements of column-major C at a 16-byte aligned address.
__device__ __forceinline__ void store_c_pair(KernelParams<double> const& p, double* c, double first, double second) {
  double2 out{p.alpha * first, p.alpha * second};
  if (p.beta != 0.0) {
    double2 const old = *reinterpret_cast<double2 const*>(c);
    out.x += p.beta * old.x;
    out.y += p.beta * old.y;
  }
  *reinterpret_cast<double2*>(c) = out;
}

/// FP32 C from FP64 accumulators (float operands on the FP64 tensor cores): alpha*acc + beta*C in
/// double, so C is rounded once.
__device__ __forceinline__ void store_c(KernelParams<float> const& p, float* c, double acc) {
  double const scaled = double(p.alpha) * acc;
  *c = float(p.beta == 0.0f ? scaled : scaled + double(p.beta) * double(*c));
}

/// The same for two vertically adjacent floats at an 8-byte aligned address.
__device__ __forceinline__ void store_c_pair(KernelParams<float> const& p, float* c, double first, double second) {
  double x = double(p.alpha) * first, y = double(p.alpha) * second;
  if (p.beta != 0.0f) {
    float2 const old = *reinterpret_cast<float2 const*>(c);
    x += double(p.beta) * double(old.x);
    y += double(p.beta) * double(old.y);
  }
  *reinterpret_cast<float2*>(c) = float2{float(x), float(y)};
}

/// The same for four vertically adjacent floats of column-major C at a 16-byte aligned address.
__device__ __forceinline__ void store_c_quad(KernelParams<float> const& p, float* c, float x, float y, float z,
                                             float w) {
  float4 out{p.alpha * x, p.alpha * y, p.alpha * z, p.alpha * w};
  if (p.beta != 0.0f) {
    float4 const old = *reinterpret_cast<float4 const*>(c);
    out.x += p.beta * old.x;
    out.y += p.beta * old.y;
    out.z += p.beta * old.z;
    out.w += p.beta * old.w;
  }
  *reinterpret_cast<float4*>(c) = out;
}

}  // namespace gemmkit
