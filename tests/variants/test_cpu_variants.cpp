/*! \file
    \brief Every registered CPU variant, directly and through the API: edge and prime sizes, all
    transposes, padded leading dimensions, alpha/beta cases, NaN C with beta = 0, strided batches.
*/
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "support/case_groups.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace gemmkit::test {
namespace {

using CpuCase = VariantCase;

/// Sizes around 16 (a common register/cache block), powers of two +-1 and primes, mixed between
/// m, n and k so no dimension is always the nice one.
std::vector<CaseGroup> cpu_case_groups() {
  Shape const shapes[] = {{1, 1, 1},    {2, 2, 2},    {1, 17, 16}, {16, 1, 33}, {15, 16, 17}, {16, 16, 16},
                          {17, 15, 31}, {31, 33, 1},  {33, 31, 2}, {37, 61, 97}, {97, 37, 61}, {61, 97, 37},
                          // k = m with two or more columns per vector: the column-group kernels (n below
                          // a whole vector's columns at 4x3x4 f32)
                          {4, 8, 4},    {2, 9, 2},    {8, 12, 8},  {4, 3, 4},   {5, 7, 5},    {3, 11, 3}};
  gk_op const nt[] = {GK_OP_N, GK_OP_T};
  std::vector<CaseGroup> groups;
  for (Shape const& s : shapes) {
    // All four N/T combos; (1, 0) on NaN-filled C and (-1.5, 0.25); padded leading dimensions alternate.
    CaseGroup g{shape_name(s), {}};
    int i = 0;
    for (gk_op ta : nt) {
      for (gk_op tb : nt) {
        g.cases.push_back({s, ta, tb, 1.0, 0.0, (i++ % 2) * 3});
        g.cases.push_back({s, ta, tb, -1.5, 0.25, (i++ % 2) * 5});
      }
    }
    groups.push_back(std::move(g));
  }
  // Conjugate transpose (= transpose for real data) with the others.
  for (Shape const& s : {Shape{17, 15, 31}, Shape{37, 61, 97}}) {
    groups.push_back({"conj_" + shape_name(s),
                      {{s, GK_OP_C, GK_OP_N, 1.0, 1.0, 2},
                       {s, GK_OP_N, GK_OP_C, 1.0, 0.0, 0},
                       {s, GK_OP_C, GK_OP_C, 2.0, -1.0, 1},
                       {s, GK_OP_T, GK_OP_C, -1.0, 0.5, 0}}});
  }
  // Strided batches of 3, packed and with poisoned gaps between entries.
  for (Shape const& s : {Shape{16, 16, 16}, Shape{17, 33, 15}, Shape{61, 37, 29}, Shape{4, 4, 4}, Shape{8, 8, 8},
                         Shape{4, 8, 4}}) {
    groups.push_back(batch3_group(s));
  }
  // Packed NN batches (ld = m, back to back): the packed kernels, column groups at 4x4x4 and 8x8x8.
  for (Shape const& s : {Shape{2, 2, 2}, Shape{3, 3, 3}, Shape{4, 4, 4}, Shape{6, 6, 6}, Shape{7, 7, 7},
                         Shape{8, 8, 8}, Shape{4, 8, 4}}) {
    groups.push_back({"packed_batch5_" + shape_name(s),
                      {{s, GK_OP_N, GK_OP_N, 1.0, 0.0, 0, 5}, {s, GK_OP_N, GK_OP_N, -0.5, 1.0, 0, 5}}});
  }
  return groups;
}

std::vector<std::string> cpu_variant_ids() { return variant_ids(Platform::kCpu); }

class CpuVariant : public ::testing::TestWithParam<std::tuple<std::string, CaseGroup>> {};

TEST_P(CpuVariant, MatchesReference) {
  auto const& [id, group] = GetParam();
  GemmVariant const* v = variant_registry().find(id);
  ASSERT_NE(v, nullptr);
  for (CpuCase const& c : group.cases) {
    GemmProblem const p =
        make_problem(v->info().dtype, c.ta, c.tb, c.shape.m, c.shape.n, c.shape.k, c.ld_pad, c.batch);
    if (v->can_implement(p) != GK_SUCCESS) {
      // Only the small-size kernels decline, and only past their 32 limit.
      EXPECT_NE(id.find("cpu_small"), std::string::npos) << id << " declined " << shape_name(c.shape);
      EXPECT_GT(std::max({p.m, p.n, p.k}), 32) << id << " declined " << shape_name(c.shape);
      continue;
    }
    EXPECT_TRUE(check_variant(*v, p, c.alpha, c.beta, /*on_device=*/false));
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, CpuVariant,
                         ::testing::Combine(::testing::ValuesIn(cpu_variant_ids()),
                                            ::testing::ValuesIn(cpu_case_groups())),
                         [](auto const& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param).name; });

/// Broadcast operands (stride 0) through every CPU variant.
TEST(CpuVariants, StridedBatchBroadcast) {
  for (std::string const& id : cpu_variant_ids()) {
    GemmVariant const* v = variant_registry().find(id);
    GemmProblem p = make_problem(v->info().dtype, GK_OP_T, GK_OP_N, 19, 23, 11, 1, 3);
    p.stride_a = 0;
    EXPECT_TRUE(check_variant(*v, p, 1.0, 0.5, false));
    p.stride_a = p.lda * p.a_cols();
    p.stride_b = 0;
    EXPECT_TRUE(check_variant(*v, p, -1.0, 0.0, false));
  }
}

/// The same inputs twice give bitwise the same C (docs/kernel-contracts.md: deterministic run to run).
TEST(CpuVariants, Deterministic) {
  for (std::string const& id : cpu_variant_ids()) {
    GemmVariant const* v = variant_registry().find(id);
    GemmProblem const p = make_problem(v->info().dtype, GK_OP_N, GK_OP_T, 67, 45, 129, 2);
    if (v->can_implement(p) != GK_SUCCESS) continue;  // the small-size kernels take m, n, k <= 32
    auto twice = [&]<typename T>() {
      Operands<T> const original = make_operands<T>(p, 1.0);
      Operands<T> first = original, second = original;
      std::vector<unsigned char> workspace(v->workspace_bytes(p) + 1);
      GemmArguments args;
      args.problem = p;
      args.alpha = 1.0;
      args.beta = 1.0;
      for (Operands<T>* o : {&first, &second}) {
        args.A = o->A.data();
        args.B = o->B.data();
        args.C = o->C.data();
        ASSERT_EQ(v->run(args, workspace.data(), ExecutionContext{}), GK_SUCCESS);
      }
      EXPECT_TRUE(first.C.bitwise_equal(second.C)) << id;
    };
    if (v->info().dtype == Dtype::kF64) twice.template operator()<double>();
    else twice.template operator()<float>();
  }
}

}  // namespace
}  // namespace gemmkit::test
