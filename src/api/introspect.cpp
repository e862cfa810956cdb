/*! \file
    \brief The introspection C API (gemmkit/introspect.h) over the registry and its selection table,
    the performance model and the CPU facts.
*/
#include <gemmkit/introspect.h>

#include "base/nvml.hpp"
#include "cpu/cpu_blas.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/fma_peak.hpp"
#include "model/kernel_resources.hpp"
#include "model/machine.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#if GEMMKIT_WITH_CUDA
#include "cuda/gemm/tensorop_model.hpp"
#endif

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

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
  m.smem_bytes_per_s = d.smem_bytes_per_s();
  m.lds64_latency_cycles = d.lds64_latency_cycles;
  m.dmma_latency_cycles = d.dmma_latency_cycles;
  m.l2_load_latency_cycles = d.l2_load_latency_cycles;
  m.barrier_latency_cycles = d.barrier_latency_cycles;
  m.dmma_energy_j_per_flop = d.dmma_energy_j_per_flop;
  m.l2_energy_j_per_byte = d.l2_energy_j_per_byte;
  m.smem_energy_j_per_byte = d.smem_energy_j_per_byte;
  m.power_limit_w = d.power_limit_w;
  m.idle_power_w = d.idle_power_w;
  m.host_gemm_min_work = d.host_gemm_min_work;
  m.host_gemm_min_k = d.host_gemm_min_k;
  return m;
}

/// Machines the caller passed to gk_variant_bound, by name, so the model sees every field of a
/// loaded description and not only the public ones.
thread_local std::string loaded_name;
thread_local gemmkit::model::MachineDescription loaded_machine;

/// The model reads fields the public struct leaves out (latencies, limits): a machine is the
/// built-in one or the last loaded one of that name.
gemmkit::model::MachineDescription model_machine(gk_machine const* machine) {
  gemmkit::model::MachineDescription d = gemmkit::model::h100_sxm();
  if (machine == nullptr) return d;
  if (machine->name == loaded_name) return loaded_machine;
  if (auto b = gemmkit::model::builtin_machine(machine->name, machine->sm_count)) return *b;
  return d;
}

}  // namespace

struct gk_kernel_resources {
  std::vector<gemmkit::model::KernelResources> rows;
};

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
    gemmkit::model::MachineDescription const d = model_machine(machine);
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

int64_t gk_selection_rule_count(void) {
  try {
    return int64_t(gemmkit::variant_registry().rules().size());
  } catch (std::exception const& e) {
    fail(GK_INTERNAL_ERROR, e.what());
    return 0;
  }
}

gk_status gk_selection_rule(int64_t index, gk_selection_rule_info* info) {
  return guarded([&] {
    auto const& rules = gemmkit::variant_registry().rules();  // lives as long as the process
    if (info == nullptr) return fail(GK_INVALID_ARGUMENT, "info is NULL");
    if (index < 0 || index >= int64_t(rules.size())) {
      return fail(GK_INVALID_ARGUMENT, "rule index " + std::to_string(index) + " is not in 0.." +
                                           std::to_string(int64_t(rules.size()) - 1));
    }
    gemmkit::SelectionRule const& r = rules[std::size_t(index)];
    *info = gk_selection_rule_info{};
    info->backend = r.backend == gemmkit::Platform::kCuda ? GK_BACKEND_GPU : GK_BACKEND_CPU;
    info->dtype = r.dtype == gemmkit::Dtype::kF64 ? GK_DTYPE_F64 : GK_DTYPE_F32;
    info->min_work = r.min_work;
    info->min_work_from_machine = r.min_work_from_machine ? 1 : 0;
    info->max_work = r.max_work;
    info->max_mn = r.max_mn;
    info->min_k = r.min_k;
    info->max_k = r.max_k;
    info->min_side = r.min_side;
    info->min_wave_eff = r.min_wave_eff;
    info->alignment = r.alignment == gemmkit::Alignment::kAny
                          ? GK_ALIGNMENT_ANY
                          : (r.alignment == gemmkit::Alignment::kAligned ? GK_ALIGNMENT_ALIGNED : GK_ALIGNMENT_MISALIGNED);
    info->trans = r.trans.c_str();
    info->variant_id = r.variant_id.c_str();
    return succeed();
  });
}

gk_status gk_machine_default(gk_machine* machine) {
  return guarded([&] {
    if (machine == nullptr) return fail(GK_INVALID_ARGUMENT, "machine is NULL");
    *machine = to_public(gemmkit::model::h100_sxm());
    return succeed();
  });
}

gk_status gk_kernel_resources_load(char const* path, gk_kernel_resources** resources) {
  return guarded([&] {
    if (path == nullptr || resources == nullptr) return fail(GK_INVALID_ARGUMENT, "path or resources is NULL");
    auto loaded = std::make_unique<gk_kernel_resources>();
    if (std::string e = gemmkit::model::load_kernel_resources(path, &loaded->rows); !e.empty()) {
      return fail(GK_INVALID_ARGUMENT, e);
    }
    *resources = loaded.release();
    return succeed();
  });
}

void gk_kernel_resources_free(gk_kernel_resources* resources) { delete resources; }

gk_status gk_model_rank(gk_dtype dtype, gk_machine const* machine, gk_kernel_resources const* resources, int64_t m,
                        int64_t n, int64_t k, gk_model_bound* bounds, int64_t capacity, int64_t* count) {
  return guarded([&] {
    if (count == nullptr || capacity < 0 || (bounds == nullptr && capacity > 0)) {
      return fail(GK_INVALID_ARGUMENT, "count is NULL, capacity < 0, or bounds NULL with capacity > 0");
    }
    if (dtype != GK_DTYPE_F64 && dtype != GK_DTYPE_F32) return fail(GK_INVALID_ARGUMENT, "unknown dtype");
#if GEMMKIT_WITH_CUDA
    namespace model = gemmkit::model;
    model::MachineDescription const d = model_machine(machine);
    std::vector<model::KernelResources> const none;
    auto const& rows = resources != nullptr ? resources->rows : none;
    // The strings handed out (ids, limiters) live here until the next call on this thread.
    thread_local std::vector<std::string> ids, limiters;
    std::vector<gk_model_bound> out;
    ids.clear(), limiters.clear();
    auto const tensorop = [&](std::vector<model::TileConfig> configs, model::InstanceForm const& form, int element_bytes) {
      std::vector<int> compiled;  // applied one by one: which configs the resources matched
      for (model::TileConfig& c : configs) {
        std::vector<model::TileConfig> one{c};
        compiled.push_back(model::apply_kernel_resources(&one, rows, form));
        c = one.front();
      }
      for (auto const& [c, p] : model::rank(d, configs, m, n, k)) {
        gk_model_bound b{};
        auto const at = std::find_if(configs.begin(), configs.end(), [&](auto const& x) { return x.name == c.name; });
        b.compiled = compiled[std::size_t(at - configs.begin())];
        b.registers = c.registers_per_thread;
        b.warps_per_sm = p.warps_per_sm;
        b.copy_bytes = form.vec_a * element_bytes;
        b.spill_bytes_per_k_tile = c.spill_bytes_per_k_tile;
        b.l2_bytes_per_flop = p.l2_bytes_per_flop;
        b.l2_flops = p.l2_ceiling;
        b.smem_flops = p.smem_ceiling;
        b.power_flops = p.power_ceiling;
        b.wave_efficiency = p.wave_efficiency;
        b.latency_efficiency = p.latency_efficiency;
        b.flops = p.flops;
        ids.push_back(c.name), limiters.push_back(p.limiter), out.push_back(b);
      }
    };
    if (dtype == GK_DTYPE_F64) {
      tensorop(gemmkit::gemm::dgemm_tensorop_model_configs(), model::dense_nn_form(m, k), 8);
    } else {
      tensorop(gemmkit::gemm::sgemm_tensorop_model_configs(), model::dense_nn_form(m, k, 4), 4);
      model::InstanceForm const form = model::dense_nn_simt_form(m);
      for (model::SimtKernelShape s : gemmkit::gemm::sgemm_simt_model_shapes()) {
        std::vector<model::SimtKernelShape> one{s};
        gk_model_bound b{};
        b.compiled = model::apply_kernel_resources(&one, rows, form);
        s = one.front();
        model::SimtPrediction const p = model::predict_simt(d, s, m, n, k);
        b.simt = 1;
        b.registers = p.registers_per_thread;
        b.registers_estimated = s.registers_per_thread > 0 ? 0 : 1;
        b.loop_fma = s.loop_instructions > 0 ? s.loop_fma : 0;
        b.loop_instructions = s.loop_instructions > 0 ? s.loop_instructions : 0;
        b.warps_per_sm = p.warps_per_sm;
        b.copy_bytes = form.vec_a * 4;
        b.l2_bytes_per_flop = p.l2_bytes_per_flop;
        b.l2_flops = p.l2_ceiling;
        b.smem_flops = p.smem_ceiling;
        b.flops = p.flops;
        ids.push_back(s.name), limiters.push_back(p.limiter), out.push_back(b);
      }
    }
    for (std::size_t i = 0; i < out.size(); ++i) out[i].id = ids[i].c_str(), out[i].limiter = limiters[i].c_str();
    *count = int64_t(out.size());
    std::copy_n(out.begin(), std::min<std::size_t>(out.size(), std::size_t(capacity)), bounds);
    return succeed();
#else
    (void)machine, (void)resources, (void)m, (void)n, (void)k, (void)bounds;
    return fail(GK_NOT_SUPPORTED, "this build has no CUDA: the model ranks GPU configs only");
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
