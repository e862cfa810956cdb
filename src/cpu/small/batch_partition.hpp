/*! \file
    \brief How a batch is split over OpenMP threads: OpenMP's static schedule, one contiguous share
    per thread, shared by the kernels and the first-touch helper so pages land where they are used.
*/
#pragma once

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <cstdint>
#include <utility>

namespace gemmkit::cpu {

/// {first, count} of the calling thread's share; call inside a parallel region (or outside: all).
inline std::pair<std::int64_t, std::int64_t> share_of_batch(std::int64_t batch) {
#if defined(_OPENMP)
  std::int64_t const threads = omp_get_num_threads(), thread = omp_get_thread_num();
#else
  std::int64_t const threads = 1, thread = 0;
#endif
  std::int64_t const base = batch / threads, extra = batch % threads;
  std::int64_t const first = thread * base + (thread < extra ? thread : extra);
  return {first, base + (thread < extra ? 1 : 0)};
}

}  // namespace gemmkit::cpu
