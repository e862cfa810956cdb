/*! \file
    \brief The registered FP64 tensor-core configs described for the performance model.
*/
#pragma once

#include "model/gemm_model.hpp"

#include <vector>

namespace gemmkit::gemm {

/// One TileConfig per DgemmTensorOpConfigs entry, in order (registers left to the launch bounds).
std::vector<model::TileConfig> dgemm_tensorop_model_configs();

}  // namespace gemmkit::gemm
