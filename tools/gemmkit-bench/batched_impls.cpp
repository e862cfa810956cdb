/*! \file
    \brief gemmkit and the library peers of `batched --cpu`, all through the public C API: a peer
           (OpenBLAS, BLIS, LIBXSMM, Eigen, the plain loop) is its registered variant
           (src/variants/peer_variants.hpp), forced by id on a context of its own.
*/
#include "batched_impls.hpp"

#include <gemmkit/gemmkit.h>
#include <gemmkit/introspect.h>

#include <cblas.h>

#include <climits>

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
  /// gemmkit itself (the selection table's pick, or --variants), or with ids: the contender `name`
  /// whose registered variant (id_f64 or id_f32 by the operands' dtype) is forced.
  GemmkitBatched() = default;
  GemmkitBatched(std::string name, std::string id_f64, std::string id_f32)
      : name_(std::move(name)), id_f64_(std::move(id_f64)), id_f32_(std::move(id_f32)) {}
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
  std::string name() const override { return name_; }
  std::string prepare(BatchedOperands const& ops) override {
    BatchedImpl::prepare(ops);
    // LIBXSMM's dispatch has kernels for alpha = 1 and beta 0 or 1 only; Eigen's products alpha = 1.
    if ((name_ == "libxsmm" || name_ == "eigen") && ops.alpha != 1.0) return name_ + " takes alpha = 1 only";
    if (name_ == "libxsmm" && ops.beta != 0.0 && ops.beta != 1.0) return "LIBXSMM kernels take beta = 0 or 1 only";
    if (name_.rfind("cublas", 0) == 0 && ops.batch > INT_MAX) return "batch above INT_MAX (cuBLAS takes int counts)";
    std::string const& forced = ops.dtype == Dtype::kF64 ? id_f64_ : id_f32_;
    std::string const& id = id_f64_.empty() ? ops.variant : forced;
    if (gk_status const s = gk_set_variant(ctx_, id.c_str()); s != GK_SUCCESS) return describe("gk_set_variant", s);
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

  std::string name_ = "gemmkit";
  std::string id_f64_, id_f32_;
  gk_context ctx_ = nullptr;
};

/// The peer `name` if this build registered it, else nullptr and why not.
std::unique_ptr<BatchedImpl> make_peer(char const* name, char const* missing, std::string* why) {
  gk_variant_info info{};
  if (gk_variant_find(batched_peer_id(name, Dtype::kF64).c_str(), &info) != GK_SUCCESS) {
    *why = missing;
    return nullptr;
  }
  auto impl = std::make_unique<GemmkitBatched>(name, batched_peer_id(name, Dtype::kF64),
                                               batched_peer_id(name, Dtype::kF32));
  if (std::string e = impl->init(0, GK_BACKEND_CPU, nullptr, 0); !e.empty()) {
    *why = e;
    return nullptr;
  }
  return impl;
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

std::unique_ptr<BatchedImpl> make_gemmkit_batched_gpu(int verbosity, void* stream, int device, std::string* why,
                                                      ForcedIds const& forced) {
  auto impl = forced.name.empty() ? std::make_unique<GemmkitBatched>()
                                  : std::make_unique<GemmkitBatched>(forced.name, forced.f64, forced.f32);
  if (std::string e = impl->init(verbosity, GK_BACKEND_GPU, stream, device); !e.empty()) {
    *why = e;
    return nullptr;
  }
  return impl;
}

std::string batched_peer_id(std::string const& name, Dtype dtype) {
  return "peer_" + name + (dtype == Dtype::kF64 ? "_dgemm" : "_sgemm") + "_batched";
}

std::vector<PeerFactory> const& batched_peer_factories() {
  auto peer = [](char const* name, char const* what, char const* missing) {
    return PeerFactory{name, what, [name, missing](std::string* why) { return make_peer(name, missing, why); }};
  };
  static std::vector<PeerFactory> const factories = {
      peer("libxsmm", "LIBXSMM 1.17 JIT kernel per size, called per problem",
           "built without LIBXSMM (apt-get install libxsmm-dev, then reconfigure)"),
      peer("openblas", "OpenBLAS cblas_?gemm per problem", "not registered in this build"),
      peer("blis", "BLIS bli_?gemm per problem (dlopen, single-threaded BLIS)",
           "libblis.so.4 not found, or not a 64-bit-integer BLIS (apt-get install libblis-dev)"),
      peer("eigen", "Eigen 3.4 fixed-size Map<Matrix<T,M,K>> products (dynamic size outside its list)",
           "built without Eigen 3.4 (apt-get install libeigen3-dev, then reconfigure)"),
      peer("loop", "plain triple loop per problem, the code a user writes", "not registered in this build"),
  };
  return factories;
}

PeerThreading::PeerThreading() : openblas_threads_(openblas_get_num_threads()) { openblas_set_num_threads(1); }

PeerThreading::~PeerThreading() { openblas_set_num_threads(openblas_threads_); }

std::string peer_library_notes() {
  gk_cpu_info cpu{};
  std::string notes = gk_cpu_info_get(&cpu) == GK_SUCCESS ? cpu.blas : "";
  for (PeerFactory const& f : batched_peer_factories()) {
    gk_variant_info info{};
    if (std::string(f.name) == "openblas") continue;  // the BLAS above
    if (gk_variant_find(batched_peer_id(f.name, Dtype::kF64).c_str(), &info) == GK_SUCCESS) {
      notes += std::string("; ") + info.summary;
    }
  }
  return notes;
}

}  // namespace gemmkit::bench
