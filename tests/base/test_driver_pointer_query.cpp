/*! \file
    \brief The driver's pointer query against the runtime's, and locate() built on it, for every
    kind of memory a caller may pass: device, stream-ordered, managed, pinned and plain host.
*/
#include "base/device.hpp"
#include "base/driver_pointer_query.hpp"

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
  // Each allocation's status is taken before the pointer is read (the two must not be arguments of
  // one call: their order of evaluation is unspecified).
  auto add = [&](char const* name, cudaError_t status, void** pointer, std::function<void(void*)> release) {
    ASSERT_EQ(status, cudaSuccess) << name;
    memory.push_back({name, *pointer, std::move(release)});
  };
  void* device = nullptr;
  void* stream_ordered = nullptr;
  void* managed = nullptr;
  void* pinned = nullptr;
  add("cudaMalloc", cudaMalloc(&device, 4096), &device, [](void* q) { EXPECT_EQ(cudaFree(q), cudaSuccess); });
  add("cudaMallocAsync", cudaMallocAsync(&stream_ordered, 4096, nullptr), &stream_ordered,
      [](void* q) { EXPECT_EQ(cudaFreeAsync(q, nullptr), cudaSuccess); });
  add("cudaMallocManaged", cudaMallocManaged(&managed, 4096), &managed,
      [](void* q) { EXPECT_EQ(cudaFree(q), cudaSuccess); });
  add("cudaMallocHost", cudaMallocHost(&pinned, 4096), &pinned, [](void* q) { EXPECT_EQ(cudaFreeHost(q), cudaSuccess); });
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
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "no error left behind for the next launch to report";
}

}  // namespace
}  // namespace gemmkit
