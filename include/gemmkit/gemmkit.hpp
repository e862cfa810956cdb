/*! \file
    \brief gemmkit C++ API: an owning Context and typed gemm() overloads that throw gemmkit::Error.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace gemmkit {

enum class Layout { kColMajor = GK_COL_MAJOR, kRowMajor = GK_ROW_MAJOR };
enum class Op { kN = GK_OP_N, kT = GK_OP_T, kC = GK_OP_C };
enum class Backend { kAuto = GK_BACKEND_AUTO, kCpu = GK_BACKEND_CPU, kGpu = GK_BACKEND_GPU };

/// Thrown by every wrapper when the C call does not return GK_SUCCESS.
class Error : public std::runtime_error {
 public:
  Error(gk_status status, int parameter, std::string const& message)
      : std::runtime_error(message), status_(status), parameter_(parameter) {}
  gk_status status() const noexcept { return status_; }
  /// BLAS parameter index for GK_INVALID_ARGUMENT, else 0.
  int parameter() const noexcept { return parameter_; }

 private:
  gk_status status_;
  int parameter_;
};

/// Owns a gk_context; move-only.
class Context {
 public:
  Context() { check(gk_create(&ctx_)); }
  ~Context() {
    if (ctx_ != nullptr) gk_destroy(ctx_);
  }
  Context(Context const&) = delete;
  Context& operator=(Context const&) = delete;
  Context(Context&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}
  Context& operator=(Context&& other) noexcept {
    std::swap(ctx_, other.ctx_);
    return *this;
  }

  gk_context get() const noexcept { return ctx_; }
  void set_stream(void* stream) { check(gk_set_stream(ctx_, stream)); }
  void set_device(int device) { check(gk_set_device(ctx_, device)); }
  void set_device_memory_budget(std::size_t bytes) { check(gk_set_device_memory_budget(ctx_, bytes)); }
  void set_backend(Backend backend) { check(gk_set_backend(ctx_, static_cast<gk_backend>(backend))); }
  void set_verbosity(int level) { check(gk_set_verbosity(ctx_, level)); }
  void set_variant(std::string const& id) { check(gk_set_variant(ctx_, id.c_str())); }
  std::string last_variant() const { return gk_last_variant(ctx_); }

  /// Turns a status into an exception carrying the context's message and parameter index.
  void check(gk_status status) const {
    if (status != GK_SUCCESS) {
      std::string message = gk_status_string(status);
      if (ctx_ != nullptr && *gk_last_error(ctx_) != '\0') message += std::string(": ") + gk_last_error(ctx_);
      throw Error(status, ctx_ != nullptr ? gk_error_parameter(ctx_) : 0, message);
    }
  }

 private:
  gk_context ctx_ = nullptr;
};

inline void gemm(Context& ctx, Layout layout, Op transa, Op transb, std::int64_t m, std::int64_t n,
                 std::int64_t k, double alpha, double const* A, std::int64_t lda, double const* B,
                 std::int64_t ldb, double beta, double* C, std::int64_t ldc) {
  ctx.check(gk_dgemm(ctx.get(), static_cast<gk_layout>(layout), static_cast<gk_op>(transa),
                     static_cast<gk_op>(transb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

inline void gemm(Context& ctx, Layout layout, Op transa, Op transb, std::int64_t m, std::int64_t n,
                 std::int64_t k, float alpha, float const* A, std::int64_t lda, float const* B,
                 std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  ctx.check(gk_sgemm(ctx.get(), static_cast<gk_layout>(layout), static_cast<gk_op>(transa),
                     static_cast<gk_op>(transb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

inline void gemm_strided_batched(Context& ctx, Layout layout, Op transa, Op transb, std::int64_t m,
                                 std::int64_t n, std::int64_t k, double alpha, double const* A,
                                 std::int64_t lda, std::int64_t stride_a, double const* B,
                                 std::int64_t ldb, std::int64_t stride_b, double beta, double* C,
                                 std::int64_t ldc, std::int64_t stride_c, std::int64_t batch) {
  ctx.check(gk_dgemm_strided_batched(ctx.get(), static_cast<gk_layout>(layout), static_cast<gk_op>(transa),
                                     static_cast<gk_op>(transb), m, n, k, alpha, A, lda, stride_a, B,
                                     ldb, stride_b, beta, C, ldc, stride_c, batch));
}

inline void gemm_strided_batched(Context& ctx, Layout layout, Op transa, Op transb, std::int64_t m,
                                 std::int64_t n, std::int64_t k, float alpha, float const* A,
                                 std::int64_t lda, std::int64_t stride_a, float const* B,
                                 std::int64_t ldb, std::int64_t stride_b, float beta, float* C,
                                 std::int64_t ldc, std::int64_t stride_c, std::int64_t batch) {
  ctx.check(gk_sgemm_strided_batched(ctx.get(), static_cast<gk_layout>(layout), static_cast<gk_op>(transa),
                                     static_cast<gk_op>(transb), m, n, k, alpha, A, lda, stride_a, B,
                                     ldb, stride_b, beta, C, ldc, stride_c, batch));
}

}  // namespace gemmkit
