/*! \file
    \brief The model's view of a registered config by its id: the same bound as the model gives the
    config itself, its compiled resources applied, and no bound for the forms the model does not name.
*/
#include "cuda/gemm/tensorop_model.hpp"

#include <gtest/gtest.h>

namespace gemmkit::gemm {
namespace {

TEST(PredictRegistered, EveryConfigGetsTheBoundTheModelGivesIt) {
  model::MachineDescription const machine = model::h100_sxm();
  for (std::int64_t n : {1000, 4096}) {
    for (model::TileConfig const& c : dgemm_tensorop_model_configs()) {
      std::optional<RegisteredBound> const b = predict_registered(machine, c.name, {}, n, n, n);
      ASSERT_TRUE(b.has_value()) << c.name;
      EXPECT_DOUBLE_EQ(b->flops, model::predict(machine, c, n, n, n).flops) << c.name;
    }
    for (model::TileConfig const& c : sgemm_tensorop_model_configs()) {
      std::optional<RegisteredBound> const b = predict_registered(machine, c.name, {}, n, n, n);
      ASSERT_TRUE(b.has_value()) << c.name;
      EXPECT_DOUBLE_EQ(b->flops, model::predict(machine, c, n, n, n).flops) << c.name;
    }
    for (model::SimtKernelShape const& s : sgemm_simt_model_shapes()) {
      std::optional<RegisteredBound> const b = predict_registered(machine, s.name, {}, n, n, n);
      ASSERT_TRUE(b.has_value()) << s.name;
      EXPECT_DOUBLE_EQ(b->flops, model::predict_simt(machine, s, n, n, n).flops) << s.name;
      EXPECT_GT(b->resident_blocks, 0) << s.name;
    }
  }
}

TEST(PredictRegistered, FormsAndKernelsTheModelDoesNotNameHaveNoBound) {
  model::MachineDescription const machine = model::h100_sxm();
  std::string const plain = dgemm_tensorop_model_configs().front().name;
  for (std::string const& id : {plain + "_splitk", plain + "_streamk", plain + "_packed", std::string("dgemm_ladder01_naive"),
                               std::string("cublas_dgemm"), std::string()}) {
    EXPECT_FALSE(predict_registered(machine, id, {}, 4096, 4096, 4096).has_value()) << id;
  }
}

TEST(PredictRegistered, AppliesTheCompiledInstanceOfTheDenseForm) {
  model::MachineDescription const machine = model::h100_sxm();
  model::TileConfig const c = dgemm_tensorop_model_configs().front();
  model::KernelResources r;
  r.element_bytes = 8, r.bm = c.bm, r.bn = c.bn, r.bk = c.bk, r.warp_m = c.warp_m, r.warp_n = c.warp_n;
  r.stages = c.stages, r.blocks_per_sm = c.blocks_per_sm, r.mma_k = c.mma_k;
  r.fragment_prefetch = c.fragment_double_buffer && c.mma_k != 8;
  r.form = model::dense_nn_form(4096, 4096);
  r.registers = 200;
  r.loop_dmma = (c.warp_m / 16) * (c.warp_n / 8) * (c.bk / c.mma_k);  // one k-tile per pass
  r.loop_local_load_bytes = r.loop_local_store_bytes = 4096;          // spills enough to bind
  std::optional<RegisteredBound> const spilled = predict_registered(machine, c.name, {r}, 4096, 4096, 4096);
  std::optional<RegisteredBound> const bare = predict_registered(machine, c.name, {}, 4096, 4096, 4096);
  ASSERT_TRUE(spilled && bare);
  EXPECT_EQ(spilled->registers, 200);
  EXPECT_EQ(bare->registers, 0);
  EXPECT_LT(spilled->flops, bare->flops);
  // An odd size runs the element-copy instance, which this row is not.
  std::optional<RegisteredBound> const odd = predict_registered(machine, c.name, {r}, 4095, 4095, 4095);
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->registers, 0);
}

}  // namespace
}  // namespace gemmkit::gemm
