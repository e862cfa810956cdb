/*! \file
    \brief The FP64 emulation variants' workspace without a GPU: sized for the most moduli, and within a
    device-memory limit in smaller blocks of C (fewer columns, then fewer rows), never above what no limit
    takes. Builds without CUDA register no emulation and skip.
*/
#include "registry/registry.hpp"
#include "support/gemm_check.hpp"
#include "variants/variants.hpp"

#include <gtest/gtest.h>

#include <cstddef>

namespace gemmkit::test {
namespace {

TEST(EmulationVariants, AMemoryLimitBlocksTheWorkspace) {
  int found = 0;
  for (char const* id : {"dgemm_ozaki2_int8_sm90", "dgemm_ozaki2_int8_cublas"}) {
    GemmVariant const* v = variant_registry().find(id);
    if (v == nullptr) continue;
    ++found;
    SCOPED_TRACE(id);
    GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 700, 600, 900);
    std::size_t const whole = v->workspace_bytes(p);
    EXPECT_EQ(v->workspace_bytes_within(p, 0), whole);
    EXPECT_EQ(v->workspace_bytes_within(p, 2 * whole), whole);
    EXPECT_EQ(v->workspace_bytes_within(p, whole), whole);
    // A's residues for 20 moduli alone (12.8 MB) exceed 12 MiB: rows and columns are both blocked.
    for (std::size_t limit : {std::size_t(40) << 20, std::size_t(12) << 20, whole - 1}) {
      std::size_t const within = v->workspace_bytes_within(p, limit);
      EXPECT_LE(within, limit) << limit;
      EXPECT_GT(within, limit / 3) << "the blocks should use most of the limit " << limit;
    }
    // Below the smallest blocks (256 rows, 64 columns) the workspace stays theirs, over the limit.
    std::size_t const least = v->workspace_bytes_within(p, 1);
    EXPECT_GT(least, std::size_t(1));
    EXPECT_LT(least, std::size_t(12) << 20);
    EXPECT_EQ(v->workspace_bytes_within(p, least), least);
  }
  if (found == 0) GTEST_SKIP() << "a build without CUDA registers no FP64 emulation";
}

}  // namespace
}  // namespace gemmkit::test
