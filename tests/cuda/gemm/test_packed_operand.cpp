/*! \file
    \brief The operand packing plan: which operand NT and TN copy, the copy's layout (aligned leading
    dimension, per-entry or shared across a batch) and the workspace it takes.
*/
#include "cuda/gemm/packed_operand.hpp"

#include <gtest/gtest.h>

namespace gemmkit::test {
namespace {

GemmProblem problem(gk_op ta, gk_op tb, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) {
  GemmProblem p;
  p.trans_a = ta, p.trans_b = tb;
  p.m = m, p.n = n, p.k = k, p.batch = batch;
  p.lda = ta == GK_OP_N ? m : k, p.ldb = tb == GK_OP_N ? k : n, p.ldc = m;
  p.stride_a = p.lda * (ta == GK_OP_N ? k : m), p.stride_b = p.ldb * (tb == GK_OP_N ? n : k), p.stride_c = m * n;
  return p;
}

TEST(PackedOperand, NnAndTtPackNothing) {
  for (gk_op t : {GK_OP_N, GK_OP_T}) {
    gemm::PackedOperand const plan = gemm::plan_packed_operand(problem(t, t, 100, 70, 30), sizeof(double));
    EXPECT_FALSE(plan.pack_a || plan.pack_b);
    EXPECT_EQ(plan.bytes, 0u);
  }
}

TEST(PackedOperand, NtPacksBIntoKByNWithAnAlignedLeadingDimension) {
  gemm::PackedOperand const plan = gemm::plan_packed_operand(problem(GK_OP_N, GK_OP_T, 100, 70, 31), sizeof(double));
  EXPECT_TRUE(plan.pack_b);
  EXPECT_FALSE(plan.pack_a);
  EXPECT_EQ(plan.rows, 70);  // B is stored n x k
  EXPECT_EQ(plan.cols, 31);
  EXPECT_EQ(plan.ld, 32);    // k rounded up to whole 16-byte chunks
  EXPECT_EQ(plan.bytes, 32u * 70u * sizeof(double));
  gemm::PackedOperand const f32 = gemm::plan_packed_operand(problem(GK_OP_N, GK_OP_C, 100, 70, 31), sizeof(float));
  EXPECT_TRUE(f32.pack_b);   // conjugate counts as transposed
  EXPECT_EQ(f32.ld, 32);
}

TEST(PackedOperand, TnPacksAPerBatchEntryOrOnceWhenShared) {
  GemmProblem p = problem(GK_OP_T, GK_OP_N, 9, 70, 31, 3);
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
