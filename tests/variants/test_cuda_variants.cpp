/*! \file
    \brief Every registered CUDA variant (ladder steps, cuBLAS peers) on device memory, directly and
    through the API: sizes derived from the ladder configs, all transposes, padding poisoned on the
    device, NaN C with beta = 0, strided batches, grid-limit shapes and run-to-run determinism.
*/
#include "base/device.hpp"
#include "cuda/gemm/dgemm_tensorop.hpp"
#include "cuda/gemm/sgemm_simt.hpp"
#include "cuda/ladder/ladder.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "support/device_memory.hpp"
#include "support/case_groups.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace gemmkit::test {
namespace {

/// Skips the running test unless a device is present that can run `v`.
#define GEMMKIT_REQUIRE_DEVICE_FOR(v)                                                              \
  do {                                                                                             \
    if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";                                     \
    if (compute_capability(device_memory()->device()) < (v).info().min_sm)                         \
      GTEST_SKIP() << (v).info().id << " needs sm_" << (v).info().min_sm;                          \
  } while (0)

using CudaCase = VariantCase;

/// Sizes from a block-tile config: BM+-1 and BN+-1 (partial tiles), BK*(stages+1)-1 (a k that
/// ends mid-ring after draining the pipeline), BK*stages+1 and BK-1 (one partial slice).
template <typename Cfg>
void add_tile_groups(std::vector<CaseGroup>& groups) {
  std::string const prefix = "tile" + Cfg::name() + "_";
  for (Shape const s : {Shape{Cfg::kBM + 1, Cfg::kBN - 1, Cfg::kBK * (Cfg::kStages + 1) - 1},
                        Shape{Cfg::kBM - 1, 2 * Cfg::kBN + 1, Cfg::kBK * Cfg::kStages + 1},
                        Shape{2 * Cfg::kBM + 1, Cfg::kBN + 1, Cfg::kBK - 1}}) {
    groups.push_back(shape_group(prefix + shape_name(s), s));
  }
}

/// Sizes from the ladder configs: tile +-1, 2*tile+1, the k that drains a (stages+1)-deep
/// pipeline minus one, thread-block edges of the naive step, primes and one larger problem;
/// then the production tile configs' own edges.
std::vector<CaseGroup> cuda_case_groups() {
  constexpr std::int64_t t = ladder::TiledConfig<16>::kTile;
  constexpr std::int64_t bm = ladder::NaiveConfig::kBlockM, bn = ladder::NaiveConfig::kBlockN;
  constexpr std::int64_t k_drain = t * (1 + 1) - 1;  // BK*(stages+1)-1 with one stage
  Shape const shapes[] = {{1, 1, 1},          {t - 1, t, t + 1},     {t + 1, t - 1, t},   {t, t, t},
                          {2 * t + 1, t + 1, k_drain}, {bm + 1, bn - 1, 2 * t + 1}, {1, 2 * t + 1, 3},
                          {2 * t + 1, 1, 1},  {37, 61, 97},          {97, 37, 61},        {257, 129, 200}};
  std::vector<CaseGroup> groups;
  for (Shape const& s : shapes) groups.push_back(shape_group(shape_name(s), s));
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (add_tile_groups<std::tuple_element_t<I, gemm::DgemmTensorOpConfigs>>(groups), ...);
  }(std::make_index_sequence<gemm::kDgemmTensorOpConfigCount>{});
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (add_tile_groups<std::tuple_element_t<I, gemm::SgemmSimtConfigs>>(groups), ...);
  }(std::make_index_sequence<gemm::kSgemmSimtConfigCount>{});
  // Even sides past a tile that are no multiple of it: the last tile shifts in to end at the edge
  // and copies with 16 bytes (edge_tile_origin), its K ending in a partial k-tile.
  for (Shape const& s : {Shape{130, 136, 1000}, Shape{258, 70, 77}}) groups.push_back(shape_group("edge_" + shape_name(s), s));
  // Long K over few tiles: the split-K variants divide K into several slices here.
  for (Shape const& s : {Shape{65, 33, 1999}, Shape{17, 130, 1031}}) groups.push_back(shape_group("longk_" + shape_name(s), s));
  // Split K over a batch: the fixup variants number their tiles' counters and partials across it.
  groups.push_back(batch3_group(Shape{130, 70, 700}));
  for (Shape const& s : {Shape{t + 1, 2 * t + 1, k_drain}, Shape{97, 37, 61}}) {
    groups.push_back({"conj_" + shape_name(s),
                      {{s, GK_OP_C, GK_OP_N, 1.0, 1.0, 2},
                       {s, GK_OP_N, GK_OP_C, 1.0, 0.0, 0},
                       {s, GK_OP_C, GK_OP_C, 2.0, -1.0, 1}}});
  }
  for (Shape const& s : {Shape{t, t, t}, Shape{2 * t + 1, t - 1, 37}, Shape{61, 37, 29}}) {
    groups.push_back(batch3_group(s));
  }
  return groups;
}

std::vector<std::string> cuda_variant_ids() { return variant_ids(Platform::kCuda); }

class CudaVariant : public ::testing::TestWithParam<std::tuple<std::string, CaseGroup>> {};

TEST_P(CudaVariant, MatchesReference) {
  auto const& [id, group] = GetParam();
  GemmVariant const* v = variant_registry().find(id);
  ASSERT_NE(v, nullptr);
  GEMMKIT_REQUIRE_DEVICE_FOR(*v);
  for (CudaCase const& c : group.cases) {
    GemmProblem const p =
        make_problem(v->info().dtype, c.ta, c.tb, c.shape.m, c.shape.n, c.shape.k, c.ld_pad, c.batch);
    if (v->can_implement(p) != GK_SUCCESS) {
      // Only the small batched kernels decline, and only past their 32 limit.
      EXPECT_NE(id.find("gpu_small"), std::string::npos) << id << " declined " << describe(p);
      continue;
    }
    EXPECT_TRUE(check_variant(*v, p, c.alpha, c.beta, /*on_device=*/true));
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, CudaVariant,
                         ::testing::Combine(::testing::ValuesIn(cuda_variant_ids()),
                                            ::testing::ValuesIn(cuda_case_groups())),
                         [](auto const& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param).name; });

/// Checks that run once per variant (not per case).
class CudaVariantOnce : public ::testing::TestWithParam<std::string> {
 protected:
  GemmVariant const& variant() const { return *variant_registry().find(GetParam()); }
  /// `p` where the variant takes it, else `fallback` (the small batched kernels stop at 32).
  GemmProblem accepted(GemmProblem const& p, GemmProblem const& fallback) const {
    if (variant().can_implement(p) == GK_SUCCESS) return p;
    EXPECT_EQ(variant().can_implement(fallback), GK_SUCCESS) << GetParam() << " declined " << describe(fallback);
    return fallback;
  }
};

TEST_P(CudaVariantOnce, StridedBatchBroadcast) {
  GEMMKIT_REQUIRE_DEVICE_FOR(variant());
  GemmProblem p = make_problem(variant().info().dtype, GK_OP_T, GK_OP_N, 19, 23, 11, 1, 3);
  p.stride_a = 0;
  EXPECT_TRUE(check_variant(variant(), p, 1.0, 0.5, true));
  p.stride_a = p.lda * p.a_cols();
  p.stride_b = 0;
  EXPECT_TRUE(check_variant(variant(), p, -1.0, 0.0, true));
}

/// Operands that start 1 or 2 elements past an aligned base (8 or 16 bytes off for f64, 4 or 8 for
/// f32), with odd leading dimensions, so alignment-dependent paths must fall back correctly.
TEST_P(CudaVariantOnce, UnalignedOperands) {
  GEMMKIT_REQUIRE_DEVICE_FOR(variant());
  for (std::int64_t offset : {1, 2}) {
    CheckOptions options;
    options.element_offset = offset;
    Dtype const d = variant().info().dtype;
    for (auto const& p : {accepted(make_problem(d, GK_OP_N, GK_OP_N, 65, 33, 47, 1), make_problem(d, GK_OP_N, GK_OP_N, 31, 17, 29, 1)),
                          accepted(make_problem(d, GK_OP_T, GK_OP_T, 64, 64, 64, 0), make_problem(d, GK_OP_T, GK_OP_T, 32, 32, 32, 0)),
                          accepted(make_problem(d, GK_OP_N, GK_OP_T, 129, 70, 80, 2, 2), make_problem(d, GK_OP_N, GK_OP_T, 9, 7, 5, 2, 2))}) {
      EXPECT_TRUE(check_variant(variant(), p, 1.0, 0.5, true, options)) << "element offset " << offset;
    }
  }
}

/// More batch entries than gridDim.z may hold (65535): the kernels must walk the rest.
TEST_P(CudaVariantOnce, BatchBeyondTheGridLimit) {
  GEMMKIT_REQUIRE_DEVICE_FOR(variant());
  GemmProblem const p = make_problem(variant().info().dtype, GK_OP_N, GK_OP_T, 3, 2, 2, 0, 65535 + 70);
  EXPECT_TRUE(check_variant(variant(), p, 1.0, 0.5, true, CheckOptions{.direct = true, .api = false}));
}

/// More column tiles than gridDim.y may hold (65535 tiles of 16).
TEST_P(CudaVariantOnce, ColumnsBeyondTheGridLimit) {
  GEMMKIT_REQUIRE_DEVICE_FOR(variant());
  std::int64_t const n = 16 * 65535 + 33;
  GemmProblem const p = make_problem(variant().info().dtype, GK_OP_N, GK_OP_N, 2, n, 3);
  // The small batched kernels put whole problems in a block: only the batch reaches the grid limit.
  if (variant().can_implement(p) != GK_SUCCESS) GTEST_SKIP() << GetParam() << " takes n <= 32 only";
  EXPECT_TRUE(check_variant(variant(), p, 1.0, 0.0, true, CheckOptions{.direct = true, .api = false}));
}

/// Same inputs, same configuration: bitwise the same C (docs/kernel-contracts.md).
TEST_P(CudaVariantOnce, DeterministicRunToRun) {
  GEMMKIT_REQUIRE_DEVICE_FOR(variant());
  Dtype const d = variant().info().dtype;
  GemmProblem const p = accepted(make_problem(d, GK_OP_N, GK_OP_T, 257, 129, 200, 1, 2),
                                 make_problem(d, GK_OP_N, GK_OP_T, 29, 31, 30, 1, 3000));
  auto twice = [&]<typename T>() {
    Operands<T> const ops = make_operands<T>(p, 1.0);
    DeviceBuffer<T> A(ops.A.storage()), B(ops.B.storage()), C1(ops.C.storage()), C2(ops.C.storage());
    GemmArguments args;
    args.problem = p;
    args.alpha = 1.0;
    args.beta = 1.0;
    args.A = A.get();
    args.B = B.get();
    ExecutionContext const exec{nullptr, device_memory()->device()};
    ASSERT_EQ(variant().initialize(exec), GK_SUCCESS);
    // A workspace (split K's partial sums) starts poisoned: a variant may not count on what an
    // earlier call left there.
    std::size_t const workspace_bytes = variant().workspace_bytes(p);
    DeviceBuffer<double> workspace(std::vector<double>((workspace_bytes + 7) / 8, std::nan("")));
    for (T* c : {C1.get(), C2.get()}) {
      args.C = c;
      ASSERT_EQ(variant().run(args, workspace_bytes > 0 ? workspace.get() : nullptr, exec), GK_SUCCESS);
    }
    ASSERT_EQ(device_memory()->synchronize(), "");
    std::vector<T> const r1 = C1.download(), r2 = C2.download();
    ASSERT_EQ(C1.error() + C2.error() + A.error() + B.error() + workspace.error(), "");
    EXPECT_EQ(std::memcmp(r1.data(), r2.data(), r1.size() * sizeof(T)), 0) << "two runs differ";
  };
  if (variant().info().dtype == Dtype::kF64) twice.template operator()<double>();
  else twice.template operator()<float>();
}

INSTANTIATE_TEST_SUITE_P(Registered, CudaVariantOnce, ::testing::ValuesIn(cuda_variant_ids()),
                         [](auto const& info) { return info.param; });

TEST(CudaRegistry, LadderAndPeerVariantsAreRegistered) {
  auto const ids = cuda_variant_ids();
  for (char const* id : {"dgemm_ladder01_naive", "sgemm_ladder01_naive", "dgemm_ladder02_tiled16",
                         "sgemm_ladder02_tiled16", "cublas_dgemm", "cublas_sgemm"}) {
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  }
  // The table picks a CUDA variant for device problems of both dtypes.
  for (Dtype d : {Dtype::kF64, Dtype::kF32}) {
    GemmVariant const* v = variant_registry().select(make_problem(d, GK_OP_N, GK_OP_N, 64, 64, 64), Platform::kCuda);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->info().backend, Platform::kCuda);
  }
}

/// Stream-K on the device at hand where it shares tiles behind whole waves (2200 x 2000 x 77: 1120
/// tiles of 64x64 on the H100's 396 slots, 576 of 128x64 and 288 of 128x128 on its 264) and where
/// every tile is cut in several parts (768 x 768 x 300); three transposes (FP64's TT runs as the
/// product C^T = B A), beta read and beta = 0 on NaN C; the packed forms copy NT's odd-ld B first.
/// The registered-variant groups are too small to get past a whole wave.
TEST(CudaStreamK, SharedTilesBehindWholeWaves) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  std::set<std::string> ran;
  for (std::string const& id : cuda_variant_ids()) {
    if (id.find("_streamk") == std::string::npos) continue;
    GemmVariant const* v = variant_registry().find(id);
    ASSERT_NE(v, nullptr);
    ran.insert(id);
    for (Shape const s : {Shape{2200, 2000, 77}, Shape{768, 768, 300}}) {
      for (auto const& [ta, tb] :
           {std::pair{GK_OP_N, GK_OP_N}, std::pair{GK_OP_T, GK_OP_T}, std::pair{GK_OP_N, GK_OP_T}}) {
        GemmProblem const p =
            make_problem(v->info().dtype, ta, tb, s.m, s.n, s.k, tb == GK_OP_T && ta == GK_OP_N ? 1 : 0);
        EXPECT_TRUE(check_variant(*v, p, -1.5, ta == GK_OP_N ? 0.25 : 0.0, /*on_device=*/true)) << id;
      }
    }
  }
  // Every stream-K form by name: one registered without a place here fails until it is added.
  std::set<std::string> const expected{
      "dgemm_tensorop_64x64x16_w32x32_s4_b3_k8_streamk",
      "dgemm_tensorop_128x64x16_w64x32_s3_b2_k8_streamk",
      "dgemm_tensorop_128x64x16_w64x32_s3_b2_k8_packed_streamk",
      "sgemm_simt_128x128x16_w32x64_t8x8_s4_b2_streamk",
      "sgemm_simt_128x128x16_w32x64_t8x8_s4_b2_packed_streamk",
      "sgemm_tensorop_128x64x16_w64x32_s4_b2_k8_streamk",
      "sgemm_tensorop_128x64x16_w64x32_s4_b2_k8_packed_streamk",
  };
  EXPECT_EQ(ran, expected);
}

/// The fixup and stream-K forms hand partial tiles over behind ready flags that no launch zeroes
/// first: one workspace, NaN to start with, then each call finds what the call before it (another
/// shape, another plan) left there, flags and partial tiles alike. Every result must still be right.
TEST(CudaStreamK, WorkspaceLeftByEarlierCallsOfOtherShapes) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<Shape> const shapes{{2200, 2000, 77}, {768, 768, 300}, {600, 500, 1000}, {768, 768, 300}};
  double const alpha = 1.25, beta = 0.5;
  // One set of problems, operands and references per dtype, shared by its variants (the references
  // dominate).
  auto cases = [&]<typename T>() {
    std::vector<std::tuple<GemmProblem, Operands<T>, std::vector<ReferenceAccumulator<T>>>> out;
    for (Shape const s : shapes) {
      GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, s.m, s.n, s.k);
      Operands<T> ops = make_operands<T>(p, beta);
      auto reference = reference_result(p, alpha, ops.A, ops.B, beta, ops.C);
      out.emplace_back(p, std::move(ops), std::move(reference));
    }
    return out;
  };
  auto const f64_cases = cases.template operator()<double>();
  auto const f32_cases = cases.template operator()<float>();
  auto run_shapes = [&]<typename T>(GemmVariant const& v, auto const& shape_cases) {
    ExecutionContext const exec{nullptr, device_memory()->device()};
    ASSERT_EQ(v.initialize(exec), GK_SUCCESS);
    std::size_t workspace_bytes = 0;
    for (auto const& [p, ops, reference] : shape_cases) workspace_bytes = std::max(workspace_bytes, v.workspace_bytes(p));
    ASSERT_GT(workspace_bytes, 0u) << "splits none of these shapes";
    DeviceBuffer<double> workspace(std::vector<double>((workspace_bytes + 7) / 8, std::nan("")));
    for (auto const& [p, ops, reference] : shape_cases) {
      DeviceBuffer<T> A(ops.A.storage()), B(ops.B.storage()), C(ops.C.storage());
      GemmArguments const args{p, alpha, beta, A.get(), B.get(), C.get()};
      ASSERT_EQ(v.run(args, workspace.get(), exec), GK_SUCCESS);
      std::vector<T> const result = C.download();
      ASSERT_EQ(device_memory()->synchronize() + A.error() + B.error() + C.error() + workspace.error(), "");
      Matrix<T> after = ops.C;
      std::copy(result.begin(), result.end(), after.data());
      EXPECT_TRUE(check_result(p, alpha, beta, ops.A, ops.B, ops.C, after, reference)) << "at " << describe(p);
    }
  };
  int variants = 0;
  for (std::string const& id : cuda_variant_ids()) {
    if (id.find("_streamk") == std::string::npos && id.find("_splitk_x") == std::string::npos) continue;
    GemmVariant const* v = variant_registry().find(id);
    ASSERT_NE(v, nullptr);
    ++variants;
    SCOPED_TRACE(id);
    if (v->info().dtype == Dtype::kF64) run_shapes.template operator()<double>(*v, f64_cases);
    else run_shapes.template operator()<float>(*v, f32_cases);
  }
  EXPECT_GE(variants, 3);
}

/// Pointer arrays in host memory are copied into the small kernel's workspace; device arrays go to
/// the kernel as they are and need none. No device needed.
TEST(CudaRegistry, SmallBatchedNeedsNoWorkspaceForDeviceArrays) {
  for (char const* id : {"dgemm_gpu_small", "sgemm_gpu_small"}) {
    GemmVariant const* v = variant_registry().find(id);
    ASSERT_NE(v, nullptr) << id;
    GemmProblem p = make_problem(v->info().dtype, GK_OP_N, GK_OP_N, 8, 8, 8, 0, 1000);
    p.pointer_array = true;
    EXPECT_EQ(v->workspace_bytes(p), 3 * 1000 * sizeof(void*)) << id;
    p.arrays_on_device = true;
    EXPECT_EQ(v->workspace_bytes(p), 0u) << id;
  }
}

}  // namespace
}  // namespace gemmkit::test
