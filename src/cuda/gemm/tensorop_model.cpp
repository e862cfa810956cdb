/*! \file
    \brief The registered FP64 tensor-core configs as the performance model sees them.
*/
#include "cuda/gemm/tensorop_model.hpp"

#include "cuda/gemm/dgemm_tensorop.hpp"

#include <utility>

namespace gemmkit::gemm {

std::vector<model::TileConfig> dgemm_tensorop_model_configs() {
  std::vector<model::TileConfig> out;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          using Cfg = std::tuple_element_t<I, DgemmTensorOpConfigs>;
          model::TileConfig c;
          c.name = "dgemm_tensorop_" + Cfg::name();
          c.bm = Cfg::kBM, c.bn = Cfg::kBN, c.bk = Cfg::kBK, c.warp_m = Cfg::kWarpM, c.warp_n = Cfg::kWarpN;
          c.stages = Cfg::kStages, c.blocks_per_sm = Cfg::kBlocksPerSm;
          c.mma_k = Cfg::kMmaK;
          c.fragment_double_buffer = Cfg::kMmaK == 8 || Cfg::kFragmentPrefetch;
          out.push_back(c);
        }(),
        ...);
  }(std::make_index_sequence<kDgemmTensorOpConfigCount>{});
  return out;
}

}  // namespace gemmkit::gemm
