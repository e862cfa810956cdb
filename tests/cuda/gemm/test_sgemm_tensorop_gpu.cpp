/*! \file
    \brief The FP32 GEMM on the FP64 tensor cores rounds C once: every element equals the float
    nearest alpha * sum(a * b) + beta * c computed in long double, within one unit in the last
    place, where an FP32 FFMA sum over this K is off by several; the packed forms with their
    copies (this K leaves whole 16-byte chunks in no column of A^T). The registered-variant suite
    checks the usual cases (edges, transposes, NaN C, batches).
*/
#include "base/device.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "support/case_groups.hpp"
#include "support/device_memory.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gemmkit::test {
namespace {

std::vector<std::string> sgemm_tensorop_ids() {
  // Not the split-K form: its slices are rounded to float before they are added.
  return variant_ids(Platform::kCuda,
                     [](std::string const& id) { return id.starts_with("sgemm_tensorop_") && !id.ends_with("_splitk"); });
}

class SgemmTensorOp : public ::testing::TestWithParam<std::string> {};

TEST_P(SgemmTensorOp, RoundsCOnce) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  GemmVariant const* v = variant_registry().find(GetParam());
  ASSERT_NE(v, nullptr);
  std::mt19937 rng(20261124);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  // Partial tiles on both sides and a K tail; NN, and TT (which runs as C^T = B A).
  for (gk_op const op : {GK_OP_N, GK_OP_T}) {
    GemmProblem const p = make_problem(Dtype::kF32, op, op, 193, 131, 1031);
    std::vector<float> a(std::size_t(p.lda * p.a_cols())), b(std::size_t(p.ldb * p.b_cols())),
        c(std::size_t(p.ldc * p.n));
    for (float& x : a) x = uniform(rng);
    for (float& x : b) x = uniform(rng);
    for (float& x : c) x = uniform(rng);
    DeviceBuffer<float> da(a), db(b), dc(c);
    ASSERT_EQ(da.error() + db.error() + dc.error(), "");
    float const alpha = 1.5f, beta = -0.5f;
    GemmArguments const args{p, alpha, beta, da.get(), db.get(), dc.get()};
    DeviceBuffer<char> workspace(v->workspace_bytes(p));  // the packed forms' copies
    ASSERT_EQ(workspace.error(), "");
    ASSERT_EQ(v->run(args, workspace.get(), ExecutionContext{}), GK_SUCCESS);
    ASSERT_EQ(cuda_text(cudaDeviceSynchronize(), "kernel"), "");
    std::vector<float> const out = dc.download();
    ASSERT_EQ(dc.error(), "");

    auto a_at = [&](std::int64_t i, std::int64_t l) { return op == GK_OP_N ? a[i + l * p.lda] : a[l + i * p.lda]; };
    auto b_at = [&](std::int64_t l, std::int64_t j) { return op == GK_OP_N ? b[l + j * p.ldb] : b[j + l * p.ldb]; };
    std::int64_t exact = 0, within_ulp = 0;
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        long double sum = 0.0L;
        for (std::int64_t l = 0; l < p.k; ++l) sum += (long double)a_at(i, l) * (long double)b_at(l, j);
        float const nearest = float(alpha * sum + (long double)beta * c[i + j * p.ldc]);
        float const got = out[i + j * p.ldc];
        exact += got == nearest;
        within_ulp += got == nearest || got == std::nextafter(nearest, got);
      }
    }
    std::int64_t const total = p.m * p.n;
    EXPECT_EQ(within_ulp, total) << GetParam() << (op == GK_OP_N ? " NN" : " TT");
    // Sums in double leave the nearest float in doubt only within ~1e-11 of a rounding midpoint.
    EXPECT_GE(exact, total - total / 1000) << GetParam() << (op == GK_OP_N ? " NN" : " TT");
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, SgemmTensorOp, ::testing::ValuesIn(sgemm_tensorop_ids()),
                         [](auto const& info) { return info.param; });

}  // namespace
}  // namespace gemmkit::test
