/*! \file
    \brief The CPU BLAS core hint: silent when OpenBLAS's core uses the CPU's vectors, the right
    OPENBLAS_CORETYPE named when it falls back to SSE on an AVX2 or AVX-512 CPU.
*/
#include "cpu/cpu_blas.hpp"

#include <gtest/gtest.h>

namespace gemmkit::cpu {
namespace {

TEST(CpuBlasCoreHint, NamesTheCoreTypeThatUsesTheCpusVectors) {
  VectorIsa const sapphire_rapids{true, true, true}, skylake{true, true, false}, haswell{true, false, false};
  EXPECT_NE(cpu_blas_core_hint("Prescott", sapphire_rapids).find("OPENBLAS_CORETYPE=Cooperlake"), std::string::npos);
  EXPECT_NE(cpu_blas_core_hint("Prescott", skylake).find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos);
  EXPECT_NE(cpu_blas_core_hint("Nehalem", haswell).find("OPENBLAS_CORETYPE=Haswell"), std::string::npos);
}

TEST(CpuBlasCoreHint, SilentWhenTheCoreFitsTheCpu) {
  EXPECT_EQ(cpu_blas_core_hint("Cooperlake", {true, true, true}), "");
  EXPECT_EQ(cpu_blas_core_hint("Haswell", {true, false, false}), "");
  EXPECT_EQ(cpu_blas_core_hint("Prescott", {false, false, false}), "");  // an SSE-only CPU: Prescott is right
}

TEST(CpuBlasCoreHint, TheLoadedLibraryIsDescribed) {
  EXPECT_EQ(cpu_blas_description().rfind("OpenBLAS ", 0), 0u);
  std::string const hint = cpu_blas_core_hint();  // empty where OpenBLAS knows the CPU (CI, the dev VM)
  EXPECT_TRUE(hint.empty() || hint.find("OPENBLAS_CORETYPE=") != std::string::npos) << hint;
}

}  // namespace
}  // namespace gemmkit::cpu
