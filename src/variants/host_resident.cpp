/*! \file
    \brief The host-resident GEMM (seed 004's pipeline, src/ooc) as a registered variant: host operands,
    computed on the GPUs, its blocks' kernels picked from the same registry.
*/
#include "base/device.hpp"
#include "ooc/cpu_share.hpp"
#include "ooc/executor.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"

#include <memory>
#include <string>

namespace gemmkit {

namespace {

/// What the pipeline keeps on a context: device arenas and pinned rings (milliseconds to obtain)
/// and the rates the CPU/GPU split follows, measured call by call.
struct HostResidentState final : VariantState {
  ooc::ExecutorCachePtr buffers = ooc::make_executor_cache();
  ooc::ShareState share;
};

ooc::HostMemory host_memory(gk_host_memory hint) {
  return hint == GK_HOST_MEMORY_PINNED     ? ooc::HostMemory::kPinned
         : hint == GK_HOST_MEMORY_PAGEABLE ? ooc::HostMemory::kPageable
                                           : ooc::HostMemory::kAuto;
}

class HostResidentGemm final : public GemmVariant {
 public:
  HostResidentGemm(Dtype dtype, Registry const& kernels) : kernels_(&kernels) {
    info_.id = dtype == Dtype::kF64 ? "dgemm_host_resident" : "sgemm_host_resident";
    info_.dtype = dtype;
    info_.backend = Platform::kCpu;
    info_.kind = VariantKind::kProduction;
    info_.summary = "host operands through the GPU pipeline: panels in, the registered kernel, C back (seed 004)";
    info_.stages_host_operands = true;
  }

  VariantInfo const& info() const override { return info_; }

  gk_status can_implement(GemmProblem const& p) const override {
    bool const single = p.batch == 1 && !p.pointer_array && p.dtype == info_.dtype;
    return single && device_count() > 0 ? GK_SUCCESS : GK_NOT_SUPPORTED;
  }

  gk_status run(GemmArguments const& args, void*, ExecutionContext const& exec) const override {
    HostGemmSettings const fallback;
    HostGemmSettings const& settings = exec.host_gemm != nullptr ? *exec.host_gemm : fallback;
    ooc::ExecutorOptions options;
    options.kernels = kernels_;
    options.devices = settings.devices.empty() ? std::vector<int>{exec.device} : settings.devices;
    options.device_budget = settings.device_budget;
    options.level = ooc::PipelineLevel(settings.pipeline_level);
    options.host_memory = host_memory(settings.host_memory);
    options.forced_kernel = settings.device_kernel;
    options.emulation_kernel = settings.emulation_kernel;
    options.fp64_emulation_bits = exec.fp64_emulation_bits;
    options.fp64_emulation_accurate = exec.fp64_emulation_accurate;
    options.emulation_min_work = settings.emulation_min_work;
    options.emulation_min_k = settings.emulation_min_k;

    // A caller that keeps no state (a test, a one-off) gets buffers for this call only.
    std::unique_ptr<VariantState> call_state;
    std::unique_ptr<VariantState>& slot = exec.state != nullptr ? *exec.state : call_state;
    if (!slot) slot = std::make_unique<HostResidentState>();
    auto& state = static_cast<HostResidentState&>(*slot);

    std::string error;
    ooc::ExecutionReport report;
    gk_status const s = settings.cpu_share ? ooc::execute_with_cpu_share(args, options, state.buffers.get(),
                                                                         &state.share, &error, &report)
                                           : ooc::execute(args, options, state.buffers.get(), &error, &report);
    if (s != GK_SUCCESS) {
      if (exec.detail != nullptr) *exec.detail = error;
      return s;
    }
    if (exec.detail != nullptr) {
      *exec.detail = std::to_string(options.devices.size()) + " device(s), level " +
                     std::to_string(settings.pipeline_level) + ", kernel " + report.kernel + ", CPU columns " +
                     std::to_string(report.cpu_columns) +
                     (settings.cpu_share ? " (" + report.cpu_share_note + ")" : std::string()) + ": " +
                     report.plan.describe(0);
    }
    return GK_SUCCESS;
  }

 private:
  VariantInfo info_;
  Registry const* kernels_;
};

}  // namespace

void register_host_resident_variants(Registry& registry) {
  registry.add(std::make_unique<HostResidentGemm>(Dtype::kF64, registry));
  registry.add(std::make_unique<HostResidentGemm>(Dtype::kF32, registry));
}

}  // namespace gemmkit
