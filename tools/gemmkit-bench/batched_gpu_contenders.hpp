/*! \file
    \brief The contenders of `batched` on the GPU, made for one run: gemmkit's strided call, then the
           peers --peers names (gemmkit_ptr, gemmkit_ptr_host, cublas_strided, cublas_ptr), and for the
           grouped case gemmkit's grouped call then cuBLAS's.
*/
#pragma once

#include "batched_gpu_cases.hpp"

#include <vector>

namespace gemmkit::bench {

/// The run's contenders and the cuBLAS handle of the grouped peer; release() before the stream
/// they run on is destroyed (the gemmkit contexts hold it).
struct GpuContenders {
  std::vector<Contender> batched;  ///< gemmkit's strided call first
  std::vector<Contender> grouped;  ///< gemmkit's grouped call first
  cublasHandle_t cublas = nullptr;

  GpuContenders() = default;
  ~GpuContenders();
  GpuContenders(GpuContenders const&) = delete;
  GpuContenders& operator=(GpuContenders const&) = delete;
  void release();
};

/// Makes the contenders on `stream` (a cudaStream_t) of settings.device; a contender that cannot run
/// says why in its `unavailable`. The pointer-array contenders read `arrays` and the grouped ones
/// `grouped` when they run, so both are filled per case by the caller.
void make_gpu_contenders(BatchedSettings const& settings, void* stream, CaseArrays const* arrays,
                         GroupedCase const* grouped, GpuContenders* out);

}  // namespace gemmkit::bench
