/*! \file
    \brief The CPU BLAS's core and the hint when it leaves the vector units idle.
*/
#include "cpu/cpu_blas.hpp"

#include "cpu/cpu_features.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>

namespace gemmkit::cpu {

CpuBlasGemms const& cpu_blas_gemms() {
  static CpuBlasGemms const gemms = [] {
    CpuBlasGemms found{&cblas_dgemm, &cblas_sgemm};  // the names' first definitions: the fallback
    // openblas_get_config is no BLAS routine, so no drop-in defines it: its library is OpenBLAS's.
    Dl_info where{}, named{};
    if (dladdr(reinterpret_cast<void*>(&openblas_get_config), &where) == 0 || where.dli_fname == nullptr) return found;
    // The names already lead to OpenBLAS (nothing interposed them): nothing to look up.
    if (dladdr(reinterpret_cast<void*>(&cblas_dgemm), &named) != 0 && named.dli_fbase == where.dli_fbase &&
        dladdr(reinterpret_cast<void*>(&cblas_sgemm), &named) != 0 && named.dli_fbase == where.dli_fbase) {
      return found;
    }
    void* const library = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (library == nullptr) return found;  // linked statically into the executable: the names are its own
    void* const dgemm = dlsym(library, "cblas_dgemm");
    void* const sgemm = dlsym(library, "cblas_sgemm");
    if (dgemm != nullptr && sgemm != nullptr) {
      found.dgemm = reinterpret_cast<decltype(&cblas_dgemm)>(dgemm);
      found.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(sgemm);
    }
    return found;  // the handle stays open: the library is loaded for the process's lifetime anyway
  }();
  return gemms;
}

std::string cpu_blas_description() {
  return std::string("OpenBLAS ") + openblas_get_corename() + " (" + openblas_get_config() + ")";
}

VectorIsa this_cpu_vector_isa() {
  __builtin_cpu_init();
  return {cpu_has_avx2_fma(), cpu_has_avx512(), cpu_has_avx512() && __builtin_cpu_supports("avx512bf16")};
}

std::string cpu_blas_core_hint(std::string_view core, VectorIsa isa) {
  // OpenBLAS's x86-64 cores without AVX kernels (its DYNAMIC_ARCH fallbacks among them).
  constexpr std::array<std::string_view, 11> kSseCores = {"Prescott", "Core2",  "Penryn",   "Dunnington",
                                                          "Nehalem",  "Atom",   "Opteron",  "Opteron_SSE3",
                                                          "Barcelona", "Nano",  "Bobcat"};
  bool const sse_only = std::find(kSseCores.begin(), kSseCores.end(), core) != kSseCores.end();
  if (!sse_only || !isa.avx2_fma) return {};
  char const* wanted = isa.avx512_bf16 ? "Cooperlake" : isa.avx512 ? "SkylakeX" : "Haswell";
  return "OpenBLAS runs its " + std::string(core) + " (SSE) kernels on this " +
         (isa.avx512 ? "AVX-512" : "AVX2") + " CPU, whose model it does not know: OPENBLAS_CORETYPE=" + wanted +
         " in the environment selects its vector kernels";
}

std::string cpu_blas_core_hint() { return cpu_blas_core_hint(openblas_get_corename(), this_cpu_vector_isa()); }

}  // namespace gemmkit::cpu
