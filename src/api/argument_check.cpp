/*! \file
    \brief BLAS argument rules for gemm (reference CBLAS order of checks and parameter indices).
*/
#include "api/argument_check.hpp"

#include <algorithm>

namespace gemmkit {

namespace {

bool valid_op(gk_op op) { return op == GK_OP_N || op == GK_OP_T || op == GK_OP_C; }

ArgumentError error(int parameter, std::string message) { return ArgumentError{parameter, std::move(message)}; }

}  // namespace

ArgumentError check_gemm_arguments(gk_layout layout, gk_op transa, gk_op transb, std::int64_t m,
                                   std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb,
                                   std::int64_t ldc, GemmParameterPositions positions) {
  if (layout != GK_COL_MAJOR && layout != GK_ROW_MAJOR) return error(1, "layout must be GK_COL_MAJOR or GK_ROW_MAJOR");
  if (!valid_op(transa)) return error(2, "transa must be GK_OP_N, GK_OP_T or GK_OP_C");
  if (!valid_op(transb)) return error(3, "transb must be GK_OP_N, GK_OP_T or GK_OP_C");
  if (m < 0) return error(4, "m = " + std::to_string(m) + " is negative");
  if (n < 0) return error(5, "n = " + std::to_string(n) + " is negative");
  if (k < 0) return error(6, "k = " + std::to_string(k) + " is negative");

  // Minimum leading dimension = length of a stored row (row-major) or column (column-major).
  StoredShape const a = stored_shape(layout, is_transposed(transa), m, k);
  StoredShape const b = stored_shape(layout, is_transposed(transb), k, n);
  StoredShape const c = stored_shape(layout, false, m, n);
  std::int64_t const a_min = a.length, b_min = b.length, c_min = c.length;
  auto ld_rule = [](std::int64_t ld, std::int64_t need, char const* name) {
    return std::string(name) + " = " + std::to_string(ld) + " must be >= max(1, " + std::to_string(need) + ")";
  };
  if (lda < std::max<std::int64_t>(1, a_min)) return error(positions.lda, ld_rule(lda, a_min, "lda"));
  if (ldb < std::max<std::int64_t>(1, b_min)) return error(positions.ldb, ld_rule(ldb, b_min, "ldb"));
  if (ldc < std::max<std::int64_t>(1, c_min)) return error(positions.ldc, ld_rule(ldc, c_min, "ldc"));
  auto too_far = [](std::int64_t ld, std::int64_t lines, std::int64_t length, char const* name) {
    return std::string(name) + " = " + std::to_string(ld) + " over " + std::to_string(lines) +
           " lines of " + std::to_string(length) + " puts the matrix's end past a 64-bit address";
  };
  if (operand_extent(lda, a.lines, a_min) < 0) return error(positions.lda, too_far(lda, a.lines, a_min, "lda"));
  if (operand_extent(ldb, b.lines, b_min) < 0) return error(positions.ldb, too_far(ldb, b.lines, b_min, "ldb"));
  if (operand_extent(ldc, c.lines, c_min) < 0) return error(positions.ldc, too_far(ldc, c.lines, c_min, "ldc"));
  return {};
}

StoredShape stored_shape(gk_layout layout, bool transposed, std::int64_t rows, std::int64_t cols) {
  bool const along_rows = (layout == GK_COL_MAJOR) == transposed;  // lines run along op(X)'s rows
  return along_rows ? StoredShape{rows, cols} : StoredShape{cols, rows};
}

std::int64_t operand_extent(std::int64_t ld, std::int64_t lines, std::int64_t length) {
  if (lines <= 0 || length <= 0) return 0;
  std::int64_t gap = 0, extent = 0;
  if (__builtin_mul_overflow(ld, lines - 1, &gap) || __builtin_add_overflow(gap, length, &extent) ||
      extent > kMaxElements) {
    return -1;
  }
  return extent;
}

std::int64_t batch_extent(std::int64_t extent, std::int64_t stride, std::int64_t batch) {
  if (extent < 0) return -1;
  if (batch <= 1 || extent == 0) return extent;
  std::int64_t reach = 0, total = 0;
  if (__builtin_mul_overflow(stride, batch - 1, &reach) || __builtin_add_overflow(reach, extent, &total) ||
      total > kMaxElements) {
    return -1;
  }
  return total;
}

GemmProblem to_column_major(gk_layout layout, Dtype dtype, gk_op transa, gk_op transb, std::int64_t m,
                            std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb,
                            std::int64_t ldc) {
  GemmProblem p;
  p.dtype = dtype;
  p.k = k;
  p.ldc = ldc;
  if (layout == GK_COL_MAJOR) {
    p.trans_a = transa, p.trans_b = transb, p.m = m, p.n = n, p.lda = lda, p.ldb = ldb;
  } else {
    p.trans_a = transb, p.trans_b = transa, p.m = n, p.n = m, p.lda = ldb, p.ldb = lda;
  }
  return p;
}

}  // namespace gemmkit
