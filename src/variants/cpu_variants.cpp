/*! \file
    \brief CPU variants: OpenBLAS (through CBLAS) as the large-GEMM path and peer, and the reference.
*/
#include "cpu/cpu_blas.hpp"
#include "cpu/reference_gemm.hpp"
#include "cpu/small/small_batched.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"

#include <vector>

namespace gemmkit {

namespace {

template <typename T>
class OpenBlasGemm final : public GemmVariant {
 public:
  OpenBlasGemm()
      : info_{sizeof(T) == 8 ? "openblas_dgemm" : "openblas_sgemm", sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32,
              Platform::kCpu, VariantKind::kPeer, 0,
              "OpenBLAS cblas_?gemm, one call per batch entry (blocks past its int interface)"} {}

  VariantInfo const& info() const override { return info_; }

  gk_status can_implement(GemmProblem const& p) const override {
    return p.dtype == info_.dtype ? GK_SUCCESS : GK_NOT_SUPPORTED;
  }

  gk_status run(GemmArguments const& args, void*, ExecutionContext const&) const override {
    GemmProblem const& p = args.problem;
    auto const* A = static_cast<T const*>(args.A);
    auto const* B = static_cast<T const*>(args.B);
    auto* C = static_cast<T*>(args.C);
    for (std::int64_t b = 0; b < p.batch; ++b) {
      T const* a = A + b * p.stride_a;
      T const* bm = B + b * p.stride_b;
      T* c = C + b * p.stride_c;
      cpu::blas_gemm<T>(p.trans_a, p.trans_b, p.m, p.n, p.k, T(args.alpha), a, p.lda, bm, p.ldb, T(args.beta), c,
                        p.ldc);
    }
    return GK_SUCCESS;
  }

 private:
  VariantInfo info_;
};

/// The higher-precision reference as a variant, so the CLI can verify and time it like the rest.
template <typename T>
class ReferenceGemm final : public GemmVariant {
 public:
  ReferenceGemm()
      : info_{sizeof(T) == 8 ? "reference_dgemm" : "reference_sgemm", sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32,
              Platform::kCpu, VariantKind::kReference, 0, "host reference, accumulates in higher precision"} {}

  VariantInfo const& info() const override { return info_; }
  gk_status can_implement(GemmProblem const& p) const override {
    return p.dtype == info_.dtype ? GK_SUCCESS : GK_NOT_SUPPORTED;
  }

  gk_status run(GemmArguments const& args, void*, ExecutionContext const&) const override {
    GemmProblem const& p = args.problem;
    std::vector<ReferenceAccumulator<T>> out(static_cast<std::size_t>(p.m * p.n * p.batch));
    auto* C = static_cast<T*>(args.C);
    reference_gemm(p, args.alpha, static_cast<T const*>(args.A), static_cast<T const*>(args.B), args.beta, C,
                   out.data());
    for (std::int64_t b = 0; b < p.batch; ++b) {
      for (std::int64_t j = 0; j < p.n; ++j) {
        for (std::int64_t i = 0; i < p.m; ++i) C[b * p.stride_c + i + j * p.ldc] = T(out[b * p.m * p.n + i + j * p.m]);
      }
    }
    return GK_SUCCESS;
  }

 private:
  VariantInfo info_;
};

}  // namespace

void register_cpu_variants(Registry& registry) {
  registry.add(cpu::make_small_batched_variant(Dtype::kF64));
  registry.add(cpu::make_small_batched_variant(Dtype::kF32));
  registry.add(std::make_unique<OpenBlasGemm<double>>());
  registry.add(std::make_unique<OpenBlasGemm<float>>());
  registry.add(std::make_unique<ReferenceGemm<double>>());
  registry.add(std::make_unique<ReferenceGemm<float>>());
}

}  // namespace gemmkit
