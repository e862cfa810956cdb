/*! \file
    \brief The Ozaki scheme II on the GPU around an INT8 GEMM engine: the workspace, scaling and int8
    residues of the operands, and the fused reconstruction (modular reduction, Garner, unscaling,
    alpha/beta) into C. The engine in between runs one int8 x int8 -> int32 GEMM per modulus.
*/
#pragma once

#include "base/problem.hpp"
#include "cpu/emulation/ozaki2.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace gemmkit::ozaki2 {

/// Where each part lives in the workspace. Residues of op(A) are stored as the k x m matrix op(A)^T
/// and those of op(B) as the k x n matrix op(B), both column-major with leading dimension k_padded,
/// one plane per modulus: the "TN" int8 GEMM that every INT8 engine takes, C_l = A_l^T B_l.
struct DeviceLayout {
  std::int64_t k_padded = 0;   ///< k rounded up to 16 (zero residues past k)
  std::int64_t ldc = 0;        ///< the int32 products' leading dimension (m rounded up to 4)
  std::size_t a_max = 0, b_max = 0, flag = 0, a_residues = 0, b_residues = 0, products = 0;  ///< byte offsets
  std::size_t a_plane = 0, b_plane = 0, product_plane = 0;  ///< elements per modulus
  std::size_t bytes = 0;
};
DeviceLayout device_layout(GemmProblem const& problem, Plan const& plan);

/// Row maxima of op(A), column maxima of op(B), on `stream`; a non-finite element sets the workspace's
/// flag (which the caller clears).
std::string find_scales(GemmProblem const& problem, double const* A, double const* B, void* workspace,
                        DeviceLayout const& layout, void* stream);
/// The int8 residues of the scaled operands (bits <= 53: scaled elements are integers a double holds).
std::string make_residues(GemmProblem const& problem, Plan const& plan, double const* A, double const* B,
                          void* workspace, DeviceLayout const& layout, void* stream);
/// C := alpha * 2^-s A'B' 2^-t + beta C from the int32 products (beta = 0 reads no C).
std::string reconstruct(GemmProblem const& problem, Plan const& plan, double alpha, double beta, double* C,
                        void* workspace, DeviceLayout const& layout, void* stream);

}  // namespace gemmkit::ozaki2
