/*! \file
    \brief The gk_context internals: stream, device, memory budget, options, the last error and the
    device workspace kept between calls.
*/
#pragma once

#include "base/device.hpp"
#include "base/problem.hpp"

#include <gemmkit/gemmkit.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gemmkit {
class GemmVariant;
}

namespace gemmkit {
/// GEMMKIT_FP64_EMULATION (off, on, auto; unset or unknown: off, an unknown value said once on stderr).
gk_fp64_emulation fp64_emulation_from_environment();
}  // namespace gemmkit

struct gk_context_st {
  gk_context_st() = default;
  ~gk_context_st();
  gk_context_st(gk_context_st const&) = delete;
  gk_context_st& operator=(gk_context_st const&) = delete;

  void* stream = nullptr;
  int device = 0;
  std::size_t device_memory_budget = 0;
  gk_backend backend = GK_BACKEND_AUTO;
  int verbosity = 0;
  std::string forced_variant;
  /// The registered variant forced_variant names, looked up once by gk_set_variant (nullptr: none).
  gemmkit::GemmVariant const* forced_variant_found = nullptr;
  /// A registered id (the registry lives as long as the process) or a literal: set on every call
  /// without copying a string.
  char const* last_variant = "";
  std::string last_report;  ///< gk_last_call_report
  std::string last_error;
  int error_parameter = 0;
  gemmkit::DeviceWorkspace workspace;

  /// Host-resident GEMM options (gk_set_host_gemm_devices and the setters after it).
  gemmkit::HostGemmSettings host_gemm;
  /// gk_set_host_gemm_min_work; negative: the crossover of the context's GPU.
  double host_gemm_min_work = -1;
  /// gk_set_fp64_emulation (GEMMKIT_FP64_EMULATION at creation) and gk_set_fp64_emulation_bits.
  gk_fp64_emulation fp64_emulation = gemmkit::fp64_emulation_from_environment();
  int fp64_emulation_bits = 0;  ///< 0: as many as FP64 accuracy needs
  gk_fp64_emulation_scaling fp64_emulation_scaling = GK_FP64_EMULATION_SCALING_DEFAULT;
  /// What the host-resident variants keep between calls (their buffers, the CPU share's rates).
  std::unique_ptr<gemmkit::VariantState> host_gemm_state;
};

namespace gemmkit {

/// Where the context's calls run; overlaps_previous_kernel lets the call's kernel start while the
/// stream's previous one drains (a grouped call's second and later groups).
inline ExecutionContext execution_context(gk_context_st const& ctx, bool overlaps_previous_kernel = false) {
  ExecutionContext exec{ctx.stream, ctx.device, overlaps_previous_kernel};
  exec.fp64_emulation_bits = ctx.fp64_emulation_bits;
  exec.fp64_emulation_accurate =
      ctx.fp64_emulation_scaling == GK_FP64_EMULATION_SCALING_ACCURATE ||
      (ctx.fp64_emulation_scaling == GK_FP64_EMULATION_SCALING_DEFAULT && ctx.fp64_emulation == GK_FP64_EMULATION_AUTO);
  return exec;
}

/// The context a call should use: ctx itself, or a per-thread default when ctx is NULL.
gk_context_st& resolve_context(gk_context ctx);

/// Records a failure on the context and returns the status, so callers can `return fail(...)`.
gk_status fail(gk_context_st& ctx, gk_status status, std::string message, int parameter = 0);

/// Clears the last error; called at the start of every API call.
void clear_error(gk_context_st& ctx);

/// Prints "gemmkit: <message>" to stderr.
void print_note(std::string const& message);

/// Prints a note when ctx.verbosity >= level. The parts (strings, string literals) are joined only
/// then, so a quiet context formats nothing on the call path.
template <typename... Parts>
void note(gk_context_st const& ctx, int level, Parts const&... parts) {
  if (ctx.verbosity < level) return;
  std::string message;
  (message += ... += parts);
  print_note(message);
}

}  // namespace gemmkit
