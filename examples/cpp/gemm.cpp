// A C++ program on gemmkit: a random 200x300x100 DGEMM (column-major, B transposed), checked
// against a plain triple loop in long double. Exits 0 when every element matches.
#include <gemmkit/gemmkit.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  constexpr std::int64_t m = 200, n = 300, k = 100;
  std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> A(m * k), B(n * k), C(m * n);
  for (double& x : A) x = uniform(random);
  for (double& x : B) x = uniform(random);
  for (double& x : C) x = uniform(random);
  std::vector<double> const C0 = C;

  try {
    gemmkit::Context ctx;
    // C = 2 * A * B^T - C, with A m x k (lda = m) and B n x k (ldb = n).
    gemmkit::gemm(ctx, gemmkit::Layout::kColMajor, gemmkit::Op::kN, gemmkit::Op::kT, m, n, k, 2.0, A.data(), m,
                  B.data(), n, -1.0, C.data(), m);
    std::printf("variant: %s\n", ctx.last_variant().c_str());
  } catch (gemmkit::Error const& e) {
    std::fprintf(stderr, "gemmkit: %s\n", e.what());
    return 1;
  }
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < m; ++i) {
      long double sum = 0;
      for (std::int64_t p = 0; p < k; ++p) sum += static_cast<long double>(A[i + p * m]) * B[j + p * n];
      double const expected = static_cast<double>(2 * sum - C0[i + j * m]);
      if (!(std::abs(C[i + j * m] - expected) <= 1e-12 * (1 + std::abs(expected)) * k)) {
        std::fprintf(stderr, "C(%lld,%lld) = %.17g, expected %.17g\n", static_cast<long long>(i),
                     static_cast<long long>(j), C[i + j * m], expected);
        return 1;
      }
    }
  }
  return 0;
}
