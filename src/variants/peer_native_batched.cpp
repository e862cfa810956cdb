/*! \file
    \brief The peers built with this machine's native flags (peers.cmake), which the compiler alone
    vectorizes: Eigen fixed-size maps (when Eigen 3.4 is found) and the plain loop a user writes.

    Eigen: for each (M, N, K) of a compile-time list (the default sizes of `gemmkit-bench batched`),
    a problem is mapped as Map<Matrix<T, M, K>> etc. and computed as C.noalias() += A * B (beta = 1)
    or C.noalias() = A * B (beta = 0); other sizes use dynamic-size maps. Both take alpha = 1 only,
    and packed operands (lda = m, ldb = k, ldc = m).
*/
#include "variants/peer_variants.hpp"

#if GEMMKIT_HAVE_EIGEN
#define EIGEN_DONT_PARALLELIZE  // problems are spread over threads by the caller
#include <Eigen/Core>
#endif

#include <algorithm>
#include <array>
#include <utility>

#ifndef GEMMKIT_PEERS_NATIVE_FLAGS
#define GEMMKIT_PEERS_NATIVE_FLAGS "the project's default flags"
#endif

namespace gemmkit::peers {
namespace {

#if GEMMKIT_HAVE_EIGEN
/// How C is updated: beta = 1 and beta = 0 have their own code, anything else scales.
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
void eigen_fixed(GemmArguments const& args) {
  using MatA = Eigen::Matrix<T, M, K>;
  using MatB = Eigen::Matrix<T, K, N>;
  using MatC = Eigen::Matrix<T, M, N>;
  BetaKind const kind = beta_kind(args.beta);
  double const beta = args.beta;
  for_each_problem<T>(args, [kind, beta](T const* a, T const* b, T* c) {
    Eigen::Map<MatA const> A(a);
    Eigen::Map<MatB const> B(b);
    Eigen::Map<MatC> C(c);
    eigen_update(A, B, C, kind, beta);
  });
}

template <typename T>
void eigen_dynamic(GemmArguments const& args) {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  BetaKind const kind = beta_kind(args.beta);
  double const beta = args.beta;
  Eigen::Index const m = args.problem.m, n = args.problem.n, k = args.problem.k;
  for_each_problem<T>(args, [=](T const* a, T const* b, T* c) {
    Eigen::Map<Mat const> A(a, m, k);
    Eigen::Map<Mat const> B(b, k, n);
    Eigen::Map<Mat> C(c, m, n);
    eigen_update(A, B, C, kind, beta);
  });
}

using EigenRunFn = void (*)(GemmArguments const&);

template <typename T, std::size_t... I>
constexpr std::array<EigenRunFn, kFixedCount> fixed_table(std::index_sequence<I...>) {
  return {&eigen_fixed<T, kFixedShapes[I].m, kFixedShapes[I].n, kFixedShapes[I].k>...};
}

template <typename T>
struct EigenRun {
  gk_status operator()(GemmArguments const& args) const {
    if (args.alpha != 1.0) return GK_NOT_SUPPORTED;
    static constexpr auto kTable = fixed_table<T>(std::make_index_sequence<kFixedCount>{});
    GemmProblem const& p = args.problem;
    EigenRunFn run = &eigen_dynamic<T>;
    for (std::size_t i = 0; i < kFixedCount; ++i) {
      FixedShape const& s = kFixedShapes[i];
      if (s.m == p.m && s.n == p.n && s.k == p.k) run = kTable[i];
    }
    run(args);
    return GK_SUCCESS;
  }
};
#endif  // GEMMKIT_HAVE_EIGEN

/// The textbook loop: c(i,j) = alpha * sum_l a(i,l) b(l,j) + beta * c(i,j), beta = 0 not reading C.
template <typename T>
struct LoopRun {
  gk_status operator()(GemmArguments const& args) const {
    GemmProblem const& p = args.problem;
    std::int64_t const m = p.m, n = p.n, k = p.k;
    T const alpha = T(args.alpha), beta = T(args.beta);
    for_each_problem<T>(args, [=](T const* a, T const* b, T* c) {
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          T sum = 0;
          for (std::int64_t l = 0; l < k; ++l) sum += a[i + l * m] * b[l + j * k];
          c[i + j * m] = beta == T(0) ? alpha * sum : alpha * sum + beta * c[i + j * m];
        }
      }
    });
    return GK_SUCCESS;
  }
};

bool packed(GemmProblem const& p) { return plain_strided(p) && p.lda == p.m && p.ldb == p.k && p.ldc == p.m; }

}  // namespace

void register_native_peers(Registry& registry) {
  std::string const flags = std::string(" (built with ") + GEMMKIT_PEERS_NATIVE_FLAGS + ")";
#if GEMMKIT_HAVE_EIGEN
  add_peer<EigenRun>(registry, "eigen",
                     "Eigen 3.4 fixed-size Map<Matrix<T,M,K>> products (dynamic size outside its list); alpha = 1 "
                     "only" + flags,
                     packed);
#endif
  add_peer<LoopRun>(registry, "loop", "plain triple loop per problem, the code a user writes" + flags, packed);
}

}  // namespace gemmkit::peers
