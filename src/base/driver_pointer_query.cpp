/*! \file
    \brief The driver's pointer query through the runtime's entry-point lookup.
*/
#include "base/driver_pointer_query.hpp"

#include "base/driver_entry_point.hpp"

#include <cstdint>

namespace gemmkit {

PointerGetAttributes driver_pointer_get_attributes() {
  static PointerGetAttributes const function =
      reinterpret_cast<PointerGetAttributes>(driver_entry_point("cuPointerGetAttributes"));
  return function;
}

bool driver_pointer_kind(void const* pointer, DriverPointerKind* kind) {
  PointerGetAttributes const query = driver_pointer_get_attributes();
  if (query == nullptr) return false;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
  unsigned memory_type = 0;
  unsigned managed = 0;
  void* values[] = {&memory_type, &managed};
  // Unlike the singular query, this one answers memory CUDA does not know with zeros, not an error.
  if (query(2, attributes, values, CUdeviceptr(reinterpret_cast<std::uintptr_t>(pointer))) != CUDA_SUCCESS) {
    return false;
  }
  *kind = {memory_type, managed != 0};
  return true;
}

}  // namespace gemmkit
