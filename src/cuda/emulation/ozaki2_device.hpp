/*! \file
    \brief The Ozaki scheme II on the GPU around an INT8 GEMM engine: the workspace, scaling and int8
    residues of the operands, and the fused reconstruction (modular reduction, Chinese remainder theorem, unscaling,
    alpha/beta) into C. The engine in between runs one int8 x int8 -> int32 GEMM per modulus.
*/
#pragma once

#include "base/problem.hpp"
#include "cpu/emulation/ozaki2.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace gemmkit::ozaki2 {

/// What the maxima kernels found over the operands: a non-finite element, and the largest spread
/// (k max|x| / sum |x|) of a row of op(A) and of a column of op(B), as bit patterns. The accurate
/// scaling's bounds add, over all elements of C, the most bits an element needs for its error bound
/// (kAccurateErrorBound) and the largest W and V of the moduli's bound (Plan plan_for_bounds).
struct Summary {
  int nonfinite;
  int required_bits;
  unsigned long long spread_bits[2];
  unsigned long long product_bound_bits;  ///< W, a double's bit pattern
  unsigned long long sum_bound_bits;      ///< V, likewise
};

/// Where each part lives in the workspace. Residues of op(A) are stored as the k x m matrix op(A)^T
/// and those of op(B) as the k x n matrix op(B), both column-major with leading dimension k_padded,
/// one plane per modulus: the "TN" int8 GEMM that every INT8 engine takes, C_l = A_l^T B_l.
struct DeviceLayout {
  std::int64_t k_padded = 0;       ///< k rounded up to 16, or 128 from k = 1024 (zero residues past k)
  std::int64_t ldc = 0;            ///< the int32 products' leading dimension (block_rows rounded up to 4)
  std::int64_t block_rows = 0;     ///< rows of C per block: op(A)'s residues and the products hold that many
  std::int64_t block_columns = 0;  ///< columns of C per block: op(B)'s residues and the products hold that many
  std::size_t a_max = 0, b_max = 0, a_sum = 0, b_sum = 0, b_factors = 0, summary = 0;  ///< byte offsets
  std::size_t a_residues = 0, b_residues = 0, products = 0;                          ///< byte offsets
  std::size_t a_plane = 0, b_plane = 0, product_plane = 0;  ///< elements per modulus
  std::size_t bytes = 0;
};
/// The layout for `plan`'s moduli with blocks of at most block_rows x block_columns of C (the maxima and sums
/// for all of op(A)'s rows and op(B)'s columns).
DeviceLayout device_layout(GemmProblem const& problem, Plan const& plan, std::int64_t block_rows,
                           std::int64_t block_columns);

/// A block of C: rows first_row .. + rows - 1, columns first_column .. + columns - 1.
struct Block {
  std::int64_t first_row = 0, rows = 0, first_column = 0, columns = 0;
};

enum class Operand { kA, kB };

/// Row maxima and sums of magnitudes of op(A), the same of the columns of op(B), on `stream`, and into the
/// workspace's Summary (which the caller clears) whether an element is not finite and the largest spread.
std::string find_scales(GemmProblem const& problem, double const* A, double const* B, void* workspace,
                        DeviceLayout const& layout, void* stream);
/// The workspace's Summary on the host once everything before it on `stream` is done (waits for the stream).
std::string read_summary(void const* workspace, DeviceLayout const& layout, Summary* out, void* stream);
/// The larger of the two spreads of a Summary copied to the host (at least 1).
double spread_of(Summary const& summary);
/// Its accurate-scaling bounds W and V (Plan plan_for_bounds).
double product_bound_of(Summary const& summary);
double sum_bound_of(Summary const& summary);

/// The accurate scaling's first step: op(A)'s magnitudes quantized, |a| 2^q_i rounded down and at most 127, into
/// the first plane of A's residues (or a block of op(B)'s columns likewise into B's). q_i puts the row's largest
/// just below 128, or, when the row's mean is far below its largest, the mean at 16..31.
std::string make_magnitudes(GemmProblem const& problem, Operand which, double const* X, std::int64_t first,
                            std::int64_t count, void* workspace, DeviceLayout const& layout, void* stream);
/// Its last: from the first plane of the products (the quantized magnitudes' INT8 GEMM, G), for every
/// element of the block's columns a lower bound L = 2^-(q_i + r_j) G on (|op(A)| |op(B)|)_ij and the
/// error bound of `bits`-bit operands, into the Summary: the most bits any element needs for
///     2^-(bits+1) P_ij + 2^-(2 bits+2) k 2^-(s_i+t_j) <= kAccurateErrorBound L_ij,
///     P_ij = 2^-s_i sum_h |b_hj| + 2^-t_j sum_h |a_ih|    (2^-s_i: the power of two above row i's largest),
/// and the largest W >= 2^(s_i+t_j) (|op(A)| |op(B)|)_ij (from the largest elements and sums, and from G where
/// no element was clamped) and V = 2^s_i sum|a_ih| + 2^t_j sum|b_hj|: the scaled integers then have
/// |A'| |B'| <= 2^(2 bits) W + 2^(bits-1) V + k/4.
std::string bound_elements(GemmProblem const& problem, Block const& block, void* workspace,
                           DeviceLayout const& layout, void* stream);

/// The int8 residues of the scaled lines first .. first + count - 1 of one operand (a block of rows of op(A)
/// or of columns of op(B)); bits <= kMaxBits.
std::string make_residues(GemmProblem const& problem, Plan const& plan, Operand which, double const* X,
                          std::int64_t first, std::int64_t count, void* workspace, DeviceLayout const& layout,
                          void* stream);
/// The block of C := alpha * 2^-s A'B' 2^-t + beta C from its int32 products (beta = 0 reads no C).
std::string reconstruct(GemmProblem const& problem, Plan const& plan, double alpha, double beta, double* C,
                        Block const& block, void* workspace, DeviceLayout const& layout, void* stream);

}  // namespace gemmkit::ozaki2
