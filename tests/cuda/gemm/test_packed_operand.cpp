/*! \file
    \brief The operand packing plan: which operand NT and TN copy, the copy's layout (aligned leading
    dimension, per-entry or shared across a batch) and the workspace it takes.
*/
#include "cuda/gemm/packed_operand.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

namespace gemmkit::test {
namespace {

TEST(PackedOperand, NnAndTtPackNothing) {
  for (gk_op t : {GK_OP_N, GK_OP_T}) {
    GemmProblem const p = make_problem(Dtype::kF64, t, t, 100, 70, 30);
    gemm::PackedOperand const plan = gemm::plan_packed_operand(p, sizeof(double));
    EXPECT_FALSE(plan.pack_a || plan.pack_b);
    EXPECT_EQ(plan.bytes, 0u);
  }
}

TEST(PackedOperand, NtPacksBIntoKByNWithAnAlignedLeadingDimension) {
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 100, 70, 31);
  gemm::PackedOperand const plan = gemm::plan_packed_operand(p, sizeof(double));
  EXPECT_TRUE(plan.pack_b);
  EXPECT_FALSE(plan.pack_a);
  EXPECT_EQ(plan.rows, 70);  // B is stored n x k
  EXPECT_EQ(plan.cols, 31);
  EXPECT_EQ(plan.ld, 32);    // k rounded up to whole 16-byte chunks
  EXPECT_EQ(plan.bytes, 32u * 70u * sizeof(double));
  GemmProblem const p32 = make_problem(Dtype::kF32, GK_OP_N, GK_OP_C, 100, 70, 31);
  gemm::PackedOperand const f32 = gemm::plan_packed_operand(p32, sizeof(float));
  EXPECT_TRUE(f32.pack_b);   // conjugate counts as transposed
  EXPECT_EQ(f32.ld, 32);
}

TEST(PackedOperand, TnPacksAPerBatchEntryOrOnceWhenShared) {
  GemmProblem p = make_problem(Dtype::kF64, GK_OP_T, GK_OP_N, 9, 70, 31, 0, 3);
  gemm::PackedOperand plan = gemm::plan_packed_operand(p, sizeof(double));
  EXPECT_TRUE(plan.pack_a);
  EXPECT_EQ(plan.rows, 31);  // A is stored k x m
  EXPECT_EQ(plan.cols, 9);
  EXPECT_EQ(plan.ld, 10);
  EXPECT_EQ(plan.copies, 3);
  EXPECT_EQ(plan.stride, 10 * 31);
  EXPECT_EQ(plan.bytes, 3u * 10u * 31u * sizeof(double));
  p.stride_a = 0;  // every entry reads the same A: one copy serves them all
  plan = gemm::plan_packed_operand(p, sizeof(double));
  EXPECT_EQ(plan.copies, 1);
  EXPECT_EQ(plan.stride, 0);
  EXPECT_EQ(plan.bytes, 10u * 31u * sizeof(double));
}

}  // namespace
}  // namespace gemmkit::test
