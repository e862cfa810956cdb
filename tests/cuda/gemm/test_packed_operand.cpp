/*! \file
    \brief The operand packing plan: which operands each layout transposes (NN for the FP64
    tensor-core kernel, NT for the FP32 SIMT kernel), the copies' layout (aligned leading dimension,
    per entry or shared across a batch), where they sit in the workspace and how much it takes.
*/
#include "cuda/gemm/packed_operand.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

namespace gemmkit::test {
namespace {

using gemm::PackedLayout;

TEST(PackedOperand, NnLayoutPacksNothingForNnAndTt) {
  for (gk_op t : {GK_OP_N, GK_OP_T}) {
    GemmProblem const p = make_problem(Dtype::kF64, t, t, 100, 70, 30);
    gemm::PackedOperands const plan = gemm::plan_packed_operands(p, sizeof(double), PackedLayout::kNN);
    EXPECT_FALSE(plan.any());
    EXPECT_EQ(plan.bytes(), 0u);
  }
}

TEST(PackedOperand, NnLayoutPacksBOfNtIntoKByNWithAnAlignedLeadingDimension) {
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 100, 70, 31);
  gemm::PackedOperands const plan = gemm::plan_packed_operands(p, sizeof(double), PackedLayout::kNN);
  EXPECT_TRUE(plan.b.pack);
  EXPECT_FALSE(plan.a.pack);
  EXPECT_EQ(plan.b.rows, 70);  // B is stored n x k
  EXPECT_EQ(plan.b.cols, 31);
  EXPECT_EQ(plan.b.ld, 32);    // k rounded up to whole 128-byte lines
  EXPECT_EQ(plan.b.offset, 0);
  EXPECT_EQ(plan.bytes(), 32u * 70u * sizeof(double));
  GemmProblem const p32 = make_problem(Dtype::kF32, GK_OP_N, GK_OP_C, 100, 70, 31);
  gemm::PackedOperands const f32 = gemm::plan_packed_operands(p32, sizeof(float), PackedLayout::kNN);
  EXPECT_TRUE(f32.b.pack);     // conjugate counts as transposed
  EXPECT_EQ(f32.b.ld, 32);
}

TEST(PackedOperand, NnLayoutPacksAOfTnPerBatchEntryOrOnceWhenShared) {
  GemmProblem p = make_problem(Dtype::kF64, GK_OP_T, GK_OP_N, 9, 70, 32, 0, 3);
  p.k = 31;  // A stored 31 x 9 (lda 32, as allocated for k = 32); B 31 x 70 in ldb 32: aligned
  gemm::PackedOperands plan = gemm::plan_packed_operands(p, sizeof(double), PackedLayout::kNN);
  EXPECT_TRUE(plan.a.pack);
  EXPECT_FALSE(plan.b.pack);
  EXPECT_EQ(plan.a.rows, 31);  // A is stored k x m
  EXPECT_EQ(plan.a.cols, 9);
  EXPECT_EQ(plan.a.ld, 16);
  EXPECT_EQ(plan.a.copies, 3);
  EXPECT_EQ(plan.a.stride, 16 * 31);
  EXPECT_EQ(plan.bytes(), 3u * 16u * 31u * sizeof(double));
  p.stride_a = 0;  // every entry reads the same A: one copy serves them all
  plan = gemm::plan_packed_operands(p, sizeof(double), PackedLayout::kNN);
  EXPECT_EQ(plan.a.copies, 1);
  EXPECT_EQ(plan.a.stride, 0);
  EXPECT_EQ(plan.bytes(), 16u * 31u * sizeof(double));
}

/// The FP32 SIMT kernel's layout: A M-contiguous, B N-contiguous, leading dimensions and strides in
/// whole 16-byte chunks. Aligned NT packs nothing; NN transposes B (stored k x n), TT A (stored k x
/// m), TN both, A's copy first and B's after it; an operand already the right way round but with an
/// odd leading dimension is copied as it is into an aligned one.
TEST(PackedOperand, NtLayoutTransposesKContiguousOperandsAndAlignsTheOthers) {
  GemmProblem p = make_problem(Dtype::kF32, GK_OP_N, GK_OP_T, 100, 72, 31);  // lda 100, ldb 72
  EXPECT_FALSE(gemm::plan_packed_operands(p, sizeof(float), PackedLayout::kNT).any());

  p = make_problem(Dtype::kF32, GK_OP_N, GK_OP_N, 100, 70, 31);  // lda 100
  gemm::PackedOperands plan = gemm::plan_packed_operands(p, sizeof(float), PackedLayout::kNT);
  EXPECT_FALSE(plan.a.pack);
  ASSERT_TRUE(plan.b.pack);
  EXPECT_TRUE(plan.b.transpose);
  EXPECT_EQ(plan.b.rows, 31);  // B is stored k x n; its copy n x k
  EXPECT_EQ(plan.b.cols, 70);
  EXPECT_EQ(plan.b.ld, 96);    // n rounded up to whole 128-byte lines of floats
  EXPECT_EQ(plan.b.offset, 0);
  EXPECT_EQ(plan.bytes(), 96u * 31u * sizeof(float));

  p = make_problem(Dtype::kF32, GK_OP_T, GK_OP_T, 100, 70, 31);  // ldb 70: B copied as it is
  plan = gemm::plan_packed_operands(p, sizeof(float), PackedLayout::kNT);
  ASSERT_TRUE(plan.a.pack && plan.b.pack);
  EXPECT_TRUE(plan.a.transpose);
  EXPECT_EQ(plan.a.rows, 31);  // A is stored k x m; its copy m x k
  EXPECT_EQ(plan.a.cols, 100);
  EXPECT_EQ(plan.a.ld, 128);
  EXPECT_FALSE(plan.b.transpose);
  EXPECT_EQ(plan.b.rows, 70);  // B^T is stored n x k, and so is its copy
  EXPECT_EQ(plan.b.cols, 31);
  EXPECT_EQ(plan.b.ld, 96);
  EXPECT_EQ(plan.b.offset, 128 * 31);
  EXPECT_EQ(plan.bytes(), (128u * 31u + 96u * 31u) * sizeof(float));

  p = make_problem(Dtype::kF32, GK_OP_N, GK_OP_T, 99, 72, 31, 0, 2);  // lda 99
  plan = gemm::plan_packed_operands(p, sizeof(float), PackedLayout::kNT);
  ASSERT_TRUE(plan.a.pack);
  EXPECT_FALSE(plan.b.pack);
  EXPECT_FALSE(plan.a.transpose);
  EXPECT_EQ(plan.a.ld, 128);
  EXPECT_EQ(plan.a.copies, 2);
  EXPECT_EQ(plan.a.stride, 128 * 31);
  p.stride_b = 72 * 31 + 2;    // aligned leading dimension, odd batch stride: copied too
  EXPECT_TRUE(gemm::plan_packed_operands(p, sizeof(float), PackedLayout::kNT).b.pack);

  p = make_problem(Dtype::kF32, GK_OP_T, GK_OP_N, 9, 70, 31, 0, 3);
  p.stride_b = 0;  // B shared by the batch: one copy of it, three of A
  plan = gemm::plan_packed_operands(p, sizeof(float), PackedLayout::kNT);
  ASSERT_TRUE(plan.a.pack && plan.b.pack);
  EXPECT_EQ(plan.a.ld, 32);
  EXPECT_EQ(plan.a.copies, 3);
  EXPECT_EQ(plan.a.stride, 32 * 31);
  EXPECT_EQ(plan.b.copies, 1);
  EXPECT_EQ(plan.b.stride, 0);
  EXPECT_EQ(plan.b.ld, 96);
  EXPECT_EQ(plan.b.offset, 3 * 32 * 31);  // right after A's copies, on a line
  EXPECT_EQ(plan.b.offset % 32, 0);  // 32 floats: 128 bytes
  EXPECT_EQ(plan.bytes(), (3u * 32u * 31u + 96u * 31u) * sizeof(float));
}

/// The FP64 kernel's layout copies operands the right way round whose leading dimension is odd into
/// an aligned one, A's first; in NT the transposed B's copy is aligned already, A is copied beside it.
TEST(PackedOperand, NnLayoutCopiesOddLeadingDimensionsIntoAlignedOnes) {
  GemmProblem p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 99, 71, 31);  // lda 99, ldb 31
  gemm::PackedOperands plan = gemm::plan_packed_operands(p, sizeof(double), PackedLayout::kNN);
  ASSERT_TRUE(plan.a.pack && plan.b.pack);
  EXPECT_FALSE(plan.a.transpose || plan.b.transpose);
  EXPECT_EQ(plan.a.ld, 112);
  EXPECT_EQ(plan.b.ld, 32);
  EXPECT_EQ(plan.b.rows, 31);
  EXPECT_EQ(plan.b.cols, 71);
  EXPECT_EQ(plan.b.offset, 112 * 31);
  EXPECT_EQ(plan.bytes(), (112u * 31u + 32u * 71u) * sizeof(double));

  p = make_problem(Dtype::kF64, GK_OP_T, GK_OP_T, 99, 71, 32);  // lda 32 (A stored k x m), ldb 71
  plan = gemm::plan_packed_operands(p, sizeof(double), PackedLayout::kNN);
  EXPECT_FALSE(plan.a.pack);
  ASSERT_TRUE(plan.b.pack);
  EXPECT_FALSE(plan.b.transpose);  // TT runs as NN on C^T: nothing is transposed
  EXPECT_EQ(plan.b.ld, 80);

  p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 99, 72, 31);  // lda 99; B stored 72 x 31
  plan = gemm::plan_packed_operands(p, sizeof(double), PackedLayout::kNN);
  ASSERT_TRUE(plan.a.pack && plan.b.pack);
  EXPECT_FALSE(plan.a.transpose);
  EXPECT_TRUE(plan.b.transpose);
  EXPECT_EQ(plan.a.ld, 112);
  EXPECT_EQ(plan.b.ld, 32);

  p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 100, 72, 32, 0, 2);
  p.stride_a += 1;  // aligned leading dimensions, odd batch stride of A: A copied, B not
  plan = gemm::plan_packed_operands(p, sizeof(double), PackedLayout::kNN);
  EXPECT_TRUE(plan.a.pack);
  EXPECT_FALSE(plan.b.pack);
}

}  // namespace
}  // namespace gemmkit::test
