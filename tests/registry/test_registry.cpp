/*! \file
    \brief The registry: selection-table parsing, id rules, lookup and table-driven selection.
*/
#include "registry/function_variant.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <tuple>

namespace gemmkit::test {
namespace {

// ---- parse_selection_table ------------------------------------------------------------------------

TEST(SelectionTable, ParsesRowsInOrder) {
  auto const rules = parse_selection_table(
      "# comment before the header\n"
      "\n"
      "backend,dtype,max_work,variant\n"
      "  # indented comment\n"
      "cuda,f64,1e6,small_kernel\n"
      " cuda , f64 , * , big_kernel \r\n"  // spaces and a CRLF line end are trimmed
      "cpu,f32,4096,cpu_small\n"
      "\n"
      "cpu,f64,*,cpu_any");  // no final newline
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[0].backend, Platform::kCuda);
  EXPECT_EQ(rules[0].dtype, Dtype::kF64);
  EXPECT_EQ(rules[0].max_work, 1e6);
  EXPECT_EQ(rules[0].variant_id, "small_kernel");
  EXPECT_EQ(rules[1].max_work, 0.0);  // '*' = unbounded
  EXPECT_EQ(rules[1].variant_id, "big_kernel");
  EXPECT_EQ(rules[2].backend, Platform::kCpu);
  EXPECT_EQ(rules[2].dtype, Dtype::kF32);
  EXPECT_EQ(rules[2].max_work, 4096.0);
  EXPECT_EQ(rules[3].variant_id, "cpu_any");
}

TEST(SelectionTable, HeaderOnlyOrEmptyGivesNoRules) {
  EXPECT_TRUE(parse_selection_table("").empty());
  EXPECT_TRUE(parse_selection_table("# nothing\n\n").empty());
  EXPECT_TRUE(parse_selection_table("backend,dtype,max_work,variant\n").empty());
}

TEST(SelectionTable, MalformedRowsThrowNamingTheLine) {
  std::string const header = "backend,dtype,max_work,variant\n# a comment\n";  // the bad row is line 3
  char const* const bad_rows[] = {
      "cpu,f64,*",                  // too few fields
      "cpu,f64,*,a,b",              // too many fields
      "gpu,f64,*,x",                // unknown backend
      "CPU,f64,*,x",                // case matters
      "cpu,f16,*,x",                // unknown dtype
      "cpu,f64,lots,x",             // max_work not a number
      "cpu,f64,,x",                 // max_work empty
      "cpu,f64,*,",                 // variant empty
      "cpu,f64,*,   ",              // variant blank
  };
  for (char const* row : bad_rows) {
    SCOPED_TRACE(row);
    try {
      parse_selection_table(header + row + "\n");
      ADD_FAILURE() << "accepted a malformed row";
    } catch (std::invalid_argument const& e) {
      EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
    }
  }
}

/// A number with trailing text is malformed too: "100x" must not be read as 100.
TEST(SelectionTable, MaxWorkWithTrailingTextThrows) {
  EXPECT_THROW(parse_selection_table("backend,dtype,max_work,variant\ncpu,f64,100x,v\n"), std::invalid_argument);
  EXPECT_THROW(parse_selection_table("backend,dtype,max_work,variant\ncpu,f64,1e3 big,v\n"), std::invalid_argument);
}

TEST(SelectionTable, CompiledInTableNamesRegisteredVariants) {
  Registry const& r = variant_registry();
  ASSERT_FALSE(r.rules().empty());
  bool cpu_f64 = false, cpu_f32 = false;
  for (SelectionRule const& rule : r.rules()) {
    GemmVariant const* v = r.find(rule.variant_id);
#if defined(GEMMKIT_WITH_CUDA)
    bool const expect_registered = true;
#else
    bool const expect_registered = rule.backend == Platform::kCpu;
#endif
    if (!expect_registered) continue;
    ASSERT_NE(v, nullptr) << "table names unregistered variant '" << rule.variant_id << "'";
    EXPECT_EQ(v->info().backend, rule.backend) << rule.variant_id;
    EXPECT_EQ(v->info().dtype, rule.dtype) << rule.variant_id;
    cpu_f64 |= rule.backend == Platform::kCpu && rule.dtype == Dtype::kF64;
    cpu_f32 |= rule.backend == Platform::kCpu && rule.dtype == Dtype::kF32;
  }
  EXPECT_TRUE(cpu_f64);
  EXPECT_TRUE(cpu_f32);
}

#if defined(GEMMKIT_WITH_CUDA)
/// What the compiled-in table picks for `p` on the H100 (sm_90, 132 SMs).
GemmVariant const* h100_pick(GemmProblem const& p) {
  constexpr int kSm90 = 90, kH100Multiprocessors = 132;
  return variant_registry().select(p, Platform::kCuda, kSm90, kH100Multiprocessors);
}

/// The compiled-in table's picks for odd leading dimensions on the H100 (132 SMs), where the packed
/// stream-K form and the unpacked 64x128 tiles take turns by size and by how full 64x128's waves are.
TEST(SelectionTable, OddLeadingDimensionsOnTheH100) {
  std::string const packed_stream_k = "dgemm_tensorop_128x64x16_w64x32_s3_b2_k8_packed_streamk";
  std::string const unpacked_64x128 = "dgemm_tensorop_64x128x16_w32x32_s4_b2";
  struct Case {
    gk_op ta, tb;
    std::int64_t n;
    std::string const& expected;
  };
  for (Case const& c : {Case{GK_OP_N, GK_OP_N, 1023, unpacked_64x128}, Case{GK_OP_N, GK_OP_N, 1535, packed_stream_k},
                        Case{GK_OP_N, GK_OP_N, 2047, unpacked_64x128}, Case{GK_OP_N, GK_OP_N, 2049, packed_stream_k},
                        Case{GK_OP_T, GK_OP_T, 2047, unpacked_64x128}, Case{GK_OP_N, GK_OP_N, 3071, packed_stream_k},
                        Case{GK_OP_N, GK_OP_T, 4095, packed_stream_k}, Case{GK_OP_T, GK_OP_N, 4097, packed_stream_k},
                        Case{GK_OP_N, GK_OP_N, 12345, packed_stream_k}}) {
    GemmProblem const p = make_problem(Dtype::kF64, c.ta, c.tb, c.n, c.n, c.n);
    GemmVariant const* v = h100_pick(p);
    ASSERT_NE(v, nullptr) << c.n;
    EXPECT_EQ(v->info().id, c.expected) << c.n << (c.ta == GK_OP_N ? " n" : " t") << (c.tb == GK_OP_N ? "n" : "t");
  }
}

/// The FP32 picks below 1024^3, by work: 32x32 tiles split in four up to about 448^3 (not for a wide C
/// with a short K, nor a long K), the FP64 tensor cores' two-pass split from 512^3 where the operands
/// are aligned, except 768^3, whose 64x64 tiles split in four fill one wave.
TEST(SelectionTable, Fp32SmallSquaresOnTheH100) {
  std::string const split32 = "sgemm_simt_32x32x16_w32x16_t4x4_s3_b8_splitk_x4";
  std::string const simt64 = "sgemm_simt_64x64x16_w32x32_t8x4_s3_b5";
  std::string const tensorop_split = "sgemm_tensorop_64x64x16_w32x32_s4_b3_k8_splitk";
  struct Case {
    gk_op ta, tb;
    std::int64_t m, n, k;
    std::string expected;
  };
  for (Case const& c : {Case{GK_OP_N, GK_OP_N, 128, 128, 128, split32}, Case{GK_OP_N, GK_OP_N, 256, 256, 256, split32},
                        Case{GK_OP_N, GK_OP_N, 448, 448, 448, split32}, Case{GK_OP_N, GK_OP_N, 1024, 1024, 16, simt64},
                        Case{GK_OP_N, GK_OP_N, 256, 256, 2048, tensorop_split},
                        Case{GK_OP_N, GK_OP_N, 512, 512, 512, tensorop_split},
                        Case{GK_OP_N, GK_OP_T, 512, 512, 512, tensorop_split},
                        Case{GK_OP_N, GK_OP_N, 768, 768, 768, simt64 + "_splitk_x4"},
                        Case{GK_OP_N, GK_OP_N, 896, 896, 896, tensorop_split}}) {
    GemmVariant const* v = h100_pick(make_problem(Dtype::kF32, c.ta, c.tb, c.m, c.n, c.k));
    ASSERT_NE(v, nullptr) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(v->info().id, c.expected) << c.m << "x" << c.n << "x" << c.k << (c.tb == GK_OP_N ? " nn" : " nt");
  }
}

/// The FP32 picks where 128x128 tiles leave a last wave part empty: stream-K about 1152^3 (over the
/// tensor cores' 128x64 tiles about 1536^3), K split in four at 1000^3 and 4097^3, unsplit where the
/// waves are full (4095^3: 1024 tiles, 3.9 waves); the tensor cores' 64x64 tiles where they fill their
/// own last wave (1200^3: 361 of 396).
TEST(SelectionTable, Fp32LastWavesOnTheH100) {
  std::string const tiles = "sgemm_simt_128x128x16_w32x64_t8x8_s4_b2";
  std::string const tensorop = "sgemm_tensorop_";
  for (auto const& [n, expected] :
       {std::pair{1000, tiles + "_splitk_x4"}, std::pair{1152, tiles + "_streamk"},
        std::pair{1200, tensorop + "64x64x16_w32x32_s4_b3_k8"},
        std::pair{1536, tensorop + "128x64x16_w64x32_s4_b2_k8_streamk"}, std::pair{4095, tiles},
        std::pair{4097, tiles + "_splitk_x4"}}) {
    GemmProblem const p = make_problem(Dtype::kF32, GK_OP_N, GK_OP_N, n, n, n);
    GemmVariant const* v = h100_pick(p);
    ASSERT_NE(v, nullptr) << n;
    EXPECT_EQ(v->info().id, expected) << n;
  }
}

/// The FP32 picks on aligned squares from 2048: the FP64 tensor cores on the floats (NT and TN through
/// the packed form, from 4096); odd leading dimensions from 8000 on their packed
/// stream-K form; rank-k updates stay on the SIMT kernel.
TEST(SelectionTable, Fp32AlignedSquaresOnTheH100) {
  std::string const simt = "sgemm_simt_128x128x16_w32x64_t8x8_s4_b2";
  std::string const tensorop = "sgemm_tensorop_128x64x16_w64x32_s4_b2_k8";
  struct Case {
    gk_op ta, tb;
    std::int64_t n, k;
    std::string expected;
  };
  for (Case const& c : {Case{GK_OP_N, GK_OP_N, 2048, 2048, tensorop}, Case{GK_OP_N, GK_OP_N, 4096, 4096, tensorop},
                        Case{GK_OP_N, GK_OP_N, 8192, 8192, tensorop}, Case{GK_OP_T, GK_OP_T, 8192, 8192, tensorop},
                        Case{GK_OP_N, GK_OP_T, 8192, 8192, tensorop + "_packed"},
                        Case{GK_OP_T, GK_OP_N, 8192, 8192, tensorop + "_packed"},
                        Case{GK_OP_N, GK_OP_T, 2048, 2048, simt},
                        Case{GK_OP_N, GK_OP_N, 8191, 8191, tensorop + "_packed_streamk"},
                        Case{GK_OP_T, GK_OP_N, 8191, 8191, tensorop + "_packed_streamk"},
                        Case{GK_OP_N, GK_OP_N, 16384, 128, simt + "_packed"}}) {
    GemmProblem const p = make_problem(Dtype::kF32, c.ta, c.tb, c.n, c.n, c.k);
    GemmVariant const* v = h100_pick(p);
    ASSERT_NE(v, nullptr) << c.n;
    EXPECT_EQ(v->info().id, c.expected) << c.n << "x" << c.k << (c.ta == GK_OP_N ? " n" : " t")
                                        << (c.tb == GK_OP_N ? "n" : "t");
  }
}

/// The FP32 pick for few tiles of C over a long K: the FP64 tensor cores' two-pass split.
TEST(SelectionTable, Fp32LongKOnTheH100) {
  for (auto const& [m, n, k] : {std::tuple{256, 256, 262144}, std::tuple{1000, 500, 8192}}) {
    GemmVariant const* v = h100_pick(make_problem(Dtype::kF32, GK_OP_N, GK_OP_N, m, n, k));
    ASSERT_NE(v, nullptr) << m << "x" << n << "x" << k;
    EXPECT_EQ(v->info().id, "sgemm_tensorop_128x64x16_w64x32_s4_b2_k8_splitk") << m << "x" << n << "x" << k;
  }
}

/// The FP64 picks for rank-k updates: the B-resident form where K is at most 64 and both sides of C
/// are long and A is not transposed, stream-K over 128x64 from K = 128, and the tiled 64x64 kernel
/// for C 64 wide.
TEST(SelectionTable, Fp64ShortKOnTheH100) {
  struct Case {
    std::int64_t m, n, k;
    gk_op ta;
    char const* expected;
  };
  for (Case const& c : {Case{16384, 16384, 64, GK_OP_N, "dgemm_tensorop_64x64x16_w32x32_s4_b3_residentb"},
                        Case{16384, 8192, 32, GK_OP_N, "dgemm_tensorop_64x64x16_w32x32_s4_b3_residentb"},
                        Case{16384, 16384, 128, GK_OP_N, "dgemm_tensorop_128x64x16_w64x32_s3_b2_k8_streamk"},
                        Case{16384, 16384, 64, GK_OP_T, "dgemm_tensorop_64x64x16_w32x32_s4_b3_k8_packed"},
                        Case{262144, 64, 64, GK_OP_N, "dgemm_tensorop_64x64x16_w32x32_s4_b3_k8"}}) {
    GemmProblem const p = make_problem(Dtype::kF64, c.ta, GK_OP_N, c.m, c.n, c.k);
    GemmVariant const* v = h100_pick(p);
    ASSERT_NE(v, nullptr) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(v->info().id, c.expected) << c.m << "x" << c.n << "x" << c.k;
  }
}
#endif

// ---- the process registry -------------------------------------------------------------------------

TEST(Registry, InstanceIsOneObject) { EXPECT_EQ(&variant_registry(), &variant_registry()); }

TEST(Registry, IdsAreUniqueAndSpellTheirDtype) {
  auto const variants = variant_registry().variants();
  ASSERT_FALSE(variants.empty());
  std::set<std::string> ids;
  for (GemmVariant const* v : variants) {
    VariantInfo const& info = v->info();
    SCOPED_TRACE(info.id);
    EXPECT_TRUE(ids.insert(info.id).second) << "duplicate id";
    EXPECT_FALSE(info.id.empty());
    EXPECT_FALSE(info.summary.empty());
    EXPECT_EQ(info.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos)
        << "ids are lower-case snake_case";
    // Every id names its routine; gemmkit's own kernels lead with the BLAS precision letter.
    char const letter = info.dtype == Dtype::kF64 ? 'd' : 's';
    EXPECT_NE(info.id.find(std::string(1, letter) + "gemm"), std::string::npos);
    if (info.kind == VariantKind::kLadder || info.kind == VariantKind::kProduction) {
      EXPECT_EQ(info.id[0], letter);
    }
    if (info.backend == Platform::kCuda) {
      EXPECT_GT(info.min_sm, 0);
    }
  }
}

TEST(Registry, HasCpuVariantsForBothDtypes) {
  int f64 = 0, f32 = 0;
  for (GemmVariant const* v : variant_registry().variants()) {
    if (v->info().backend != Platform::kCpu) continue;
    f64 += v->info().dtype == Dtype::kF64;
    f32 += v->info().dtype == Dtype::kF32;
  }
  EXPECT_GE(f64, 1);
  EXPECT_GE(f32, 1);
#if !defined(GEMMKIT_WITH_CUDA)
  for (GemmVariant const* v : variant_registry().variants()) EXPECT_EQ(v->info().backend, Platform::kCpu);
#endif
}

TEST(Registry, FindReturnsTheRegisteredObject) {
  Registry const& r = variant_registry();
  for (GemmVariant const* v : r.variants()) EXPECT_EQ(r.find(v->info().id), v);
  EXPECT_EQ(r.find("no_such_variant"), nullptr);
  EXPECT_EQ(r.find(""), nullptr);
  EXPECT_EQ(r.find("openblas_dgemm_"), nullptr);  // no prefix matching
}

TEST(Registry, SelectPicksARunnableCpuVariant) {
  Registry const& r = variant_registry();
  for (Dtype dtype : {Dtype::kF64, Dtype::kF32}) {
    for (auto const& p : {make_problem(dtype, GK_OP_N, GK_OP_N, 1, 1, 1), make_problem(dtype, GK_OP_T, GK_OP_C, 97, 61, 37, 3),
                          make_problem(dtype, GK_OP_N, GK_OP_T, 500, 400, 300, 0, 4)}) {
      SCOPED_TRACE(describe(p));
      GemmVariant const* v = r.select(p, Platform::kCpu);
      ASSERT_NE(v, nullptr);
      EXPECT_EQ(v->info().backend, Platform::kCpu);
      EXPECT_EQ(v->info().dtype, dtype);
      EXPECT_EQ(v->can_implement(p), GK_SUCCESS);
      EXPECT_NE(v->info().kind, VariantKind::kReference) << "the reference is for checks, not selection";
    }
  }
}

TEST(Registry, VariantsRefuseTheOtherDtype) {
  for (GemmVariant const* v : variant_registry().variants()) {
    Dtype const other = v->info().dtype == Dtype::kF64 ? Dtype::kF32 : Dtype::kF64;
    EXPECT_EQ(v->can_implement(make_problem(other, GK_OP_N, GK_OP_N, 8, 8, 8)), GK_NOT_SUPPORTED) << v->info().id;
    // The host-resident variants also need a GPU.
    gk_status const own = v->info().stages_host_operands && !gk_gpu_available() ? GK_NOT_SUPPORTED : GK_SUCCESS;
    EXPECT_EQ(v->can_implement(make_problem(v->info().dtype, GK_OP_N, GK_OP_N, 8, 8, 8)), own) << v->info().id;
  }
}

/// OpenBLAS takes 32-bit ints: a dimension past INT_MAX must be refused, not truncated.
TEST(Registry, OpenBlasTakesDimensionsPastInt32) {
  // Its int interface runs them in blocks (cpu::blas_gemm): the CPU path has a variant for every size.
  GemmVariant const* v = variant_registry().find("openblas_dgemm");
  ASSERT_NE(v, nullptr);
  GemmProblem p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 8, 8);
  p.ldc = std::int64_t(1) << 31;
  EXPECT_EQ(v->can_implement(p), GK_SUCCESS);
  p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, std::int64_t(1) << 32, 1, 1);
  EXPECT_EQ(v->can_implement(p), GK_SUCCESS);
  EXPECT_EQ(variant_registry().select(p, Platform::kCpu) != nullptr, true);
}

// ---- selection on a private registry --------------------------------------------------------------

/// A CPU f64 variant that accepts problems with m <= max_m.
std::unique_ptr<GemmVariant> toy_variant(std::string id, std::int64_t max_m, int min_sm = 0) {
  return std::make_unique<FunctionVariant>(
      VariantInfo{std::move(id), Dtype::kF64, Platform::kCpu, VariantKind::kProduction, min_sm, "toy"},
      [max_m](GemmProblem const& p) { return p.m <= max_m; },
      [](GemmArguments const&, void*, ExecutionContext const&) { return GK_SUCCESS; });
}

TEST(RegistrySelect, FirstAdmittingRunnableRuleWins) {
  Registry r;
  r.add(toy_variant("dgemm_small", 8));
  r.add(toy_variant("dgemm_any", 1 << 30));
  r.set_rules(parse_selection_table(
      "backend,dtype,max_work,variant\n"
      "cpu,f64,1000,dgemm_small\n"
      "cpu,f64,*,dgemm_missing\n"  // not registered: skipped
      "cpu,f64,*,dgemm_any\n"));
  auto p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 10, 10);  // work 800
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_small");
  p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 10, 13);  // work 1040 > max_work
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_any");
  p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 10, 10, 0, 2);  // batch counts in the work
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_any");
  p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 9, 2, 2);  // small work, but dgemm_small cannot run m = 9
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_any");
}

TEST(RegistrySelect, MinWorkBoundsTheRuleFromBelow) {
  Registry r;
  r.add(toy_variant("dgemm_large", 1 << 30));
  r.add(toy_variant("dgemm_any", 1 << 30));
  r.set_rules(parse_selection_table(
      "backend,dtype,min_work,variant\n"
      "cpu,f64,1000,dgemm_large\n"
      "cpu,f64,*,dgemm_any\n"));
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 10), Platform::kCpu)->info().id, "dgemm_large");
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 9), Platform::kCpu)->info().id, "dgemm_any");
}

/// The backend policy's filter: variants that take host operands but compute on the GPUs are passed
/// over under kCpuOnly and are the only ones under kGpuOnly.
TEST(RegistrySelect, HostComputeFiltersVariantsThatStageHostOperands) {
  Registry r;
  VariantInfo staged{"dgemm_staged", Dtype::kF64, Platform::kCpu, VariantKind::kProduction, 0, "toy"};
  staged.stages_host_operands = true;
  r.add(std::make_unique<FunctionVariant>(
      staged, [](GemmProblem const&) { return true; },
      [](GemmArguments const&, void*, ExecutionContext const&) { return GK_SUCCESS; }));
  r.add(toy_variant("dgemm_cpu", 1 << 30));
  r.set_rules(parse_selection_table(
      "backend,dtype,min_work,variant\n"
      "cpu,f64,1000,dgemm_staged\n"
      "cpu,f64,*,dgemm_cpu\n"
      "cpu,f64,*,dgemm_staged\n"));
  auto const large = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 10);
  auto const small = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 2, 2, 2);
  EXPECT_EQ(r.select(large, Platform::kCpu)->info().id, "dgemm_staged");
  EXPECT_EQ(r.select(small, Platform::kCpu)->info().id, "dgemm_cpu");
  EXPECT_EQ(r.select(large, Platform::kCpu, 0, 0, 0, HostCompute::kCpuOnly)->info().id, "dgemm_cpu");
  EXPECT_EQ(r.select(small, Platform::kCpu, 0, 0, 0, HostCompute::kGpuOnly)->info().id, "dgemm_staged");
}

/// A min_work of `machine` is the bound the selecting machine brings (its host crossover: work and
/// k).
TEST(Registry, MachineWorkBoundComesFromTheCaller) {
  Registry r;
  r.add(toy_variant("dgemm_large", 1 << 30));
  r.add(toy_variant("dgemm_any", 1 << 30));
  r.set_rules(parse_selection_table(
      "backend,dtype,min_work,variant\n"
      "cpu,f64,machine,dgemm_large\n"
      "cpu,f64,*,dgemm_any\n"));
  ASSERT_TRUE(r.rules()[0].min_work_from_machine);
  auto const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 10);
  EXPECT_EQ(r.select(p, Platform::kCpu, 0, 0, 0, HostCompute::kAny, {1001, 0})->info().id, "dgemm_any");
  EXPECT_EQ(r.select(p, Platform::kCpu, 0, 0, 0, HostCompute::kAny, {1000, 0})->info().id, "dgemm_large");
  EXPECT_EQ(r.select(p, Platform::kCpu, 0, 0, 0, HostCompute::kAny, {1000, 10})->info().id, "dgemm_large");
  auto const thin = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 100, 100, 9);  // work 90000, k below 10
  EXPECT_EQ(r.select(thin, Platform::kCpu, 0, 0, 0, HostCompute::kAny, {1000, 10})->info().id, "dgemm_any");
  auto const thin_c = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 100, 9, 100);  // small n is no bar
  EXPECT_EQ(r.select(thin_c, Platform::kCpu, 0, 0, 0, HostCompute::kAny, {1000, 10})->info().id, "dgemm_large");
  EXPECT_THROW(parse_selection_table("backend,dtype,min_work,variant\ncpu,f64,machines,dgemm_any\n"),
               std::invalid_argument);
}

/// The host-compute filter leaves device operands alone: under the GPU policy a CUDA variant is
/// still picked for device pointers.
TEST(RegistrySelect, HostComputeLeavesDeviceOperandsAlone) {
  Registry r;
  r.add(std::make_unique<FunctionVariant>(
      VariantInfo{"dgemm_device", Dtype::kF64, Platform::kCuda, VariantKind::kProduction, 0, "toy"},
      [](GemmProblem const&) { return true; },
      [](GemmArguments const&, void*, ExecutionContext const&) { return GK_SUCCESS; }));
  r.set_rules(parse_selection_table("backend,dtype,variant\ncuda,f64,dgemm_device\n"));
  auto const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 8, 8);
  for (HostCompute h : {HostCompute::kAny, HostCompute::kCpuOnly, HostCompute::kGpuOnly}) {
    ASSERT_NE(r.select(p, Platform::kCuda, 0, 0, 0, h), nullptr);
    EXPECT_EQ(r.select(p, Platform::kCuda, 0, 0, 0, h)->info().id, "dgemm_device");
  }
}

TEST(RegistrySelect, ShapeAndAlignmentColumnsBoundTheRule) {
  Registry r;
  r.add(toy_variant("dgemm_longk", 1 << 30));
  r.add(toy_variant("dgemm_even", 1 << 30));
  r.add(toy_variant("dgemm_any", 1 << 30));
  r.set_rules(parse_selection_table(
      "backend,dtype,max_work,max_mn,min_k,aligned,variant\n"
      "cpu,f64,*,100,50,*,dgemm_longk\n"
      "cpu,f64,*,*,*,yes,dgemm_even\n"
      "cpu,f64,*,*,*,*,dgemm_any\n"));
  auto p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 50);  // m*n = 100, k = 50: long-K rule
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_longk");
  p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 11, 50);  // m*n = 110 > max_mn; lda = ldb = 10 even
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_even");
  p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 49);  // k < min_k; ldb = 49 odd
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_any");
  p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 48, 1);  // padding makes lda = 11: odd
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_any");
}

TEST(RegistrySelect, MaxKBoundsTheDepth) {
  Registry r;
  r.add(toy_variant("dgemm_short_k", 1 << 30));
  r.add(toy_variant("dgemm_any", 1 << 30));
  r.set_rules(parse_selection_table("backend,dtype,max_k,variant\ncpu,f64,64,dgemm_short_k\ncpu,f64,*,dgemm_any\n"));
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 64), Platform::kCpu)->info().id, "dgemm_short_k");
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 65), Platform::kCpu)->info().id, "dgemm_any");
}

TEST(RegistrySelect, MinSideBoundsTheShorterSideOfC) {
  Registry r;
  r.add(toy_variant("dgemm_packed", 1 << 30));
  r.add(toy_variant("dgemm_any", 1 << 30));
  r.set_rules(parse_selection_table("backend,dtype,min_side,variant\ncpu,f64,64,dgemm_packed\ncpu,f64,*,dgemm_any\n"));
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 64, 64, 8), Platform::kCpu)->info().id, "dgemm_packed");
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 63, 4096, 8), Platform::kCpu)->info().id, "dgemm_any");
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 4096, 63, 8), Platform::kCpu)->info().id, "dgemm_any");
}

TEST(RegistrySelect, VariantsWhoseWorkspaceExceedsTheLimitArePassedOver) {
  Registry r;
  r.add(std::make_unique<FunctionVariant>(
      VariantInfo{"dgemm_with_workspace", Dtype::kF64, Platform::kCpu, VariantKind::kProduction, 0, "toy"},
      [](GemmProblem const&) { return true; },
      [](GemmArguments const&, void*, ExecutionContext const&) { return GK_SUCCESS; }, nullptr,
      [](GemmProblem const& p) { return std::size_t(p.m * p.n) * sizeof(double); }));
  r.add(toy_variant("dgemm_any", 1 << 30));
  r.set_rules(parse_selection_table("backend,dtype,variant\ncpu,f64,dgemm_with_workspace\ncpu,f64,dgemm_any\n"));
  auto const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 10, 10, 10);  // 800 bytes of workspace
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_with_workspace");  // no limit
  EXPECT_EQ(r.select(p, Platform::kCpu, 0, 0, 800)->info().id, "dgemm_with_workspace");
  EXPECT_EQ(r.select(p, Platform::kCpu, 0, 0, 799)->info().id, "dgemm_any");
}

TEST(RegistrySelect, VariantsNeedingANewerGpuArePassedOver) {
  Registry r;
  r.add(toy_variant("dgemm_tensor_cores", 1 << 30, 80));
  r.add(toy_variant("dgemm_simt", 1 << 30));
  r.set_rules(parse_selection_table("backend,dtype,variant\ncpu,f64,dgemm_tensor_cores\ncpu,f64,dgemm_simt\n"));
  auto const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 8, 8);
  EXPECT_EQ(r.select(p, Platform::kCpu, 90)->info().id, "dgemm_tensor_cores");
  EXPECT_EQ(r.select(p, Platform::kCpu, 75)->info().id, "dgemm_simt");
  EXPECT_EQ(r.select(p, Platform::kCpu)->info().id, "dgemm_tensor_cores");  // no capability given: no check
}

TEST(RegistrySelect, WaveRulePassesOverVariantsWithALastWaveTooEmpty) {
  Registry r;
  for (auto const& [id, tile] : {std::pair<std::string, int>{"dgemm_large_tiles", 128}, {"dgemm_small_tiles", 64}}) {
    r.add(std::make_unique<FunctionVariant>(
        VariantInfo{id, Dtype::kF64, Platform::kCpu, VariantKind::kProduction, 0, "toy", false, TileGeometry{tile, tile, 1}},
        [](GemmProblem const&) { return true; },
        [](GemmArguments const&, void*, ExecutionContext const&) { return GK_SUCCESS; }));
  }
  r.set_rules(parse_selection_table(
      "backend,dtype,min_wave_eff,variant\ncpu,f64,0.9,dgemm_large_tiles\ncpu,f64,*,dgemm_small_tiles\n"));
  constexpr int kMultiprocessors = 4;
  auto const full = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 512, 384, 8);  // 4 x 3 large tiles: 3 full waves
  EXPECT_EQ(r.select(full, Platform::kCpu, 0, kMultiprocessors)->info().id, "dgemm_large_tiles");
  auto const ragged = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 640, 640, 8);  // 25 tiles in 7 waves: 0.89
  EXPECT_NEAR(wave_efficiency(TileGeometry{128, 128, 1}, ragged, kMultiprocessors), 25.0 / 28.0, 1e-12);
  EXPECT_EQ(r.select(ragged, Platform::kCpu, 0, kMultiprocessors)->info().id, "dgemm_small_tiles");
  EXPECT_EQ(r.select(ragged, Platform::kCpu)->info().id, "dgemm_large_tiles");  // no multiprocessor count: no check
  auto const batched = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 640, 640, 8, 0, 3);  // 75 tiles in 19 waves
  EXPECT_NEAR(wave_efficiency(TileGeometry{128, 128, 1}, batched, kMultiprocessors), 75.0 / 76.0, 1e-12);
  EXPECT_EQ(r.select(batched, Platform::kCpu, 0, kMultiprocessors)->info().id, "dgemm_large_tiles");
  EXPECT_EQ(wave_efficiency(TileGeometry{}, ragged, kMultiprocessors), 1.0);  // not a tiled kernel
}

TEST(RegistrySelect, TransColumnMatchesBothOperands) {
  Registry r;
  r.add(toy_variant("dgemm_tn", 1 << 30));
  r.add(toy_variant("dgemm_any", 1 << 30));
  r.set_rules(parse_selection_table("backend,dtype,trans,variant\ncpu,f64,tn,dgemm_tn\ncpu,f64,*,dgemm_any\n"));
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_T, GK_OP_N, 8, 8, 8), Platform::kCpu)->info().id, "dgemm_tn");
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_C, GK_OP_N, 8, 8, 8), Platform::kCpu)->info().id, "dgemm_tn");
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_T, GK_OP_T, 8, 8, 8), Platform::kCpu)->info().id, "dgemm_any");
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 8, 8), Platform::kCpu)->info().id, "dgemm_any");
  EXPECT_THROW(parse_selection_table("backend,dtype,trans,variant\ncpu,f64,n,v\n"), std::invalid_argument);
}

TEST(SelectionTable, HeaderNamesTheColumns) {
  EXPECT_THROW(parse_selection_table("backend,dtype,max_work\ncpu,f64,1\n"), std::invalid_argument);  // no variant
  EXPECT_THROW(parse_selection_table("backend,dtype,speed,variant\ncpu,f64,1,v\n"), std::invalid_argument);
  EXPECT_THROW(parse_selection_table("backend,dtype,aligned,variant\ncpu,f64,maybe,v\n"), std::invalid_argument);
  EXPECT_THROW(parse_selection_table("backend,dtype,min_k,variant\ncpu,f64,1,2,v\n"), std::invalid_argument);
  auto const rules = parse_selection_table("variant,aligned,dtype,backend,min_k\nv,no,f32,cuda,64\n");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].variant_id, "v");
  EXPECT_EQ(rules[0].alignment, Alignment::kMisaligned);
  EXPECT_EQ(rules[0].dtype, Dtype::kF32);
  EXPECT_EQ(rules[0].backend, Platform::kCuda);
  EXPECT_EQ(rules[0].min_k, 64.0);
}

TEST(RegistrySelect, NoMatchingRuleGivesNull) {
  Registry r;
  r.add(toy_variant("dgemm_small", 8));
  r.set_rules(parse_selection_table("backend,dtype,max_work,variant\ncpu,f64,*,dgemm_small\n"));
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 100, 1, 1), Platform::kCpu), nullptr);
  EXPECT_EQ(r.select(make_problem(Dtype::kF32, GK_OP_N, GK_OP_N, 4, 4, 4), Platform::kCpu), nullptr);
  EXPECT_EQ(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 4, 4, 4), Platform::kCuda), nullptr);
  EXPECT_NE(r.select(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 4, 4, 4), Platform::kCpu), nullptr);
}

TEST(RegistrySelect, DuplicateIdIsRejected) {
  Registry r;
  r.add(toy_variant("dgemm_toy", 8));
  EXPECT_THROW(r.add(toy_variant("dgemm_toy", 16)), std::logic_error);
  EXPECT_EQ(r.variants().size(), 1u);
}

TEST(FunctionVariant, ForwardsTheLifecycle) {
  int initialized = 0, ran = 0;
  FunctionVariant const v(
      VariantInfo{"sgemm_toy", Dtype::kF32, Platform::kCpu, VariantKind::kProduction, 0, "toy"}, {},
      [&](GemmArguments const& a, void* ws, ExecutionContext const&) {
        ++ran;
        return a.problem.m == 3 && ws != nullptr ? GK_SUCCESS : GK_INTERNAL_ERROR;
      },
      [&](ExecutionContext const&) {
        ++initialized;
        return GK_SUCCESS;
      },
      [](GemmProblem const& p) { return std::size_t(p.m * 4); });
  GemmProblem const p = make_problem(Dtype::kF32, GK_OP_N, GK_OP_N, 3, 2, 1);
  EXPECT_EQ(v.can_implement(p), GK_SUCCESS);  // empty CanImplement: dtype alone decides
  EXPECT_EQ(v.can_implement(make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 3, 2, 1)), GK_NOT_SUPPORTED);
  EXPECT_EQ(v.workspace_bytes(p), 12u);
  EXPECT_EQ(v.initialize(ExecutionContext{}), GK_SUCCESS);
  GemmArguments args;
  args.problem = p;
  char ws[12];
  EXPECT_EQ(v.run(args, ws, ExecutionContext{}), GK_SUCCESS);
  EXPECT_EQ(initialized, 1);
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace gemmkit::test
