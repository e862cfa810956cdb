/*! \file
    \brief Context lifetime, options, error recording and status text.
*/
#include "api/context.hpp"
#include "api/dispatch.hpp"

#include "base/device.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

namespace gemmkit {

gk_context_st& resolve_context(gk_context ctx) {
  thread_local gk_context_st default_context;
  return ctx != nullptr ? *ctx : default_context;
}

gk_status fail(gk_context_st& ctx, gk_status status, std::string message, int parameter) {
  ctx.last_error = std::move(message);
  ctx.error_parameter = parameter;
  if (ctx.verbosity >= 1) std::fprintf(stderr, "gemmkit: %s: %s\n", gk_status_string(status), ctx.last_error.c_str());
  return status;
}

void clear_error(gk_context_st& ctx) {
  ctx.last_error.clear();
  ctx.error_parameter = 0;
}

void print_note(std::string const& message) { std::fprintf(stderr, "gemmkit: %s\n", message.c_str()); }

}  // namespace gemmkit

// Its stream may already be destroyed (streams often die before the handles that used them).
gk_context_st::~gk_context_st() { gemmkit::release_workspace_without_stream(workspace); }

using gemmkit::clear_error;
using gemmkit::fail;
using gemmkit::resolve_context;

namespace gemmkit {

gk_fp64_emulation fp64_emulation_from_environment() {
  static gk_fp64_emulation const mode = [] {
    char const* value = std::getenv("GEMMKIT_FP64_EMULATION");
    std::string const text = value != nullptr ? value : "";
    if (text.empty() || text == "off") return GK_FP64_EMULATION_OFF;
    if (text == "on") return GK_FP64_EMULATION_ON;
    if (text == "auto") return GK_FP64_EMULATION_AUTO;
    std::fprintf(stderr, "gemmkit: GEMMKIT_FP64_EMULATION must be off, on or auto, not '%s': off\n", text.c_str());
    return GK_FP64_EMULATION_OFF;
  }();
  return mode;
}

}  // namespace gemmkit

extern "C" {


gk_status gk_create(gk_context* ctx) {
  if (ctx == nullptr) return GK_INVALID_ARGUMENT;
  *ctx = new (std::nothrow) gk_context_st();
  return *ctx != nullptr ? GK_SUCCESS : GK_ALLOCATION_FAILED;
}

gk_status gk_destroy(gk_context ctx) {
  delete ctx;
  return GK_SUCCESS;
}

gk_status gk_set_stream(gk_context ctx, void* stream) {
  auto& c = resolve_context(ctx);
  if (stream != c.stream) gemmkit::release_workspace(c.workspace);  // kept workspaces belong to one stream
  c.stream = stream;
  return GK_SUCCESS;
}

gk_status gk_get_stream(gk_context ctx, void** stream) {
  if (stream == nullptr) return fail(resolve_context(ctx), GK_INVALID_ARGUMENT, "stream out-pointer is NULL", 2);
  *stream = resolve_context(ctx).stream;
  return GK_SUCCESS;
}

gk_status gk_set_device(gk_context ctx, int device) {
  auto& c = resolve_context(ctx);
  clear_error(c);
  int const count = gemmkit::device_count();
  if (device < 0 || device >= count) {
    return fail(c, GK_INVALID_ARGUMENT,
                "device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " usable)", 2);
  }
  if (device != c.device) gemmkit::release_workspace(c.workspace);
  c.device = device;
  return GK_SUCCESS;
}

gk_status gk_get_device(gk_context ctx, int* device) {
  if (device == nullptr) return fail(resolve_context(ctx), GK_INVALID_ARGUMENT, "device out-pointer is NULL", 2);
  *device = resolve_context(ctx).device;
  return GK_SUCCESS;
}

gk_status gk_set_device_memory_budget(gk_context ctx, size_t bytes) {
  auto& c = resolve_context(ctx);
  if (bytes != 0 && c.workspace.bytes > bytes) gemmkit::release_workspace(c.workspace);  // keep within the budget
  c.device_memory_budget = bytes;
  return GK_SUCCESS;
}

gk_status gk_get_device_memory_budget(gk_context ctx, size_t* bytes) {
  if (bytes == nullptr) return fail(resolve_context(ctx), GK_INVALID_ARGUMENT, "bytes out-pointer is NULL", 2);
  *bytes = resolve_context(ctx).device_memory_budget;
  return GK_SUCCESS;
}

gk_status gk_set_backend(gk_context ctx, gk_backend backend) {
  auto& c = resolve_context(ctx);
  clear_error(c);
  if (backend != GK_BACKEND_AUTO && backend != GK_BACKEND_CPU && backend != GK_BACKEND_GPU) {
    return fail(c, GK_INVALID_ARGUMENT, "unknown backend " + std::to_string(int(backend)), 2);
  }
  c.backend = backend;
  return GK_SUCCESS;
}

gk_status gk_set_verbosity(gk_context ctx, int level) {
  resolve_context(ctx).verbosity = level;
  return GK_SUCCESS;
}

gk_status gk_set_variant(gk_context ctx, char const* variant_id) {
  auto& c = resolve_context(ctx);
  try {  // the C API never throws; the registry is built on first use
    c.forced_variant = variant_id != nullptr ? variant_id : "";
    c.forced_variant_found = c.forced_variant.empty() ? nullptr : gemmkit::variant_registry().find(c.forced_variant);
  } catch (std::exception const& e) {
    c.forced_variant.clear();
    c.forced_variant_found = nullptr;
    return fail(c, GK_INTERNAL_ERROR, e.what());
  }
  return GK_SUCCESS;
}

gk_status gk_set_host_gemm_devices(gk_context ctx, int const* devices, int count) {
  auto& c = resolve_context(ctx);
  clear_error(c);
  if (count < 0) return fail(c, GK_INVALID_ARGUMENT, "device count is negative", 3);
  if (count > 0 && devices == nullptr) return fail(c, GK_INVALID_ARGUMENT, "devices is NULL", 2);
  int const usable = gemmkit::device_count();
  for (int i = 0; i < count; ++i) {
    if (devices[i] < 0 || devices[i] >= usable) {
      return fail(c, GK_INVALID_ARGUMENT,
                  "device " + std::to_string(devices[i]) + " does not exist (" + std::to_string(usable) + " usable)", 2);
    }
  }
  c.host_gemm.devices.assign(devices, devices + count);
  return GK_SUCCESS;
}

gk_status gk_set_host_gemm_pipeline(gk_context ctx, int level) {
  auto& c = resolve_context(ctx);
  clear_error(c);
  if (level < 1 || level > 4) return fail(c, GK_INVALID_ARGUMENT, "pipeline level " + std::to_string(level) + " is not 1..4", 2);
  c.host_gemm.pipeline_level = level;
  return GK_SUCCESS;
}

gk_status gk_set_host_memory(gk_context ctx, gk_host_memory hint) {
  auto& c = resolve_context(ctx);
  clear_error(c);
  if (hint != GK_HOST_MEMORY_AUTO && hint != GK_HOST_MEMORY_PINNED && hint != GK_HOST_MEMORY_PAGEABLE) {
    return fail(c, GK_INVALID_ARGUMENT, "unknown host memory hint " + std::to_string(int(hint)), 2);
  }
  c.host_gemm.host_memory = hint;
  return GK_SUCCESS;
}

gk_status gk_set_cpu_share(gk_context ctx, int enabled) {
  resolve_context(ctx).host_gemm.cpu_share = enabled != 0;
  return GK_SUCCESS;
}

gk_status gk_set_host_gemm_min_work(gk_context ctx, double work) {
  auto& c = resolve_context(ctx);
  if (std::isnan(work)) return fail(c, GK_INVALID_ARGUMENT, "host_gemm_min_work is NaN", 2);
  c.host_gemm_min_work = work < 0 ? -1 : work;
  return GK_SUCCESS;
}

gk_status gk_get_host_gemm_min_work(gk_context ctx, double* work) {
  auto& c = resolve_context(ctx);
  if (work == nullptr) return fail(c, GK_INVALID_ARGUMENT, "work out-pointer is NULL", 2);
  if (c.host_gemm_min_work >= 0) {
    *work = c.host_gemm_min_work;
    return GK_SUCCESS;
  }
  if (gemmkit::device_count() == 0) return fail(c, GK_NO_DEVICE, "no usable GPU: host operands stay on the CPU");
  *work = gemmkit::device_host_crossover(c.device).min_work;
  return GK_SUCCESS;
}

gk_status gk_set_fp64_emulation(gk_context ctx, gk_fp64_emulation mode) {
  auto& c = resolve_context(ctx);
  if (mode != GK_FP64_EMULATION_OFF && mode != GK_FP64_EMULATION_ON && mode != GK_FP64_EMULATION_AUTO) {
    return fail(c, GK_INVALID_ARGUMENT, "mode must be GK_FP64_EMULATION_OFF, _ON or _AUTO", 2);
  }
  c.fp64_emulation = mode;
  return GK_SUCCESS;
}

gk_status gk_get_fp64_emulation(gk_context ctx, gk_fp64_emulation* mode) {
  auto& c = resolve_context(ctx);
  if (mode == nullptr) return fail(c, GK_INVALID_ARGUMENT, "mode out-pointer is NULL", 2);
  *mode = c.fp64_emulation;
  return GK_SUCCESS;
}

gk_status gk_set_fp64_emulation_bits(gk_context ctx, int bits) {
  auto& c = resolve_context(ctx);
  if (bits != 0 && (bits < 8 || bits > 62)) return fail(c, GK_INVALID_ARGUMENT, "bits must be 0 or in 8..62", 2);
  c.fp64_emulation_bits = bits;
  return GK_SUCCESS;
}

gk_status gk_set_fp64_emulation_scaling(gk_context ctx, gk_fp64_emulation_scaling scaling) {
  auto& c = resolve_context(ctx);
  if (scaling != GK_FP64_EMULATION_SCALING_DEFAULT && scaling != GK_FP64_EMULATION_SCALING_FAST &&
      scaling != GK_FP64_EMULATION_SCALING_ACCURATE) {
    return fail(c, GK_INVALID_ARGUMENT, "scaling must be GK_FP64_EMULATION_SCALING_DEFAULT, _FAST or _ACCURATE", 2);
  }
  c.fp64_emulation_scaling = scaling;
  return GK_SUCCESS;
}

char const* gk_last_variant(gk_context ctx) { return resolve_context(ctx).last_variant; }
char const* gk_last_call_report(gk_context ctx) { return resolve_context(ctx).last_report.c_str(); }
char const* gk_last_error(gk_context ctx) { return resolve_context(ctx).last_error.c_str(); }
int gk_error_parameter(gk_context ctx) { return resolve_context(ctx).error_parameter; }

char const* gk_status_string(gk_status status) {
  switch (status) {
    case GK_SUCCESS: return "success";
    case GK_INVALID_ARGUMENT: return "invalid argument";
    case GK_NOT_SUPPORTED: return "not supported";
    case GK_NO_DEVICE: return "no usable GPU";
    case GK_CUDA_ERROR: return "CUDA error";
    case GK_ALLOCATION_FAILED: return "allocation failed";
    case GK_INTERNAL_ERROR: return "internal error";
    case GK_NOT_IMPLEMENTED: return "not implemented";
  }
  return "unknown status";
}

int gk_gpu_available(void) { return gemmkit::device_count() > 0 ? 1 : 0; }

}  // extern "C"
