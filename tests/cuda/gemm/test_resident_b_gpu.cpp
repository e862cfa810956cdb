/*! \file
    \brief The B-resident form (resident_b.hpp) on the GPU where its persistent blocks stream several
    row tiles each, so the ring runs across tile boundaries: tall shapes with partial edge tiles and
    K tails, one and three column panels, every transpose, beta = 0 on NaN C and beta != 0; and past
    the depth whose panel fits, where it runs the plain kernel. The registered-variant suite covers
    the small shapes.
*/
#include "base/device.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "support/case_groups.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gemmkit::test {
namespace {

std::vector<std::string> resident_b_ids() {
  return variant_ids(Platform::kCuda, [](std::string const& id) { return id.ends_with("_residentb"); });
}

class ResidentB : public ::testing::TestWithParam<std::string> {};

TEST_P(ResidentB, StreamsManyRowTilesPerBlock) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  GemmVariant const* v = variant_registry().find(GetParam());
  ASSERT_NE(v, nullptr);
  // 626 row tiles of 64 over at most 2 blocks x 132 SMs; 469 x 3 panels with 10 k-tiles each;
  // K = 300: the panel does not fit (the plain kernel).
  for (Shape const s : {Shape{40003, 37, 61}, Shape{30001, 130, 150}, Shape{9000, 64, 300}}) {
    for (VariantCase const& c : shape_group(shape_name(s), s).cases) {
      GemmProblem const p = make_problem(Dtype::kF64, c.ta, c.tb, s.m, s.n, s.k, c.ld_pad, c.batch);
      EXPECT_TRUE(check_variant(*v, p, c.alpha, c.beta, /*on_device=*/true, CheckOptions{.direct = true, .api = false}));
    }
  }
}

TEST_P(ResidentB, StreamsABatchOfTallProblems) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  GemmVariant const* v = variant_registry().find(GetParam());
  ASSERT_NE(v, nullptr);
  for (VariantCase const& c : batch3_group(Shape{20001, 70, 33}).cases) {
    GemmProblem const p = make_problem(Dtype::kF64, c.ta, c.tb, c.shape.m, c.shape.n, c.shape.k, c.ld_pad, c.batch);
    EXPECT_TRUE(check_variant(*v, p, c.alpha, c.beta, /*on_device=*/true, CheckOptions{.direct = true, .api = false}));
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, ResidentB, ::testing::ValuesIn(resident_b_ids()),
                         [](auto const& info) { return info.param; });

}  // namespace
}  // namespace gemmkit::test
