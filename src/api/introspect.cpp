/*! \file
    \brief The introspection C API (gemmkit/introspect.h) over the registry, the performance model
    and the CPU facts.
*/
#include <gemmkit/introspect.h>

#include "base/nvml.hpp"
#include "cpu/cpu_blas.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/fma_peak.hpp"
#include "model/machine.hpp"
#include "variants/variants.hpp"
#if GEMMKIT_WITH_CUDA
#include "cuda/gemm/tensorop_model.hpp"
#endif

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

namespace {

using gemmkit::GemmVariant;

thread_local std::string last_error;

gk_status fail(gk_status status, std::string message) {
  last_error = std::move(message);
  return status;
}

gk_status succeed() {
  last_error.clear();
  return GK_SUCCESS;
}

gk_variant_kind kind_of(gemmkit::VariantKind kind) {
  switch (kind) {
    case gemmkit::VariantKind::kLadder: return GK_VARIANT_LADDER;
    case gemmkit::VariantKind::kPeer: return GK_VARIANT_PEER;
    case gemmkit::VariantKind::kReference: return GK_VARIANT_REFERENCE;
    case gemmkit::VariantKind::kProduction: break;
  }
  return GK_VARIANT_GEMM;
}

bool selectable(GemmVariant const* v) {
  auto const& rules = gemmkit::variant_registry().rules();
  return std::any_of(rules.begin(), rules.end(),
                     [&](gemmkit::SelectionRule const& r) { return r.variant_id == v->info().id; });
}

void describe(GemmVariant const* v, gk_variant_info* out) {
  gemmkit::VariantInfo const& i = v->info();  // lives in the registry, as long as the process
  *out = gk_variant_info{};
  out->id = i.id.c_str();
  out->summary = i.summary.c_str();
  out->dtype = i.dtype == gemmkit::Dtype::kF64 ? GK_DTYPE_F64 : GK_DTYPE_F32;
  out->backend = i.backend == gemmkit::Platform::kCuda ? GK_BACKEND_GPU : GK_BACKEND_CPU;
  out->kind = kind_of(i.kind);
  out->min_sm = i.backend == gemmkit::Platform::kCuda ? i.min_sm : 0;
  out->selectable = selectable(v) ? 1 : 0;
  out->pointer_array = i.pointer_array ? 1 : 0;
}

/// Runs `body` and turns an exception (the registry is built on first use) into GK_INTERNAL_ERROR:
/// the C API never throws.
template <typename Body>
gk_status guarded(Body&& body) {
  try {
    return body();
  } catch (std::exception const& e) {
    return fail(GK_INTERNAL_ERROR, e.what());
  }
}

GemmVariant const* find(char const* id) { return id == nullptr ? nullptr : gemmkit::variant_registry().find(id); }

gk_status unknown(char const* id) {
  return fail(GK_INVALID_ARGUMENT, std::string("no registered variant named '") + (id ? id : "(null)") + "'");
}

void copy_text(std::string const& text, char* out, std::size_t size) { std::snprintf(out, size, "%s", text.c_str()); }

gk_machine to_public(gemmkit::model::MachineDescription const& d) {
  gk_machine m{};
  copy_text(d.name, m.name, sizeof m.name);
  copy_text(d.source, m.source, sizeof m.source);
  m.sm_count = d.sm_count;
  m.sm_clock_hz = d.sm_clock_hz;
  m.fp64_gemm_flops = d.fp64_gemm_flops;
  m.fp32_gemm_flops = d.fp32_gemm_flops;
  m.fp64_tensor_flops = d.fp64_tensor_flops;
  m.fp64_fma_flops = d.fp64_fma_flops;
  m.fp32_fma_flops = d.fp32_fma_flops;
  m.dram_bytes_per_s = d.dram_bytes_per_s;
  m.l2_bytes_per_s = d.l2_bytes_per_s;
  m.h2d_pinned_bytes_per_s = d.h2d_pinned_bytes_per_s;
  m.d2h_pinned_bytes_per_s = d.d2h_pinned_bytes_per_s;
  m.bidirectional_pinned_bytes_per_s = d.bidirectional_pinned_bytes_per_s;
  m.h2d_pageable_bytes_per_s = d.h2d_pageable_bytes_per_s;
  m.d2h_pageable_bytes_per_s = d.d2h_pageable_bytes_per_s;
  m.host_h2d_bytes_per_s = d.host_h2d_bytes_per_s;
  m.host_d2h_bytes_per_s = d.host_d2h_bytes_per_s;
  return m;
}

/// Machines the caller passed to gk_variant_bound, by name, so the model sees every field of a
/// loaded description and not only the public ones.
thread_local std::string loaded_name;
thread_local gemmkit::model::MachineDescription loaded_machine;

}  // namespace

extern "C" {

int64_t gk_variant_count(void) {
  try {
    return int64_t(gemmkit::variant_registry().variants().size());
  } catch (std::exception const& e) {
    fail(GK_INTERNAL_ERROR, e.what());
    return 0;
  }
}

gk_status gk_variant_at(int64_t index, gk_variant_info* info) {
  return guarded([&] {
    auto const variants = gemmkit::variant_registry().variants();
    if (info == nullptr) return fail(GK_INVALID_ARGUMENT, "info is NULL");
    if (index < 0 || index >= int64_t(variants.size())) {
      return fail(GK_INVALID_ARGUMENT, "variant index " + std::to_string(index) + " is not in 0.." +
                                           std::to_string(int64_t(variants.size()) - 1));
    }
    describe(variants[std::size_t(index)], info);
    return succeed();
  });
}

gk_status gk_variant_find(char const* id, gk_variant_info* info) {
  return guarded([&] {
    if (info == nullptr) return fail(GK_INVALID_ARGUMENT, "info is NULL");
    GemmVariant const* v = find(id);
    if (v == nullptr) return unknown(id);
    describe(v, info);
    return succeed();
  });
}

gk_status gk_variant_can_implement(char const* id, gk_op transa, gk_op transb, int64_t m, int64_t n, int64_t k,
                                   int64_t lda, int64_t ldb, int64_t ldc, int64_t batch) {
  return guarded([&] {
    GemmVariant const* v = find(id);
    if (v == nullptr) return unknown(id);
    gemmkit::GemmProblem p;
    p.dtype = v->info().dtype;
    p.trans_a = transa;
    p.trans_b = transb;
    p.m = m, p.n = n, p.k = k;
    p.lda = lda, p.ldb = ldb, p.ldc = ldc;
    p.batch = batch;
    p.stride_a = lda * p.a_cols();
    p.stride_b = ldb * p.b_cols();
    p.stride_c = ldc * n;
    if (v->can_implement(p) != GK_SUCCESS) return fail(GK_NOT_SUPPORTED, std::string(id) + " cannot run this problem");
    return succeed();
  });
}

gk_status gk_machine_builtin(char const* gpu_name, int sm_count, gk_machine* machine) {
  return guarded([&] {
    if (gpu_name == nullptr || machine == nullptr) return fail(GK_INVALID_ARGUMENT, "gpu_name or machine is NULL");
    auto const d = gemmkit::model::builtin_machine(gpu_name, sm_count);
    if (!d) return fail(GK_NOT_SUPPORTED, std::string("no built-in description of ") + gpu_name);
    *machine = to_public(*d);
    return succeed();
  });
}

gk_status gk_machine_load(char const* path, gk_machine* machine) {
  return guarded([&] {
    if (path == nullptr || machine == nullptr) return fail(GK_INVALID_ARGUMENT, "path or machine is NULL");
    gemmkit::model::MachineDescription d;
    if (std::string e = gemmkit::model::load_machine_description(path, &d); !e.empty()) {
      return fail(GK_INVALID_ARGUMENT, e);
    }
    *machine = to_public(d);
    loaded_name = d.name;
    loaded_machine = d;
    return succeed();
  });
}

gk_status gk_variant_bound(char const* id, gk_machine const* machine, int64_t m, int64_t n, int64_t k, double* flops,
                           char const** limiter) {
  return guarded([&] {
    if (flops == nullptr) return fail(GK_INVALID_ARGUMENT, "flops is NULL");
    if (find(id) == nullptr) return unknown(id);
#if GEMMKIT_WITH_CUDA
    // The model reads fields the public struct leaves out (latencies, limits): a machine is the
    // built-in one or the last loaded one of that name, with the public rates laid over it.
    gemmkit::model::MachineDescription d = gemmkit::model::h100_sxm();
    if (machine != nullptr) {
      if (machine->name == loaded_name) {
        d = loaded_machine;
      } else if (auto b = gemmkit::model::builtin_machine(machine->name, machine->sm_count)) {
        d = *b;
      }
    }
    thread_local std::string limit;
    auto const bound = gemmkit::gemm::predict_registered(d, id, {}, m, n, k);
    if (!bound) return fail(GK_NOT_SUPPORTED, std::string("the model has no form of ") + id);
    *flops = bound->flops;
    limit = bound->limiter;
    if (limiter != nullptr) *limiter = limit.c_str();
    return succeed();
#else
    (void)machine, (void)m, (void)n, (void)k, (void)limiter;
    return fail(GK_NOT_SUPPORTED, "this build has no CUDA: the model bounds GPU variants only");
#endif
  });
}

gk_status gk_cpu_info_get(gk_cpu_info* info) {
  return guarded([&] {
    if (info == nullptr) return fail(GK_INVALID_ARGUMENT, "info is NULL");
    static std::string const blas = gemmkit::cpu::cpu_blas_description();
    static std::string const hint = gemmkit::cpu::cpu_blas_core_hint();
    *info = gk_cpu_info{};
    info->tuning_key = gemmkit::cpu::this_cpu_tuning_key();
    info->blas = blas.c_str();
    info->blas_hint = hint.c_str();
    info->fma_vectors = gemmkit::cpu::fma_peak_vectors();
    info->avx2_fma = gemmkit::cpu::cpu_has_avx2_fma() ? 1 : 0;
    info->avx512 = gemmkit::cpu::cpu_has_avx512() ? 1 : 0;
    return succeed();
  });
}

gk_status gk_cpu_fma_peak(gk_dtype dtype, int threads, double* flops) {
  return guarded([&] {
    if (flops == nullptr || threads < 1) return fail(GK_INVALID_ARGUMENT, "flops is NULL or threads < 1");
    if (dtype != GK_DTYPE_F64 && dtype != GK_DTYPE_F32) return fail(GK_INVALID_ARGUMENT, "unknown dtype");
    double const gflops = gemmkit::cpu::fma_peak_gflops(dtype == GK_DTYPE_F64 ? 8 : 4, threads);
    if (gflops <= 0) return fail(GK_NOT_SUPPORTED, "this CPU has neither AVX-512 nor AVX2 with FMA");
    *flops = gflops * 1e9;
    return succeed();
  });
}

gk_status gk_gpu_sm_clock_mhz(char const* pci_bus_id, int* mhz) {
  return guarded([&] {
    if (pci_bus_id == nullptr || mhz == nullptr) return fail(GK_INVALID_ARGUMENT, "pci_bus_id or mhz is NULL");
    std::optional<int> const clock = gemmkit::nvml::sm_clock_mhz(pci_bus_id);
    if (!clock) return fail(GK_NOT_SUPPORTED, std::string("no SM clock for ") + pci_bus_id + " (no NVML or no such GPU)");
    *mhz = *clock;
    return succeed();
  });
}

char const* gk_introspect_error(void) { return last_error.c_str(); }

}  // extern "C"
