/*! \file
    \brief Random operands and the normalized-error check against the higher-precision reference.
*/
#include "verify.hpp"

#include <gemmkit/gemmkit.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <type_traits>

#include <omp.h>

namespace gemmkit::bench {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Work (m*k*columns) the sampled reference may take per host thread: about a 600^3 GEMM in long
/// double. The reference reads A once for all sampled columns, its row blocks in parallel.
constexpr double kVerifyWork = 2.0e8;
constexpr std::int64_t kMinSampleColumns = 4;
constexpr std::int64_t kMaxSampleColumns = 64;

/// The reference's columns: the registered host reference (reference_?gemm, which accumulates in
/// higher precision and rounds once) forced through the public API on the CPU; "" or why it failed.
template <typename T>
std::string reference_columns(GemmProblem const& sub, double alpha, T const* A, T const* B, double beta, T* C) {
  gk_context ctx = nullptr;
  if (gk_create(&ctx) != GK_SUCCESS) return "gk_create failed";
  gk_set_backend(ctx, GK_BACKEND_CPU);
  gk_status s = gk_set_variant(ctx, sizeof(T) == 8 ? "reference_dgemm" : "reference_sgemm");
  if (s == GK_SUCCESS) {
    if constexpr (sizeof(T) == 8) {
      s = gk_dgemm(ctx, GK_COL_MAJOR, sub.trans_a, sub.trans_b, sub.m, sub.n, sub.k, alpha, A, sub.lda, B, sub.ldb, beta,
                   C, sub.ldc);
    } else {
      s = gk_sgemm(ctx, GK_COL_MAJOR, sub.trans_a, sub.trans_b, sub.m, sub.n, sub.k, float(alpha), A, sub.lda, B,
                   sub.ldb, float(beta), C, sub.ldc);
    }
  }
  std::string const error = s == GK_SUCCESS ? "" : std::string("reference: ") + gk_last_error(ctx);
  gk_destroy(ctx);
  return error;
}

}  // namespace

template <typename T>
void fill_random(T* data, std::size_t count, std::uint64_t seed) {
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < count; ++i) {
    // 53 (or 24) random mantissa bits mapped to [-1, 1); an exact 0 becomes 0.5.
    double const u = double(splitmix64(state) >> 11) * 0x1.0p-53;
    T v = T(2.0 * u - 1.0);
    data[i] = v == T(0) ? T(0.5) : v;
  }
}

template void fill_random<double>(double*, std::size_t, std::uint64_t);
template void fill_random<float>(float*, std::size_t, std::uint64_t);

std::string verify_cell(Verification const& v) {
  switch (v.verdict) {
    case Verdict::kPassed: return "yes";
    case Verdict::kFailed: return "FAIL";
    case Verdict::kSkipped: return "skipped";
  }
  return "?";
}

std::vector<std::int64_t> pick_verify_columns(GemmProblem const& p, std::uint64_t seed, std::string* why) {
  double const per_column = double(p.m) * double(p.k);
  std::int64_t const wanted = std::min(
      p.n, std::clamp<std::int64_t>(std::int64_t(kVerifyWork / per_column), kMinSampleColumns, kMaxSampleColumns));
  std::vector<std::int64_t> cols;
  if (per_column * double(wanted) > 20 * kVerifyWork * std::max(omp_get_max_threads(), 1)) {
    *why = "too large for the host reference (m*k = " + std::to_string(p.m * p.k) + ")";
    return cols;
  }
  if (wanted == p.n || per_column * double(p.n) <= kVerifyWork) {
    cols.resize(std::size_t(p.n));
    for (std::int64_t j = 0; j < p.n; ++j) cols[std::size_t(j)] = j;
    return cols;
  }
  std::set<std::int64_t> picked{0, p.n - 1};  // edge tiles at both ends
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> column(0, p.n - 1);
  while (std::int64_t(picked.size()) < wanted) picked.insert(column(rng));
  cols.assign(picked.begin(), picked.end());
  return cols;
}

template <typename T>
Verification verify_columns(GemmProblem const& p, double alpha, double beta, T const* A, T const* B,
                            std::vector<std::int64_t> const& cols, T const* c0_columns, T const* c_columns) {
  using Acc = std::conditional_t<sizeof(T) == 8, long double, double>;  // the norms, as the reference sums
  Verification v;
  v.threshold = 8.0 * double(std::numeric_limits<T>::epsilon());
  v.columns = std::int64_t(cols.size());
  auto const s = std::int64_t(cols.size());
  std::size_t const ms = std::size_t(p.m) * std::size_t(s);

  // The sampled columns of op(B), gathered as a k x s untransposed matrix.
  std::vector<T> b_sample(std::size_t(p.k) * std::size_t(s));
  for (std::int64_t c = 0; c < s; ++c) {
    std::int64_t const j = cols[std::size_t(c)];
    for (std::int64_t l = 0; l < p.k; ++l) {
      b_sample[std::size_t(l + c * p.k)] = is_transposed(p.trans_b) ? B[j + l * p.ldb] : B[l + j * p.ldb];
    }
  }
  GemmProblem sub = p;
  sub.n = s;
  sub.trans_b = GK_OP_N;
  sub.ldb = p.k;
  sub.ldc = p.m;
  sub.batch = 1;
  std::vector<T> ref(ms);
  if (beta != 0.0 && c0_columns != nullptr) std::copy_n(c0_columns, ms, ref.begin());
  if (std::string e = reference_columns<T>(sub, alpha, A, b_sample.data(), beta, ref.data()); !e.empty()) {
    v.note = e;  // not checked: the verdict stays skipped
    return v;
  }

  Acc diff2 = 0, a2 = 0, b2 = 0, c02 = 0;
  bool nan = false;
  for (std::size_t i = 0; i < ms; ++i) {
    if (std::isnan(c_columns[i])) nan = true;
    Acc const d = Acc(c_columns[i]) - Acc(ref[i]);
    diff2 += d * d;
  }
  bool const large = double(p.a_rows()) * double(p.a_cols()) >= double(1 << 24);
#pragma omp parallel for reduction(+ : a2) schedule(static) if (large)
  for (std::int64_t j = 0; j < p.a_cols(); ++j) {
    for (std::int64_t i = 0; i < p.a_rows(); ++i) a2 += Acc(A[i + j * p.lda]) * Acc(A[i + j * p.lda]);
  }
  for (T const x : b_sample) b2 += Acc(x) * Acc(x);
  if (beta != 0.0 && c0_columns != nullptr) {
    for (std::size_t i = 0; i < ms; ++i) c02 += Acc(c0_columns[i]) * Acc(c0_columns[i]);
  }
  Acc const denominator = std::sqrt(Acc(p.k + 2)) * std::fabs(Acc(alpha)) * std::sqrt(a2) * std::sqrt(b2) +
                          2 * std::fabs(Acc(beta)) * std::sqrt(c02);
  Acc const error = denominator > 0 ? std::sqrt(diff2) / denominator : std::sqrt(diff2);
  v.error = double(error);
  if (nan || std::isnan(v.error)) {
    v.verdict = Verdict::kFailed;
    v.note = "NaN in the result";
  } else if (v.error < v.threshold) {
    v.verdict = Verdict::kPassed;
  } else {
    v.verdict = Verdict::kFailed;
    v.note = "normalized error above 8 eps";
  }
  return v;
}

template Verification verify_columns<double>(GemmProblem const&, double, double, double const*, double const*,
                                             std::vector<std::int64_t> const&, double const*, double const*);
template Verification verify_columns<float>(GemmProblem const&, double, double, float const*, float const*,
                                            std::vector<std::int64_t> const&, float const*, float const*);

}  // namespace gemmkit::bench
