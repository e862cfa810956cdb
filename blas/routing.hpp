/*! \file
    \brief How libgemmkit_blas runs a call: gemmkit contexts per thread and one for the GPU pipeline,
    the route of each call, its trace line, and errors through xerbla.
*/
#pragma once

#include <gemmkit/gemmkit.h>
#include <gemmkit/introspect.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace gemmkit::blas {

/// One call as the trace records it.
struct CallRecord {
  char const* routine = "";      ///< the entry point: "dgemm_", "cblas_dgemm", "cblas_dgemm_batch", ...
  char transa = 'N', transb = 'N';
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  char const* route = "";        ///< "cpu", "gpu", "host-resident", "forward" or "error"
  std::string variant;           ///< the gemmkit variant that ran (the first group's, for a grouped call)
  std::string reason;
  gk_status status = GK_SUCCESS;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

/// Writes the record to GEMMKIT_BLAS_TRACE, when set (one JSON object per line).
void trace(CallRecord const& record);

/// This thread's gemmkit context, created at its first call with the settings applied: it runs every
/// call but the host-resident ones. Creating it starts no CUDA.
gk_context thread_context();

/// The context that runs host operands through the host-resident GPU pipeline, shared by all threads
/// (its device buffers are sized to the GPU's memory, so one set serves the process), with the lock
/// its users hold.
struct SharedGpuContext {
  gk_context context;
  std::unique_lock<std::mutex> lock;
};
SharedGpuContext shared_gpu_context();

/// Reports a bad argument: to the application's xerbla_ (or the CPU BLAS's) for the Fortran entry
/// points, with the routine's name as netlib spells it ("DGEMM ") and the netlib parameter index; to
/// cblas_xerbla for the CBLAS ones.
void report_fortran_error(char const* routine, int parameter);
void report_cblas_error(char const* routine, int parameter, char const* message);

/// Runs a single GEMM through gemmkit: the plan on this thread's context says where; host-resident
/// calls take the shared GPU context. Reports a bad argument through xerbla and traces the call.
/// `fortran` picks the error path (netlib index = gemmkit's CBLAS index - 1 for the Fortran ABI).
template <typename T>
void run_gemm(CallRecord& record, bool fortran, gk_layout layout, gk_op transa, gk_op transb, std::int64_t m,
              std::int64_t n, std::int64_t k, T alpha, T const* A, std::int64_t lda, T const* B, std::int64_t ldb,
              T beta, T* C, std::int64_t ldc);

/// The route of a call that ran on `context` with gemmkit's variant `variant`: "gpu" for a GPU variant,
/// "host-resident" for the pipeline, else "cpu".
char const* route_of(char const* variant);

}  // namespace gemmkit::blas
