/*! \file
    \brief Operand packing for the tiled GEMMs (host side, no CUDA): an operand stored the other way
    round from the layout a kernel reads fastest is transposed into a workspace first, and one whose
    leading dimension is no whole number of 16-byte chunks is copied into one of whole 128-byte
    lines (seed 001's padding idea), so the kernel runs its fastest instance, with 16-byte copies
    from columns that start on a cache line. The copy reads and
    writes each element of that operand once; it pays where the other side of C is long enough to
    reuse it.
*/
#pragma once

#include "base/problem.hpp"

#include <cstddef>
#include <cstdint>

namespace gemmkit::gemm {

/// The transposes a kernel reads fastest. kNN: the FP64 tensor-core kernel (NT and TN pack their
/// transposed operand; TT runs as NN on C^T, so it transposes nothing). kNT: the FP32 SIMT kernel,
/// whose k-major tiles take 16-byte copies from an M-contiguous A and an N-contiguous B, and only
/// 4-byte ones from K-contiguous operands (B in NN, A and B in TN, A in TT, which are transposed).
/// In both, an operand whose leading dimension or batch stride is no whole number of 16-byte chunks
/// is copied as it is into an aligned one (the kernels fall back to 8- or 4-byte copies there).
enum class PackedLayout { kNN, kNT };

/// One operand's copy: the operand is stored rows x cols, the copy cols x rows when `transpose`,
/// else rows x cols, column-major with leading dimension `ld`: the copy's rows rounded up to whole
/// 128-byte lines, so the kernel's 16-byte copies apply and every column starts a cache line (a
/// warp's run down a column touches no more lines than it must). One copy per batch entry `stride`
/// apart, or one shared copy (stride 0) when the batch shares the operand. `offset`: elements from
/// the workspace's start.
struct PackedMatrix {
  bool pack = false;
  bool transpose = false;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t ld = 0;
  std::int64_t stride = 0;
  std::int64_t copies = 0;
  std::int64_t offset = 0;
  std::size_t bytes = 0;
};

/// Which operands a problem packs; A's copy comes first in the workspace, B's after it.
struct PackedOperands {
  PackedMatrix a, b;
  std::size_t bytes() const { return a.bytes + b.bytes; }
  bool any() const { return a.pack || b.pack; }
};

/// The copy of an operand stored rows x cols, `batch` entries (shared: one for all).
inline PackedMatrix plan_packed_matrix(std::int64_t rows, std::int64_t cols, bool transpose, bool shared,
                                       std::int64_t batch, std::size_t element_bytes) {
  PackedMatrix copy;
  copy.pack = true;
  copy.transpose = transpose;
  copy.rows = rows;
  copy.cols = cols;
  constexpr std::size_t kLineBytes = 128;
  std::int64_t const per_line = std::int64_t(kLineBytes / element_bytes);
  std::int64_t const copy_rows = transpose ? cols : rows, copy_cols = transpose ? rows : cols;
  copy.ld = (copy_rows + per_line - 1) / per_line * per_line;
  copy.copies = shared ? 1 : batch;
  copy.stride = shared ? 0 : copy.ld * copy_cols;
  copy.bytes = std::size_t(copy.ld) * std::size_t(copy_cols) * std::size_t(copy.copies) * element_bytes;
  return copy;
}

/// The packing plan of a problem for elements of `element_bytes`, for a kernel reading `layout`.
inline PackedOperands plan_packed_operands(GemmProblem const& p, std::size_t element_bytes, PackedLayout layout) {
  std::int64_t const per_chunk = std::int64_t(16 / element_bytes);
  auto whole_chunks = [&](std::int64_t ld, std::int64_t stride) {
    return ld % per_chunk == 0 && (p.batch == 1 || stride % per_chunk == 0);
  };
  bool const trans_a = is_transposed(p.trans_a), trans_b = is_transposed(p.trans_b);
  bool const nn = layout == PackedLayout::kNN;
  bool const transpose_a = nn ? trans_a && !trans_b : trans_a;
  bool const transpose_b = nn ? trans_b && !trans_a : !trans_b;
  bool const copy_a = !transpose_a && !whole_chunks(p.lda, p.stride_a);
  bool const copy_b = !transpose_b && !whole_chunks(p.ldb, p.stride_b);
  PackedOperands plan;
  if (transpose_a || copy_a) {
    plan.a = plan_packed_matrix(p.a_rows(), p.a_cols(), transpose_a, p.batch > 1 && p.stride_a == 0, p.batch,
                                element_bytes);
  }
  if (transpose_b || copy_b) {
    plan.b = plan_packed_matrix(p.b_rows(), p.b_cols(), transpose_b, p.batch > 1 && p.stride_b == 0, p.batch,
                                element_bytes);
    plan.b.offset = std::int64_t(plan.a.bytes / element_bytes);
  }
  return plan;
}

}  // namespace gemmkit::gemm
