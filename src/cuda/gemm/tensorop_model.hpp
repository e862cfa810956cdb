/*! \file
    \brief The registered tile configs described for the performance model: the FP64 tensor-core
    configs, the FP32 tensor-core ones (the same kernel on float operands) and the FP32 SIMT ones.
*/
#pragma once

#include "model/gemm_model.hpp"
#include "model/ladder_model.hpp"

#include <vector>

namespace gemmkit::gemm {

/// One TileConfig per DgemmTensorOpConfigs entry, in order (registers left to the launch bounds).
std::vector<model::TileConfig> dgemm_tensorop_model_configs();

/// One TileConfig per SgemmTensorOpConfigs entry: 4-byte operands cross L2.
std::vector<model::TileConfig> sgemm_tensorop_model_configs();

/// One shape per SgemmSimtConfigs entry, named by its registry id.
std::vector<model::SimtKernelShape> sgemm_simt_model_shapes();

}  // namespace gemmkit::gemm
