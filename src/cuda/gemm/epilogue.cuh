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

}  // namespace gemmkit
