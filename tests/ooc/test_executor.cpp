/*! \file
    \brief The host-resident executor on a GPU: every pipeline level on pinned and pageable host
    memory, all transposes, odd sizes and padded leading dimensions, a device budget small enough
    for many units and K chunks, beta = 0 over a NaN C, panel reuse as planned, several workers
    (two devices, or two workers on one), run-to-run bitwise equality, a timeline, a forced
    allocation failure that leaves C and device memory as they were, the CPU share (fixed and
    adaptive splits), and the public API's routing.
*/
#include "ooc/cpu_share.hpp"
#include "ooc/executor.hpp"
#include "variants/variants.hpp"
#include "support/api_calls.hpp"
#include "support/device_memory.hpp"
#include "support/gemm_check.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

namespace gemmkit::test {
namespace {

#define GEMMKIT_REQUIRE_DEVICE() \
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device"

using ooc::ExecutorOptions;
using ooc::HostMemory;
using ooc::PipelineLevel;

/// A page-locked copy of a test matrix (padding included) for the pinned runs: the test pins its
/// own memory, gemmkit never does. (cudaHostRegister on vector storage could meet a page another
/// matrix already registered.)
template <typename T>
class PinnedCopy {
 public:
  explicit PinnedCopy(Matrix<T> const& matrix) : bytes_(matrix.bytes()) {
    if (cudaMallocHost(&data_, bytes_) != cudaSuccess) {
      data_ = nullptr;
      return;
    }
    std::memcpy(data_, matrix.data(), bytes_);
  }
  ~PinnedCopy() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  PinnedCopy(PinnedCopy const&) = delete;
  PinnedCopy& operator=(PinnedCopy const&) = delete;
  T* data() const { return data_; }
  void copy_to(Matrix<T>& matrix) const { std::memcpy(matrix.data(), data_, bytes_); }

 private:
  std::size_t bytes_;
  T* data_ = nullptr;
};

/// Options that cut a few-hundred-wide problem into many units and K chunks.
ExecutorOptions small_budget_options(PipelineLevel level, HostMemory memory, std::size_t budget = std::size_t(1) << 20) {
  ExecutorOptions o;
  o.kernels = &variant_registry();
  o.devices = {0};
  o.device_budget = budget;
  o.level = level;
  o.host_memory = memory;
  o.granule = 64;
  o.staging_slot_bytes = std::size_t(64) << 10;  // many slabs per panel, so the ring wraps
  o.staging_slots = 3;
  o.staging_threads = 2;
  return o;
}

GemmArguments arguments(GemmProblem const& p, double alpha, double beta, void const* A, void const* B, void* C) {
  GemmArguments args;
  args.problem = p;
  args.alpha = alpha;
  args.beta = beta;
  args.A = A, args.B = B, args.C = C;
  return args;
}

/// Runs the executor on fresh operands and checks C against the reference (and its padding).
template <typename T>
::testing::AssertionResult check_executor(GemmProblem const& p, double alpha, double beta, ExecutorOptions const& options,
                                          bool pin, ooc::ExecutionReport* report = nullptr) {
  Operands<T> ops = make_operands<T>(p, beta);
  Matrix<T> const C0 = ops.C;
  auto const reference = reference_result(p, alpha, ops.A, ops.B, beta, C0);
  std::optional<PinnedCopy<T>> pin_a, pin_b, pin_c;
  T const* A = ops.A.data();
  T const* B = ops.B.data();
  T* C = ops.C.data();
  if (pin) {
    pin_a.emplace(ops.A), pin_b.emplace(ops.B), pin_c.emplace(ops.C);
    if (!pin_a->data() || !pin_b->data() || !pin_c->data()) return ::testing::AssertionFailure() << "cudaMallocHost failed";
    A = pin_a->data(), B = pin_b->data(), C = pin_c->data();
  }
  std::string error;
  ooc::ExecutionReport local;
  ooc::ExecutionReport* out = report != nullptr ? report : &local;
  gk_status const s = ooc::execute(arguments(p, alpha, beta, A, B, C), options, nullptr, &error, out);
  if (s != GK_SUCCESS) return ::testing::AssertionFailure() << describe(p) << ": " << gk_status_string(s) << ": " << error;
  if (pin) pin_c->copy_to(ops.C);
  if (out->staged_a == pin || out->staged_c == pin) {
    return ::testing::AssertionFailure() << describe(p) << ": staging " << out->staged_a << out->staged_b << out->staged_c
                                         << " for " << (pin ? "pinned" : "pageable") << " operands";
  }
  return check_result(p, alpha, beta, ops.A, ops.B, C0, ops.C, reference);
}

template <typename T>
class OocExecutor : public ::testing::Test {};
using ElementTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(OocExecutor, ElementTypes);

TYPED_TEST(OocExecutor, EveryLevelPinnedAndPageableAllTransposes) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  for (int level = 1; level <= 4; ++level) {
    for (bool pin : {true, false}) {
      for (auto [ta, tb] : {std::pair{GK_OP_N, GK_OP_N}, {GK_OP_N, GK_OP_T}, {GK_OP_T, GK_OP_N}, {GK_OP_C, GK_OP_T}}) {
        for (double beta : {0.5, 0.0}) {
          GemmProblem const p = make_problem(dtype_of<T>(), ta, tb, 517, 389, 611, /*ld_pad=*/3);
          SCOPED_TRACE("level " + std::to_string(level) + (pin ? " pinned " : " pageable ") + describe(p) +
                       " beta " + std::to_string(beta));
          ExecutorOptions const o = small_budget_options(PipelineLevel(level), pin ? HostMemory::kAuto : HostMemory::kPageable);
          ooc::ExecutionReport report;
          EXPECT_TRUE(check_executor<T>(p, 1.25, beta, o, pin, &report));
          EXPECT_GT(report.plan.k_chunks, 1) << report.plan.describe(0);
          EXPECT_GT(report.plan.block_rows * report.plan.block_cols, 4) << report.plan.describe(0);
        }
      }
    }
  }
}

TYPED_TEST(OocExecutor, OddAndTinySizes) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  struct Size {
    std::int64_t m, n, k;
  };
  for (Size s : {Size{1, 1, 1}, {1, 300, 1}, {300, 1, 7}, {65, 129, 1}, {257, 63, 1000}, {333, 444, 129}}) {
    for (int level : {1, 4}) {
      GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_T, s.m, s.n, s.k, 1);
      SCOPED_TRACE("level " + std::to_string(level) + " " + describe(p));
      EXPECT_TRUE(check_executor<T>(p, -0.75, 2.0, small_budget_options(PipelineLevel(level), HostMemory::kPageable), false));
    }
  }
}

TEST(OocExecutorReuse, PanelLoadsFollowTheLevel) {
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 700, 900, 64);
  std::size_t const budget = std::size_t(2) << 20;  // full K fits: panels can stay resident
  for (int level : {2, 3, 4}) {
    SCOPED_TRACE("level " + std::to_string(level));
    ooc::ExecutionReport report;
    ASSERT_TRUE(check_executor<double>(p, 1.0, 1.0, small_budget_options(PipelineLevel(level), HostMemory::kAuto, budget),
                                       false, &report));
    ooc::Plan const& plan = report.plan;
    ASSERT_EQ(plan.k_chunks, 1) << plan.describe(0);
    ASSERT_GT(plan.units.size(), 4u) << plan.describe(0);
    std::int64_t planned = 0;
    for (ooc::WorkUnit const& u : plan.units) planned += u.loads_a + u.loads_b;
    std::int64_t const unreused = 2 * std::int64_t(plan.units.size());
    ASSERT_LT(planned, unreused);
    // Level 3 and 4 keep two B panels: after each turn of the serpentine the second block also finds
    // its B panel (the one before the turn's), one load fewer per turn than the planner counts.
    std::int64_t const extra_reuse = plan.block_cols >= 2 ? plan.block_rows - 1 : 0;
    EXPECT_EQ(report.panel_loads_per_worker.at(0), level >= 3 ? planned - extra_reuse : unreused);
  }
}

/// The same plan gives the same bits: twice in a row, and spread over several workers (each C
/// block, with all its K chunks, is computed by one worker with the same kernels).
TEST(OocExecutorDeterminism, RunToRunAndAcrossWorkersBitwise) {
  GEMMKIT_REQUIRE_DEVICE();
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_T, GK_OP_N, 640, 575, 700, 2);
  Operands<double> ops = make_operands<double>(p, 1.0);
  Matrix<double> const C0 = ops.C;
  auto run = [&](ExecutorOptions const& o, ooc::ExecutionReport* report) {
    Matrix<double> C = C0;
    std::string error;
    EXPECT_EQ(ooc::execute(arguments(p, 1.0, -1.0, ops.A.data(), ops.B.data(), C.data()), o, nullptr, &error, report),
              GK_SUCCESS)
        << error;
    return C;
  };
  ExecutorOptions o = small_budget_options(PipelineLevel::kDeviceC, HostMemory::kPageable);
  ooc::ExecutionReport first_report;
  Matrix<double> const first = run(o, &first_report);
  EXPECT_TRUE(run(o, nullptr).bitwise_equal(first));
  std::vector<std::vector<int>> lists = {{0, 0}};  // two workers sharing device 0
  if (devices >= 2) lists.push_back({0, 1});
  if (devices >= 3) lists.push_back({0, 1, 2});
  for (std::vector<int> const& list : lists) {
    SCOPED_TRACE("devices " + std::to_string(list.size()) + (list[0] == list[1] ? " (device 0 twice)" : ""));
    o.devices = list;
    ooc::ExecutionReport report;
    Matrix<double> const spread = run(o, &report);
    EXPECT_TRUE(spread.bitwise_equal(first));
    ASSERT_EQ(report.blocks_per_worker.size(), list.size());
    std::int64_t total = 0;
    for (std::int64_t b : report.blocks_per_worker) {
      EXPECT_GT(b, 0) << "a worker got no block";
      total += b;
    }
    EXPECT_EQ(total, first_report.plan.block_rows * first_report.plan.block_cols);
  }
}

TEST(OocExecutorTimeline, RecordsEveryLaneInOrder) {
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 400, 400, 400);
  Operands<double> ops = make_operands<double>(p, 1.0);
  std::vector<ooc::TimelineEvent> timeline;
  ExecutorOptions o = small_budget_options(PipelineLevel::kDeviceC, HostMemory::kPageable);
  o.timeline = &timeline;
  std::string error;
  ASSERT_EQ(ooc::execute(arguments(p, 1.0, 1.0, ops.A.data(), ops.B.data(), ops.C.data()), o, nullptr, &error),
            GK_SUCCESS)
      << error;
  std::set<std::string> lanes;
  for (ooc::TimelineEvent const& e : timeline) {
    lanes.insert(e.lane);
    EXPECT_LE(e.start_ms, e.end_ms) << e.lane << " " << e.what;
    EXPECT_GE(e.start_ms, -1.0) << e.lane << " " << e.what;  // host and device clocks line up to a millisecond
  }
  EXPECT_EQ(lanes, (std::set<std::string>{"h2d", "compute", "d2h", "stage", "unstage"}));
}

/// Device memory taken by a test, so the executor's own allocation fails.
class DeviceHog {
 public:
  explicit DeviceHog(std::size_t leave_free) {
    std::size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess || free_bytes <= leave_free) return;
    if (cudaMalloc(&pointer_, free_bytes - leave_free) != cudaSuccess) {
      cudaGetLastError();
      pointer_ = nullptr;
    }
  }
  ~DeviceHog() {
    if (pointer_ != nullptr) cudaFree(pointer_);
  }
  DeviceHog(DeviceHog const&) = delete;
  DeviceHog& operator=(DeviceHog const&) = delete;
  bool ok() const { return pointer_ != nullptr; }

 private:
  void* pointer_ = nullptr;
};

/// Free device memory once the device is idle and the stream-ordered pools hold nothing back: memory
/// pressure (the hog) makes the driver return pool memory earlier tests left cached, which would
/// otherwise show as memory "appearing" during the test.
std::size_t settled_free_device_bytes() {
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int device = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
  if (cudaDeviceGetMemPool(&pool, device) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
  cudaGetLastError();
  std::size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  return free_bytes;
}

/// Signed MiB from `before` to `after`, for the failure messages.
double mib_change(std::size_t before, std::size_t after) { return (double(after) - double(before)) / double(1 << 20); }

TEST(OocExecutorFailure, AllocationFailureLeavesCAndMemoryAsTheyWere) {
  GEMMKIT_REQUIRE_DEVICE();
  // compute-sanitizer (which injects itself through this variable) pads and keeps allocations, so
  // neither the memory taken nor the free bytes after mean what this test reads them as.
  if (std::getenv("CUDA_INJECTION64_PATH") != nullptr) GTEST_SKIP() << "device memory accounting under a sanitizer";
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 3000, 3000, 3000);
  Operands<double> ops = make_operands<double>(p, 1.0);
  Matrix<double> const C0 = ops.C;
  std::size_t const budget = std::size_t(256) << 20;
  ExecutorOptions o;
  o.kernels = &variant_registry();
  o.device_budget = budget;
  o.host_memory = HostMemory::kPageable;
  auto const args = arguments(p, 1.0, 1.0, ops.A.data(), ops.B.data(), ops.C.data());
  std::string error;
  // Warm up every configuration the test runs (kernel modules load lazily, and a worker thread's
  // first kernel call may keep per-thread state).
  ooc::ExecutionReport report;
  for (std::vector<int> const& devices : {std::vector<int>{0}, std::vector<int>{0, 0}}) {
    o.devices = devices;
    Matrix<double> C = C0;
    ASSERT_EQ(ooc::execute(arguments(p, 1.0, 1.0, ops.A.data(), ops.B.data(), C.data()), o, nullptr, &error, &report),
              GK_SUCCESS)
        << error;
  }
  std::size_t const arena = report.plan.device_bytes;
  // One failing call per configuration: the status, the message, and C untouched.
  auto fail_once = [&](std::vector<int> const& devices) {
    SCOPED_TRACE(std::to_string(devices.size()) + " worker(s) on device 0");
    o.devices = devices;
    // Room for one worker's arena at most: one worker fails, or the only one does.
    DeviceHog const hog(devices.size() == 1 ? arena / 2 : arena + arena / 2);
    ASSERT_TRUE(hog.ok());
    gk_status const s = ooc::execute(args, o, nullptr, &error);
    EXPECT_EQ(s, GK_ALLOCATION_FAILED) << error;
    EXPECT_NE(error.find("cudaMalloc"), std::string::npos) << error;
    EXPECT_EQ(error.find("partly updated"), std::string::npos) << error;
    EXPECT_TRUE(ops.C.bitwise_equal(C0)) << "a failed call wrote C";
  };
  // Per configuration: a first failing call settles what is kept between calls for that worker
  // count (a 2-worker call leaves 2 MiB more in place than a 1-worker one on the H100 and H200),
  // then an identical failing call must leave free device memory exactly where it was: a failing
  // call that leaked would show here.
  for (std::vector<int> const& devices : {std::vector<int>{0}, std::vector<int>{0, 0}}) {
    fail_once(devices);
    std::size_t const before = settled_free_device_bytes();
    fail_once(devices);
    std::size_t const after = settled_free_device_bytes();
    EXPECT_EQ(after, before) << "device memory changed by " << mib_change(before, after)
                             << " MiB after a failing call on " << devices.size() << " worker(s) (negative: leaked)";
  }
  // With the memory back, the same call succeeds, and succeeding again keeps nothing more.
  o.devices = {0};
  ASSERT_EQ(ooc::execute(args, o, nullptr, &error), GK_SUCCESS) << error;
  EXPECT_FALSE(ops.C.bitwise_equal(C0));
  std::size_t const before = settled_free_device_bytes();
  ASSERT_EQ(ooc::execute(args, o, nullptr, &error), GK_SUCCESS) << error;
  std::size_t const after = settled_free_device_bytes();
  EXPECT_EQ(after, before) << "device memory changed by " << mib_change(before, after) << " MiB";
}

TEST(OocExecutorFailure, BudgetWithoutATileIsRefused) {
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 4096, 4096, 4096);
  Operands<double> ops = make_operands<double>(p, 1.0);
  Matrix<double> const C0 = ops.C;
  ExecutorOptions o;
  o.kernels = &variant_registry();
  o.device_budget = std::size_t(1) << 20;  // no 256-wide tile fits in 1 MiB
  std::string error;
  EXPECT_EQ(ooc::execute(arguments(p, 1.0, 1.0, ops.A.data(), ops.B.data(), ops.C.data()), o, nullptr, &error),
            GK_ALLOCATION_FAILED);
  EXPECT_NE(error.find("budget"), std::string::npos) << error;
  EXPECT_TRUE(ops.C.bitwise_equal(C0));
}

/// A forced tile (the benchmark's --tile) runs with that tile and full K, and gives the reference
/// result; one that does not fit the budget is refused before C is touched.
TEST(OocExecutorForcedTile, RunsTheTileAndRefusesOneOverTheBudget) {
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 300, 260, 200);
  ExecutorOptions o = small_budget_options(PipelineLevel::kDeviceC, HostMemory::kAuto, std::size_t(4) << 20);
  o.forced_tile = 128;
  ooc::ExecutionReport report;
  EXPECT_TRUE(check_executor<double>(p, 1.0, 0.5, o, true, &report));
  EXPECT_EQ(report.plan.tile_rows, 128);
  EXPECT_EQ(report.plan.tile_cols, 128);
  EXPECT_EQ(report.plan.tile_depth, p.k);
  EXPECT_EQ(report.plan.block_rows * report.plan.block_cols, 3 * 3);

  Operands<double> ops = make_operands<double>(p, 1.0);
  Matrix<double> const C0 = ops.C;
  o.forced_tile = 256;  // panels of 256 x 200 doubles, two copies each: over 1 MiB
  o.device_budget = std::size_t(1) << 20;
  std::string error;
  EXPECT_EQ(ooc::execute(arguments(p, 1.0, 1.0, ops.A.data(), ops.B.data(), ops.C.data()), o, nullptr, &error),
            GK_ALLOCATION_FAILED);
  EXPECT_NE(error.find("forced 256-wide tile"), std::string::npos) << error;
  EXPECT_TRUE(ops.C.bitwise_equal(C0));
}

/// The CPU share: a fixed split gives the reference result and the same bits twice; the adaptive
/// one learns both rates and moves the split towards balance.
TYPED_TEST(OocExecutor, CpuShareComputesTheLastColumns) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  for (gk_op tb : {GK_OP_N, GK_OP_T}) {
    GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, tb, 300, 517, 250, 1);
    SCOPED_TRACE(describe(p));
    for (double beta : {0.0, 0.5}) {
      Operands<T> ops = make_operands<T>(p, beta);
      Matrix<T> const C0 = ops.C;
      auto const reference = reference_result(p, 1.5, ops.A, ops.B, beta, C0);
      ExecutorOptions o = small_budget_options(PipelineLevel::kDeviceC, HostMemory::kAuto);
      o.cpu_fraction = 0.3;
      ooc::ShareState state;
      ooc::ExecutionReport report;
      std::string error;
      auto const args = arguments(p, 1.5, beta, ops.A.data(), ops.B.data(), ops.C.data());
      ASSERT_EQ(ooc::execute_with_cpu_share(args, o, nullptr, &state, &error, &report), GK_SUCCESS) << error;
      EXPECT_EQ(report.cpu_columns, std::int64_t(std::llround(0.3 * double(p.n))));
      EXPECT_TRUE(check_result(p, 1.5, beta, ops.A, ops.B, C0, ops.C, reference));
      if (beta == 0.0) {  // C is not read: a second call gives the same bits
        Matrix<T> const first = ops.C;
        ASSERT_EQ(ooc::execute_with_cpu_share(args, o, nullptr, &state, &error, &report), GK_SUCCESS) << error;
        EXPECT_TRUE(ops.C.bitwise_equal(first));
      }
    }
  }
  // Adaptive: rates measured on the first call; later splits follow them.
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, 512, 4096, 512);
  Operands<T> ops = make_operands<T>(p, 0.0);
  Matrix<T> const C0 = ops.C;  // NaN: beta = 0 must not read it
  ExecutorOptions o = small_budget_options(PipelineLevel::kDeviceC, HostMemory::kAuto, std::size_t(64) << 20);
  ooc::ShareState state;
  state.cpu_flops = 20e12, state.gpu_flops = 20e12;  // a half share to start, whatever this host is
  std::string error;
  ooc::ExecutionReport report;
  ASSERT_EQ(ooc::execute_with_cpu_share(arguments(p, 1.0, 0.0, ops.A.data(), ops.B.data(), ops.C.data()), o, nullptr,
                                        &state, &error, &report),
            GK_SUCCESS)
      << error;
  EXPECT_EQ(report.cpu_columns, 2048);
  EXPECT_GT(report.cpu_seconds, 0);
  EXPECT_GT(report.gpu_seconds, 0);
  EXPECT_NE(state.cpu_flops, 20e12);
  EXPECT_NE(state.gpu_flops, 20e12);
  EXPECT_EQ(state.last_cpu_columns, 2048);
  auto const reference = reference_result(p, 1.0, ops.A, ops.B, 0.0, C0);
  EXPECT_TRUE(check_result(p, 1.0, 0.0, ops.A, ops.B, C0, ops.C, reference));
}

/// gk_dgemm / gk_sgemm on host pointers: the GPU policy routes any size here with the context's
/// options, the CPU share included.
TYPED_TEST(OocExecutor, PublicApiRoutesHostPointers) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  ScopedContext ctx;
  ASSERT_EQ(gk_set_backend(ctx, GK_BACKEND_GPU), GK_SUCCESS);
  ASSERT_EQ(gk_set_device_memory_budget(ctx, std::size_t(4) << 20), GK_SUCCESS);  // K in chunks at the 256 granule
  int const twice[] = {0, 0};
  ASSERT_EQ(gk_set_host_gemm_devices(ctx, twice, 2), GK_SUCCESS);
  EXPECT_EQ(gk_set_host_gemm_pipeline(ctx, 5), GK_INVALID_ARGUMENT);
  int const missing[] = {1000};
  EXPECT_EQ(gk_set_host_gemm_devices(ctx, missing, 1), GK_INVALID_ARGUMENT);
  for (int level : {1, 3, 4}) {
    for (gk_host_memory memory : {GK_HOST_MEMORY_AUTO, GK_HOST_MEMORY_PAGEABLE}) {
      ASSERT_EQ(gk_set_host_gemm_pipeline(ctx, level), GK_SUCCESS);
      ASSERT_EQ(gk_set_host_memory(ctx, memory), GK_SUCCESS);
      GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_T, GK_OP_N, 300, 200, 500, 2);
      SCOPED_TRACE("level " + std::to_string(level) + " " + describe(p));
      Operands<T> ops = make_operands<T>(p, 0.0);
      Matrix<T> const C0 = ops.C;
      auto const reference = reference_result(p, 1.0, ops.A, ops.B, 0.0, C0);
      ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(1), ops.A.data(), p.lda, ops.B.data(),
                         p.ldb, T(0), ops.C.data(), p.ldc),
                GK_SUCCESS)
          << gk_last_error(ctx);
      EXPECT_STREQ(gk_last_variant(ctx), sizeof(T) == 8 ? "dgemm_host_resident" : "sgemm_host_resident");
      EXPECT_TRUE(check_result(p, 1.0, 0.0, ops.A, ops.B, C0, ops.C, reference));
    }
  }
  // The CPU share on: a wide C, so the CPU's first-call share is at least one 256-column granule.
  ASSERT_EQ(gk_set_cpu_share(ctx, 1), GK_SUCCESS);
  ASSERT_EQ(gk_set_device_memory_budget(ctx, 0), GK_SUCCESS);
  for (int call = 0; call < 2; ++call) {
    GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, 256, 16384, 256);
    Operands<T> ops = make_operands<T>(p, 1.0);
    Matrix<T> const C0 = ops.C;
    auto const reference = reference_result(p, 1.0, ops.A, ops.B, 1.0, C0);
    ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, p.m, p.n, p.k, T(1), ops.A.data(), p.lda, ops.B.data(),
                       p.ldb, T(1), ops.C.data(), p.ldc),
              GK_SUCCESS)
        << gk_last_error(ctx);
    EXPECT_TRUE(check_result(p, 1.0, 1.0, ops.A, ops.B, C0, ops.C, reference));
  }
}

}  // namespace
}  // namespace gemmkit::test
