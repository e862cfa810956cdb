/*! \file
    \brief The named tile configs: each name spells its arguments, and the registry holds every built
    config with each form its config names (config_forms.hpp).
*/
#include "cuda/gemm/dgemm_tensorop.hpp"
#include "cuda/gemm/sgemm_simt.hpp"
#include "cuda/gemm/sgemm_tensorop.hpp"
#include "variants/variants.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace gemmkit::gemm {
namespace {

TEST(ConfigNames, EveryNameSpellsItsArguments) {
  auto const check = []<typename Cfg>() {
    EXPECT_EQ(Cfg::name(), std::string(Cfg::kName));
    EXPECT_TRUE(Cfg::valid()) << Cfg::kName;
  };
  for_each_config<DgemmTensorOpConfigs>(check);
  for_each_config<SgemmSimtConfigs>(check);
  for_each_config<SgemmTensorOpConfigs>(check);
}

/// The variant ids a config's forms add.
template <typename Cfg>
std::vector<std::string> form_ids(std::string const& base) {
  std::vector<std::string> ids{base};
  if (has_form<Cfg>(kSplitK)) ids.push_back(base + "_splitk");
  if (has_form<Cfg>(kPacked)) ids.push_back(base + "_packed");
  if (has_form<Cfg>(kSplitFixup)) {
    for (char const* slices : {"_x2", "_x3", "_x4"}) ids.push_back(base + "_splitk" + slices);
  }
  if (has_form<Cfg>(kStreamK)) ids.push_back(base + "_streamk");
  if (has_form<Cfg>(kPackedStreamK)) ids.push_back(base + "_packed_streamk");
  if (has_form<Cfg>(kResidentB)) ids.push_back(base + "_residentb");
  return ids;
}

TEST(ConfigNames, TheRegistryHoldsEveryBuiltConfigInEachOfItsForms) {
  Registry const& registry = variant_registry();
  std::vector<std::string> expected;
  auto add = [&]<typename Cfg>(char const* prefix) {
    for (std::string const& id : form_ids<Cfg>(prefix + std::string(Cfg::kName))) expected.push_back(id);
  };
#define GEMMKIT_BUILT_DGEMM_TENSOROP(name) add.template operator()<DgemmTensorOp_##name>("dgemm_tensorop_");
#define GEMMKIT_BUILT_SGEMM_SIMT(name) add.template operator()<SgemmSimt_##name>("sgemm_simt_");
#define GEMMKIT_BUILT_SGEMM_TENSOROP(name) add.template operator()<SgemmTensorOp_##name>("sgemm_tensorop_");
#include "cuda/gemm/built_configs.def"
#undef GEMMKIT_BUILT_DGEMM_TENSOROP
#undef GEMMKIT_BUILT_SGEMM_SIMT
#undef GEMMKIT_BUILT_SGEMM_TENSOROP
  ASSERT_FALSE(expected.empty());
  for (std::string const& id : expected) EXPECT_NE(registry.find(id), nullptr) << id;
  // Nothing else of these families is registered: a config not built has no variant.
  std::size_t tiled = 0;
  for (GemmVariant const* v : registry.variants()) {
    std::string const& id = v->info().id;
    tiled += id.rfind("dgemm_tensorop_", 0) == 0 || id.rfind("sgemm_simt_", 0) == 0 ||
             id.rfind("sgemm_tensorop_", 0) == 0;
  }
  EXPECT_EQ(tiled, expected.size());
}

}  // namespace
}  // namespace gemmkit::gemm
