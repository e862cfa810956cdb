/*! \file
    \brief NVML queries answer nothing for a GPU they cannot find (and where the library is absent).
*/
#include "base/nvml.hpp"

#include <gtest/gtest.h>

namespace gemmkit::nvml {
namespace {

TEST(Nvml, UnknownBusIdAnswersNothing) {
  EXPECT_FALSE(sm_clock_mhz("").has_value());
  EXPECT_FALSE(total_energy_joules("0000:ff:1f.7").has_value());
  EXPECT_FALSE(power_limit_watts("not a bus id").has_value());
}

}  // namespace
}  // namespace gemmkit::nvml
