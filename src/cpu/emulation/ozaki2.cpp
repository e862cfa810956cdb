/*! \file
    \brief The Ozaki scheme II's moduli, plans and host implementation (the GPU engine's reference).
*/
#include "cpu/emulation/ozaki2.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

namespace gemmkit::ozaki2 {

namespace {

/// The residue of x modulo p in [-(p/2), (p-1)/2].
inline int symmetric_residue(std::int64_t x, int p) {
  int r = int(x % p);
  if (r < 0) r += p;
  return r > (p - 1) / 2 ? r - p : r;
}


/// inverses[j][i] = p_j^-1 mod p_i for j < i: Garner's mixed-radix digits.
struct GarnerTable {
  std::array<std::array<int, kMaxModuli>, kMaxModuli> inverses{};
  GarnerTable() {
    auto const& p = moduli();
    for (int i = 0; i < kMaxModuli; ++i) {
      for (int j = 0; j < i; ++j) inverses[j][i] = inverse_mod(p[j], p[i]);
    }
  }
};

double log2_product(int count) {
  double sum = 0;
  for (int l = 0; l < count; ++l) sum += std::log2(double(moduli()[l]));
  return sum;
}

/// The exponent shift that makes the largest magnitude of a row (or column) an integer of at most
/// `bits` bits: |x| 2^shift < 2^bits for every x of it.
int shift_for(double largest, int bits) { return largest == 0 ? 0 : bits - std::ilogb(largest) - 1; }

/// The element of op(X) at (row, col) for a column-major X with leading dimension ld.
inline double element(double const* X, std::int64_t ld, bool transposed, std::int64_t row, std::int64_t col) {
  return transposed ? X[col + row * ld] : X[row + col * ld];
}

/// x = sum_i v_i (p_1 ... p_i-1) from the top digit down, in double-double: the symmetric digits make
/// every partial sum of the order of the value, so the result is within about one rounding of x.
double mixed_radix_value(int const* digits, int count) {
  auto const& p = moduli();
  double hi = digits[count - 1], lo = 0;
  for (int i = count - 2; i >= 0; --i) {
    double const scaled_hi = p[i] * hi;
    double const scaled_lo = std::fma(double(p[i]), hi, -scaled_hi) + p[i] * lo;
    double const sum = scaled_hi + digits[i];
    double const sum_error = (scaled_hi - (sum - (sum - scaled_hi))) + (digits[i] - (sum - scaled_hi));
    hi = sum + (sum_error + scaled_lo);
    lo = (sum_error + scaled_lo) - (hi - sum);
  }
  return hi + lo;
}

}  // namespace

int inverse_mod(int a, int p) {
  int t = 0, next_t = 1, r = p, next_r = ((a % p) + p) % p;
  while (next_r != 0) {
    int const q = r / next_r;
    std::tie(t, next_t) = std::make_pair(next_t, t - q * next_t);
    std::tie(r, next_r) = std::make_pair(next_r, r - q * next_r);
  }
  return t < 0 ? t + p : t;
}

std::array<int, kMaxModuli> const& moduli() {
  static std::array<int, kMaxModuli> const taken = [] {
    std::array<int, kMaxModuli> out{};
    int count = 0;
    for (int candidate = 256; count < kMaxModuli && candidate > 1; --candidate) {
      if (std::all_of(out.begin(), out.begin() + count, [&](int p) { return std::gcd(p, candidate) == 1; })) {
        out[std::size_t(count++)] = candidate;
      }
    }
    return out;
  }();
  return taken;
}

Plan plan_for_bits(int bits, std::int64_t k) {
  if (bits < 1 || bits > 62 || k < 1) return {};
  // The product must exceed 2 k 2^(2 bits); a margin keeps the comparison of logarithms honest.
  double const needed = 1 + std::log2(double(k)) + 2.0 * bits + 1e-9;
  for (int count = 1; count <= kMaxModuli; ++count) {
    if (log2_product(count) > needed) return {count, bits, log2_product(count)};
  }
  return {};
}

Plan plan_for_bounds(int bits, double product_bound, double sum_bound, std::int64_t k) {
  if (bits < 1 || bits > 62 || k < 1 || !(product_bound >= 0) || !(sum_bound >= 0)) return {};
  double const largest = std::ldexp(product_bound, 2 * bits) + std::ldexp(sum_bound, bits - 1) + 0.25 * double(k);
  double const needed = 1 + std::log2(largest) + 1e-9;
  for (int count = 1; count <= kMaxModuli; ++count) {
    if (log2_product(count) > needed) return {count, bits, log2_product(count)};
  }
  return {};
}

int bits_for_fp64_accuracy(double spread) {
  constexpr int kUniformBits = 51;
  constexpr double kUniformSpread = 3;
  if (!(spread > kUniformSpread)) return kUniformBits;
  return kUniformBits + 1 + int(std::ceil(std::log2(std::min(spread, 1e300) / kUniformSpread)));
}

Plan plan_for_moduli(int count, std::int64_t k) {
  if (count < 1 || count > kMaxModuli || k < 1) return {};
  double const room = log2_product(count) - 1 - std::log2(double(k)) - 1e-9;
  int const bits = std::min(62, int(std::floor(room / 2)));
  return bits >= 1 ? Plan{count, bits, log2_product(count)} : Plan{};
}

gk_status host_dgemm(GemmProblem const& p, Plan const& plan, double alpha, double const* A, double const* B,
                     double beta, double* C) {
  std::int64_t const m = p.m, n = p.n, k = p.k;
  if (plan.moduli < 1 || plan.moduli > kMaxModuli || plan.bits < 1 || plan.bits > 62) return GK_INVALID_ARGUMENT;
  bool const ta = is_transposed(p.trans_a), tb = is_transposed(p.trans_b);
  // Row maxima of op(A), column maxima of op(B); a non-finite operand leaves the scheme.
  std::vector<double> a_max(std::size_t(m), 0.0), b_max(std::size_t(n), 0.0);
  for (std::int64_t h = 0; h < k; ++h) {
    for (std::int64_t i = 0; i < m; ++i) {
      double const x = element(A, p.lda, ta, i, h);
      if (!std::isfinite(x)) return GK_NOT_SUPPORTED;
      a_max[std::size_t(i)] = std::max(a_max[std::size_t(i)], std::fabs(x));
    }
    for (std::int64_t j = 0; j < n; ++j) {
      double const x = element(B, p.ldb, tb, h, j);
      if (!std::isfinite(x)) return GK_NOT_SUPPORTED;
      b_max[std::size_t(j)] = std::max(b_max[std::size_t(j)], std::fabs(x));
    }
  }
  std::vector<int> a_shift(static_cast<std::size_t>(m)), b_shift(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < m; ++i) a_shift[std::size_t(i)] = shift_for(a_max[std::size_t(i)], plan.bits);
  for (std::int64_t j = 0; j < n; ++j) b_shift[std::size_t(j)] = shift_for(b_max[std::size_t(j)], plan.bits);
  // The scaled operands as integers, each row of op(A) and column of op(B) contiguous along k.
  std::vector<std::int64_t> a_int(std::size_t(m * k)), b_int(std::size_t(n * k));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t h = 0; h < k; ++h) {
      a_int[std::size_t(i * k + h)] =
          std::int64_t(std::nearbyint(std::ldexp(element(A, p.lda, ta, i, h), a_shift[std::size_t(i)])));
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t h = 0; h < k; ++h) {
      b_int[std::size_t(j * k + h)] =
          std::int64_t(std::nearbyint(std::ldexp(element(B, p.ldb, tb, h, j), b_shift[std::size_t(j)])));
    }
  }
  // Per modulus: int8 residues, their exact int32 products (reduced every kExactK terms), mod p.
  int const count = plan.moduli;
  auto const& mod = moduli();
  std::vector<std::uint8_t> residues(std::size_t(count) * std::size_t(m * n));  // c_l(i, j) in [0, p_l)
  std::vector<std::int8_t> a_res(std::size_t(m * k)), b_res(std::size_t(n * k));
  for (int l = 0; l < count; ++l) {
    int const pl = mod[std::size_t(l)];
    for (std::size_t x = 0; x < a_res.size(); ++x) a_res[x] = std::int8_t(symmetric_residue(a_int[x], pl));
    for (std::size_t x = 0; x < b_res.size(); ++x) b_res[x] = std::int8_t(symmetric_residue(b_int[x], pl));
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t i = 0; i < m; ++i) {
        std::int64_t reduced = 0;
        for (std::int64_t h0 = 0; h0 < k; h0 += kExactK) {
          std::int32_t sum = 0;
          std::int64_t const h1 = std::min(k, h0 + kExactK);
          for (std::int64_t h = h0; h < h1; ++h) {
            sum += std::int32_t(a_res[std::size_t(i * k + h)]) * std::int32_t(b_res[std::size_t(j * k + h)]);
          }
          reduced = (reduced + sum) % pl;
        }
        if (reduced < 0) reduced += pl;
        residues[std::size_t(l) * std::size_t(m * n) + std::size_t(i + j * m)] = std::uint8_t(reduced);
      }
    }
  }
  // Garner's mixed-radix digits (symmetric), the value, the scaling undone, the epilogue.
  static GarnerTable const garner;
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < m; ++i) {
      std::array<int, kMaxModuli> digits{};
      for (int l = 0; l < count; ++l) {
        int const pl = mod[std::size_t(l)];
        int t = residues[std::size_t(l) * std::size_t(m * n) + std::size_t(i + j * m)];
        for (int d = 0; d < l; ++d) t = int((std::int64_t(((t - digits[std::size_t(d)]) % pl) + pl) % pl *
                                             garner.inverses[std::size_t(d)][std::size_t(l)]) % pl);
        digits[std::size_t(l)] = symmetric_residue(t, pl);
      }
      double const product = std::ldexp(mixed_radix_value(digits.data(), count),
                                        -(a_shift[std::size_t(i)] + b_shift[std::size_t(j)]));
      double& c = C[i + j * p.ldc];
      c = beta == 0 ? alpha * product : alpha * product + beta * c;
    }
  }
  return GK_SUCCESS;
}

}  // namespace gemmkit::ozaki2
