/*! \file
    \brief The dispatcher: special cases, pointer location, backend policy and variant selection.
*/
#include "api/dispatch.hpp"

#include "base/device.hpp"
#include "cpu/scale_c.hpp"
#include "model/machine.hpp"
#include "cuda/scale_c_device.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace gemmkit {

namespace {

/// Chooses the backend from where C (and A, B when they are read) live and the context policy.
gk_status choose_backend(gk_context_st& ctx, GemmArguments const& args, bool reads_ab, Platform* backend) {
  // Each pointer query is a runtime call into the driver: one per distinct pointer.
  MemoryLocation const c_place = locate(args.C);
  if (reads_ab) {
    MemoryLocation const a_place = args.A == args.C ? c_place : locate(args.A);
    MemoryLocation const b_place = args.B == args.C ? c_place : (args.B == args.A ? a_place : locate(args.B));
    if (a_place != c_place || b_place != c_place) {
      return fail(ctx, GK_NOT_SUPPORTED,
                  "A, B and C must all be host pointers or all device pointers (mixed locations given)");
    }
  }
  *backend = c_place == MemoryLocation::kDevice ? Platform::kCuda : Platform::kCpu;
  if (ctx.backend == GK_BACKEND_CPU && *backend == Platform::kCuda) {
    return fail(ctx, GK_NOT_SUPPORTED, "backend policy is CPU but the operands are device pointers");
  }
  if (ctx.backend == GK_BACKEND_GPU && *backend == Platform::kCpu) {
    if (device_count() == 0) return fail(ctx, GK_NO_DEVICE, "backend policy is GPU but no usable GPU was found");
    if (args.problem.batch != 1) {
      return fail(ctx, GK_NOT_SUPPORTED,
                  "backend policy is GPU but the operands are host pointers: the host-resident GPU GEMM runs single "
                  "problems, not strided batches");
    }
  }
  if (*backend == Platform::kCpu && ctx.backend == GK_BACKEND_AUTO && ctx.verbosity >= 2 && device_count() == 0) {
    note(ctx, 2, "no usable GPU: CPU path");
  }
  return GK_SUCCESS;
}

/// Which host-operand variants the backend policy allows: under GK_BACKEND_CPU none that computes
/// on the GPUs, under GK_BACKEND_GPU only those (the table's last rows take any size then).
HostCompute host_compute(gk_context_st const& ctx) {
  return ctx.backend == GK_BACKEND_CPU ? HostCompute::kCpuOnly
         : ctx.backend == GK_BACKEND_GPU ? HostCompute::kGpuOnly
                                         : HostCompute::kAny;
}

}  // namespace

namespace {

/// The machine description of a GPU: its built-in one, or the default (H100) for a GPU gemmkit has
/// none of. Looked up once per device: it never changes.
model::MachineDescription const& device_machine(int device) {
  static std::mutex mutex;
  static std::map<int, model::MachineDescription> known;
  std::lock_guard<std::mutex> const lock(mutex);
  auto at = known.find(device);
  if (at == known.end()) {
    at = known.emplace(device, model::builtin_machine(device_name(device), multiprocessor_count(device))
                                   .value_or(model::h100_sxm()))
             .first;
  }
  return at->second;  // map nodes stay where they are
}

}  // namespace

HostCrossover device_host_crossover(int device) {
  model::MachineDescription const& m = device_machine(device);
  return {m.host_gemm_min_work, m.host_gemm_min_k};
}

namespace {

/// From where host operands go to the host-resident pipeline: the context's setting (a work bound
/// alone), else its GPU's crossover. Below the lowest crossover gemmkit knows, the GPU is not asked
/// (a small host call starts no CUDA).
HostCrossover host_crossover(gk_context_st const& ctx, GemmProblem const& p) {
  if (ctx.host_gemm_min_work >= 0) return {ctx.host_gemm_min_work, 0};
  HostCrossover const lowest{model::lowest_host_gemm_min_work(), model::lowest_host_gemm_min_k()};
  if (double(p.m) * double(p.n) * double(p.k) * double(p.batch) < lowest.min_work ||
      double(p.k) < lowest.min_k) {
    return lowest;
  }
  return device_host_crossover(ctx.device);
}

/// The selection table's pick for a problem on `backend`; on the GPU, for the context's device (its
/// compute capability and multiprocessor count) and within its memory budget (a variant whose
/// workspace would not fit is passed over for the next rule); for host operands, with the crossover
/// to the host-resident pipeline.
GemmVariant const* select_for_context(gk_context_st const& ctx, GemmProblem const& problem, Platform backend,
                                      std::size_t workspace_limit) {
  bool const gpu = backend == Platform::kCuda;
  return variant_registry().select(problem, backend, gpu ? compute_capability(ctx.device) : 0,
                                   gpu ? multiprocessor_count(ctx.device) : 0, gpu ? workspace_limit : 0,
                                   host_compute(ctx), gpu ? HostCrossover{} : host_crossover(ctx, problem));
}

GemmVariant const* select_for_context(gk_context_st const& ctx, GemmProblem const& problem, Platform backend) {
  return select_for_context(ctx, problem, backend, ctx.device_memory_budget);
}

/// The FP64-emulating variant the context's setting asks for on this problem (device pointers, or the
/// host-resident pipeline's blocks), or nullptr: under ON the first that can run it, under AUTO only from
/// the work and k from which the GPU's machine description measured emulation faster (none: never).
GemmVariant const* emulation_variant(gk_context_st const& ctx, GemmProblem const& p) {
  if (ctx.fp64_emulation == GK_FP64_EMULATION_OFF || p.dtype != Dtype::kF64) return nullptr;
  if (ctx.fp64_emulation == GK_FP64_EMULATION_AUTO) {
    model::MachineDescription const& m = device_machine(ctx.device);
    if (m.fp64_emulation_min_work <= 0 || double(p.m) * double(p.n) * double(p.k) < m.fp64_emulation_min_work ||
        double(p.k) < m.fp64_emulation_min_k) {
      return nullptr;
    }
  }
  return variant_registry().emulation_for(p, compute_capability(ctx.device));
}

/// The variant for a problem: the forced one, else the selection table's. A forced CUDA kernel on
/// host operands runs inside the host-resident variant, on its blocks (`device_kernel`); so does the FP64
/// emulation the context's setting asks for (`emulation_kernel`), on the blocks it can carry.
gk_status pick_variant(gk_context_st& ctx, GemmProblem const& problem, Platform backend, GemmVariant const** out,
                       GemmVariant const** device_kernel, GemmVariant const** emulation_kernel) {
  *device_kernel = nullptr;
  *emulation_kernel = nullptr;
  if (!ctx.forced_variant.empty()) {
    GemmVariant const* v = ctx.forced_variant_found;
    if (v == nullptr) return fail(ctx, GK_INVALID_ARGUMENT, "no registered variant named '" + ctx.forced_variant + "'");
    if (backend == Platform::kCpu && v->info().backend == Platform::kCuda && v->info().dtype == problem.dtype &&
        ctx.backend != GK_BACKEND_CPU) {
      GemmVariant const* pipeline =
          variant_registry().select(problem, Platform::kCpu, 0, 0, 0, HostCompute::kGpuOnly);
      if (pipeline != nullptr) {
        *device_kernel = v;
        *out = pipeline;
        return GK_SUCCESS;
      }
    }
    if (v->info().backend != backend || v->info().dtype != problem.dtype) {
      return fail(ctx, GK_NOT_SUPPORTED,
                  "forced variant '" + ctx.forced_variant + "' is for " + to_string(v->info().backend) + "/" +
                      to_string(v->info().dtype) + ", the call needs " + to_string(backend) + "/" +
                      to_string(problem.dtype));
    }
    if (v->can_implement(problem) != GK_SUCCESS) {
      return fail(ctx, GK_NOT_SUPPORTED, "forced variant '" + ctx.forced_variant + "' cannot run this problem");
    }
    *out = v;
    return GK_SUCCESS;
  }
  if (backend == Platform::kCuda) {
    if (GemmVariant const* emulated = emulation_variant(ctx, problem); emulated != nullptr) {
      *out = emulated;
      return GK_SUCCESS;
    }
  }
  *out = select_for_context(ctx, problem, backend);
  if (*out != nullptr && (*out)->info().stages_host_operands) *emulation_kernel = emulation_variant(ctx, problem);
  if (*out == nullptr) {
    return fail(ctx, GK_NOT_SUPPORTED,
                std::string("no registered ") + to_string(backend) + " variant for " + to_string(problem.dtype) +
                    " m=" + std::to_string(problem.m) + " n=" + std::to_string(problem.n) +
                    " k=" + std::to_string(problem.k));
  }
  return GK_SUCCESS;
}

/// Problem `i` of a pointer-array batch as a single problem.
GemmArguments single_problem(GemmArguments const& args, std::int64_t i) {
  GemmArguments one = args;
  one.problem.pointer_array = false;
  one.problem.batch = 1;
  one.A = static_cast<void const* const*>(args.A)[i];
  one.B = static_cast<void const* const*>(args.B)[i];
  one.C = static_cast<void* const*>(args.C)[i];
  return one;
}

/// The variant's lifecycle after selection: initialize, a workspace (host, or the context's
/// stream-ordered device workspace within the memory budget), run. A variant that runs host
/// operands on the GPUs also gets the context's pipeline settings and state slot.
gk_status run_variant(gk_context_st& ctx, GemmVariant const& variant, GemmArguments const& args, Platform backend,
                      ExecutionContext exec, GemmVariant const* device_kernel = nullptr,
                      GemmVariant const* emulation_kernel = nullptr) {
  GemmProblem const& p = args.problem;
  HostGemmSettings host_gemm;
  std::string detail;
  if (variant.info().stages_host_operands) {
    host_gemm = ctx.host_gemm;
    host_gemm.device_budget = ctx.device_memory_budget;
    host_gemm.device_kernel = device_kernel;
    host_gemm.emulation_kernel = emulation_kernel;
    if (emulation_kernel != nullptr && ctx.fp64_emulation == GK_FP64_EMULATION_AUTO) {
      model::MachineDescription const& m = device_machine(ctx.device);  // AUTO's bounds apply to each block too
      host_gemm.emulation_min_work = m.fp64_emulation_min_work;
      host_gemm.emulation_min_k = m.fp64_emulation_min_k;
    }
    exec.host_gemm = &host_gemm;
    exec.state = &ctx.host_gemm_state;
    exec.detail = &detail;
  }
  if (variant.info().emulates_fp64 && ctx.verbosity >= 2) exec.detail = &detail;  // its time split
  if (gk_status s = variant.initialize(exec); s != GK_SUCCESS) {
    return fail(ctx, s, "variant '" + variant.info().id + "' failed to initialize");
  }
  // On the GPU the workspace is sized within the memory budget: a variant that blocks its work fits it.
  if (backend == Platform::kCuda) exec.workspace_limit = ctx.device_memory_budget;
  std::size_t const ws_bytes = variant.workspace_bytes_within(p, exec.workspace_limit);
  void* workspace = nullptr;
  std::vector<unsigned char> host_workspace;
  WorkspaceLease device_workspace;
  if (ws_bytes > 0) {
    if (backend == Platform::kCpu) {
      host_workspace.resize(ws_bytes);
      workspace = host_workspace.data();
    } else {
      if (ctx.device_memory_budget != 0 && ws_bytes > ctx.device_memory_budget) {
        return fail(ctx, GK_ALLOCATION_FAILED,
                    "variant '" + variant.info().id + "' needs " + std::to_string(ws_bytes) +
                        " bytes of workspace, over the device-memory budget of " +
                        std::to_string(ctx.device_memory_budget));
      }
      if (std::string e = acquire_workspace(ctx.workspace, ws_bytes, ctx.device_memory_budget, exec, &device_workspace);
          !e.empty()) {
        // A workspace buys speed (a packed operand, split K), not the result: when the device has no
        // room for it, the selection's next pick that needs none runs. A forced variant fails.
        constexpr std::size_t kNoWorkspace = 1;  // a limit only variants without a workspace meet
        GemmVariant const* without =
            ctx.forced_variant.empty() ? select_for_context(ctx, p, backend, kNoWorkspace) : nullptr;
        if (without == nullptr || without == &variant) return fail(ctx, GK_ALLOCATION_FAILED, e);
        note(ctx, 2, "no room for the ", std::to_string(ws_bytes), " bytes of workspace of ", variant.info().id, " (", e,
             "): ", without->info().id, " instead");
        return run_variant(ctx, *without, args, backend, exec);
      }
      workspace = device_workspace.pointer;
    }
  }
  gk_status const s = variant.run(args, workspace, exec);
  if (backend == Platform::kCuda && workspace != nullptr) return_workspace(device_workspace, exec);
  if (s != GK_SUCCESS) {
    if (!detail.empty()) return fail(ctx, s, variant.info().id + ": " + detail);
    if (ctx.last_error.empty()) return fail(ctx, s, "variant '" + variant.info().id + "' failed");
    return s;
  }
  if (!detail.empty()) note(ctx, 2, variant.info().id, " on ", detail);
  ctx.last_variant = variant.info().id.c_str();
  ctx.last_report = std::move(detail);
  return GK_SUCCESS;
}

/// A single problem's operand pointers (C always, A and B when read) and the backend their location
/// and the policy give.
gk_status check_operands(gk_context_st& ctx, GemmArguments const& args, CallSite const& call, bool reads_ab,
                         Platform* backend) {
  if (args.C == nullptr) return fail(ctx, GK_INVALID_ARGUMENT, "C is NULL", call.positions.c);
  if (reads_ab && args.A == nullptr) return fail(ctx, GK_INVALID_ARGUMENT, "A is NULL", call.positions.a);
  if (reads_ab && args.B == nullptr) return fail(ctx, GK_INVALID_ARGUMENT, "B is NULL", call.positions.b);
  return choose_backend(ctx, args, reads_ab, backend);
}

/// A host pointer-array batch's entries: no NULL C, and no NULL A or B when they are read; the first
/// NULL fails the call, naming its problem.
gk_status check_entries(gk_context_st& ctx, GemmArguments const& args, CallSite const& call, bool reads_ab,
                        std::int64_t numbered_from = 0) {
  std::int64_t const count = args.problem.batch;
  auto const first_null = [&](void const* array) {
    auto const* pointers = static_cast<void const* const*>(array);
    return std::int64_t(std::find(pointers, pointers + count, nullptr) - pointers);
  };
  struct Operand {
    void const* array;
    bool read;
    int position;
    char const* name;
  };
  std::int64_t worst = count;
  Operand const* culprit = nullptr;
  Operand const operands[] = {{args.C, true, call.positions.c, "C"},
                              {args.A, reads_ab, call.positions.a, "A"},
                              {args.B, reads_ab, call.positions.b, "B"}};
  for (Operand const& o : operands) {
    if (!o.read) continue;
    if (std::int64_t const i = first_null(o.array); i < worst) {
      worst = i;
      culprit = &o;
    }
  }
  if (culprit == nullptr) return GK_SUCCESS;
  return fail(ctx, GK_INVALID_ARGUMENT,
              "problem " + std::to_string(numbered_from + worst) + ": " + culprit->name + " is NULL",
              culprit->position);
}

/// A pointer-array batch: one call to a variant that takes arrays when the selection table has
/// one for it, else one dispatch per problem. Every entry is checked before any problem runs, so a
/// rejected batch has written no C.
gk_status dispatch_pointer_array(gk_context_st& ctx, GemmArguments const& args, CallSite const& call) {
  GemmProblem const& p = args.problem;
  bool const reads_ab = p.k > 0 && args.alpha != 0.0;
  // By the API's contract all matrices live where the first problem's do.
  Platform backend{};
  if (gk_status s = check_pointer_array(ctx, args, call, 0, &backend); s != GK_SUCCESS) return s;
  if (reads_ab && ctx.forced_variant.empty()) {
    // Host matrices the GPU pipeline takes (it runs single problems) go problem by problem, below.
    if (GemmVariant const* v = select_for_context(ctx, p, backend); v != nullptr) {
      ExecutionContext const exec = execution_context(ctx, call.overlaps_previous_kernel);
      if (backend == Platform::kCuda) {
        if (std::string e = use_device(ctx.device); !e.empty()) return fail(ctx, GK_CUDA_ERROR, e);
      }
      return run_variant(ctx, *v, args, backend, exec);
    }
  }
  // Problem by problem: each later one's operands are placed (host or device, the backend they take) first.
  for (std::int64_t i = 1; i < p.batch; ++i) {
    Platform placed{};
    if (gk_status s = check_operands(ctx, single_problem(args, i), call, reads_ab, &placed); s != GK_SUCCESS) {
      ctx.last_error = "problem " + std::to_string(i) + ": " + ctx.last_error;
      return s;
    }
  }
  char const* variant = "";  // the first problem's that ran one (m, n = 0 problems run none)
  for (std::int64_t i = 0; i < p.batch; ++i) {
    if (gk_status s = dispatch(ctx, single_problem(args, i), call); s != GK_SUCCESS) {
      ctx.last_error = "problem " + std::to_string(i) + ": " + ctx.last_error;
      return s;
    }
    if (*variant == '\0') variant = ctx.last_variant;
  }
  ctx.last_variant = variant;
  return GK_SUCCESS;
}

/// The variant that runs a pointer-array batch with device arrays whole: the forced one when it
/// takes arrays and this problem, else the selection table's; nullptr when none does.
GemmVariant const* device_array_variant(gk_context_st const& ctx, GemmProblem const& p) {
  if (ctx.forced_variant.empty()) return select_for_context(ctx, p, Platform::kCuda);
  GemmVariant const* v = ctx.forced_variant_found;
  bool const takes_it = v != nullptr && v->info().pointer_array && v->info().backend == Platform::kCuda &&
                        v->can_implement(p) == GK_SUCCESS;
  return takes_it ? v : nullptr;
}

/// A pointer-array batch whose arrays (and so, by the API's contract, matrices) are in device
/// memory. The host cannot read the entries, so the arrays go as they are to a variant that takes
/// them, or to the C = beta*C kernel when A and B are not read: one launch, nothing copied. Any
/// other batch has its arrays copied to the host once and runs as a host-array batch, problem by
/// problem: correct, but far slower.
gk_status dispatch_device_arrays(gk_context_st& ctx, GemmArguments const& args, CallSite const& call) {
  GemmProblem const& p = args.problem;
  if (ctx.backend == GK_BACKEND_CPU) {
    return fail(ctx, GK_NOT_SUPPORTED, "backend policy is CPU but the pointer arrays are in device memory");
  }
  if (std::string e = use_device(ctx.device); !e.empty()) return fail(ctx, GK_CUDA_ERROR, e);
  ExecutionContext const exec = execution_context(ctx, call.overlaps_previous_kernel);
  if (p.k == 0 || args.alpha == 0.0) {  // BLAS: C = beta*C, A and B not touched
    if (std::string e = scale_c_device(p, args.beta, args.C, exec); !e.empty()) return fail(ctx, GK_CUDA_ERROR, e);
    ctx.last_variant = "scale_c";
    return GK_SUCCESS;
  }
  if (GemmVariant const* v = device_array_variant(ctx, p); v != nullptr) {
    note(ctx, 2, "variant ", v->info().id, " on device pointer arrays");
    return run_variant(ctx, *v, args, Platform::kCuda, exec);
  }
  if (ctx.verbosity >= 2) {
    note(ctx, 2, "pointer arrays in device memory but no variant takes this batch whole (m=", std::to_string(p.m),
         " n=", std::to_string(p.n), " k=", std::to_string(p.k),
         ctx.forced_variant.empty() ? std::string() : ", forced variant " + ctx.forced_variant,
         "): the arrays are copied to the host and the ", std::to_string(p.batch),
         " problems run one by one, which is slow");
  }
  std::size_t const count = std::size_t(p.batch);
  std::vector<void const*> pointers(3 * count);  // the A, B and C arrays one after the other
  void const* const arrays[] = {args.A, args.B, args.C};
  for (std::size_t i = 0; i < 3; ++i) {
    if (std::string e = copy_to_host(pointers.data() + i * count, arrays[i], count * sizeof(void*), exec); !e.empty()) {
      return fail(ctx, GK_CUDA_ERROR, "copying the pointer arrays to the host: " + e);
    }
  }
  GemmArguments host_arrays = args;
  host_arrays.problem.arrays_on_device = false;
  host_arrays.A = pointers.data();
  host_arrays.B = pointers.data() + count;
  host_arrays.C = pointers.data() + 2 * count;
  return dispatch_pointer_array(ctx, host_arrays, call);
}

}  // namespace

gk_status check_pointer_array(gk_context_st& ctx, GemmArguments const& args, CallSite const& call,
                              std::int64_t numbered_from, Platform* first_backend) {
  GemmProblem const& p = args.problem;
  if (p.m == 0 || p.n == 0 || p.batch == 0 || p.arrays_on_device) return GK_SUCCESS;
  bool const reads_ab = p.k > 0 && args.alpha != 0.0;
  if (gk_status s = check_entries(ctx, args, call, reads_ab, numbered_from); s != GK_SUCCESS) return s;
  Platform backend{};
  if (gk_status s = check_operands(ctx, single_problem(args, 0), call, reads_ab, &backend); s != GK_SUCCESS) {
    ctx.last_error = "problem " + std::to_string(numbered_from) + ": " + ctx.last_error;
    return s;
  }
  if (first_backend != nullptr) *first_backend = backend;
  return GK_SUCCESS;
}

gk_status dispatch(gk_context_st& ctx, GemmArguments const& args, CallSite const& call) {
  GemmProblem const& p = args.problem;
  ctx.last_variant = "";
  ctx.last_report.clear();
  if (p.m == 0 || p.n == 0 || p.batch == 0) return GK_SUCCESS;
  if (p.pointer_array) {
    return p.arrays_on_device ? dispatch_device_arrays(ctx, args, call)
                              : dispatch_pointer_array(ctx, args, call);
  }

  bool const reads_ab = p.k > 0 && args.alpha != 0.0;
  Platform backend{};
  if (gk_status s = check_operands(ctx, args, call, reads_ab, &backend); s != GK_SUCCESS) return s;

  ExecutionContext const exec = execution_context(ctx, call.overlaps_previous_kernel);
  if (backend == Platform::kCuda) {
    if (std::string e = use_device(ctx.device); !e.empty()) return fail(ctx, GK_CUDA_ERROR, e);
  }

  if (!reads_ab) {  // BLAS: C = beta*C, A and B not touched; beta = 0 writes zeros without reading C.
    if (backend == Platform::kCpu) {
      scale_c_host(p, args.beta, args.C);
    } else if (std::string e = scale_c_device(p, args.beta, args.C, exec); !e.empty()) {
      return fail(ctx, GK_CUDA_ERROR, e);
    }
    ctx.last_variant = "scale_c";
    return GK_SUCCESS;
  }

  GemmVariant const* variant = nullptr;
  GemmVariant const* device_kernel = nullptr;
  GemmVariant const* emulation_kernel = nullptr;
  if (gk_status s = pick_variant(ctx, p, backend, &variant, &device_kernel, &emulation_kernel); s != GK_SUCCESS) {
    return s;
  }
  note(ctx, 2, "variant ", variant->info().id);
  if (emulation_kernel != nullptr) note(ctx, 2, "its blocks FP64-emulated by ", emulation_kernel->info().id);

  // An emulation the context's setting chose may decline inputs it cannot carry to FP64 accuracy.
  bool const may_decline = variant->info().emulates_fp64 && ctx.forced_variant.empty();
  std::string declined;
  ExecutionContext variant_exec = exec;
  variant_exec.fp64_emulation_may_decline = may_decline;
  variant_exec.decline_reason = &declined;
  gk_status const s = run_variant(ctx, *variant, args, backend, variant_exec, device_kernel, emulation_kernel);
  if (s == GK_NOT_SUPPORTED && may_decline) {
    // The scheme left before writing anything: the native selection runs.
    GemmVariant const* native = select_for_context(ctx, p, backend);
    if (native == nullptr) return s;
    clear_error(ctx);
    note(ctx, 2, "FP64 emulation does not apply (", declined.empty() ? "it cannot run this call" : declined, "): ",
         native->info().id, " instead");
    return run_variant(ctx, *native, args, backend, exec);
  }
  return s;
}

gk_status plan_dispatch(gk_context_st& ctx, GemmArguments const& args, DispatchPlan* plan, CallSite const& call) {
  GemmProblem const& p = args.problem;
  *plan = DispatchPlan{};
  if (p.m == 0 || p.n == 0 || p.batch == 0) return GK_SUCCESS;
  bool const reads_ab = p.k > 0 && args.alpha != 0.0;
  Platform backend{};
  if (gk_status s = check_operands(ctx, args, call, reads_ab, &backend); s != GK_SUCCESS) return s;
  plan->on_gpu = backend == Platform::kCuda;
  if (!reads_ab) {
    plan->variant = "scale_c";
    return GK_SUCCESS;
  }
  GemmVariant const* variant = nullptr;
  GemmVariant const* device_kernel = nullptr;
  GemmVariant const* emulation_kernel = nullptr;
  if (gk_status s = pick_variant(ctx, p, backend, &variant, &device_kernel, &emulation_kernel); s != GK_SUCCESS) {
    return s;
  }
  plan->variant = variant->info().id.c_str();
  plan->host_resident = variant->info().stages_host_operands;
  plan->on_gpu = plan->on_gpu || plan->host_resident;
  return GK_SUCCESS;
}

}  // namespace gemmkit
