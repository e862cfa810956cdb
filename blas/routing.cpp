/*! \file
    \brief libgemmkit_blas's routing: contexts, the route of a call, the trace, xerbla.
*/
#include "routing.hpp"

#include "forwarding.hpp"
#include "settings.hpp"

#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>

namespace gemmkit::blas {

namespace {

void apply_settings(gk_context context) {
  Settings const& s = settings();
  gk_set_verbosity(context, s.verbosity);
  gk_set_host_gemm_min_work(context, s.crossover);
  gk_set_host_memory(context, s.host_memory);
  gk_set_cpu_share(context, s.cpu_share ? 1 : 0);
  gk_set_device_memory_budget(context, s.device_memory);
  if (!s.gpus.empty()) {
    gk_set_device(context, s.gpus.front());
    gk_set_host_gemm_devices(context, s.gpus.data(), int(s.gpus.size()));
  }
}

gk_context new_context() {
  gk_context context = nullptr;
  if (gk_create(&context) != GK_SUCCESS) {
    std::fprintf(stderr, "gemmkit BLAS: cannot create a gemmkit context (out of memory)\n");
    std::abort();
  }
  apply_settings(context);
  return context;
}

/// Destroys this thread's context when the thread ends.
struct ThreadContext {
  gk_context context = nullptr;
  ~ThreadContext() {
    if (context != nullptr) gk_destroy(context);
  }
};

std::FILE* trace_file() {
  static std::FILE* const file = [] () -> std::FILE* {
    std::string const& path = settings().trace;
    if (path.empty()) return nullptr;
    if (path == "stderr") return stderr;
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (f == nullptr) std::fprintf(stderr, "gemmkit BLAS: cannot open the trace file %s\n", path.c_str());
    return f;
  }();
  return file;
}

/// The JSON string of a message (quotes and control characters escaped).
std::string json_string(std::string const& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out + '"';
}

char trans_letter(gk_op op) { return op == GK_OP_N ? 'N' : op == GK_OP_T ? 'T' : op == GK_OP_C ? 'C' : '?'; }

}  // namespace

void trace(CallRecord const& r) {
  std::FILE* const file = trace_file();
  if (file == nullptr) return;
  double const ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r.start).count();
  static std::mutex mutex;
  std::lock_guard<std::mutex> const lock(mutex);
  std::fprintf(file,
               "{\"routine\":\"%s\",\"transa\":\"%c\",\"transb\":\"%c\",\"m\":%lld,\"n\":%lld,\"k\":%lld,\"batch\":%lld,"
               "\"route\":\"%s\",\"variant\":%s,\"reason\":%s,\"status\":\"%s\",\"ms\":%.4f}\n",
               r.routine, r.transa, r.transb, static_cast<long long>(r.m), static_cast<long long>(r.n),
               static_cast<long long>(r.k), static_cast<long long>(r.batch), r.route, json_string(r.variant).c_str(),
               json_string(r.reason).c_str(), gk_status_string(r.status), ms);
  std::fflush(file);
}

gk_context thread_context() {
  thread_local ThreadContext mine;
  if (mine.context == nullptr) mine.context = new_context();
  return mine.context;
}

SharedGpuContext shared_gpu_context() {
  static std::mutex mutex;
  // Never destroyed: at exit the CUDA runtime may already be gone, and the process frees it all.
  static gk_context const context = new_context();
  return {context, std::unique_lock<std::mutex>(mutex)};
}

void report_fortran_error(char const* routine, int parameter) {
  using Xerbla = void (*)(char const*, int const*, std::size_t);
  // The application's xerbla_ when it defines one (it comes first in the process's lookup), else the
  // CPU BLAS's, which this library forwards to.
  auto xerbla = reinterpret_cast<Xerbla>(dlsym(RTLD_DEFAULT, "xerbla_"));
  if (xerbla == nullptr) xerbla = reinterpret_cast<Xerbla>(cpu_routine("xerbla_"));
  // Fortran pads the name to its declared length: netlib's routines pass 6 characters.
  std::string name = routine;
  if (name.size() < 6) name.resize(6, ' ');
  xerbla(name.c_str(), &parameter, name.size());
}

void report_cblas_error(char const* routine, int parameter, char const* message) {
  // An application that defines cblas_xerbla (as the reference CBLAS's testers do) gets the call there;
  // otherwise xerbla_, as OpenBLAS's CBLAS reports, which prints and returns (the reference
  // cblas_xerbla would end the process).
  using CblasXerbla = void (*)(int, char const*, char const*, ...);
  auto const own = reinterpret_cast<CblasXerbla>(dlsym(RTLD_DEFAULT, "cblas_xerbla"));
  if (own != nullptr && !in_this_library(reinterpret_cast<void const*>(own)) &&
      reinterpret_cast<void*>(own) != cpu_routine_if_present("cblas_xerbla")) {
    own(parameter, routine, "Parameter %d to routine %s was incorrect (%s)\n", parameter, routine, message);
    return;
  }
  report_fortran_error(routine, parameter);
}

char const* route_of(char const* variant) {
  if (variant == nullptr || *variant == '\0' || std::strcmp(variant, "scale_c") == 0) return "cpu";
  gk_variant_info info{};
  if (gk_variant_find(variant, &info) != GK_SUCCESS) return "cpu";
  return info.backend == GK_BACKEND_GPU ? "gpu" : "cpu";
}

template <typename T>
void run_gemm(CallRecord& record, bool fortran, gk_layout layout, gk_op transa, gk_op transb, std::int64_t m,
              std::int64_t n, std::int64_t k, T alpha, T const* A, std::int64_t lda, T const* B, std::int64_t ldb,
              T beta, T* C, std::int64_t ldc) {
  constexpr bool kDouble = sizeof(T) == 8;
  record.transa = trans_letter(transa);
  record.transb = trans_letter(transb);
  record.m = m, record.n = n, record.k = k;
  gk_context const mine = thread_context();
  gk_gemm_plan_info plan{};
  gk_status status = gk_gemm_plan(mine, kDouble ? GK_DTYPE_F64 : GK_DTYPE_F32, layout, transa, transb, m, n, k,
                                  double(alpha), A, lda, B, ldb, C, ldc, &plan);
  if (status == GK_INVALID_ARGUMENT) {
    int const parameter = gk_error_parameter(mine);
    record.route = "error";
    record.status = status;
    record.reason = gk_last_error(mine);
    if (fortran) {
      report_fortran_error(kDouble ? "DGEMM" : "SGEMM", parameter - 1);
    } else {
      report_cblas_error(kDouble ? "cblas_dgemm" : "cblas_sgemm", parameter, record.reason.c_str());
    }
    trace(record);
    return;
  }
  auto const run = [&](gk_context context) {
    if constexpr (kDouble) {
      return gk_dgemm(context, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    } else {
      return gk_sgemm(context, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    }
  };
  gk_context used = mine;
  if (status == GK_SUCCESS && plan.host_resident) {
    SharedGpuContext shared = shared_gpu_context();
    used = shared.context;
    status = run(used);
    record.route = "host-resident";
    record.reason = "host operands at or above the GPU crossover";
    record.variant = gk_last_variant(used);
  } else {
    status = run(used);
    record.variant = gk_last_variant(used);
    record.route = plan.on_gpu ? "gpu" : "cpu";
    record.reason = plan.on_gpu ? "device operands" : "host operands below the GPU crossover, or no usable GPU";
  }
  record.status = status;
  if (status != GK_SUCCESS) {
    // No BLAS status to return: say it where the user will see it.
    record.route = "error";
    record.reason = gk_last_error(used);
    std::fprintf(stderr, "gemmkit BLAS: %s failed (%s): %s\n", record.routine, gk_status_string(status),
                 record.reason.c_str());
  }
  trace(record);
}

template void run_gemm<double>(CallRecord&, bool, gk_layout, gk_op, gk_op, std::int64_t, std::int64_t, std::int64_t,
                               double, double const*, std::int64_t, double const*, std::int64_t, double, double*,
                               std::int64_t);
template void run_gemm<float>(CallRecord&, bool, gk_layout, gk_op, gk_op, std::int64_t, std::int64_t, std::int64_t,
                              float, float const*, std::int64_t, float const*, std::int64_t, float, float*,
                              std::int64_t);

}  // namespace gemmkit::blas
