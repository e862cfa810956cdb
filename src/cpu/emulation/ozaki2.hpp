/*! \file
    \brief FP64 GEMM from exact integer GEMMs (the Ozaki scheme II): moduli, scaling, residues and
    reconstruction, shared by the GPU engine, and a host implementation that is its reference.

    Each row i of op(A) is scaled by 2^s_i and each column j of op(B) by 2^t_j and rounded to
    integers of at most `bits` bits; their product C' = A' B' is an exact integer matrix with
    |C'| <= k 2^(2 bits). It is computed modulo pairwise coprime moduli p_1..p_N <= 256 (residues in
    int8, one exact int8 x int8 -> int32 GEMM per modulus) and rebuilt by the Chinese remainder
    theorem, exactly while the moduli's product M exceeds 2 k 2^(2 bits); C = 2^-s_i C' 2^-t_j.
    The only rounding is the operands' (|A - 2^-s A'| <= 2^-bits max_h |a_ih| per row, likewise for
    B) and the final conversion to double, so per element
        |C_ij - fl(C_ij)| <= 2^-bits (max_h |b_hj| sum_h |a_ih| + max_h |a_ih| sum_h |b_hj|)
                             + k 2^-2bits max_h |a_ih| max_h |b_hj| + 2u |C_ij|.
*/
#pragma once

#include "base/problem.hpp"

#include <array>
#include <cstdint>

namespace gemmkit::ozaki2 {

/// The most moduli a plan uses: their product reaches 2^155, beyond what 53-bit operands need.
inline constexpr int kMaxModuli = 20;

/// Pairwise coprime moduli, largest first: greedily the next integer down from 256 coprime to all
/// taken so far. Residues of p in [-(p/2), (p-1)/2] fit int8; |product| <= 2^14, so an int32 sum of
/// up to 2^17 - 1 products is exact.
std::array<int, kMaxModuli> const& moduli();

/// a^-1 modulo p (a and p coprime), in [0, p).
int inverse_mod(int a, int p);

/// k beyond which the int32 sums are reduced modulo p before they could overflow.
inline constexpr std::int64_t kExactK = (std::int64_t(1) << 17) - 1;

/// How many moduli and how many bits per scaled operand element.
struct Plan {
  int moduli = 0;
  int bits = 0;            ///< operand elements are integers of magnitude <= 2^bits
  double log2_product = 0; ///< log2 of the moduli's product
};

/// The fewest moduli that carry `bits` bits per operand element at inner dimension k (bits in 1..62);
/// moduli = 0 when even kMaxModuli do not.
Plan plan_for_bits(int bits, std::int64_t k);

/// The most bits per operand element `moduli` moduli carry at inner dimension k (0 when none).
Plan plan_for_moduli(int moduli, std::int64_t k);

/// The fewest moduli for `bits` bits when the scaled integers are known to satisfy
/// sum_h |a'_ih| |b'_hj| <= 2^(2 bits) W + 2^(bits-1) V + k/4 for every element (the accurate scaling's
/// bounds; W <= k and V <= 2k always, so this never needs more moduli than plan_for_bits).
Plan plan_for_bounds(int bits, double product_bound, double sum_bound, std::int64_t k);

/// The accurate scaling's promise per element of C, beyond the final rounding to double:
/// |C_ij - fl(C_ij)| <= kAccurateErrorBound (|op(A)| |op(B)|)_ij. FP64 GEMM's own worst case is k u times
/// the same; its typical largest error on random inputs is 2-4 u (u = 2^-53).
inline constexpr double kAccurateErrorBound = 0x1p-49;

/// The most bits per operand element the GPU residues take (scaled elements are integers below 2^62).
inline constexpr int kMaxBits = 62;

/// Bits per operand element at which the scheme's error is expected to be no worse than FP64 GEMM's,
/// for operands whose largest row or column spread (k max|x| / sum|x|, 2 for uniform magnitudes) is
/// `spread`. The emulation loses low bits of elements far below their row's or column's largest; FP64
/// GEMM's own error grows with the spread too, more slowly. Calibrated on uniform random inputs with a
/// log-normal factor exp(phi N(0,1)) (the Ozaki papers' generator, phi 0..2, k 64..16384): 51 bits
/// match FP64 at spread <= 3 (about 0.6-0.9 of its largest error), and each doubling of the spread
/// beyond takes one more bit, plus one. May exceed kMaxBits: no plan reaches FP64's accuracy then.
int bits_for_fp64_accuracy(double spread);

/// C := alpha op(A) op(B) + beta C on the host for one column-major problem (batch 1) through the
/// scheme with `plan`, int32 products and all: the GPU engine's reference. GK_NOT_SUPPORTED when A
/// or B holds Inf or NaN (the caller takes the native path), else GK_SUCCESS. beta = 0 never reads C.
gk_status host_dgemm(GemmProblem const& problem, Plan const& plan, double alpha, double const* A, double const* B,
                     double beta, double* C);

}  // namespace gemmkit::ozaki2
