/// \brief main() of gemmkit_gpu_tests: runs every test in one process and, when no CUDA device is
/// present, tells CTest the run was skipped (exit code 77) rather than passed.
#include <gemmkit/gemmkit.h>
#include <gtest/gtest.h>

#include <cstdio>

namespace {
// CTest's SKIP_RETURN_CODE for the `gpu` entry (tests/CMakeLists.txt).
constexpr int kSkippedWithoutDevice = 77;
}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  // A failure without a device is a real failure (a test that forgot to skip): report it as such.
  if (result == 0 && !gk_gpu_available()) {
    std::printf("no CUDA device: every GPU test skipped\n");
    return kSkippedWithoutDevice;
  }
  return result;
}
