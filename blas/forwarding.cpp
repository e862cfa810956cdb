/*! \file
    \brief The forwarding table behind the generated entry points: filled from the CPU BLAS at the first
    forwarded call.
*/
#include "forwarding.hpp"

#include "settings.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <mutex>

namespace gemmkit::blas {

bool in_this_library(void const* address) {
  Dl_info mine{}, theirs{};
  static int const anchor = 0;
  return dladdr(&anchor, &mine) != 0 && dladdr(address, &theirs) != 0 && mine.dli_fbase == theirs.dli_fbase;
}

}  // namespace gemmkit::blas

namespace {

char const* const kForwardedRoutines[] = {
#include "forwarded_routines.inc"
};
constexpr std::size_t kForwardedCount = std::size(kForwardedRoutines);

[[noreturn]] void give_up(std::string const& message) {
  std::fprintf(stderr, "gemmkit BLAS: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(127);
}

/// Stops the process: the CPU BLAS lacks `routine`, or hands it back to this library.
[[noreturn]] void give_up_without(char const* routine) {
  give_up(std::string(routine) + " is not provided by the CPU BLAS '" + gemmkit::blas::settings().cpu_library +
          "' (GEMMKIT_BLAS_CPU_LIB), or resolves to gemmkit's own library (name a CPU BLAS by its path)");
}

void* cpu_library() {
  static void* const handle = [] {
    std::string const& name = gemmkit::blas::settings().cpu_library;
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      char const* why = dlerror();
      give_up("cannot load the CPU BLAS '" + name + "' (GEMMKIT_BLAS_CPU_LIB): " + (why ? why : "unknown error"));
    }
    return h;
  }();
  return handle;
}

}  // namespace

/// The generated entry points jump through these slots (hidden: the assembly reads them directly).
extern "C" {
__attribute__((visibility("hidden"))) void* gk_blas_forward_table[kForwardedCount] = {};
}

/// The slow path of an entry point's first call: resolves the table once, returns the routine's target.
extern "C" __attribute__((visibility("hidden"))) void* gk_blas_forward_target(unsigned index) {
  static std::once_flag resolved;
  std::call_once(resolved, [] {
    for (std::size_t i = 0; i < kForwardedCount; ++i) {
      // Left empty when missing or our own: a call then comes back here and stops with the name.
      if (void* const target = gemmkit::blas::cpu_routine_if_present(kForwardedRoutines[i]); target != nullptr) {
        __atomic_store_n(&gk_blas_forward_table[i], target, __ATOMIC_RELEASE);
      }
    }
  });
  if (index >= kForwardedCount) give_up("forwarding slot out of range");
  void* const target = __atomic_load_n(&gk_blas_forward_table[index], __ATOMIC_ACQUIRE);
  if (target == nullptr) give_up_without(kForwardedRoutines[index]);
  return target;
}

namespace gemmkit::blas {

void* cpu_routine(char const* name) {
  void* const target = cpu_routine_if_present(name);
  if (target == nullptr) give_up_without(name);
  return target;
}

void* cpu_routine_if_present(char const* name) {
  void* const target = dlsym(cpu_library(), name);
  return target != nullptr && !in_this_library(target) ? target : nullptr;
}

}  // namespace gemmkit::blas
