/*! \file
    \brief The host-resident variants as registered variants: host operands computed on the GPU,
    directly and through the API, the selection table's rows for them, the backend policy's filter,
    and a forced CUDA kernel on host operands running inside them.
*/
#include "model/machine.hpp"
#include "registry/registry.hpp"
#include "support/api_calls.hpp"
#include "support/gemm_check.hpp"
#include "variants/variants.hpp"

#include <gtest/gtest.h>

namespace gemmkit::test {
namespace {

char const* host_resident_id(Dtype dtype) {
  return dtype == Dtype::kF64 ? "dgemm_host_resident" : "sgemm_host_resident";
}

TEST(HostResidentVariant, MatchesTheReferenceOnHostOperands) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (Dtype dtype : {Dtype::kF64, Dtype::kF32}) {
    GemmVariant const* v = variant_registry().find(host_resident_id(dtype));
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(v->info().stages_host_operands);
    EXPECT_EQ(v->info().backend, Platform::kCpu);
    for (auto const& [ta, tb, pad] : {std::tuple{GK_OP_N, GK_OP_N, 0}, std::tuple{GK_OP_T, GK_OP_N, 3},
                                      std::tuple{GK_OP_N, GK_OP_T, 1}, std::tuple{GK_OP_T, GK_OP_C, 5}}) {
      GemmProblem const p = make_problem(dtype, ta, tb, 333, 129, 517, pad);
      SCOPED_TRACE(describe(p));
      EXPECT_TRUE(check_variant(*v, p, 1.5, 0.0, /*on_device=*/false));  // beta = 0 on NaN-free output
      EXPECT_TRUE(check_variant(*v, p, -1.0, 0.5, /*on_device=*/false));
    }
  }
}

TEST(HostResidentVariant, DeclinesBatchesAndTheOtherDtype) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  GemmVariant const* v = variant_registry().find("dgemm_host_resident");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->can_implement(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 64, 64, 64)), GK_SUCCESS);
  EXPECT_EQ(v->can_implement(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 64, 64, 64, 0, 2)), GK_NOT_SUPPORTED);
  EXPECT_EQ(v->can_implement(make_problem(Dtype::kF32, GK_OP_N, GK_OP_N, 64, 64, 64)), GK_NOT_SUPPORTED);
}

/// The table's host rows: large single problems take the pipeline, small ones the CPU; the policy
/// filter turns the pipeline off (CPU) or makes it the only choice (GPU).
TEST(HostResidentVariant, SelectionFollowsTheWorkBoundAndThePolicy) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  Registry const& r = variant_registry();
  for (Dtype dtype : {Dtype::kF64, Dtype::kF32}) {
    GemmProblem const large = make_problem(dtype, GK_OP_N, GK_OP_N, 2048, 2048, 2048);
    GemmProblem const small = make_problem(dtype, GK_OP_N, GK_OP_N, 64, 64, 64);
    HostCrossover const crossover{model::h200_sxm().host_gemm_min_work, model::h200_sxm().host_gemm_min_k};
    EXPECT_EQ(r.select(large, Platform::kCpu, 0, 0, 0, HostCompute::kAny, crossover)->info().id, host_resident_id(dtype));
    EXPECT_FALSE(r.select(small, Platform::kCpu, 0, 0, 0, HostCompute::kAny, crossover)->info().stages_host_operands);
    EXPECT_FALSE(r.select(large, Platform::kCpu, 0, 0, 0, HostCompute::kCpuOnly)->info().stages_host_operands);
    EXPECT_EQ(r.select(small, Platform::kCpu, 0, 0, 0, HostCompute::kGpuOnly)->info().id, host_resident_id(dtype));
  }
}

/// A CUDA kernel forced on host operands runs on the pipeline's blocks; the call reports the
/// host-resident variant.
TEST(HostResidentVariant, ForcedDeviceKernelRunsInsideThePipeline) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  GemmVariant const* kernel = nullptr;
  for (GemmVariant const* v : variant_registry().variants()) {
    GemmProblem const block = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 256, 256, 256);
    if (v->info().backend == Platform::kCuda && v->info().dtype == Dtype::kF64 &&
        v->info().kind == VariantKind::kProduction && !v->info().pointer_array && v->can_implement(block) == GK_SUCCESS) {
      kernel = v;
      break;
    }
  }
  ASSERT_NE(kernel, nullptr);
  ScopedContext ctx;
  ASSERT_EQ(gk_set_variant(ctx, kernel->info().id.c_str()), GK_SUCCESS);
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 300, 200, 100, 2);
  Operands<double> ops = make_operands<double>(p, -1.0);
  Matrix<double> const C0 = ops.C;
  auto const reference = reference_result(p, 2.0, ops.A, ops.B, -1.0, C0);
  ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, 2.0, ops.A.data(), p.lda, ops.B.data(),
                     p.ldb, -1.0, ops.C.data(), p.ldc),
            GK_SUCCESS)
      << gk_last_error(ctx);
  EXPECT_STREQ(gk_last_variant(ctx), "dgemm_host_resident");
  EXPECT_TRUE(check_result(p, 2.0, -1.0, ops.A, ops.B, C0, ops.C, reference));
  // Under the CPU policy the same forced kernel cannot take host operands.
  ASSERT_EQ(gk_set_backend(ctx, GK_BACKEND_CPU), GK_SUCCESS);
  Matrix<double> const before = ops.C;
  EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, 2.0, ops.A.data(), p.lda, ops.B.data(),
                     p.ldb, -1.0, ops.C.data(), p.ldc),
            GK_NOT_SUPPORTED);
  EXPECT_TRUE(ops.C.bitwise_equal(before));
}

}  // namespace
}  // namespace gemmkit::test
