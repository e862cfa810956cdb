/*! \file
    \brief Operand packing for the tiled GEMM (host side, no CUDA): NT and TN copy their transposed
    operand into a workspace in the layout NN reads (seed 001's padding idea), so they run the NN
    kernel. The copy moves 16 bytes per element of the operand; it pays where the other side of C
    is long enough that the NN kernel's lead over the NT/TN one outweighs that pass.
*/
#pragma once

#include "core/problem.hpp"

#include <cstddef>
#include <cstdint>

namespace gemmkit::gemm {

/// Which operand a problem packs and the packed copy's layout: column-major, leading dimension
/// `ld` (rounded up to whole 16-byte chunks so the kernel's wide copies apply), one copy per batch
/// entry `stride` apart, or one shared copy (stride 0) when the batch shares the operand.
struct PackedOperand {
  bool pack_a = false;        ///< TN: A (stored k x m) becomes m x k
  bool pack_b = false;        ///< NT: B (stored n x k) becomes k x n
  std::int64_t rows = 0;      ///< rows of the stored operand (the transpose's source)
  std::int64_t cols = 0;      ///< its columns
  std::int64_t ld = 0;        ///< leading dimension of the packed copy (>= cols)
  std::int64_t stride = 0;    ///< elements between packed batch entries; 0: one shared copy
  std::int64_t copies = 0;    ///< packed matrices: batch, or 1 when shared
  std::size_t bytes = 0;      ///< workspace the copies take
};

/// The packing plan of a problem for elements of `element_bytes`: NN and TT pack nothing (TT runs
/// as NN on C^T), NT packs B, TN packs A.
inline PackedOperand plan_packed_operand(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                         std::int64_t stride_a, std::int64_t stride_b, std::int64_t batch,
                                         std::size_t element_bytes) {
  PackedOperand plan;
  if (trans_a == trans_b) return plan;
  plan.pack_a = trans_a;
  plan.pack_b = trans_b;
  plan.rows = trans_a ? k : n;  // A of TN is stored k x m, B of NT n x k
  plan.cols = trans_a ? m : k;
  std::int64_t const per_chunk = std::int64_t(16 / element_bytes);
  plan.ld = (plan.cols + per_chunk - 1) / per_chunk * per_chunk;
  bool const shared = batch > 1 && (trans_a ? stride_a : stride_b) == 0;
  plan.copies = shared ? 1 : batch;
  plan.stride = shared ? 0 : plan.ld * plan.rows;
  plan.bytes = std::size_t(plan.ld) * std::size_t(plan.rows) * std::size_t(plan.copies) * element_bytes;
  return plan;
}

inline PackedOperand plan_packed_operand(GemmProblem const& p, std::size_t element_bytes) {
  return plan_packed_operand(is_transposed(p.trans_a), is_transposed(p.trans_b), p.m, p.n, p.k, p.stride_a,
                             p.stride_b, p.batch, element_bytes);
}

}  // namespace gemmkit::gemm
