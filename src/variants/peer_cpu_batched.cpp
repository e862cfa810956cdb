/*! \file
    \brief The library peers of batched GEMM on the CPU, registered: OpenBLAS and BLIS per problem,
    LIBXSMM JIT kernels (when found at build time), each over the batch in an OpenMP loop.
*/
#include "variants/peer_variants.hpp"

#include <cblas.h>
#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <mutex>

#if GEMMKIT_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

namespace gemmkit {
namespace peers {
namespace {

/// OpenBLAS and BLIS take the leading dimensions as int (LP64 builds).
bool fits_int(GemmProblem const& p) {
  constexpr std::int64_t kMax = INT_MAX;
  return p.m <= kMax && p.n <= kMax && p.k <= kMax && p.lda <= kMax && p.ldb <= kMax && p.ldc <= kMax;
}

// --- OpenBLAS: cblas_?gemm per problem (the caller keeps OpenBLAS single-threaded) ---------------

template <typename T>
struct OpenBlasRun {
  gk_status operator()(GemmArguments const& args) const {
    GemmProblem const& p = args.problem;
    int const m = int(p.m), n = int(p.n), k = int(p.k), lda = int(p.lda), ldb = int(p.ldb), ldc = int(p.ldc);
    for_each_problem<T>(args, [&](T const* a, T const* b, T* c) {
      if constexpr (sizeof(T) == 8) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, args.alpha, a, lda, b, ldb, args.beta, c, ldc);
      } else {
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, float(args.alpha), a, lda, b, ldb,
                    float(args.beta), c, ldc);
      }
    });
    return GK_SUCCESS;
  }
};

// --- BLIS: bli_?gemm per problem, loaded with dlopen ---------------------------------------------
// BLIS exports the same BLAS and CBLAS symbols as OpenBLAS, so it is never linked: the typed API
// is looked up in a privately loaded copy. Types from blis.h (0.9, x86-64): trans_t is an enum
// (BLIS_NO_TRANSPOSE = 0), dim_t and inc_t are int64_t; the library is asked for its integer size.

using BlisTrans = int;
using BlisDim = std::int64_t;
constexpr BlisTrans kBlisNoTranspose = 0;
template <typename T>
using BlisGemm = void (*)(BlisTrans, BlisTrans, BlisDim, BlisDim, BlisDim, T*, T*, BlisDim, BlisDim, T*, BlisDim,
                          BlisDim, T*, T*, BlisDim, BlisDim);

struct BlisLibrary {
  BlisGemm<double> dgemm = nullptr;
  BlisGemm<float> sgemm = nullptr;
  std::string path;

  static BlisLibrary const& instance() {
    static BlisLibrary const lib = load();
    return lib;
  }

 private:
  static BlisLibrary load() {
    BlisLibrary lib;
    void* handle = nullptr;
    for (char const* soname : {"libblis.so.4", "libblis.so"}) {
      handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
      if (handle != nullptr) break;
    }
    if (handle == nullptr) return lib;
    auto int_size = reinterpret_cast<std::int64_t (*)()>(dlsym(handle, "bli_info_get_int_type_size"));
    auto set_threads = reinterpret_cast<void (*)(BlisDim)>(dlsym(handle, "bli_thread_set_num_threads"));
    lib.dgemm = reinterpret_cast<BlisGemm<double>>(dlsym(handle, "bli_dgemm"));
    lib.sgemm = reinterpret_cast<BlisGemm<float>>(dlsym(handle, "bli_sgemm"));
    if (lib.dgemm == nullptr || lib.sgemm == nullptr || set_threads == nullptr || int_size == nullptr ||
        int_size() != 64) {
      lib.dgemm = nullptr;
      return lib;
    }
    set_threads(1);  // one problem per call inside our own parallel loop
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(lib.dgemm), &info) != 0 && info.dli_fname != nullptr) {
      char resolved[PATH_MAX];
      lib.path = realpath(info.dli_fname, resolved) != nullptr ? resolved : info.dli_fname;
    }
    return lib;
  }
};

template <typename T>
struct BlisRun {
  gk_status operator()(GemmArguments const& args) const {
    BlisLibrary const& lib = BlisLibrary::instance();
    BlisGemm<T> gemm = nullptr;
    if constexpr (sizeof(T) == 8) gemm = lib.dgemm;
    else gemm = lib.sgemm;
    GemmProblem const& p = args.problem;
    T const alpha = T(args.alpha), beta = T(args.beta);
    for_each_problem<T>(args, [&](T const* a, T const* b, T* c) {
      T a_scalar = alpha, b_scalar = beta;  // BLIS takes non-const pointers; keep each thread's own
      gemm(kBlisNoTranspose, kBlisNoTranspose, p.m, p.n, p.k, &a_scalar, const_cast<T*>(a), 1, p.lda,
           const_cast<T*>(b), 1, p.ldb, &b_scalar, c, 1, p.ldc);
    });
    return GK_SUCCESS;
  }
};

// --- LIBXSMM: one JIT kernel per size (its dispatch caches them), called per problem --------------

#if GEMMKIT_HAVE_LIBXSMM
template <typename T>
struct LibxsmmRun {
  gk_status operator()(GemmArguments const& args) const {
    if (args.alpha != 1.0) return GK_NOT_SUPPORTED;  // its kernels take alpha = 1 only
    GemmProblem const& p = args.problem;
    libxsmm_blasint const m = libxsmm_blasint(p.m), n = libxsmm_blasint(p.n), k = libxsmm_blasint(p.k);
    libxsmm_blasint const lda = libxsmm_blasint(p.lda), ldb = libxsmm_blasint(p.ldb), ldc = libxsmm_blasint(p.ldc);
    int const flags = LIBXSMM_GEMM_FLAG_NONE;
    int const prefetch = LIBXSMM_PREFETCH_NONE;
    T const alpha = T(args.alpha), beta = T(args.beta);
    if constexpr (sizeof(T) == 8) {
      libxsmm_dmmfunction const kernel = libxsmm_dmmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
      if (kernel == nullptr) return GK_NOT_SUPPORTED;
      for_each_problem<T>(args, [kernel](T const* a, T const* b, T* c) { kernel(a, b, c); });
    } else {
      libxsmm_smmfunction const kernel = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
      if (kernel == nullptr) return GK_NOT_SUPPORTED;
      for_each_problem<T>(args, [kernel](T const* a, T const* b, T* c) { kernel(a, b, c); });
    }
    return GK_SUCCESS;
  }
};
#endif

}  // namespace
}  // namespace peers

void register_peer_variants(Registry& registry) {
  using namespace peers;
  auto const blas_sized = [](GemmProblem const& p) { return plain_strided(p) && fits_int(p); };
#if GEMMKIT_HAVE_LIBXSMM
  libxsmm_init();
  add_peer<LibxsmmRun>(registry, "libxsmm",
                       std::string("LIBXSMM ") + LIBXSMM_VERSION + " JIT kernel per size (target " +
                           libxsmm_get_target_arch() + "), called per problem; alpha = 1 only",
                       plain_strided);
#endif
  add_peer<OpenBlasRun>(registry, "openblas", "OpenBLAS cblas_?gemm per problem", blas_sized);
  if (BlisLibrary const& blis = BlisLibrary::instance(); blis.dgemm != nullptr) {
    add_peer<BlisRun>(registry, "blis", "BLIS bli_?gemm per problem (" + blis.path + ", single-threaded BLIS)",
                      blas_sized);
  }
  register_native_peers(registry);
}

}  // namespace gemmkit
