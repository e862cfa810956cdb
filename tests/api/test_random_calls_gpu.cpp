/*! \file
    \brief The C API's promises on random device-operand calls (tests/api/random_calls.hpp): device
    matrices, host pointer arrays of them, the GPU path's variants.
*/
#include "api/random_calls.hpp"

namespace gemmkit::test {
namespace {

template <typename T>
class RandomApiGpu : public ::testing::Test {};
using ElementTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(RandomApiGpu, ElementTypes);

TYPED_TEST(RandomApiGpu, EveryPromiseHoldsOnRandomDeviceCalls) {
  if (!gk_gpu_available() || device_memory() == nullptr) GTEST_SKIP() << "no CUDA device";
  random_calls::run_random_calls<TypeParam>(true, 400);
}

}  // namespace
}  // namespace gemmkit::test
