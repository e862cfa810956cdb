/*! \file
    \brief Random operands and the normalized-error check against the higher-precision reference
    (the registered reference_?gemm, forced through the public API: it sums in higher precision and
    rounds once, which adds at most half an ulp per element, far below the bound).

    The check (docs/kernel-contracts.md): ||C - Cref||_F / (sqrt(k+2) |alpha| ||A||_F ||B||_F + 2 |beta| ||C0||_F)
    < 8 eps, NaN anywhere fails. The scalars scale their terms so the bound means the same for any
    alpha and beta; with alpha = 1 and beta = 0 (the timing default) C0 drops out, which only makes
    the check stricter. Large problems are checked on a random sample of columns of C (the first
    and last always among them): the sample is itself a GEMM with the same A and the sampled
    columns of op(B), so the same bound applies to it.
*/
#pragma once

#include "bench_problem.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gemmkit::bench {

/// Uniform values in [-1, 1), never exactly zero, reproducible from `seed`.
template <typename T>
void fill_random(T* data, std::size_t count, std::uint64_t seed);

enum class Verdict { kPassed, kFailed, kSkipped };

struct Verification {
  Verdict verdict = Verdict::kSkipped;
  double error = std::numeric_limits<double>::quiet_NaN();      ///< normalized error
  double threshold = std::numeric_limits<double>::quiet_NaN();  ///< 8 eps of the dtype
  std::int64_t columns = 0;   ///< columns of C compared (n when all were)
  std::string note;           ///< why skipped, or what failed
};

/// "yes", "FAIL" or "skipped": a verification as a table cell.
std::string verify_cell(Verification const& v);

/// Columns of C to compare: all of them when the reference is cheap, else a sorted random sample
/// sized so the reference costs about as much as a 600^3 GEMM. Empty when even one column per
/// few would be too slow to check on the host; `why` then says so.
std::vector<std::int64_t> pick_verify_columns(GemmProblem const& problem, std::uint64_t seed, std::string* why);

/// Compares the computed columns `c_columns` (m x cols.size(), leading dimension m) against the
/// reference for those columns. A and B are the full operands as stored (column-major, problem's
/// leading dimensions). c0_columns holds the same columns of C before the call (NULL when beta = 0).
template <typename T>
Verification verify_columns(GemmProblem const& problem, double alpha, double beta, T const* A, T const* B,
                            std::vector<std::int64_t> const& cols, T const* c0_columns, T const* c_columns);

}  // namespace gemmkit::bench
