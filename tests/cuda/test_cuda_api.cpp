/*! \file
    \brief The C API on device pointers: selection of a CUDA variant, k = 0 / alpha = 0 scaling on the
    device, mixed pointer locations, backend policy, the context's stream, batched forms, determinism.
*/
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "support/api_calls.hpp"
#include "support/device_memory.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace gemmkit::test {
namespace {

#define GEMMKIT_REQUIRE_DEVICE() \
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device"

template <typename T>
class CudaApi : public ::testing::Test {};
using ElementTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(CudaApi, ElementTypes);

TYPED_TEST(CudaApi, DevicePointersRunACudaVariant) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  for (auto const& p : {make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, 65, 33, 47, 3),
                        make_problem(dtype_of<T>(), GK_OP_T, GK_OP_C, 17, 16, 15, 0, 3)}) {
    std::string ran;
    EXPECT_TRUE(check_api(p, 1.0, 0.0, /*on_device=*/true, &ran));
    GemmVariant const* v = variant_registry().find(ran);
    ASSERT_NE(v, nullptr) << "gk_last_variant '" << ran << "'";
    EXPECT_EQ(v->info().backend, Platform::kCuda);
    EXPECT_EQ(v->info().dtype, dtype_of<T>());
  }
}

/// k = 0 and alpha = 0: C = beta*C on the device, A and B never read (NULL or NaN-filled), C's
/// padding untouched, and beta = 0 writes zeros over a NaN C.
TYPED_TEST(CudaApi, ScalingCasesOnTheDevice) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  ScopedContext ctx;
  std::int64_t const m = 19, n = 6, ldc = 23, batch = 2, stride_c = ldc * n + 7;
  for (T beta : {T(0), T(-2)}) {
    for (bool k_zero : {true, false}) {
      SCOPED_TRACE(std::string(k_zero ? "k = 0" : "alpha = 0") + ", beta = " + std::to_string(beta));
      std::mt19937_64 rng = fresh_generator();
      Matrix<T> C(m, n, ldc, batch, stride_c);
      if (beta == T(0)) C.fill(std::numeric_limits<T>::quiet_NaN());
      else C.fill_random(rng);
      std::vector<T> nan_operand(64 * 64, std::numeric_limits<T>::quiet_NaN());
      DeviceBuffer<T> dC(C.storage()), dA(nan_operand), dB(nan_operand);
      std::int64_t const k = k_zero ? 0 : 5;
      T const alpha = k_zero ? T(1) : T(0);
      T const* A = k_zero ? nullptr : dA.get();
      T const* B = k_zero ? nullptr : dB.get();
      ASSERT_EQ(api_gemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, m, n, k, alpha, A, m, 0, B,
                                         std::max<std::int64_t>(1, k), 0, beta, dC.get(), ldc, stride_c, batch),
                GK_SUCCESS)
          << gk_last_error(ctx);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      Matrix<T> result = C;
      std::vector<T> const back = dC.download();
      std::copy(back.begin(), back.end(), result.data());
      ASSERT_EQ(dC.error(), "");
      EXPECT_EQ(result.padding_changes(), 0u);
      for (std::int64_t b = 0; b < batch; ++b) {
        for (std::int64_t j = 0; j < n; ++j) {
          for (std::int64_t i = 0; i < m; ++i) {
            T const expected = beta == T(0) ? T(0) : beta * C.at(i, j, b);
            ASSERT_EQ(result.at(i, j, b), expected) << "C(" << i << "," << j << ") batch " << b;
          }
        }
      }
    }
  }
}

TYPED_TEST(CudaApi, MixedHostAndDevicePointersAreNotSupported) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  ScopedContext ctx;
  std::mt19937_64 rng = fresh_generator();
  std::int64_t const n = 8;
  std::vector<T> host(n * n);
  for (T& x : host) x = random_value<T>(rng);
  std::vector<T> host_c = host;
  DeviceBuffer<T> dA(host), dB(host), dC(host);
  // Device C, one host operand.
  EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, T(1), host.data(), n, dB.get(), n, T(1), dC.get(), n),
            GK_NOT_SUPPORTED);
  EXPECT_STRNE(gk_last_error(ctx), "");
  EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, T(1), dA.get(), n, host.data(), n, T(1), dC.get(), n),
            GK_NOT_SUPPORTED);
  // Host C, device operands.
  EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, T(1), dA.get(), n, dB.get(), n, T(1), host_c.data(),
                     n),
            GK_NOT_SUPPORTED);
  EXPECT_EQ(std::memcmp(host_c.data(), host.data(), host.size() * sizeof(T)), 0) << "host C was written";
  std::vector<T> const back = dC.download();
  EXPECT_EQ(std::memcmp(back.data(), host.data(), host.size() * sizeof(T)), 0) << "device C was written";
}

TYPED_TEST(CudaApi, BackendPolicyAndForcedVariantMustMatchThePointers) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  std::mt19937_64 rng = fresh_generator();
  std::int64_t const n = 8;
  std::vector<T> host(n * n);
  for (T& x : host) x = random_value<T>(rng);
  DeviceBuffer<T> dA(host), dB(host), dC(host);
  {
    ScopedContext ctx;
    gk_set_backend(ctx, GK_BACKEND_CPU);
    EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, T(1), dA.get(), n, dB.get(), n, T(1), dC.get(), n),
              GK_NOT_SUPPORTED);
  }
  {
    ScopedContext ctx;
    gk_set_variant(ctx, dtype_of<T>() == Dtype::kF64 ? "openblas_dgemm" : "openblas_sgemm");
    EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, T(1), dA.get(), n, dB.get(), n, T(1), dC.get(), n),
              GK_NOT_SUPPORTED);
  }
  std::vector<T> const back = dC.download();
  EXPECT_EQ(std::memcmp(back.data(), host.data(), host.size() * sizeof(T)), 0) << "a refused call wrote C";
  {
    ScopedContext ctx;
    EXPECT_EQ(gk_set_device(ctx, 0), GK_SUCCESS);
    gk_set_backend(ctx, GK_BACKEND_GPU);
    EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, T(1), dA.get(), n, dB.get(), n, T(1), dC.get(), n),
              GK_SUCCESS)
        << gk_last_error(ctx);
  }
}

TYPED_TEST(CudaApi, RowMajorEqualsTransposedColumnMajorOnDevice) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  std::int64_t const m = 33, n = 17, k = 21;  // row-major A m x k (N), B n x k (T)
  std::mt19937_64 rng = fresh_generator();
  std::vector<T> A(m * k), B(n * k), C(m * n);
  for (auto* v : {&A, &B, &C}) {
    for (T& x : *v) x = random_value<T>(rng);
  }
  DeviceBuffer<T> dA(A), dB(B), dC1(C), dC2(C);
  ScopedContext ctx;
  ASSERT_EQ(api_gemm(ctx, GK_ROW_MAJOR, GK_OP_N, GK_OP_T, m, n, k, T(1), dA.get(), k, dB.get(), k, T(0.5), dC1.get(), n),
            GK_SUCCESS);
  // Row-major A (N) and B (T) read as column-major are A^T (k x m) and op(B) (k x n): C^T = op(B)^T A^T.
  ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_T, GK_OP_N, n, m, k, T(1), dB.get(), k, dA.get(), k, T(0.5), dC2.get(), n),
            GK_SUCCESS);
  std::vector<T> const r1 = dC1.download(), r2 = dC2.download();
  EXPECT_EQ(std::memcmp(r1.data(), r2.data(), r1.size() * sizeof(T)), 0);
  // And it is the product: C(0, 0) = sum_l A(0, l) B(0, l) + 0.5 C0(0, 0).
  double expected = 0.5 * double(C[0]);
  for (std::int64_t l = 0; l < k; ++l) expected += double(A[l]) * double(B[l]);
  EXPECT_NEAR(double(r1[0]), expected, 1e-4);
}

TYPED_TEST(CudaApi, PointerArrayAndGroupedOnDevice) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_T, GK_OP_N, 20, 12, 18, 1);
  std::int64_t const count = 3;
  std::vector<Operands<T>> ops;
  std::vector<std::unique_ptr<DeviceBuffer<T>>> dA, dB, dC, dC2;
  std::vector<T const*> A, B;
  std::vector<T*> C, C2;
  for (std::int64_t i = 0; i < count; ++i) {
    ops.push_back(make_operands<T>(p, 0.5));
    dA.push_back(std::make_unique<DeviceBuffer<T>>(ops.back().A.storage()));
    dB.push_back(std::make_unique<DeviceBuffer<T>>(ops.back().B.storage()));
    dC.push_back(std::make_unique<DeviceBuffer<T>>(ops.back().C.storage()));
    dC2.push_back(std::make_unique<DeviceBuffer<T>>(ops.back().C.storage()));
    A.push_back(dA.back()->get()), B.push_back(dB.back()->get());
    C.push_back(dC.back()->get()), C2.push_back(dC2.back()->get());
  }
  ScopedContext ctx;
  ASSERT_EQ(api_gemm_batched(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(2), A.data(), p.lda, B.data(),
                             p.ldb, T(0.5), C.data(), p.ldc, count),
            GK_SUCCESS)
      << gk_last_error(ctx);
  // The same problems as one group.
  std::int64_t const m[] = {p.m}, n[] = {p.n}, k[] = {p.k}, lda[] = {p.lda}, ldb[] = {p.ldb}, ldc[] = {p.ldc};
  gk_op const ta[] = {p.trans_a}, tb[] = {p.trans_b};
  T const alpha[] = {T(2)}, beta[] = {T(0.5)};
  std::vector<gk_status> info(count, GK_INTERNAL_ERROR);
  ASSERT_EQ(api_gemm_grouped(ctx, GK_COL_MAJOR, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C2.data(),
                             ldc, 1, &count, info.data()),
            GK_SUCCESS)
      << gk_last_error(ctx);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (std::int64_t i = 0; i < count; ++i) {
    EXPECT_EQ(info[i], GK_SUCCESS);
    auto const reference = reference_result(p, 2.0, ops[i].A, ops[i].B, 0.5, ops[i].C);
    for (auto* d : {dC[i].get(), dC2[i].get()}) {
      Matrix<T> result = ops[i].C;
      std::vector<T> const back = d->download();
      std::copy(back.begin(), back.end(), result.data());
      EXPECT_TRUE(check_result(p, 2.0, 0.5, ops[i].A, ops[i].B, ops[i].C, result, reference)) << "problem " << i;
    }
  }
}

TYPED_TEST(CudaApi, DeterministicThroughTheApi) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, 257, 129, 200);
  Operands<T> const ops = make_operands<T>(p, 1.0);
  DeviceBuffer<T> dA(ops.A.storage()), dB(ops.B.storage()), dC1(ops.C.storage()), dC2(ops.C.storage());
  ScopedContext ctx;
  for (T* c : {dC1.get(), dC2.get()}) {
    ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(1), dA.get(), p.lda, dB.get(), p.ldb,
                       T(1), c, p.ldc),
              GK_SUCCESS);
  }
  std::vector<T> const r1 = dC1.download(), r2 = dC2.download();
  EXPECT_EQ(std::memcmp(r1.data(), r2.data(), r1.size() * sizeof(T)), 0);
}

/// C = A B^T (B stored n x k) on four columns of C, against a long-double sum; `ran` names the variant.
void expect_nt_product(Matrix<double> const& A, Matrix<double> const& B, DeviceBuffer<double>& dC,
                       std::string const& ran) {
  std::int64_t const m = A.rows(), n = B.rows(), k = A.cols();
  std::vector<double> const C = dC.download();
  ASSERT_EQ(dC.error(), "");
  for (std::int64_t j : {std::int64_t(0), std::int64_t(1), n / 2 + 1, n - 1}) {
    for (std::int64_t i = 0; i < m; ++i) {
      long double reference = 0;
      for (std::int64_t l = 0; l < k; ++l) reference += (long double)A.at(i, l) * B.at(j, l);
      ASSERT_NEAR(C[std::size_t(i + j * m)], double(reference), 1e-12) << "C(" << i << ", " << j << ") by " << ran;
    }
  }
}

/// DGEMM NT with both sides of C from 4096 packs B into a workspace (a _packed variant). With a
/// device-memory budget too small for that copy the selection passes over it for the unpacked
/// kernel, and the call still succeeds with the same result.
TEST(CudaApiBudget, PackedVariantsYieldToTheMemoryBudget) {
  GEMMKIT_REQUIRE_DEVICE();
  std::int64_t const m = 4096, n = 4096, k = 32;  // B packed: 32 x 4096 doubles = 1 MiB
  std::mt19937_64 rng = fresh_generator();
  Matrix<double> A(m, k, m), B(n, k, n);  // NT: B is stored n x k
  A.fill_random(rng);
  B.fill_random(rng);
  DeviceBuffer<double> dA(A.storage()), dB(B.storage());
  for (std::size_t budget : {std::size_t(0), std::size_t(512) << 10}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    ScopedContext ctx;
    ASSERT_EQ(gk_set_device_memory_budget(ctx, budget), GK_SUCCESS);
    DeviceBuffer<double> dC(std::vector<double>(std::size_t(m * n), std::numeric_limits<double>::quiet_NaN()));
    ASSERT_EQ(api_gemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_T, m, n, k, 1.0, dA.get(), m, 0, dB.get(), n,
                                       0, 0.0, dC.get(), m, 0, 1),
              GK_SUCCESS)
        << gk_last_error(ctx);
    std::string const ran = gk_last_variant(ctx);
    EXPECT_EQ(ran.find("_packed") != std::string::npos, budget == 0) << ran;
    expect_nt_product(A, B, dC, ran);
  }
}

/// The same call when the device has no room for the packed copy (no budget set: the allocation
/// itself fails): the call does not fail, the unpacked kernel runs, and C is right. A variant forced
/// by name fails cleanly instead.
TEST(CudaApiBudget, PackedVariantsYieldWhenTheWorkspaceCannotBeAllocated) {
  GEMMKIT_REQUIRE_DEVICE();
  std::int64_t const m = 4096, n = 4096, k = 64;  // B packed: 64 x 4096 doubles = 2 MiB
  std::mt19937_64 rng = fresh_generator();
  Matrix<double> A(m, k, m), B(n, k, n);  // NT: B is stored n x k
  A.fill_random(rng);
  B.fill_random(rng);
  DeviceBuffer<double> dA(A.storage()), dB(B.storage());
  DeviceBuffer<double> dC(std::vector<double>(std::size_t(m * n), std::numeric_limits<double>::quiet_NaN()));
  {  // The kernel that runs without the copy, once with room to spare (a first launch may size its
     // local memory), picked here through a budget the copy does not fit.
    ScopedContext warm;
    ASSERT_EQ(gk_set_device_memory_budget(warm, std::size_t(1) << 20), GK_SUCCESS);
    ASSERT_EQ(api_gemm_strided_batched(warm, GK_COL_MAJOR, GK_OP_N, GK_OP_T, m, n, k, 1.0, dA.get(), m, 0, dB.get(),
                                       n, 0, 0.0, dC.get(), m, 0, 1),
              GK_SUCCESS)
        << gk_last_error(warm);
    ASSERT_EQ(std::string(gk_last_variant(warm)).find("_packed"), std::string::npos);
  }
  dC.upload(std::vector<double>(std::size_t(m * n), std::numeric_limits<double>::quiet_NaN()));
  ASSERT_EQ(dC.error(), "");
  // Memory the stream-ordered pool keeps cached would serve the workspace despite the hog.
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaMemPool_t pool = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
  ASSERT_EQ(cudaMemPoolTrimTo(pool, 0), cudaSuccess);
  ScopedContext ctx, forced;
  ASSERT_EQ(gk_set_variant(forced, "dgemm_tensorop_64x64x16_w32x32_s4_b3_k8_packed"), GK_SUCCESS);
  // Take the device's memory in 64 MiB, then 1 MiB pieces until none is left: less than a MiB
  // stays free, under the 2 MiB the copy takes (one big cudaMalloc of the free bytes fails).
  std::vector<void*> hog;
  for (std::size_t piece : {std::size_t(64) << 20, std::size_t(1) << 20}) {
    for (void* p = nullptr; cudaMalloc(&p, piece) == cudaSuccess;) hog.push_back(p);
    cudaGetLastError();  // the failed cudaMalloc that ended the loop
  }
  gk_status const s = api_gemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_T, m, n, k, 1.0, dA.get(), m, 0,
                                               dB.get(), n, 0, 0.0, dC.get(), m, 0, 1);
  std::string const ran = gk_last_variant(ctx), error = gk_last_error(ctx);
  gk_status const forced_status = api_gemm_strided_batched(forced, GK_COL_MAJOR, GK_OP_N, GK_OP_T, m, n, k, 1.0,
                                                           dA.get(), m, 0, dB.get(), n, 0, 0.0, dC.get(), m, 0, 1);
  for (void* p : hog) ASSERT_EQ(cudaFree(p), cudaSuccess);
  ASSERT_GT(hog.size(), 0u);
  ASSERT_EQ(s, GK_SUCCESS) << error;
  EXPECT_EQ(ran.find("_packed"), std::string::npos) << ran;
  EXPECT_EQ(forced_status, GK_ALLOCATION_FAILED);
  expect_nt_product(A, B, dC, ran);
}

/// An error the caller's own CUDA call left pending (here a cudaMalloc too large to succeed, which is
/// not sticky) belongs to the caller: the next gemmkit call runs, returns success and writes C.
TEST(CudaApiErrors, ACallersPendingErrorDoesNotFailTheNextCall) {
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 96, 80, 40);
  Operands<double> const ops = make_operands<double>(p, 0.0);
  DeviceBuffer<double> dA(ops.A.storage()), dB(ops.B.storage()), dC(ops.C.storage());
  ASSERT_EQ(dA.error() + dB.error() + dC.error(), "");
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  void* too_large = nullptr;
  ASSERT_EQ(cudaMalloc(&too_large, std::size_t(1) << 60), cudaErrorMemoryAllocation);
  ASSERT_EQ(cudaPeekAtLastError(), cudaErrorMemoryAllocation);  // pending, as the caller left it
  ScopedContext ctx;
  ASSERT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, p.m, p.n, p.k, 1.0, dA.get(), p.lda, dB.get(), p.ldb, 0.0,
                     dC.get(), p.ldc),
            GK_SUCCESS)
      << gk_last_error(ctx);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  Matrix<double> C = ops.C;
  std::vector<double> const back = dC.download();
  ASSERT_EQ(dC.error(), "");
  std::copy(back.begin(), back.end(), C.data());
  EXPECT_TRUE(check_result(p, 1.0, 0.0, ops.A, ops.B, ops.C, C, reference_result(p, 1.0, ops.A, ops.B, 0.0, ops.C)));
}

/// The context's stream is the one the work is queued on: with that stream held back by a host
/// function, the call returns, C is unchanged (read on another stream), and the result appears
/// once the stream is released. A call on the legacy default stream would not wait for the
/// non-blocking stream and would change C early; a synchronizing call would not return in time.
TEST(CudaApiStream, ContextStreamIsHonored) {
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 64, 48, 32);
  Operands<double> const ops = make_operands<double>(p, 1.0);
  DeviceBuffer<double> dA(ops.A.storage()), dB(ops.B.storage()), dC(ops.C.storage()), dC_control(ops.C.storage());
  ASSERT_EQ(dA.error() + dB.error() + dC.error() + dC_control.error(), "");

  cudaStream_t stream = nullptr, side = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), cudaSuccess);
  ScopedContext ctx;
  ASSERT_EQ(gk_set_stream(ctx, stream), GK_SUCCESS);
  void* got = nullptr;
  ASSERT_EQ(gk_get_stream(ctx, &got), GK_SUCCESS);
  EXPECT_EQ(got, static_cast<void*>(stream));

  // Warm-up on a scratch C so one-time setup (module loading, handles) is not inside the test.
  {
    DeviceBuffer<double> scratch(ops.C.storage());
    ASSERT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, p.m, p.n, p.k, 1.0, dA.get(), p.lda, dB.get(), p.ldb, 1.0,
                       scratch.get(), p.ldc),
              GK_SUCCESS);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }

  // Allocations may synchronize the device, so everything is allocated before the stream is held.
  double* pinned = nullptr;
  double* pinned_control = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, dC.bytes()), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned_control, dC.bytes()), cudaSuccess);
  ScopedContext control;  // default stream: the misrouting this test must be able to see

  std::atomic<int> gate{0};  // 0 = hold, 1 = released by the test, 2 = released by the watchdog
  auto hold = [](void* g) {
    auto* flag = static_cast<std::atomic<int>*>(g);
    while (flag->load() == 0) std::this_thread::yield();
  };
  ASSERT_EQ(cudaLaunchHostFunc(stream, hold, &gate), cudaSuccess);
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    for (int i = 0; i < 200 && !done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int expected = 0;
    gate.compare_exchange_strong(expected, 2);
  });

  gk_status const s = gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, p.m, p.n, p.k, 1.0, dA.get(), p.lda, dB.get(),
                               p.ldb, 1.0, dC.get(), p.ldc);
  bool const returned_while_held = gate.load() == 0;
  cudaError_t const copy = cudaMemcpyAsync(pinned, dC.get(), dC.bytes(), cudaMemcpyDeviceToHost, side);
  cudaError_t const side_sync = cudaStreamSynchronize(side);
  bool const c_unchanged_while_held =
      gate.load() == 0 && std::memcmp(pinned, ops.C.data(), dC.bytes()) == 0;
  bool const stream_busy = cudaStreamQuery(stream) == cudaErrorNotReady;

  // Control: the same call on the legacy default stream is not held back by `stream`, so the
  // side-stream read sees its result; were this not so, the checks above could not fail.
  gk_status const s_control = gk_dgemm(control, GK_COL_MAJOR, GK_OP_N, GK_OP_N, p.m, p.n, p.k, 1.0, dA.get(), p.lda,
                                       dB.get(), p.ldb, 1.0, dC_control.get(), p.ldc);
  cudaError_t const legacy_sync = cudaStreamSynchronize(cudaStreamLegacy);
  cudaMemcpyAsync(pinned_control, dC_control.get(), dC.bytes(), cudaMemcpyDeviceToHost, side);
  cudaStreamSynchronize(side);
  bool const control_changed_while_held =
      gate.load() == 0 && std::memcmp(pinned_control, ops.C.data(), dC.bytes()) != 0;

  int expected = 0;
  gate.compare_exchange_strong(expected, 1);
  done = true;
  watchdog.join();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);

  EXPECT_EQ(s, GK_SUCCESS) << gk_last_error(ctx);
  EXPECT_EQ(copy, cudaSuccess);
  EXPECT_EQ(side_sync, cudaSuccess);
  EXPECT_TRUE(returned_while_held) << "gk_dgemm waited for the held stream (it synchronizes)";
  EXPECT_TRUE(c_unchanged_while_held) << "C changed before the context's stream ran: the work went elsewhere";
  EXPECT_TRUE(stream_busy);
  EXPECT_EQ(s_control, GK_SUCCESS);
  EXPECT_EQ(legacy_sync, cudaSuccess);
  EXPECT_TRUE(control_changed_while_held) << "control: default-stream work did not run past the held stream";

  Matrix<double> result = ops.C;
  ASSERT_EQ(cudaMemcpy(result.data(), dC.get(), dC.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  auto const reference = reference_result(p, 1.0, ops.A, ops.B, 1.0, ops.C);
  EXPECT_TRUE(check_result(p, 1.0, 1.0, ops.A, ops.B, ops.C, result, reference));

  cudaFreeHost(pinned);
  cudaFreeHost(pinned_control);
  cudaStreamDestroy(side);
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace gemmkit::test
