/*! \file
    \brief The introspection header as a client sees it: the variants listed, each CPU variant, peer
    (gemmkit_peers is linked) and the reference forced by id through gk_dgemm_strided_batched,
    unknown ids refused, the selection rules against the table's CSV, the model's rankings, the
    machine descriptions and CPU facts filled in. Public headers only.
*/
#include <gemmkit/gemmkit.h>
#include <gemmkit/introspect.h>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<gk_variant_info> all_variants() {
  std::vector<gk_variant_info> out(static_cast<std::size_t>(gk_variant_count()));
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(gk_variant_at(int64_t(i), &out[i]), GK_SUCCESS);
  return out;
}

TEST(Introspect, ListsVariantsWithUniqueIds) {
  std::vector<gk_variant_info> const variants = all_variants();
  ASSERT_FALSE(variants.empty());
  std::set<std::string> ids;
  int selectable = 0;
  for (gk_variant_info const& v : variants) {
    ASSERT_NE(v.id, nullptr);
    ASSERT_NE(v.summary, nullptr);
    EXPECT_TRUE(ids.insert(v.id).second) << "twice: " << v.id;
    selectable += v.selectable;
    gk_variant_info found{};
    ASSERT_EQ(gk_variant_find(v.id, &found), GK_SUCCESS) << v.id;
    EXPECT_EQ(found.id, v.id);
  }
  EXPECT_GT(selectable, 0) << "the selection table names no registered variant";
  gk_variant_info cpu{};
  ASSERT_EQ(gk_variant_find("openblas_dgemm", &cpu), GK_SUCCESS);
  EXPECT_EQ(cpu.backend, GK_BACKEND_CPU);
  EXPECT_EQ(cpu.dtype, GK_DTYPE_F64);
  EXPECT_EQ(cpu.kind, GK_VARIANT_PEER);
}

TEST(Introspect, OutOfRangeAndUnknownAreRefused) {
  gk_variant_info info{};
  EXPECT_EQ(gk_variant_at(-1, &info), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_variant_at(gk_variant_count(), &info), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_variant_find("no_such_variant", &info), GK_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gk_introspect_error()), "");
  EXPECT_EQ(gk_variant_can_implement("no_such_variant", GK_OP_N, GK_OP_N, 4, 4, 4, 4, 4, 4, 1), GK_INVALID_ARGUMENT);
  double flops = 0;
  EXPECT_EQ(gk_variant_bound("no_such_variant", nullptr, 64, 64, 64, &flops, nullptr), GK_INVALID_ARGUMENT);

  gk_context ctx = nullptr;
  ASSERT_EQ(gk_create(&ctx), GK_SUCCESS);
  ASSERT_EQ(gk_set_variant(ctx, "no_such_variant"), GK_SUCCESS);  // refused at the call, which names it
  std::vector<double> a(16, 1.0), b(16, 1.0), c(16, 0.0);
  EXPECT_EQ(gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 4, 4, 1.0, a.data(), 4, 16, b.data(), 4,
                                     16, 0.0, c.data(), 4, 16, 1),
            GK_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gk_last_error(ctx)).find("no_such_variant"), std::string::npos);
  EXPECT_EQ(c, std::vector<double>(16, 0.0));
  gk_destroy(ctx);
}

/// Every CPU f64 variant (gemmkit's, the peers, the reference), forced by id on a small packed
/// strided batch, matches a long-double reference. alpha = 1 and beta = 1, the batched suite's
/// default: LIBXSMM's kernels take beta 0 or 1 only, its and Eigen's alpha 1 only.
TEST(Introspect, ForcedCpuVariantsComputeTheProduct) {
  constexpr int64_t m = 7, n = 5, k = 9, batch = 3;
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> a(m * k * batch), b(k * n * batch), c0(m * n * batch);
  for (double& x : a) x = value(rng);
  for (double& x : b) x = value(rng);
  for (double& x : c0) x = value(rng);
  double const alpha = 1.0, beta = 1.0;
  std::vector<long double> expected(c0.size());
  for (int64_t p = 0; p < batch; ++p) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i) {
        long double sum = 0;
        for (int64_t l = 0; l < k; ++l) sum += (long double)a[p * m * k + i + l * m] * b[p * k * n + l + j * k];
        expected[p * m * n + i + j * m] = alpha * sum + beta * (long double)c0[p * m * n + i + j * m];
      }
    }
  }

  gk_context ctx = nullptr;
  ASSERT_EQ(gk_create(&ctx), GK_SUCCESS);
  ASSERT_EQ(gk_set_backend(ctx, GK_BACKEND_CPU), GK_SUCCESS);
  std::set<std::string> forced;
  for (gk_variant_info const& v : all_variants()) {
    if (v.backend != GK_BACKEND_CPU || v.dtype != GK_DTYPE_F64) continue;
    if (gk_variant_can_implement(v.id, GK_OP_N, GK_OP_N, m, n, k, m, k, m, batch) != GK_SUCCESS) continue;
    std::vector<double> c = c0;
    ASSERT_EQ(gk_set_variant(ctx, v.id), GK_SUCCESS);
    ASSERT_EQ(gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, m, n, k, alpha, a.data(), m, m * k,
                                       b.data(), k, k * n, beta, c.data(), m, m * n, batch),
              GK_SUCCESS)
        << v.id << ": " << gk_last_error(ctx);
    EXPECT_STREQ(gk_last_variant(ctx), v.id);
    for (std::size_t i = 0; i < c.size(); ++i) {
      ASSERT_NEAR(c[i], double(expected[i]), 1e-13) << v.id << " element " << i;
    }
    forced.insert(v.id);
  }
  // The binary links gemmkit_peers: the peers that need no optional library are there.
  for (char const* id : {"openblas_dgemm", "reference_dgemm", "peer_openblas_dgemm_batched", "peer_loop_dgemm_batched"}) {
    EXPECT_EQ(forced.count(id), 1u) << id;
  }
  gk_destroy(ctx);
}

TEST(Introspect, MachineDescriptionsArePositive) {
  gk_machine machine{};
  ASSERT_EQ(gk_machine_builtin("NVIDIA H100 80GB HBM3", 132, &machine), GK_SUCCESS);
  EXPECT_NE(std::string(machine.name), "");
  EXPECT_EQ(machine.sm_count, 132);
  for (double rate : {machine.sm_clock_hz, machine.fp64_gemm_flops, machine.fp32_gemm_flops, machine.fp64_tensor_flops,
                      machine.fp64_fma_flops, machine.dram_bytes_per_s, machine.h2d_pinned_bytes_per_s,
                      machine.d2h_pinned_bytes_per_s}) {
    EXPECT_GT(rate, 0.0);
  }
  ASSERT_EQ(gk_machine_builtin("NVIDIA H200", 132, &machine), GK_SUCCESS);
  EXPECT_GT(machine.fp64_gemm_flops, 0.0);
  EXPECT_EQ(gk_machine_builtin("NVIDIA H100 PCIe", 114, &machine), GK_NOT_SUPPORTED);
  EXPECT_EQ(gk_machine_load("/no/such/machine.json", &machine), GK_INVALID_ARGUMENT);
}

TEST(Introspect, CpuFactsFmaPeakAndCpuVariantsHaveNoBound) {
  gk_cpu_info cpu{};
  ASSERT_EQ(gk_cpu_info_get(&cpu), GK_SUCCESS);
  ASSERT_NE(cpu.tuning_key, nullptr);
  ASSERT_NE(cpu.blas, nullptr);
  EXPECT_NE(std::string(cpu.blas), "");
  double flops = 0;
  EXPECT_EQ(gk_variant_bound("openblas_dgemm", nullptr, 256, 256, 256, &flops, nullptr), GK_NOT_SUPPORTED);

  ASSERT_NE(cpu.fma_vectors, nullptr);
  double peak = 0;
  gk_status const measured = gk_cpu_fma_peak(GK_DTYPE_F64, 1, &peak);
  if (std::string(cpu.fma_vectors).empty()) {
    EXPECT_EQ(measured, GK_NOT_SUPPORTED);
  } else {
    EXPECT_EQ(measured, GK_SUCCESS);
    EXPECT_GT(peak, 1e9);
  }
  EXPECT_EQ(gk_cpu_fma_peak(GK_DTYPE_F64, 0, &peak), GK_INVALID_ARGUMENT);
  int mhz = 0;
  EXPECT_EQ(gk_gpu_sm_clock_mhz(nullptr, &mhz), GK_INVALID_ARGUMENT);
}

}  // namespace

namespace {

std::vector<gk_selection_rule_info> all_rules() {
  std::vector<gk_selection_rule_info> out(static_cast<std::size_t>(gk_selection_rule_count()));
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(gk_selection_rule(int64_t(i), &out[i]), GK_SUCCESS);
  return out;
}

/// The data rows of the selection table's CSV, split at commas (comments and the header left out).
std::vector<std::vector<std::string>> csv_rows() {
  std::ifstream in(GEMMKIT_SELECTION_TABLE_CSV);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

double csv_bound(std::string const& f) { return f == "*" ? 0.0 : std::stod(f); }

}  // namespace

/// The plan names what the call then runs, checks arguments as the call does and reads nothing: on
/// this machine's host operands a CPU variant (host operands below any GPU's crossover stay there).
TEST(Introspect, GemmPlanNamesWhatTheCallRunsAndChecksLikeIt) {
  gk_context ctx = nullptr;
  ASSERT_EQ(gk_create(&ctx), GK_SUCCESS);
  std::vector<double> A(40 * 30, 0.5), B(30 * 20, 0.25), C(40 * 20, 1.0);
  gk_gemm_plan_info plan{};
  ASSERT_EQ(gk_gemm_plan(ctx, GK_DTYPE_F64, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 40, 20, 30, 1.0, A.data(), 40, B.data(), 30,
                         C.data(), 40, &plan),
            GK_SUCCESS);
  EXPECT_EQ(plan.on_gpu, 0);
  EXPECT_EQ(plan.host_resident, 0);
  std::string const planned = plan.variant;
  EXPECT_FALSE(planned.empty());
  EXPECT_EQ(C, std::vector<double>(40 * 20, 1.0));  // nothing written by the plan
  ASSERT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 40, 20, 30, 1.0, A.data(), 40, B.data(), 30, 0.0, C.data(), 40),
            GK_SUCCESS);
  EXPECT_EQ(planned, gk_last_variant(ctx));
  EXPECT_DOUBLE_EQ(C[0], 30 * 0.5 * 0.25);

  // alpha = 0: only C = beta*C; m = 0: nothing runs.
  ASSERT_EQ(gk_gemm_plan(ctx, GK_DTYPE_F64, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 40, 20, 30, 0.0, nullptr, 40, nullptr, 30,
                         C.data(), 40, &plan),
            GK_SUCCESS);
  EXPECT_STREQ(plan.variant, "scale_c");
  ASSERT_EQ(gk_gemm_plan(ctx, GK_DTYPE_F32, GK_ROW_MAJOR, GK_OP_T, GK_OP_N, 0, 20, 30, 1.0, nullptr, 1, nullptr, 20,
                         nullptr, 20, &plan),
            GK_SUCCESS);
  EXPECT_STREQ(plan.variant, "");

  // The call's parameter indices: ldb too small is 11, a bad transb 3, and the plan's own arguments 0.
  EXPECT_EQ(gk_gemm_plan(ctx, GK_DTYPE_F64, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 40, 20, 30, 1.0, A.data(), 40, B.data(), 29,
                         C.data(), 40, &plan),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 11);
  EXPECT_EQ(gk_gemm_plan(ctx, GK_DTYPE_F64, GK_COL_MAJOR, GK_OP_N, static_cast<gk_op>(7), 40, 20, 30, 1.0, A.data(), 40,
                         B.data(), 30, C.data(), 40, &plan),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 3);
  EXPECT_EQ(gk_gemm_plan(ctx, static_cast<gk_dtype>(5), GK_COL_MAJOR, GK_OP_N, GK_OP_N, 40, 20, 30, 1.0, A.data(), 40,
                         B.data(), 30, C.data(), 40, &plan),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_gemm_plan(ctx, GK_DTYPE_F64, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 40, 20, 30, 1.0, A.data(), 40, B.data(), 30,
                         C.data(), 40, nullptr),
            GK_INVALID_ARGUMENT);
  gk_destroy(ctx);
}

/// The crossover setting: a value is kept and read back, a negative one restores the GPU's, NaN is refused.
TEST(Introspect, HostGemmMinWorkIsSetReadAndRestored) {
  gk_context ctx = nullptr;
  ASSERT_EQ(gk_create(&ctx), GK_SUCCESS);
  double work = -5;
  ASSERT_EQ(gk_set_host_gemm_min_work(ctx, 12345.0), GK_SUCCESS);
  ASSERT_EQ(gk_get_host_gemm_min_work(ctx, &work), GK_SUCCESS);
  EXPECT_EQ(work, 12345.0);
  EXPECT_EQ(gk_set_host_gemm_min_work(ctx, std::nan("")), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 2);
  ASSERT_EQ(gk_get_host_gemm_min_work(ctx, &work), GK_SUCCESS);
  EXPECT_EQ(work, 12345.0);  // the refused value changed nothing
  ASSERT_EQ(gk_set_host_gemm_min_work(ctx, -1.0), GK_SUCCESS);
  gk_status const s = gk_get_host_gemm_min_work(ctx, &work);
  if (gk_gpu_available()) {
    ASSERT_EQ(s, GK_SUCCESS);
    EXPECT_GT(work, 0.0);
  } else {
    EXPECT_EQ(s, GK_NO_DEVICE);
  }
  EXPECT_EQ(gk_get_host_gemm_min_work(ctx, nullptr), GK_INVALID_ARGUMENT);
  // Every built-in description carries a measured crossover.
  gk_machine m{};
  ASSERT_EQ(gk_machine_default(&m), GK_SUCCESS);
  EXPECT_GT(m.host_gemm_min_work, 0.0);
  EXPECT_GT(m.host_gemm_min_k, 0.0);
  ASSERT_EQ(gk_machine_builtin("NVIDIA H200", 132, &m), GK_SUCCESS);
  EXPECT_GT(m.host_gemm_min_work, 0.0);
  EXPECT_GT(m.host_gemm_min_k, 0.0);
  gk_destroy(ctx);
}

TEST(Introspect, SelectionRulesMatchTheTableAndNameRegisteredVariants) {
  std::vector<gk_selection_rule_info> const rules = all_rules();
  ASSERT_FALSE(rules.empty());
  bool gpu_variants = false;
  for (gk_variant_info const& v : all_variants()) gpu_variants = gpu_variants || v.backend == GK_BACKEND_GPU;
  for (gk_selection_rule_info const& r : rules) {
    ASSERT_NE(r.variant_id, nullptr);
    ASSERT_NE(r.trans, nullptr);
    // A rule may name a variant the build left out (a GPU one without CUDA); a CPU build has all its own.
    gk_variant_info v{};
    if (r.backend == GK_BACKEND_CPU || gpu_variants) {
      ASSERT_EQ(gk_variant_find(r.variant_id, &v), GK_SUCCESS) << r.variant_id;
      EXPECT_EQ(v.backend, r.backend) << r.variant_id;
      EXPECT_EQ(v.dtype, r.dtype) << r.variant_id;
      EXPECT_EQ(v.selectable, 1) << r.variant_id;
    }
  }
  std::vector<std::vector<std::string>> const csv = csv_rows();
  ASSERT_EQ(csv.size(), rules.size()) << GEMMKIT_SELECTION_TABLE_CSV;
  for (std::size_t i = 0; i < 4 && i < csv.size(); ++i) {
    std::vector<std::string> const& f = csv[i];  // backend,dtype,min_work,max_work,max_mn,min_k,max_k,min_side,min_wave_eff,aligned,trans,variant
    ASSERT_EQ(f.size(), 12u);
    gk_selection_rule_info const& r = rules[i];
    EXPECT_EQ(r.backend, f[0] == "cuda" ? GK_BACKEND_GPU : GK_BACKEND_CPU) << i;
    EXPECT_EQ(r.dtype, f[1] == "f64" ? GK_DTYPE_F64 : GK_DTYPE_F32) << i;
    EXPECT_EQ(r.min_work, f[2] == "machine" ? 0.0 : csv_bound(f[2])) << i;
    EXPECT_EQ(r.min_work_from_machine, f[2] == "machine" ? 1 : 0) << i;
    EXPECT_EQ(r.max_work, csv_bound(f[3])) << i;
    EXPECT_EQ(r.max_mn, csv_bound(f[4])) << i;
    EXPECT_EQ(r.min_k, csv_bound(f[5])) << i;
    EXPECT_EQ(r.max_k, csv_bound(f[6])) << i;
    EXPECT_EQ(r.min_side, csv_bound(f[7])) << i;
    EXPECT_EQ(r.min_wave_eff, csv_bound(f[8])) << i;
    EXPECT_EQ(r.alignment, f[9] == "*" ? GK_ALIGNMENT_ANY : (f[9] == "yes" ? GK_ALIGNMENT_ALIGNED : GK_ALIGNMENT_MISALIGNED)) << i;
    EXPECT_EQ(std::string(r.trans), f[10]) << i;
    EXPECT_EQ(std::string(r.variant_id), f[11]) << i;
  }
  gk_selection_rule_info r{};
  EXPECT_EQ(gk_selection_rule(-1, &r), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_selection_rule(int64_t(rules.size()), &r), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_selection_rule(0, nullptr), GK_INVALID_ARGUMENT);
}

TEST(Introspect, ModelRanksTheRegisteredConfigsBestFirst) {
  gk_machine machine{};
  ASSERT_EQ(gk_machine_default(&machine), GK_SUCCESS);
  EXPECT_GT(machine.smem_bytes_per_s, 0);
  gk_kernel_resources* resources = nullptr;
  EXPECT_EQ(gk_kernel_resources_load("/nonexistent/sass-spills.jsonl", &resources), GK_INVALID_ARGUMENT);
  EXPECT_EQ(resources, nullptr);
  EXPECT_STRNE(gk_introspect_error(), "");
  gk_kernel_resources_free(nullptr);

  int64_t count = -1;
  gk_status const status = gk_model_rank(GK_DTYPE_F64, &machine, nullptr, 4096, 4096, 4096, nullptr, 0, &count);
  bool gpu_variants = false;
  for (gk_variant_info const& v : all_variants()) gpu_variants = gpu_variants || v.backend == GK_BACKEND_GPU;
  if (!gpu_variants) {
    EXPECT_EQ(status, GK_NOT_SUPPORTED);  // the model ranks the GPU configs only
    return;
  }
  ASSERT_EQ(status, GK_SUCCESS);
  for (gk_dtype dtype : {GK_DTYPE_F64, GK_DTYPE_F32}) {
    ASSERT_EQ(gk_model_rank(dtype, &machine, nullptr, 4096, 4096, 4096, nullptr, 0, &count), GK_SUCCESS);
    ASSERT_GT(count, 0);
    std::vector<gk_model_bound> bounds(static_cast<std::size_t>(count));
    ASSERT_EQ(gk_model_rank(dtype, &machine, nullptr, 4096, 4096, 4096, bounds.data(), count, &count), GK_SUCCESS);
    for (std::size_t i = 0; i < bounds.size(); ++i) {
      gk_model_bound const& b = bounds[i];
      EXPECT_GT(b.flops, 0) << b.id;
      EXPECT_STRNE(b.limiter, "") << b.id;
      EXPECT_EQ(b.compiled, 0) << b.id;  // no resources given
      // Tensor-core configs best first; the SIMT ones follow in registration order.
      if (i > 0 && !b.simt) EXPECT_LE(b.flops, bounds[i - 1].flops) << b.id;
      if (i > 0 && bounds[i - 1].simt) EXPECT_TRUE(b.simt) << b.id;
      // Configs no rule names are registered only with GEMMKIT_BUILD_ALL_CONFIGS.
      gk_variant_info v{};
      if (gk_variant_find(b.id, &v) != GK_SUCCESS) continue;
      EXPECT_EQ(v.dtype, dtype) << b.id;
      double flops = 0;
      ASSERT_EQ(gk_variant_bound(b.id, &machine, 4096, 4096, 4096, &flops, nullptr), GK_SUCCESS) << b.id;
      EXPECT_NEAR(flops, b.flops, 1e-9 * b.flops) << b.id;
    }
  }
  std::vector<gk_model_bound> one(1);
  EXPECT_EQ(gk_model_rank(GK_DTYPE_F64, nullptr, nullptr, 512, 512, 512, one.data(), 1, &count), GK_SUCCESS);
  EXPECT_GT(count, 1);  // the count is all of them, however few were asked for
  EXPECT_EQ(gk_model_rank(GK_DTYPE_F64, nullptr, nullptr, 512, 512, 512, nullptr, 1, &count), GK_INVALID_ARGUMENT);
}
