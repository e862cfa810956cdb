/*! \file
    \brief The registered tile configs described for the performance model: the FP64 tensor-core
    configs, the FP32 tensor-core ones (the same kernel on float operands) and the FP32 SIMT ones.
*/
#pragma once

#include "model/gemm_model.hpp"
#include "model/kernel_resources.hpp"
#include "model/ladder_model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gemmkit::gemm {

/// One TileConfig per DgemmTensorOpConfigs entry, in order (registers left to the launch bounds).
std::vector<model::TileConfig> dgemm_tensorop_model_configs();

/// One TileConfig per SgemmTensorOpConfigs entry: 4-byte operands cross L2.
std::vector<model::TileConfig> sgemm_tensorop_model_configs();

/// One shape per SgemmSimtConfigs entry, named by its registry id.
std::vector<model::SimtKernelShape> sgemm_simt_model_shapes();

/// The model's view of one registered config at m x n x k.
struct RegisteredBound {
  double flops = 0;
  std::string limiter;
  int resident_blocks = 0;
  int registers = 0;  ///< of the compiled NN instance; 0 where `resources` has none
};

/// The bound of the registered config `id` (plain form: an FP64 or FP32 tensor-core config or an
/// FP32 SIMT one) with its dense NN instance's compiled resources where `resources` has them;
/// nullopt for ids the model does not name (split-K, stream-K and packed forms, other kernels).
std::optional<RegisteredBound> predict_registered(model::MachineDescription const& machine, std::string const& id,
                                                  std::vector<model::KernelResources> const& resources,
                                                  std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace gemmkit::gemm
