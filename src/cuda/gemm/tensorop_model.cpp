/*! \file
    \brief The registered tile configs as the performance model sees them.
*/
#include "cuda/gemm/tensorop_model.hpp"

#include "cuda/gemm/dgemm_tensorop.hpp"
#include "cuda/gemm/sgemm_simt.hpp"
#include "cuda/gemm/sgemm_tensorop.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

namespace gemmkit::gemm {

namespace {

template <typename Configs>
std::vector<model::TileConfig> tensorop_model_configs(std::string const& prefix, int element_bytes) {
  std::vector<model::TileConfig> out;
  for_each_config<Configs>([&]<typename Cfg>() {
    model::TileConfig c;
    c.name = prefix + Cfg::name();
    c.bm = Cfg::kBM, c.bn = Cfg::kBN, c.bk = Cfg::kBK, c.warp_m = Cfg::kWarpM, c.warp_n = Cfg::kWarpN;
    c.stages = Cfg::kStages, c.blocks_per_sm = Cfg::kBlocksPerSm;
    c.element_bytes = element_bytes;
    c.mma_k = Cfg::kMmaK;
    c.fragment_double_buffer = Cfg::kMmaK == 8 || Cfg::kFragmentPrefetch;
    out.push_back(c);
  });
  return out;
}

}  // namespace

std::vector<model::TileConfig> dgemm_tensorop_model_configs() {
  return tensorop_model_configs<DgemmTensorOpConfigs>("dgemm_tensorop_", 8);
}

std::vector<model::TileConfig> sgemm_tensorop_model_configs() {
  return tensorop_model_configs<SgemmTensorOpConfigs>("sgemm_tensorop_", 4);
}

std::vector<model::SimtKernelShape> sgemm_simt_model_shapes() {
  std::vector<model::SimtKernelShape> out;
  for_each_config<SgemmSimtConfigs>([&]<typename Cfg>() {
    model::SimtKernelShape s;
    s.name = "sgemm_simt_" + Cfg::name();
    s.bm = Cfg::kBM, s.bn = Cfg::kBN, s.bk = Cfg::kBK, s.tm = Cfg::kThreadM, s.tn = Cfg::kThreadN;
    s.threads = Cfg::kThreads;
    s.element_bytes = 4;
    s.buffers = Cfg::kStages;  // a cp.async ring: one barrier per slice, as with two buffers
    s.shared_load_bytes = 16;  // every fragment a 128-bit load
    s.warp_m = Cfg::kWarpM, s.warp_n = Cfg::kWarpN, s.blocks_per_sm = Cfg::kBlocksPerSm;
    out.push_back(s);
  });
  return out;
}

std::optional<RegisteredBound> predict_registered(model::MachineDescription const& machine, std::string const& id,
                                                  std::vector<model::KernelResources> const& resources,
                                                  std::int64_t m, std::int64_t n, std::int64_t k) {
  for (int element_bytes : {8, 4}) {
    std::vector<model::TileConfig> configs =
        element_bytes == 8 ? dgemm_tensorop_model_configs() : sgemm_tensorop_model_configs();
    std::erase_if(configs, [&](model::TileConfig const& c) { return c.name != id; });
    if (configs.empty()) continue;
    model::apply_kernel_resources(&configs, resources, model::dense_nn_form(m, k, element_bytes));
    model::TileConfig const& c = configs.front();
    model::Prediction const p = model::predict(machine, c, m, n, k);
    return RegisteredBound{p.flops, p.limiter, p.resident_blocks, c.registers_per_thread};
  }
  std::vector<model::SimtKernelShape> shapes = sgemm_simt_model_shapes();
  std::erase_if(shapes, [&](model::SimtKernelShape const& s) { return s.name != id; });
  if (shapes.empty()) return std::nullopt;
  model::apply_kernel_resources(&shapes, resources, model::dense_nn_simt_form(m));
  model::SimtPrediction const p = model::predict_simt(machine, shapes.front(), m, n, k);
  return RegisteredBound{p.flops, p.limiter, p.resident_blocks, shapes.front().registers_per_thread};
}

}  // namespace gemmkit::gemm
