/*! \file
    \brief BLAS argument rules for gemm and its batched forms, reporting the CBLAS parameter index.
*/
#pragma once

#include "base/problem.hpp"

#include <string>

namespace gemmkit {

/// Outcome of a check: parameter = 0 means the arguments are valid.
struct ArgumentError {
  int parameter = 0;
  std::string message;
  explicit operator bool() const { return parameter != 0; }
};

/// Parameter indices of the leading dimensions, which move in the batched signatures.
struct GemmParameterPositions {
  int lda = 9, ldb = 11, ldc = 14;
};
inline constexpr GemmParameterPositions kGemmPositions{9, 11, 14};
inline constexpr GemmParameterPositions kStridedBatchedPositions{9, 12, 16};

/// Checks layout, ops, sizes and leading dimensions as given by the caller (before the
/// row-major rewrite), in reference CBLAS order: layout 1, transa 2, transb 3, m 4, n 5, k 6,
/// then lda, ldb, ldc at `positions`.
ArgumentError check_gemm_arguments(gk_layout layout, gk_op transa, gk_op transb, std::int64_t m,
                                   std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb,
                                   std::int64_t ldc, GemmParameterPositions positions = kGemmPositions);

/// A stored operand's lines (columns, or rows when row-major) and their length (the least leading dimension).
struct StoredShape {
  std::int64_t lines, length;
};
/// Those of op(X), rows x cols, as the caller stores X in `layout` (transposed or not).
StoredShape stored_shape(gk_layout layout, bool transposed, std::int64_t rows, std::int64_t cols);

/// The most elements an operand may span: its end in bytes (8-byte elements) must be a 64-bit address.
inline constexpr std::int64_t kMaxElements = std::int64_t(1) << 59;

/// Elements from an operand's first to past its last: ld * (lines - 1) + length (0 when empty), or -1 when
/// that exceeds kMaxElements or 64 bits.
std::int64_t operand_extent(std::int64_t ld, std::int64_t lines, std::int64_t length);
/// The same over a strided batch: (batch - 1) * stride + extent, or -1.
std::int64_t batch_extent(std::int64_t extent, std::int64_t stride, std::int64_t batch);

/// Rewrites a caller's problem to column-major: a row-major C = op(A) op(B) is the column-major
/// C^T = op(B)^T op(A)^T, so A and B trade places together with m and n.
GemmProblem to_column_major(gk_layout layout, Dtype dtype, gk_op transa, gk_op transb, std::int64_t m,
                            std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb,
                            std::int64_t ldc);

}  // namespace gemmkit
