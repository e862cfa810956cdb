/*! \file
    \brief The device interface for a build without CUDA: no devices, every pointer is host memory.
*/
#include "base/device.hpp"

namespace gemmkit {

int device_count() { return 0; }
int compute_capability(int) { return 0; }
int multiprocessor_count(int) { return 0; }
std::string device_name(int) { return {}; }
bool cuda_driver_loaded() { return false; }
MemoryLocation locate(void const*) { return MemoryLocation::kHost; }
std::string use_device(int) { return "gemmkit was built without CUDA"; }
std::string copy_to_host(void*, void const*, std::size_t, ExecutionContext const&) {
  return "gemmkit was built without CUDA";
}
std::string device_allocate(void**, std::size_t, ExecutionContext const&) { return "gemmkit was built without CUDA"; }
void device_free(void*, ExecutionContext const&) {}
std::string acquire_workspace(DeviceWorkspace&, std::size_t, std::size_t, ExecutionContext const&, WorkspaceLease*) {
  return "gemmkit was built without CUDA";
}
void return_workspace(WorkspaceLease const&, ExecutionContext const&) {}
void release_workspace(DeviceWorkspace&) {}
void release_workspace_without_stream(DeviceWorkspace&) {}

}  // namespace gemmkit
