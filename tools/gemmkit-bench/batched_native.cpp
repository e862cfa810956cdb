/*! \file
    \brief Code built with this machine's native flags (CMakeLists.txt): the Eigen fixed-size and
           plain-loop peers, which the compiler alone vectorizes, and the kernel of the bound (a
           STREAM-like pass is compiled -O3 -march=native, as STREAM is).

    Eigen: for each (M, N, K) of a compile-time list (the default sizes of `batched`), the problem is
    mapped as Map<Matrix<T, M, K>> etc. and computed as C.noalias() += A * B (beta = 1) or
    C.noalias() = A * B (beta = 0), alpha = 1. Other sizes use dynamic-size maps and say so in the
    variant. The loop is the textbook dot-product form a user writes.
*/
#include "batched_impls.hpp"

#if GEMMKIT_BENCH_HAVE_EIGEN
#define EIGEN_DONT_PARALLELIZE  // problems are spread over threads by the caller
#include <Eigen/Core>
#endif

#include <algorithm>
#include <array>
#include <utility>

#ifndef GEMMKIT_BENCH_NATIVE_FLAGS
#define GEMMKIT_BENCH_NATIVE_FLAGS "the project's default flags"
#endif

namespace gemmkit::bench {

char const* native_peer_flags() { return GEMMKIT_BENCH_NATIVE_FLAGS; }

namespace {

#if GEMMKIT_BENCH_HAVE_EIGEN

/// How C is updated: beta = 1 and beta = 0 have their own code in every peer, anything else scales.
enum class BetaKind { kOne, kZero, kOther };
BetaKind beta_kind(double beta) {
  return beta == 1.0 ? BetaKind::kOne : (beta == 0.0 ? BetaKind::kZero : BetaKind::kOther);
}

struct FixedShape {
  int m, n, k;
};
/// The sizes Eigen gets compile-time dimensions for: `batched`'s default squares and shapes.
constexpr FixedShape kFixedShapes[] = {
    {2, 2, 2},    {3, 3, 3},    {4, 4, 4},   {5, 5, 5},    {6, 6, 6},    {7, 7, 7},     {8, 8, 8},
    {10, 10, 10}, {12, 12, 12}, {16, 16, 16}, {20, 20, 20}, {24, 24, 24}, {28, 28, 28}, {32, 32, 32},
    {4, 8, 4},    {8, 4, 16},   {16, 8, 32}, {32, 16, 8},
};
constexpr std::size_t kFixedCount = std::size(kFixedShapes);

/// C = A * B + beta * C for Eigen expressions of any size kind.
template <typename MapA, typename MapB, typename MapC>
void eigen_update(MapA const& A, MapB const& B, MapC& C, BetaKind kind, double beta) {
  using T = typename MapC::Scalar;
  switch (kind) {
    case BetaKind::kOne: C.noalias() += A * B; break;
    case BetaKind::kZero: C.noalias() = A * B; break;
    case BetaKind::kOther:
      C *= T(beta);
      C.noalias() += A * B;
      break;
  }
}

template <typename T, int M, int N, int K>
void eigen_fixed(BatchedOperands const& ops, std::int64_t first, std::int64_t count) {
  using MatA = Eigen::Matrix<T, M, K>;
  using MatB = Eigen::Matrix<T, K, N>;
  using MatC = Eigen::Matrix<T, M, N>;
  BetaKind const kind = beta_kind(ops.beta);
  double const beta = ops.beta;
  for_each_problem<T>(ops, first, count, [kind, beta](T const* a, T const* b, T* c) {
    Eigen::Map<MatA const> A(a);
    Eigen::Map<MatB const> B(b);
    Eigen::Map<MatC> C(c);
    eigen_update(A, B, C, kind, beta);
  });
}

template <typename T>
void eigen_dynamic(BatchedOperands const& ops, std::int64_t first, std::int64_t count) {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  BetaKind const kind = beta_kind(ops.beta);
  double const beta = ops.beta;
  Eigen::Index const m = ops.m, n = ops.n, k = ops.k;
  for_each_problem<T>(ops, first, count, [=](T const* a, T const* b, T* c) {
    Eigen::Map<Mat const> A(a, m, k);
    Eigen::Map<Mat const> B(b, k, n);
    Eigen::Map<Mat> C(c, m, n);
    eigen_update(A, B, C, kind, beta);
  });
}

using EigenRun = void (*)(BatchedOperands const&, std::int64_t, std::int64_t);

template <typename T, std::size_t... I>
constexpr std::array<EigenRun, kFixedCount> fixed_table(std::index_sequence<I...>) {
  return {&eigen_fixed<T, kFixedShapes[I].m, kFixedShapes[I].n, kFixedShapes[I].k>...};
}

class EigenBatched final : public BatchedImpl {
 public:
  std::string name() const override { return "eigen"; }
  std::string prepare(BatchedOperands const& ops) override {
    BatchedImpl::prepare(ops);
    run_ = ops.dtype == Dtype::kF64 ? &eigen_dynamic<double> : &eigen_dynamic<float>;
    variant_ = "dynamic size";
    static constexpr auto kDouble = fixed_table<double>(std::make_index_sequence<kFixedCount>{});
    static constexpr auto kFloat = fixed_table<float>(std::make_index_sequence<kFixedCount>{});
    for (std::size_t i = 0; i < kFixedCount; ++i) {
      FixedShape const& s = kFixedShapes[i];
      if (s.m == ops.m && s.n == ops.n && s.k == ops.k) {
        run_ = ops.dtype == Dtype::kF64 ? kDouble[i] : kFloat[i];
        variant_ = "fixed " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
      }
    }
    return {};
  }
  std::string run(std::int64_t first, std::int64_t count) override {
    run_(ops_, first, count);
    return {};
  }
  std::string variant() const override { return variant_; }

 private:
  EigenRun run_ = nullptr;
  std::string variant_;
};

#endif  // GEMMKIT_BENCH_HAVE_EIGEN

/// The textbook loop: c(i,j) = alpha * sum_l a(i,l) b(l,j) + beta * c(i,j), beta = 0 not reading C.
template <typename T>
void plain_loop(BatchedOperands const& ops, std::int64_t first, std::int64_t count) {
  std::int64_t const m = ops.m, n = ops.n, k = ops.k;
  T const alpha = T(ops.alpha), beta = T(ops.beta);
  for_each_problem<T>(ops, first, count, [=](T const* a, T const* b, T* c) {
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        T sum = 0;
        for (std::int64_t l = 0; l < k; ++l) sum += a[i + l * m] * b[l + j * k];
        c[i + j * m] = beta == T(0) ? alpha * sum : alpha * sum + beta * c[i + j * m];
      }
    }
  });
}

class LoopBatched final : public BatchedImpl {
 public:
  std::string name() const override { return "loop"; }
  std::string run(std::int64_t first, std::int64_t count) override {
    if (ops_.dtype == Dtype::kF64) plain_loop<double>(ops_, first, count);
    else plain_loop<float>(ops_, first, count);
    return {};
  }
  std::string variant() const override { return "ijl dot products"; }
};

}  // namespace

template <typename T>
double stream_range(T const* a, std::int64_t la, T const* b, std::int64_t lb, T* c, std::int64_t lc, bool read_c) {
  std::int64_t const common = std::min({la, lb, lc});
  if (read_c) {
#pragma omp simd
    for (std::int64_t i = 0; i < common; ++i) c[i] = c[i] + a[i] * b[i];
  } else {
#pragma omp simd
    for (std::int64_t i = 0; i < common; ++i) c[i] = a[i] * b[i];
  }
  T sum = 0;
#pragma omp simd reduction(+ : sum)
  for (std::int64_t i = common; i < la; ++i) sum += a[i];
#pragma omp simd reduction(+ : sum)
  for (std::int64_t i = common; i < lb; ++i) sum += b[i];
  T const add = a[0];
  if (read_c) {
#pragma omp simd
    for (std::int64_t i = common; i < lc; ++i) c[i] = c[i] + add;
  } else {
#pragma omp simd
    for (std::int64_t i = common; i < lc; ++i) c[i] = add;
  }
  return double(sum);
}

template double stream_range<double>(double const*, std::int64_t, double const*, std::int64_t, double*, std::int64_t,
                                     bool);
template double stream_range<float>(float const*, std::int64_t, float const*, std::int64_t, float*, std::int64_t, bool);

std::unique_ptr<BatchedImpl> make_eigen_batched([[maybe_unused]] std::string* why) {
#if GEMMKIT_BENCH_HAVE_EIGEN
  return std::make_unique<EigenBatched>();
#else
  return not_built(why, "Eigen 3.4", "libeigen3-dev");
#endif
}

std::unique_ptr<BatchedImpl> make_loop_batched(std::string*) { return std::make_unique<LoopBatched>(); }

}  // namespace gemmkit::bench
