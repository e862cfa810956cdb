/*! \file
    \brief The introspection header as a client sees it: the variants listed, each CPU variant, peer
    (gemmkit_peers is linked) and the reference forced by id through gk_dgemm_strided_batched,
    unknown ids refused, the machine descriptions and CPU facts filled in. Public headers only.
*/
#include <gemmkit/gemmkit.h>
#include <gemmkit/introspect.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
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
