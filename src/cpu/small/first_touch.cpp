/*! \file
    \brief gk_first_touch_batch: writes zeros over a strided batch with the partition the batched
    CPU kernels use, so on a multi-socket machine each problem's pages are first touched, and
    therefore placed, on the node of the thread that will compute it (seed 003's NUMA advice).
*/
#include "cpu/small/batch_partition.hpp"

#include <gemmkit/gemmkit.h>

#include <cstring>

extern "C" gk_status gk_first_touch_batch(void* data, int64_t bytes_per_problem, int64_t stride_bytes, int64_t batch) {
  if (batch < 0 || bytes_per_problem < 0 || (batch > 1 && stride_bytes < bytes_per_problem)) return GK_INVALID_ARGUMENT;
  if (batch == 0 || bytes_per_problem == 0) return GK_SUCCESS;
  if (data == nullptr) return GK_INVALID_ARGUMENT;
  auto* bytes = static_cast<unsigned char*>(data);
#pragma omp parallel
  {
    auto const [first, count] = gemmkit::cpu::share_of_batch(batch);
    for (int64_t b = first; b < first + count; ++b) std::memset(bytes + b * stride_bytes, 0, size_t(bytes_per_problem));
  }
  return GK_SUCCESS;
}
