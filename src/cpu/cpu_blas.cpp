/*! \file
    \brief The CPU BLAS's core and the hint when it leaves the vector units idle.
*/
#include "cpu/cpu_blas.hpp"

#include "cpu/cpu_features.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <vector>

namespace gemmkit::cpu {

CpuBlasGemms const& cpu_blas_gemms() {
  static CpuBlasGemms const gemms = [] {
    CpuBlasGemms found{&cblas_dgemm, &cblas_sgemm};  // the names' first definitions: the fallback
    // openblas_get_config is no BLAS routine, so no drop-in defines it: its library is OpenBLAS's.
    Dl_info where{}, named{};
    if (dladdr(reinterpret_cast<void*>(&openblas_get_config), &where) == 0 || where.dli_fname == nullptr) return found;
    // The names already lead to OpenBLAS (nothing interposed them): nothing to look up.
    if (dladdr(reinterpret_cast<void*>(&cblas_dgemm), &named) != 0 && named.dli_fbase == where.dli_fbase &&
        dladdr(reinterpret_cast<void*>(&cblas_sgemm), &named) != 0 && named.dli_fbase == where.dli_fbase) {
      return found;
    }
    void* const library = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (library == nullptr) return found;  // linked statically into the executable: the names are its own
    void* const dgemm = dlsym(library, "cblas_dgemm");
    void* const sgemm = dlsym(library, "cblas_sgemm");
    if (dgemm != nullptr && sgemm != nullptr) {
      found.dgemm = reinterpret_cast<decltype(&cblas_dgemm)>(dgemm);
      found.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(sgemm);
    }
    return found;  // the handle stays open: the library is loaded for the process's lifetime anyway
  }();
  return gemms;
}

namespace {

constexpr std::int64_t kIntMax = 2147483647;
/// The edge of the blocks a GEMM past the int interface runs in (packed blocks of at most 32 MiB).
constexpr std::int64_t kBlock = 2048;

CBLAS_TRANSPOSE to_cblas(gk_op op) {
  return op == GK_OP_N ? CblasNoTrans : (op == GK_OP_T ? CblasTrans : CblasConjTrans);
}

template <typename T>
void int_gemm(gk_op transa, gk_op transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, T const* A,
              std::int64_t lda, T const* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc) {
  if constexpr (sizeof(T) == 8) {
    cpu_blas_gemms().dgemm(CblasColMajor, to_cblas(transa), to_cblas(transb), int(m), int(n), int(k), alpha, A,
                           int(lda), B, int(ldb), beta, C, int(ldc));
  } else {
    cpu_blas_gemms().sgemm(CblasColMajor, to_cblas(transa), to_cblas(transb), int(m), int(n), int(k), alpha, A,
                           int(lda), B, int(ldb), beta, C, int(ldc));
  }
}

/// rows x cols of a column-major matrix, between a leading dimension `ld` and a packed block (ld = rows).
template <typename T>
void pack(T const* from, std::int64_t ld, std::int64_t rows, std::int64_t cols, T* to) {
  for (std::int64_t j = 0; j < cols; ++j) std::copy_n(from + j * ld, rows, to + j * rows);
}
template <typename T>
void unpack(T const* from, std::int64_t rows, std::int64_t cols, T* to, std::int64_t ld) {
  for (std::int64_t j = 0; j < cols; ++j) std::copy_n(from + j * rows, rows, to + j * ld);
}

/// A block of a stored operand as the int interface takes it: in place when its leading dimension fits,
/// else packed into `buffer`.
template <typename T>
std::pair<T const*, std::int64_t> block_of(T const* at, std::int64_t ld, std::int64_t rows, std::int64_t cols,
                                           std::vector<T>& buffer) {
  if (ld <= kIntMax) return {at, ld};
  buffer.resize(std::size_t(rows * cols));
  pack(at, ld, rows, cols, buffer.data());
  return {buffer.data(), std::max<std::int64_t>(1, rows)};
}

}  // namespace

template <typename T>
void blas_gemm(gk_op transa, gk_op transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, T const* A,
               std::int64_t lda, T const* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc) {
  if (std::max({m, n, k, lda, ldb, ldc}) <= kIntMax) {
    int_gemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  bool const ta = is_transposed(transa), tb = is_transposed(transb);
  std::vector<T> a_block, b_block, c_block;
  for (std::int64_t j0 = 0; j0 < n; j0 += kBlock) {
    std::int64_t const nb = std::min(kBlock, n - j0);
    for (std::int64_t i0 = 0; i0 < m; i0 += kBlock) {
      std::int64_t const mb = std::min(kBlock, m - i0);
      T* const c_at = C + i0 + j0 * ldc;
      T* c = c_at;
      std::int64_t c_ld = ldc;
      if (ldc > kIntMax) {  // beta = 0 never reads C, and the BLAS then ignores the block's contents
        c_block.resize(std::size_t(mb * nb));
        if (beta != T(0)) pack<T>(c_at, ldc, mb, nb, c_block.data());
        c = c_block.data();
        c_ld = mb;
      }
      if (k == 0) {  // C = beta C: A and B are not read, any valid leading dimension goes
        int_gemm(transa, transb, mb, nb, std::int64_t(0), alpha, A, ta ? 1 : mb, B, tb ? nb : 1, beta, c, c_ld);
      }
      for (std::int64_t h0 = 0; h0 < k; h0 += kBlock) {
        std::int64_t const kb = std::min(kBlock, k - h0);
        // op(A)'s rows i0.. and columns h0.., op(B)'s rows h0.. and columns j0.., as stored.
        auto const [a, a_ld] = ta ? block_of(A + h0 + i0 * lda, lda, kb, mb, a_block)
                                  : block_of(A + i0 + h0 * lda, lda, mb, kb, a_block);
        auto const [b, b_ld] = tb ? block_of(B + j0 + h0 * ldb, ldb, nb, kb, b_block)
                                  : block_of(B + h0 + j0 * ldb, ldb, kb, nb, b_block);
        int_gemm(transa, transb, mb, nb, kb, alpha, a, a_ld, b, b_ld, h0 == 0 ? beta : T(1), c, c_ld);
      }
      if (c != c_at) unpack<T>(c, mb, nb, c_at, ldc);
    }
  }
}

template void blas_gemm<double>(gk_op, gk_op, std::int64_t, std::int64_t, std::int64_t, double, double const*,
                                std::int64_t, double const*, std::int64_t, double, double*, std::int64_t);
template void blas_gemm<float>(gk_op, gk_op, std::int64_t, std::int64_t, std::int64_t, float, float const*,
                               std::int64_t, float const*, std::int64_t, float, float*, std::int64_t);

std::string cpu_blas_description() {
  return std::string("OpenBLAS ") + openblas_get_corename() + " (" + openblas_get_config() + ")";
}

VectorIsa this_cpu_vector_isa() {
  __builtin_cpu_init();
  return {cpu_has_avx2_fma(), cpu_has_avx512(), cpu_has_avx512() && __builtin_cpu_supports("avx512bf16")};
}

std::string cpu_blas_core_hint(std::string_view core, VectorIsa isa) {
  // OpenBLAS's x86-64 cores without AVX kernels (its DYNAMIC_ARCH fallbacks among them).
  constexpr std::array<std::string_view, 11> kSseCores = {"Prescott", "Core2",  "Penryn",   "Dunnington",
                                                          "Nehalem",  "Atom",   "Opteron",  "Opteron_SSE3",
                                                          "Barcelona", "Nano",  "Bobcat"};
  bool const sse_only = std::find(kSseCores.begin(), kSseCores.end(), core) != kSseCores.end();
  if (!sse_only || !isa.avx2_fma) return {};
  char const* wanted = isa.avx512_bf16 ? "Cooperlake" : isa.avx512 ? "SkylakeX" : "Haswell";
  return "OpenBLAS runs its " + std::string(core) + " (SSE) kernels on this " +
         (isa.avx512 ? "AVX-512" : "AVX2") + " CPU, whose model it does not know: OPENBLAS_CORETYPE=" + wanted +
         " in the environment selects its vector kernels";
}

std::string cpu_blas_core_hint() { return cpu_blas_core_hint(openblas_get_corename(), this_cpu_vector_isa()); }

}  // namespace gemmkit::cpu
