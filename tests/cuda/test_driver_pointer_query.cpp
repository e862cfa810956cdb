/*! \file
    \brief The driver's pointer query against the runtime's, and locate() built on it, for every
    kind of memory a caller may pass: device, stream-ordered, managed, pinned and plain host.
*/
#include "core/device.hpp"
#include "cuda/driver_pointer_query.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace gemmkit {
namespace {

struct Allocation {
  std::string name;
  void* pointer = nullptr;
  std::function<void(void*)> release;
};

TEST(DriverPointerQuery, AgreesWithTheRuntimeOnEveryKindOfMemory) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    GTEST_SKIP() << "no CUDA device";
  }
  ASSERT_NE(driver_pointer_get_attributes(), nullptr) << "CUDA 12.5+ runtime and driver give the entry point";
  std::vector<double> pageable(512);  // 4096 bytes, as the others
  std::vector<Allocation> memory;
  auto add = [&](char const* name, cudaError_t status, void* pointer, std::function<void(void*)> release) {
    ASSERT_EQ(status, cudaSuccess) << name;
    memory.push_back({name, pointer, std::move(release)});
  };
  void* p = nullptr;
  add("cudaMalloc", cudaMalloc(&p, 4096), p, [](void* q) { cudaFree(q); });
  add("cudaMallocAsync", cudaMallocAsync(&p, 4096, nullptr), p, [](void* q) { cudaFreeAsync(q, nullptr); });
  add("cudaMallocManaged", cudaMallocManaged(&p, 4096), p, [](void* q) { cudaFree(q); });
  add("cudaMallocHost", cudaMallocHost(&p, 4096), p, [](void* q) { cudaFreeHost(q); });
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  memory.push_back({"pageable host", pageable.data(), {}});

  for (Allocation const& a : memory) {
    cudaPointerAttributes runtime{};
    ASSERT_EQ(cudaPointerGetAttributes(&runtime, a.pointer), cudaSuccess) << a.name;
    bool const runtime_device = runtime.type == cudaMemoryTypeDevice || runtime.type == cudaMemoryTypeManaged;
    DriverPointerKind kind;
    ASSERT_TRUE(driver_pointer_kind(a.pointer, &kind)) << a.name;
    EXPECT_EQ(kind.managed, runtime.type == cudaMemoryTypeManaged) << a.name;
    EXPECT_EQ(kind.managed || kind.memory_type == CU_MEMORYTYPE_DEVICE, runtime_device) << a.name;
    // Interior pointers too: an operand may start anywhere in its allocation.
    void const* inside = static_cast<char const*>(a.pointer) + 1000;
    EXPECT_EQ(locate(a.pointer), runtime_device ? MemoryLocation::kDevice : MemoryLocation::kHost) << a.name;
    EXPECT_EQ(locate(inside), locate(a.pointer)) << a.name;
  }
  for (Allocation const& a : memory) {
    if (a.release) a.release(a.pointer);
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
}  // namespace gemmkit
