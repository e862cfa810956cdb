/*! \file
    \brief The CUDA kernel layer's entry points in a build without CUDA: each reports it.
*/
#include "cuda/scale_c_device.hpp"

namespace gemmkit {

std::string scale_c_device(GemmProblem const&, double, void*, ExecutionContext const&) {
  return "gemmkit was built without CUDA";
}

}  // namespace gemmkit
