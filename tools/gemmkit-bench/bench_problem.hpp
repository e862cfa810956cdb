/*! \file
    \brief The CLI's own description of a GEMM case: element type, where it runs, and one
           column-major (strided-batched) problem as the gk_* calls take it.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#include <cstddef>
#include <cstdint>

namespace gemmkit::bench {

enum class Dtype { kF32, kF64 };
enum class Platform { kCpu, kCuda };

inline char const* to_string(Dtype dtype) { return dtype == Dtype::kF64 ? "f64" : "f32"; }
inline char const* to_string(Platform backend) { return backend == Platform::kCpu ? "cpu" : "cuda"; }
inline std::size_t size_of(Dtype dtype) { return dtype == Dtype::kF64 ? 8 : 4; }
inline bool is_transposed(gk_op op) { return op != GK_OP_N; }
inline char op_letter(gk_op op) { return op == GK_OP_N ? 'n' : (op == GK_OP_T ? 't' : 'c'); }

/// How a case's leading dimensions relate to its sizes: tight (the minimum), aligned (each rounded up to
/// a multiple of 64 elements) or odd (each the next odd number above the minimum).
enum class LeadingForm { kTight, kAligned, kOdd };
inline char const* to_string(LeadingForm form) {
  return form == LeadingForm::kTight ? "tight" : form == LeadingForm::kAligned ? "aligned" : "odd";
}
inline std::int64_t leading_dimension(std::int64_t minimum, LeadingForm form) {
  std::int64_t const ld = minimum < 1 ? 1 : minimum;
  if (form == LeadingForm::kAligned) return (ld + 63) / 64 * 64;
  if (form == LeadingForm::kOdd) return ld % 2 == 0 ? ld + 1 : ld + 2;
  return ld;
}

/// One column-major GEMM, or a strided batch of them: C = alpha op(A) op(B) + beta C.
struct GemmProblem {
  Dtype dtype = Dtype::kF64;
  gk_op trans_a = GK_OP_N;
  gk_op trans_b = GK_OP_N;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 1, ldb = 1, ldc = 1;
  std::int64_t batch = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;

  std::int64_t a_rows() const { return is_transposed(trans_a) ? k : m; }
  std::int64_t a_cols() const { return is_transposed(trans_a) ? m : k; }
  std::int64_t b_rows() const { return is_transposed(trans_b) ? n : k; }
  std::int64_t b_cols() const { return is_transposed(trans_b) ? k : n; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
};

}  // namespace gemmkit::bench
