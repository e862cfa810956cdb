/*! \file
    \brief gemmkit and the library peers of `batched --cpu`: OpenBLAS and BLIS per problem, LIBXSMM
           JIT kernels. Eigen and the plain loop are in batched_native.cpp.
*/
#include "batched_impls.hpp"

#include "cpu/cpu_blas.hpp"

#include <gemmkit/gemmkit.h>

#include <cblas.h>
#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <mutex>

#if GEMMKIT_BENCH_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

namespace gemmkit::bench {

GemmProblem BatchedOperands::problem() const {
  GemmProblem p;
  p.dtype = dtype;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = m;
  p.ldb = k;
  p.ldc = m;
  return p;
}

namespace {

// --- gemmkit -----------------------------------------------------------------------------------

class GemmkitBatched final : public BatchedImpl {
 public:
  ~GemmkitBatched() override {
    if (ctx_ != nullptr) gk_destroy(ctx_);
  }
  std::string init(int verbosity, gk_backend backend, void* stream, int device) {
    if (gk_create(&ctx_) != GK_SUCCESS) return "gk_create failed";
    gk_set_verbosity(ctx_, verbosity);
    gk_set_backend(ctx_, backend);
    if (backend == GK_BACKEND_GPU) {
      if (gk_status const s = gk_set_device(ctx_, device); s != GK_SUCCESS) return describe("gk_set_device", s);
      if (gk_status const s = gk_set_stream(ctx_, stream); s != GK_SUCCESS) return describe("gk_set_stream", s);
    }
    return {};
  }
  std::string name() const override { return "gemmkit"; }
  std::string prepare(BatchedOperands const& ops) override {
    BatchedImpl::prepare(ops);
    if (gk_status const s = gk_set_variant(ctx_, ops.variant.c_str()); s != GK_SUCCESS) return describe("gk_set_variant", s);
    return {};
  }
  std::string run(std::int64_t first, std::int64_t count) override {
    BatchedOperands const& o = ops_;
    gk_status const s = with_dtype(o.dtype, [&]<typename T>() {
      if constexpr (sizeof(T) == 8) {
        return gk_dgemm_strided_batched(ctx_, GK_COL_MAJOR, GK_OP_N, GK_OP_N, o.m, o.n, o.k, o.alpha, o.a<T>(first),
                                        o.m, o.stride_a(), o.b<T>(first), o.k, o.stride_b(), o.beta, o.c<T>(first),
                                        o.m, o.stride_c(), count);
      } else {
        return gk_sgemm_strided_batched(ctx_, GK_COL_MAJOR, GK_OP_N, GK_OP_N, o.m, o.n, o.k, float(o.alpha),
                                        o.a<T>(first), o.m, o.stride_a(), o.b<T>(first), o.k, o.stride_b(),
                                        float(o.beta), o.c<T>(first), o.m, o.stride_c(), count);
      }
    });
    if (s == GK_SUCCESS) return {};
    return describe("", s);
  }
  std::string variant() const override { return gk_last_variant(ctx_); }

 private:
  std::string describe(std::string const& what, gk_status s) const {
    return (what.empty() ? "" : what + ": ") + gk_status_string(s) + (*gk_last_error(ctx_) ? ": " : "") +
           gk_last_error(ctx_);
  }

  gk_context ctx_ = nullptr;
};

// --- OpenBLAS: cblas_?gemm per problem -----------------------------------------------------------

class OpenBlasBatched final : public BatchedImpl {
 public:
  std::string name() const override { return "openblas"; }
  std::string run(std::int64_t first, std::int64_t count) override {
    BatchedOperands const& o = ops_;
    int const m = int(o.m), n = int(o.n), k = int(o.k);
    with_dtype(o.dtype, [&]<typename T>() {
      for_each_problem<T>(o, first, count, [&](T const* a, T const* b, T* c) {
        if constexpr (sizeof(T) == 8) {
          cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, o.alpha, a, m, b, k, o.beta, c, m);
        } else {
          cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, float(o.alpha), a, m, b, k, float(o.beta),
                      c, m);
        }
      });
    });
    return {};
  }
  std::string variant() const override { return "cblas_gemm per problem"; }
};

// --- LIBXSMM: one JIT kernel per size, called per problem ---------------------------------------

#if GEMMKIT_BENCH_HAVE_LIBXSMM
class LibxsmmBatched final : public BatchedImpl {
 public:
  LibxsmmBatched() {
    static std::once_flag once;
    std::call_once(once, [] { libxsmm_init(); });
  }
  std::string name() const override { return "libxsmm"; }
  std::string prepare(BatchedOperands const& o) override {
    BatchedImpl::prepare(o);
    dkernel_ = nullptr;
    skernel_ = nullptr;
    if (o.alpha != 1.0) return "LIBXSMM kernels take alpha = 1 only";
    libxsmm_blasint const m = libxsmm_blasint(o.m), n = libxsmm_blasint(o.n), k = libxsmm_blasint(o.k);
    libxsmm_blasint const lda = m, ldb = k, ldc = m;
    int const flags = LIBXSMM_GEMM_FLAG_NONE;
    int const prefetch = LIBXSMM_PREFETCH_NONE;
    if (o.dtype == Dtype::kF64) {
      double const alpha = o.alpha, beta = o.beta;
      dkernel_ = libxsmm_dmmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
    } else {
      float const alpha = float(o.alpha), beta = float(o.beta);
      skernel_ = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
    }
    if (dkernel_ == nullptr && skernel_ == nullptr) {
      return std::string("libxsmm_") + (o.dtype == Dtype::kF64 ? "d" : "s") + "mmdispatch returned no kernel";
    }
    return {};
  }
  std::string run(std::int64_t first, std::int64_t count) override {
    if (ops_.dtype == Dtype::kF64) {
      libxsmm_dmmfunction const kernel = dkernel_;
      for_each_problem<double>(ops_, first, count, [kernel](double const* a, double const* b, double* c) {
        kernel(a, b, c);
      });
    } else {
      libxsmm_smmfunction const kernel = skernel_;
      for_each_problem<float>(ops_, first, count, [kernel](float const* a, float const* b, float* c) {
        kernel(a, b, c);
      });
    }
    return {};
  }
  std::string variant() const override { return std::string("JIT ") + libxsmm_get_target_arch(); }

 private:
  libxsmm_dmmfunction dkernel_ = nullptr;
  libxsmm_smmfunction skernel_ = nullptr;
};
#endif

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
  std::string error;

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
    if (handle == nullptr) {
      lib.error = "libblis.so.4 not found (apt-get install libblis-dev)";
      return lib;
    }
    auto int_size = reinterpret_cast<std::int64_t (*)()>(dlsym(handle, "bli_info_get_int_type_size"));
    auto set_threads = reinterpret_cast<void (*)(BlisDim)>(dlsym(handle, "bli_thread_set_num_threads"));
    lib.dgemm = reinterpret_cast<BlisGemm<double>>(dlsym(handle, "bli_dgemm"));
    lib.sgemm = reinterpret_cast<BlisGemm<float>>(dlsym(handle, "bli_sgemm"));
    if (lib.dgemm == nullptr || lib.sgemm == nullptr || set_threads == nullptr || int_size == nullptr) {
      lib.error = "libblis lacks bli_dgemm, bli_sgemm, bli_thread_set_num_threads or bli_info_get_int_type_size";
      lib.dgemm = nullptr;
      return lib;
    }
    if (int_size() != 64) {
      lib.error = "libblis uses " + std::to_string(int_size()) + "-bit dim_t; this binding expects 64";
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

class BlisBatched final : public BatchedImpl {
 public:
  std::string name() const override { return "blis"; }
  std::string run(std::int64_t first, std::int64_t count) override {
    BlisLibrary const& lib = BlisLibrary::instance();
    BatchedOperands const& o = ops_;
    with_dtype(o.dtype, [&]<typename T>() {
      BlisGemm<T> const gemm = [&] {
        if constexpr (sizeof(T) == 8) return lib.dgemm;
        else return lib.sgemm;
      }();
      T alpha = T(o.alpha), beta = T(o.beta);
      for_each_problem<T>(o, first, count, [&](T const* a, T const* b, T* c) {
        T a_scalar = alpha, b_scalar = beta;  // BLIS takes non-const pointers; keep each thread's own
        gemm(kBlisNoTranspose, kBlisNoTranspose, o.m, o.n, o.k, &a_scalar, const_cast<T*>(a), 1, o.m,
             const_cast<T*>(b), 1, o.k, &b_scalar, c, 1, o.m);
      });
    });
    return {};
  }
  std::string variant() const override { return "bli_gemm per problem"; }
};

template <typename Impl>
std::unique_ptr<BatchedImpl> make_simple(std::string*) {
  return std::make_unique<Impl>();
}

}  // namespace

std::unique_ptr<BatchedImpl> make_gemmkit_batched(int verbosity, std::string* why) {
  auto impl = std::make_unique<GemmkitBatched>();
  if (std::string e = impl->init(verbosity, GK_BACKEND_CPU, nullptr, 0); !e.empty()) {
    *why = e;
    return nullptr;
  }
  return impl;
}

std::unique_ptr<BatchedImpl> make_gemmkit_batched_gpu(int verbosity, void* stream, int device, std::string* why) {
  auto impl = std::make_unique<GemmkitBatched>();
  if (std::string e = impl->init(verbosity, GK_BACKEND_GPU, stream, device); !e.empty()) {
    *why = e;
    return nullptr;
  }
  return impl;
}

std::vector<PeerFactory> const& batched_peer_factories() {
  static std::vector<PeerFactory> const factories = {
      {"libxsmm", "LIBXSMM 1.17 JIT kernel per size, called per problem",
       []([[maybe_unused]] std::string* why) -> std::unique_ptr<BatchedImpl> {
#if GEMMKIT_BENCH_HAVE_LIBXSMM
         return std::make_unique<LibxsmmBatched>();
#else
         return not_built(why, "LIBXSMM", "libxsmm-dev");
#endif
       }},
      {"openblas", "OpenBLAS cblas_?gemm per problem", make_simple<OpenBlasBatched>},
      {"blis", "BLIS bli_?gemm per problem (dlopen, single-threaded BLIS)",
       [](std::string* why) -> std::unique_ptr<BatchedImpl> {
         if (BlisLibrary const& lib = BlisLibrary::instance(); lib.dgemm == nullptr) {
           *why = lib.error;
           return nullptr;
         }
         return std::make_unique<BlisBatched>();
       }},
      {"eigen", "Eigen 3.4 fixed-size Map<Matrix<T,M,K>> products (dynamic size outside its list)", make_eigen_batched},
      {"loop", "plain triple loop per problem, the code a user writes", make_loop_batched},
  };
  return factories;
}

PeerThreading::PeerThreading() : openblas_threads_(openblas_get_num_threads()) { openblas_set_num_threads(1); }

PeerThreading::~PeerThreading() { openblas_set_num_threads(openblas_threads_); }

std::string peer_library_notes() {
  std::string notes = cpu::cpu_blas_description();
#if GEMMKIT_BENCH_HAVE_LIBXSMM
  notes += std::string("; LIBXSMM ") + LIBXSMM_VERSION + " target " + libxsmm_get_target_arch();
#endif
  if (BlisLibrary const& blis = BlisLibrary::instance(); blis.dgemm != nullptr) notes += "; BLIS " + blis.path;
  notes += std::string("; Eigen and loop built with ") + native_peer_flags();
  return notes;
}

}  // namespace gemmkit::bench
