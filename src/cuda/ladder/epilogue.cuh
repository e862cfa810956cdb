/*! \file
    \brief The epilogue the ladder steps share (device code; include from .cu files only).
*/
#pragma once

#include "cuda/ladder/ladder_params.hpp"

namespace gemmkit::ladder {

/// The epilogue every step shares: alpha*acc + beta*C, with C unread when beta = 0.
template <typename T>
__device__ __forceinline__ void store_c(Params<T> const& p, T* c, T acc) {
  *c = p.beta == T(0) ? p.alpha * acc : p.alpha * acc + p.beta * *c;
}

}  // namespace gemmkit::ladder
