/*! \file
    \brief gemmkit's sm_90a INT8 GEMM engine (int8_gemm_sm90), both schedules: exactly the int64 host product on
    edge shapes around the 256 x 128 tile (k from one wgmma step to several stages, batches), padding rows and
    the gaps between planes untouched, a larger shape equal to cuBLAS's INT8 GEMM, the same bits on every run,
    bad arguments refused with nothing written.
*/
#include "cuda/emulation/int8_gemm_sm90.hpp"
#include "support/device_memory.hpp"

#include <gemmkit/gemmkit.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace gemmkit::test {
namespace {

using ozaki2::Int8Sm90Schedule;

constexpr std::int32_t kPoison = 0x7F7F7F7F;  // cudaMemset(0x7F); beyond any product of k <= 4096 int8 pairs

bool engine_available() {
  int device = 0;
  return gk_gpu_available() && cudaGetDevice(&device) == cudaSuccess && ozaki2::int8_gemm_sm90_available(device);
}

#define REQUIRE_ENGINE() \
  if (!engine_available()) GTEST_SKIP() << "needs a compute capability 9.0 GPU and the sm_90a build"

/// A batch of TN problems with gaps after every plane and padding rows in C (ldc > m).
struct Batch {
  std::int64_t m = 0, n = 0, k = 0;
  int batch = 1;
  std::int64_t ldc = 0;
  std::size_t a_plane = 0, b_plane = 0, c_plane = 0;
  std::vector<std::int8_t> A, B;
};

Batch make_batch(std::int64_t m, std::int64_t n, std::int64_t k, int batch, std::mt19937_64& rng) {
  Batch b;
  b.m = m, b.n = n, b.k = k, b.batch = batch;
  b.ldc = (m + 4 + 3) / 4 * 4;
  b.a_plane = std::size_t(k * m) + 16;
  b.b_plane = std::size_t(k * n) + 32;
  b.c_plane = std::size_t(b.ldc * n) + 4;
  std::uniform_int_distribution<int> value(-128, 127);
  b.A.resize(b.a_plane * std::size_t(batch));
  b.B.resize(b.b_plane * std::size_t(batch));
  for (std::int8_t& x : b.A) x = std::int8_t(value(rng));
  for (std::int8_t& x : b.B) x = std::int8_t(value(rng));
  return b;
}

/// C_l = A_l^T B_l on the host in int64 (exact), kPoison everywhere else.
std::vector<std::int32_t> host_product(Batch const& b) {
  std::vector<std::int32_t> C(b.c_plane * std::size_t(b.batch), kPoison);
  for (int l = 0; l < b.batch; ++l) {
    for (std::int64_t j = 0; j < b.n; ++j) {
      std::int8_t const* column = b.B.data() + std::size_t(l) * b.b_plane + std::size_t(j * b.k);
      for (std::int64_t i = 0; i < b.m; ++i) {
        std::int8_t const* row = b.A.data() + std::size_t(l) * b.a_plane + std::size_t(i * b.k);
        std::int64_t sum = 0;
        for (std::int64_t h = 0; h < b.k; ++h) sum += std::int64_t(row[h]) * column[h];
        C[std::size_t(l) * b.c_plane + std::size_t(i + j * b.ldc)] = std::int32_t(sum);
      }
    }
  }
  return C;
}

/// The engine's C (poisoned before the call); "" or its error in *error.
std::vector<std::int32_t> on_gpu(Batch const& b, Int8Sm90Schedule schedule, std::string* error) {
  DeviceBuffer<std::int8_t> A(b.A), B(b.B);
  DeviceBuffer<std::int32_t> C(b.c_plane * std::size_t(b.batch));
  cudaMemset(C.get(), 0x7F, C.bytes());
  *error = ozaki2::int8_gemm_sm90_scheduled(b.m, b.n, b.k, A.get(), b.a_plane, B.get(), b.b_plane, C.get(), b.ldc,
                                            b.c_plane, b.batch, nullptr, schedule);
  if (cudaError_t const e = cudaDeviceSynchronize(); e != cudaSuccess && error->empty()) {
    *error = cudaGetErrorName(e);
  }
  return C.download();
}

/// Elements that differ, with the first reported.
int count_differences(std::vector<std::int32_t> const& got, std::vector<std::int32_t> const& want, Batch const& b,
                      char const* what) {
  int bad = 0;
  for (std::size_t at = 0; at < want.size(); ++at) {
    if (got[at] != want[at] && ++bad == 1) {
      std::size_t const l = at / b.c_plane, in_plane = at % b.c_plane;
      ADD_FAILURE() << what << " m " << b.m << " n " << b.n << " k " << b.k << " batch " << b.batch << ": plane " << l
                    << " C(" << in_plane % std::size_t(b.ldc) << "," << in_plane / std::size_t(b.ldc) << ") = "
                    << got[at] << ", expected " << want[at];
    }
  }
  return bad;
}

constexpr std::pair<Int8Sm90Schedule, char const*> kSchedules[] = {{Int8Sm90Schedule::kSingle, "single"},
                                                                    {Int8Sm90Schedule::kPair, "pair"}};

TEST(Int8GemmSm90, EdgeShapesAreExactAndLeavePaddingAlone) {
  REQUIRE_ENGINE();
  std::mt19937_64 rng(90);
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, int>> shapes;
  int index = 0;
  for (std::int64_t m : {1, 17, 127, 129, 300}) {
    for (std::int64_t n : {1, 17, 127, 129, 300}) {
      for (std::int64_t k : {16, 32, 144}) shapes.emplace_back(m, n, k, ++index % 2 == 0 ? 3 : 1);
    }
  }
  // k = 4096: 32 stages through the four-slot ring, several trips of its phases.
  for (auto [m, n, batch] : {std::tuple<std::int64_t, std::int64_t, int>{300, 129, 1}, {17, 300, 3}, {129, 127, 3}}) {
    shapes.emplace_back(m, n, 4096, batch);
  }
  for (auto [m, n, k, batch] : shapes) {
    Batch const b = make_batch(m, n, k, batch, rng);
    std::vector<std::int32_t> const want = host_product(b);
    for (auto [schedule, name] : kSchedules) {
      std::string error;
      std::vector<std::int32_t> const got = on_gpu(b, schedule, &error);
      ASSERT_EQ(error, "") << name;
      EXPECT_EQ(count_differences(got, want, b, name), 0);
    }
  }
}

TEST(Int8GemmSm90, LargerShapeEqualsCublasAndRepeatsItsBits) {
  REQUIRE_ENGINE();
  std::mt19937_64 rng(91);
  Batch const b = make_batch(2049, 1031, 2064, 2, rng);
  DeviceBuffer<std::int8_t> A(b.A), B(b.B);
  DeviceBuffer<std::int32_t> C(b.c_plane * std::size_t(b.batch));
  cudaMemset(C.get(), 0x7F, C.bytes());
  cublasHandle_t handle = nullptr;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  std::int32_t const one = 1, zero = 0;
  cublasStatus_t const status = cublasGemmStridedBatchedEx(
      handle, CUBLAS_OP_T, CUBLAS_OP_N, int(b.m), int(b.n), int(b.k), &one, A.get(), CUDA_R_8I, int(b.k),
      static_cast<long long>(b.a_plane), B.get(), CUDA_R_8I, int(b.k), static_cast<long long>(b.b_plane), &zero,
      C.get(), CUDA_R_32I, int(b.ldc), static_cast<long long>(b.c_plane), b.batch, CUBLAS_COMPUTE_32I,
      CUBLAS_GEMM_DEFAULT);
  cublasDestroy(handle);
  ASSERT_EQ(status, CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<std::int32_t> const want = C.download();
  for (auto [schedule, name] : kSchedules) {
    std::string error;
    std::vector<std::int32_t> const first = on_gpu(b, schedule, &error);
    ASSERT_EQ(error, "") << name;
    EXPECT_EQ(count_differences(first, want, b, name), 0);
    std::vector<std::int32_t> const second = on_gpu(b, schedule, &error);
    ASSERT_EQ(error, "") << name;
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(std::int32_t)), 0) << name;
  }
}

TEST(Int8GemmSm90, ZeroDepthWritesZerosAndBadArgumentsWriteNothing) {
  REQUIRE_ENGINE();
  std::mt19937_64 rng(92);
  Batch b = make_batch(37, 9, 0, 2, rng);
  std::vector<std::int32_t> want = host_product(b);  // zeros in the m x n region, poison around it
  std::string error;
  EXPECT_EQ(count_differences(on_gpu(b, Int8Sm90Schedule::kAuto, &error), want, b, "k = 0"), 0);
  EXPECT_EQ(error, "");

  b = make_batch(37, 9, 32, 2, rng);
  std::vector<std::int32_t> const untouched(b.c_plane * std::size_t(b.batch), kPoison);
  b.k = 24;  // not a multiple of 16
  EXPECT_EQ(on_gpu(b, Int8Sm90Schedule::kAuto, &error), untouched);
  EXPECT_NE(error, "");
  b.k = 32;
  b.ldc = 36;  // below m
  EXPECT_EQ(on_gpu(b, Int8Sm90Schedule::kAuto, &error), untouched);
  EXPECT_NE(error, "");
  b.ldc = 40;
  b.a_plane += 8;  // TMA wants 16-byte plane strides
  EXPECT_EQ(on_gpu(b, Int8Sm90Schedule::kAuto, &error), untouched);
  EXPECT_NE(error, "");
}

}  // namespace
}  // namespace gemmkit::test
