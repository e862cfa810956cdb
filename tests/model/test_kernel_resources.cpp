/*! \file
    \brief Reading the compiled kernels' resources (bench/sass_spills.py rows) and matching them
    to the model's tile configs by config and instance form.
*/
#include "model/kernel_resources.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace gemmkit::model {
namespace {

/// A sass_spills.py row for the 64x64x16 w32x32 s4 config with 3 blocks per SM.
std::string row(int mma_k, bool prefetch, int vec, int loop_dmma, int ldl, int stl, char const* dtype = "f64") {
  char text[640];
  std::snprintf(text, sizeof text,
                R"({"suite": "sass-spills", "arch": "sm_90a", "bm": 64, "bn": 64, "bk": 16, "warp_m": 32, )"
                R"("warp_n": 32, "stages": 4, "blocks_per_sm": 3, "fragment_prefetch": %s, "mma_k": %d, )"
                R"("trans_a": false, "trans_b": false, "vec_a": %d, "vec_b": %d, "c_transposed": false, )"
                R"("dtype": "%s", "registers": 168, "stack_bytes": 104, "loop_instructions": 376, )"
                R"("loop_dmma": %d, "loop_ldl": 35, "loop_stl": 15, "loop_ldl_bytes": %d, "loop_stl_bytes": %d})",
                prefetch ? "true" : "false", mma_k, vec, vec, dtype, loop_dmma, ldl, stl);
  return text;
}

TileConfig config(int mma_k, bool prefetch) {
  TileConfig c;
  c.name = mma_k == 8 ? "k8" : (prefetch ? "pf" : "plain");
  c.bm = 64, c.bn = 64, c.bk = 16, c.warp_m = 32, c.warp_n = 32, c.stages = 4, c.blocks_per_sm = 3;
  c.mma_k = mma_k, c.fragment_double_buffer = mma_k == 8 || prefetch;
  return c;
}

class KernelResourcesFile : public ::testing::Test {
 protected:
  void write(std::vector<std::string> const& rows) {
    std::ofstream file(path_);
    for (std::string const& r : rows) file << r << "\n";
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_ = ::testing::TempDir() + "gemmkit_kernel_resources.jsonl";
};

TEST_F(KernelResourcesFile, MatchesConfigAndFormAndScalesAnUnrolledLoop) {
  // pf, 16-byte copies: one k-tile per pass (8 DMMAs for a 32x32 warp tile of m16n8k16).
  // k8, 16-byte copies: two k-tiles per pass (32 DMMAs where one k-tile issues 16).
  // pf with element copies, and the same instance on float operands, which no f64 config takes.
  write({row(16, true, 2, 8, 152, 72), row(8, false, 2, 32, 40, 8), row(16, true, 1, 8, 220, 68),
         row(16, true, 2, 8, 999, 999, "f32")});
  std::vector<KernelResources> resources;
  ASSERT_EQ(load_kernel_resources(path_, &resources), "");
  ASSERT_EQ(resources.size(), 4u);
  EXPECT_EQ(resources[3].element_bytes, 4);

  std::vector<TileConfig> configs{config(16, true), config(8, false), config(16, false)};
  EXPECT_EQ(apply_kernel_resources(&configs, resources, dense_nn_form(8192, 8192)), 2);
  EXPECT_DOUBLE_EQ(configs[0].spill_bytes_per_k_tile, 152 + 72);
  EXPECT_EQ(configs[0].registers_per_thread, 168);
  EXPECT_DOUBLE_EQ(configs[1].spill_bytes_per_k_tile, (40 + 8) / 2.0);
  EXPECT_DOUBLE_EQ(configs[2].spill_bytes_per_k_tile, 0.0);  // no row for the plain config
  EXPECT_EQ(configs[2].registers_per_thread, 0);

  // An odd leading dimension runs the element-copy instance.
  std::vector<TileConfig> odd{config(16, true)};
  EXPECT_EQ(apply_kernel_resources(&odd, resources, dense_nn_form(8191, 8191)), 1);
  EXPECT_DOUBLE_EQ(odd[0].spill_bytes_per_k_tile, 220 + 68);
}

TEST_F(KernelResourcesFile, NamesTheFieldItMisses) {
  write({R"({"suite": "sass-spills", "dtype": "f64", "bm": 64})"});
  std::vector<KernelResources> resources;
  std::string const e = load_kernel_resources(path_, &resources);
  EXPECT_NE(e.find(":1: no number for \"bn\""), std::string::npos) << e;
  EXPECT_NE(load_kernel_resources(path_ + ".absent", &resources).find("cannot open"), std::string::npos);
}

TEST_F(KernelResourcesFile, SimtRowsApplyToSimtShapesOnly) {
  std::string const simt =
      R"({"suite": "sass-spills", "arch": "sm_90a", "kernel": "simt", "dtype": "f32", "bm": 128, "bn": 128, )"
      R"("bk": 16, "warp_m": 32, "warp_n": 64, "thread_m": 8, "thread_n": 8, "stages": 4, "blocks_per_sm": 2, )"
      R"("trans_a": false, "trans_b": false, "vec_a": 4, "vec_b": 4, "registers": 127, "loop_instructions": 1321, )"
      R"("loop_ffma": 1024, "loop_dmma": 0, "loop_ldl_bytes": 0, "loop_stl_bytes": 0})";
  write({simt, row(16, true, 2, 8, 152, 72)});
  std::vector<KernelResources> resources;
  ASSERT_EQ(load_kernel_resources(path_, &resources), "");
  ASSERT_EQ(resources.size(), 2u);
  EXPECT_TRUE(resources[0].simt);
  EXPECT_EQ(resources[0].element_bytes, 4);

  SimtKernelShape shape;
  shape.bm = 128, shape.bn = 128, shape.bk = 16, shape.tm = 8, shape.tn = 8, shape.threads = 256;
  shape.element_bytes = 4, shape.buffers = 4, shape.warp_m = 32, shape.warp_n = 64, shape.blocks_per_sm = 2;
  std::vector<SimtKernelShape> shapes{shape};
  EXPECT_EQ(apply_kernel_resources(&shapes, resources, dense_nn_simt_form(8192)), 1);
  EXPECT_EQ(shapes[0].loop_fma, 1024);
  EXPECT_EQ(shapes[0].loop_instructions, 1321);
  EXPECT_EQ(shapes[0].registers_per_thread, 127);
  // The element-copy instance is another row; three stages are another config.
  std::vector<SimtKernelShape> odd{shape};
  EXPECT_EQ(apply_kernel_resources(&odd, resources, dense_nn_simt_form(8191)), 0);
  shapes[0] = shape, shapes[0].buffers = 3;
  EXPECT_EQ(apply_kernel_resources(&shapes, resources, dense_nn_simt_form(8192)), 0);
  // A SIMT row never matches a tensor-core config, nor an f64 row an f32 one.
  std::vector<TileConfig> configs{config(16, true)};
  configs[0].element_bytes = 4;
  EXPECT_EQ(apply_kernel_resources(&configs, resources, dense_nn_form(8192, 8192, 4)), 0);
}

TEST(KernelResources, DenseNnFormNeedsBothLeadingDimensionsInWholeChunks) {
  EXPECT_EQ(dense_nn_form(4096, 4096).vec_a, 2);
  EXPECT_EQ(dense_nn_form(4096, 4095).vec_b, 1);  // ldb = k
  EXPECT_EQ(dense_nn_form(4097, 4096).vec_a, 1);  // lda = m
  EXPECT_EQ(dense_nn_form(4100, 4100, 4).vec_a, 4);
  EXPECT_EQ(dense_nn_form(4098, 4100, 4).vec_a, 1);
  EXPECT_EQ(dense_nn_simt_form(4100).vec_a, 4);
  EXPECT_EQ(dense_nn_simt_form(4098).vec_b, 1);
}

}  // namespace
}  // namespace gemmkit::model
