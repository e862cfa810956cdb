/*! \file
    \brief Overloads of the C API on the element type, so one typed test body covers d and s.
    Only needs the public C header, so it also serves translation units that use the C++ API.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#include <cstdint>

namespace gemmkit::test {

inline gk_status api_gemm(gk_context ctx, gk_layout layout, gk_op ta, gk_op tb, std::int64_t m, std::int64_t n,
                          std::int64_t k, double alpha, double const* A, std::int64_t lda, double const* B,
                          std::int64_t ldb, double beta, double* C, std::int64_t ldc) {
  return gk_dgemm(ctx, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline gk_status api_gemm(gk_context ctx, gk_layout layout, gk_op ta, gk_op tb, std::int64_t m, std::int64_t n,
                          std::int64_t k, float alpha, float const* A, std::int64_t lda, float const* B,
                          std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  return gk_sgemm(ctx, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

inline gk_status api_gemm_strided_batched(gk_context ctx, gk_layout layout, gk_op ta, gk_op tb, std::int64_t m,
                                          std::int64_t n, std::int64_t k, double alpha, double const* A,
                                          std::int64_t lda, std::int64_t sa, double const* B, std::int64_t ldb,
                                          std::int64_t sb, double beta, double* C, std::int64_t ldc,
                                          std::int64_t sc, std::int64_t batch) {
  return gk_dgemm_strided_batched(ctx, layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc,
                                  batch);
}
inline gk_status api_gemm_strided_batched(gk_context ctx, gk_layout layout, gk_op ta, gk_op tb, std::int64_t m,
                                          std::int64_t n, std::int64_t k, float alpha, float const* A,
                                          std::int64_t lda, std::int64_t sa, float const* B, std::int64_t ldb,
                                          std::int64_t sb, float beta, float* C, std::int64_t ldc, std::int64_t sc,
                                          std::int64_t batch) {
  return gk_sgemm_strided_batched(ctx, layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc,
                                  batch);
}

inline gk_status api_gemm_batched(gk_context ctx, gk_layout layout, gk_op ta, gk_op tb, std::int64_t m,
                                  std::int64_t n, std::int64_t k, double alpha, double const* const* A,
                                  std::int64_t lda, double const* const* B, std::int64_t ldb, double beta,
                                  double* const* C, std::int64_t ldc, std::int64_t batch) {
  return gk_dgemm_batched(ctx, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch);
}
inline gk_status api_gemm_batched(gk_context ctx, gk_layout layout, gk_op ta, gk_op tb, std::int64_t m,
                                  std::int64_t n, std::int64_t k, float alpha, float const* const* A,
                                  std::int64_t lda, float const* const* B, std::int64_t ldb, float beta,
                                  float* const* C, std::int64_t ldc, std::int64_t batch) {
  return gk_sgemm_batched(ctx, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch);
}

inline gk_status api_gemm_grouped(gk_context ctx, gk_layout layout, gk_op const* ta, gk_op const* tb,
                                  std::int64_t const* m, std::int64_t const* n, std::int64_t const* k,
                                  double const* alpha, double const* const* A, std::int64_t const* lda,
                                  double const* const* B, std::int64_t const* ldb, double const* beta,
                                  double* const* C, std::int64_t const* ldc, std::int64_t group_count,
                                  std::int64_t const* group_size, gk_status* info) {
  return gk_dgemm_grouped(ctx, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, group_count,
                          group_size, info);
}
inline gk_status api_gemm_grouped(gk_context ctx, gk_layout layout, gk_op const* ta, gk_op const* tb,
                                  std::int64_t const* m, std::int64_t const* n, std::int64_t const* k,
                                  float const* alpha, float const* const* A, std::int64_t const* lda,
                                  float const* const* B, std::int64_t const* ldb, float const* beta,
                                  float* const* C, std::int64_t const* ldc, std::int64_t group_count,
                                  std::int64_t const* group_size, gk_status* info) {
  return gk_sgemm_grouped(ctx, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, group_count,
                          group_size, info);
}

/// Owns a gk_context for one test (the C++ API's Context cannot share a translation unit with the
/// internal headers, see tests/core/public_with_internal_headers.cpp).
class ScopedContext {
 public:
  ScopedContext() {
    if (gk_create(&ctx_) != GK_SUCCESS) ctx_ = nullptr;
  }
  ~ScopedContext() {
    if (ctx_ != nullptr) gk_destroy(ctx_);
  }
  ScopedContext(ScopedContext const&) = delete;
  ScopedContext& operator=(ScopedContext const&) = delete;
  operator gk_context() const { return ctx_; }
  gk_context get() const { return ctx_; }

 private:
  gk_context ctx_ = nullptr;
};

}  // namespace gemmkit::test
