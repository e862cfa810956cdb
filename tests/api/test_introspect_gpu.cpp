/*! \file
    \brief The introspection header on a GPU, through the public headers only: cuBLAS's registered
    strided and pointer-array variants forced by id give the product the host reference gives, the
    model bounds a registered tile config, the SM clock reads or says why not. Skip without a device.
*/
#include <gemmkit/gemmkit.h>
#include <gemmkit/introspect.h>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

#define GEMMKIT_REQUIRE_DEVICE() \
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device"

/// A device copy of a host vector, freed with the object.
template <typename T>
class DeviceVector {
 public:
  explicit DeviceVector(std::vector<T> const& host) : count_(host.size()) {
    EXPECT_EQ(cudaMalloc(&data_, count_ * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceVector() { cudaFree(data_); }
  DeviceVector(DeviceVector const&) = delete;
  DeviceVector& operator=(DeviceVector const&) = delete;
  T* get() const { return data_; }
  std::vector<T> to_host() const {
    std::vector<T> out(count_);
    EXPECT_EQ(cudaMemcpy(out.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  }

 private:
  T* data_ = nullptr;
  std::size_t count_;
};

TEST(IntrospectGpu, CublasPeersForcedByIdComputeTheProduct) {
  GEMMKIT_REQUIRE_DEVICE();
  constexpr int64_t m = 13, n = 7, k = 9, batch = 5;
  std::mt19937_64 rng(20261203);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> a(m * k * batch), b(k * n * batch), c0(m * n * batch);
  for (double& x : a) x = value(rng);
  for (double& x : b) x = value(rng);
  for (double& x : c0) x = value(rng);
  double const alpha = 0.5, beta = -1.5;
  std::vector<double> expected(c0.size());
  for (int64_t p = 0; p < batch; ++p) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i) {
        long double sum = 0;
        for (int64_t l = 0; l < k; ++l) sum += (long double)a[p * m * k + i + l * m] * b[p * k * n + l + j * k];
        expected[p * m * n + i + j * m] = double(alpha * sum + beta * (long double)c0[p * m * n + i + j * m]);
      }
    }
  }
  DeviceVector<double> dA(a), dB(b);
  gk_context ctx = nullptr;
  ASSERT_EQ(gk_create(&ctx), GK_SUCCESS);

  {  // the strided form: cublas_dgemm through gk_dgemm_strided_batched
    DeviceVector<double> dC(c0);
    ASSERT_EQ(gk_set_variant(ctx, "cublas_dgemm"), GK_SUCCESS);
    ASSERT_EQ(gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, m, n, k, alpha, dA.get(), m, m * k,
                                       dB.get(), k, k * n, beta, dC.get(), m, m * n, batch),
              GK_SUCCESS)
        << gk_last_error(ctx);
    EXPECT_STREQ(gk_last_variant(ctx), "cublas_dgemm");
    std::vector<double> const c = dC.to_host();
    for (std::size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(c[i], expected[i], 1e-13) << i;
  }
  {  // the pointer-array form on device arrays: cublas_dgemm_pointer_array through gk_dgemm_batched
    DeviceVector<double> dC(c0);
    std::vector<double const*> pa, pb;
    std::vector<double*> pc;
    for (int64_t p = 0; p < batch; ++p) {
      pa.push_back(dA.get() + p * m * k), pb.push_back(dB.get() + p * k * n), pc.push_back(dC.get() + p * m * n);
    }
    DeviceVector<double const*> dpa(pa), dpb(pb);
    DeviceVector<double*> dpc(pc);
    ASSERT_EQ(gk_set_variant(ctx, "cublas_dgemm_pointer_array"), GK_SUCCESS);
    ASSERT_EQ(gk_dgemm_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, m, n, k, alpha, dpa.get(), m, dpb.get(), k, beta,
                               dpc.get(), m, batch),
              GK_SUCCESS)
        << gk_last_error(ctx);
    EXPECT_STREQ(gk_last_variant(ctx), "cublas_dgemm_pointer_array");
    std::vector<double> const c = dC.to_host();
    for (std::size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(c[i], expected[i], 1e-13) << i;
  }
  gk_destroy(ctx);
}

TEST(IntrospectGpu, ModelBoundsARegisteredTileConfigAndTheClockReads) {
  GEMMKIT_REQUIRE_DEVICE();
  int bounded = 0;
  for (int64_t i = 0; i < gk_variant_count(); ++i) {
    gk_variant_info v{};
    ASSERT_EQ(gk_variant_at(i, &v), GK_SUCCESS);
    double flops = 0;
    char const* limiter = nullptr;
    if (gk_variant_bound(v.id, nullptr, 4096, 4096, 4096, &flops, &limiter) != GK_SUCCESS) continue;
    EXPECT_EQ(v.backend, GK_BACKEND_GPU) << v.id;
    EXPECT_GT(flops, 0.0) << v.id;
    ASSERT_NE(limiter, nullptr);
    ++bounded;
  }
  EXPECT_GT(bounded, 0) << "the model bounds no registered variant";

  char bus_id[32] = {};
  ASSERT_EQ(cudaDeviceGetPCIBusId(bus_id, int(sizeof(bus_id)), 0), cudaSuccess);
  int mhz = 0;
  gk_status const s = gk_gpu_sm_clock_mhz(bus_id, &mhz);
  if (s == GK_SUCCESS) {
    EXPECT_GT(mhz, 0);
  } else {
    EXPECT_EQ(s, GK_NOT_SUPPORTED) << gk_introspect_error();  // no NVML on this machine
  }
}

/// Host operands at or above the crossover plan to the host-resident pipeline, and the call runs it;
/// below it they stay on the CPU. Crossover 0 sends even a small host GEMM to the GPU.
TEST(IntrospectGpu, GemmPlanFollowsTheHostCrossover) {
  GEMMKIT_REQUIRE_DEVICE();
  gk_context ctx = nullptr;
  ASSERT_EQ(gk_create(&ctx), GK_SUCCESS);
  int64_t const n = 96;
  std::vector<double> A(n * n, 1.0), B(n * n, 2.0), C(n * n, 0.0);
  gk_gemm_plan_info plan{};
  ASSERT_EQ(gk_set_host_gemm_min_work(ctx, double(n) * n * n + 1), GK_SUCCESS);
  ASSERT_EQ(gk_gemm_plan(ctx, GK_DTYPE_F64, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, 1.0, A.data(), n, B.data(), n,
                         C.data(), n, &plan),
            GK_SUCCESS);
  EXPECT_EQ(plan.host_resident, 0);
  EXPECT_EQ(plan.on_gpu, 0);
  ASSERT_EQ(gk_set_host_gemm_min_work(ctx, 0.0), GK_SUCCESS);
  ASSERT_EQ(gk_gemm_plan(ctx, GK_DTYPE_F64, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, 1.0, A.data(), n, B.data(), n,
                         C.data(), n, &plan),
            GK_SUCCESS);
  EXPECT_EQ(plan.host_resident, 1);
  EXPECT_EQ(plan.on_gpu, 1);
  std::string const planned = plan.variant;
  ASSERT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, 1.0, A.data(), n, B.data(), n, 0.0, C.data(), n),
            GK_SUCCESS);
  EXPECT_EQ(planned, gk_last_variant(ctx));
  for (double c : C) ASSERT_EQ(c, 2.0 * double(n));
  // The default is the machine description's crossover for this GPU.
  ASSERT_EQ(gk_set_host_gemm_min_work(ctx, -1.0), GK_SUCCESS);
  double work = 0;
  ASSERT_EQ(gk_get_host_gemm_min_work(ctx, &work), GK_SUCCESS);
  EXPECT_GT(work, double(n) * n * n);
  gk_destroy(ctx);
}

}  // namespace
