/*! \file
    \brief The CPU BLAS behind gemmkit's CPU path (OpenBLAS): its GEMMs, which core it runs, and a
    hint when that core leaves this CPU's vector units idle.
*/
#pragma once

#include "base/problem.hpp"

#include <cblas.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace gemmkit::cpu {

/// OpenBLAS's cblas_dgemm and cblas_sgemm, taken from the OpenBLAS library itself rather than looked
/// up by name in the process: a BLAS drop-in that exports cblas_?gemm (gemmkit's own, preloaded or
/// installed as libblas.so.3) would otherwise receive gemmkit's CPU GEMMs and, being gemmkit, call
/// itself.
struct CpuBlasGemms {
  decltype(&cblas_dgemm) dgemm;
  decltype(&cblas_sgemm) sgemm;
};
CpuBlasGemms const& cpu_blas_gemms();

/// C = alpha op(A) op(B) + beta C, column-major, through the CPU BLAS's 32-bit interface whatever the sizes:
/// one call when every size and leading dimension fits in an int; else in blocks, each operand whose
/// leading dimension does not fit copied into a packed block (C copied back).
template <typename T>
void blas_gemm(gk_op transa, gk_op transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, T const* A,
               std::int64_t lda, T const* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc);

/// "OpenBLAS <core> (<build config>)".
std::string cpu_blas_description();

/// What the vector ISAs of a CPU are, for cpu_blas_core_hint.
struct VectorIsa {
  bool avx2_fma = false;
  bool avx512 = false;
  bool avx512_bf16 = false;
};

/// This CPU's.
VectorIsa this_cpu_vector_isa();

/// Empty when `core` uses the vector ISA the CPU has; else a sentence naming the OPENBLAS_CORETYPE
/// that does. A DYNAMIC_ARCH OpenBLAS picks its core from the CPU id and falls back to an SSE
/// core on a model it does not know: OpenBLAS 0.3.21 runs Prescott on the AVX-512 Xeons our H100
/// hosts present (101 GFLOP/s at 4096 on 16 cores, 532 with OPENBLAS_CORETYPE=Cooperlake).
std::string cpu_blas_core_hint(std::string_view core, VectorIsa isa);

/// The hint for the OpenBLAS loaded in this process on this CPU.
std::string cpu_blas_core_hint();

}  // namespace gemmkit::cpu
