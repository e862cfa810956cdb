/*! \file
    \brief The C API's promises on random host-operand calls (tests/api/random_calls.hpp).
*/
#include "api/random_calls.hpp"

namespace gemmkit::test {
namespace {

template <typename T>
class RandomApi : public ::testing::Test {};
using ElementTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(RandomApi, ElementTypes);

TYPED_TEST(RandomApi, EveryPromiseHoldsOnRandomCalls) { random_calls::run_random_calls<TypeParam>(false, 600); }

}  // namespace
}  // namespace gemmkit::test
