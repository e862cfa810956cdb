/*! \file
    \brief The SIMT ladder model on the H100 description: seed 001's instruction mix and required
    bandwidths for known register blockings, what wider loads and double buffering change, and
    how the bound moves with the blocking, the occupancy and the tile count.
*/
#include "cuda/ladder/ladder_config.hpp"
#include "model/ladder_model.hpp"

#include <gtest/gtest.h>

namespace gemmkit::model {
namespace {

/// Seed 001's baseline (Algorithm 1): 64x64 block, 4x4 per thread, bk = 16, 256 threads,
/// 64-bit shared loads, one buffer.
SimtKernelShape seed001_algorithm1() {
  SimtKernelShape s;
  s.name = "seed001_alg1";
  s.bm = 64, s.bn = 64, s.bk = 16, s.tm = 4, s.tn = 4, s.threads = 256;
  s.element_bytes = 8, s.buffers = 1, s.shared_load_bytes = 8;
  return s;
}

TEST(LadderModel, InstructionMixOfSeed001Algorithm1) {
  InstructionMix const mix = instruction_mix(seed001_algorithm1());
  // Seed 001 §3.2: 256 DFMA and 128 shared loads per slice, 8 global loads and 8 shared stores.
  EXPECT_EQ(mix.fma, 256);
  EXPECT_EQ(mix.shared_loads, 128);
  EXPECT_EQ(mix.global_loads, 8);
  EXPECT_EQ(mix.shared_stores, 8);
  EXPECT_EQ(mix.barriers, 2);
  // 256 / (128 + 8 + 8 + 256) = 64 % without integer instructions; ours counts them too.
  EXPECT_LT(mix.fma_fraction(), 0.64);
  EXPECT_GT(mix.fma_fraction(), 0.55);
}

TEST(LadderModel, WiderSharedLoadsRaiseTheFmaFraction) {
  SimtKernelShape narrow = seed001_algorithm1();
  SimtKernelShape wide = narrow;
  wide.shared_load_bytes = 16;
  InstructionMix const n = instruction_mix(narrow), w = instruction_mix(wide);
  EXPECT_EQ(w.shared_loads, n.shared_loads / 2);  // seed 001 §3.2: 128 -> 64 ld.sm
  EXPECT_GT(w.fma_fraction(), n.fma_fraction());
  // On FP32 (one issue cycle per FFMA) the issue ceiling follows the fraction.
  MachineDescription const h100 = h100_sxm();
  narrow.element_bytes = 4, narrow.shared_load_bytes = 4;
  wide.element_bytes = 4, wide.shared_load_bytes = 16;
  SimtPrediction const pn = predict_simt(h100, narrow, 4096, 4096, 4096);
  SimtPrediction const pw = predict_simt(h100, wide, 4096, 4096, 4096);
  EXPECT_EQ(pn.fma_issue_cycles, 1);
  EXPECT_NEAR(pn.issue_ceiling, h100.fp32_fma_flops * pn.mix.fma_fraction(), 1e6);
  EXPECT_GT(pw.issue_ceiling, pn.issue_ceiling * 1.2);
  EXPECT_GT(pw.flops, pn.flops);
}

TEST(LadderModel, DfmaLeavesIssueSlotsOnHopper) {
  // DFMA takes two scheduler cycles at the H100's FP64 peak, so a 72 % FMA fraction still
  // reaches the peak: the seed's Fermi bound (DFMA could not dual-issue) no longer binds.
  MachineDescription const h100 = h100_sxm();
  auto const shape = simt_shape_of<ladder::Step03Config>("03", 8);
  SimtPrediction const p = predict_simt(h100, shape, 4096, 4096, 4096);
  EXPECT_EQ(p.fma_issue_cycles, 2);
  EXPECT_LT(p.mix.fma_fraction(), 0.75);
  EXPECT_DOUBLE_EQ(p.issue_ceiling, h100.fp64_fma_flops);
}

TEST(LadderModel, StepConfigsInstructionMix) {
  // Per slice of 8 k-steps with 8x8 per thread: 512 FMAs; 16 fragment loads per k-step scalar,
  // 8 as double2, 4 as float4.
  EXPECT_EQ(instruction_mix(simt_shape_of<ladder::Step03Config>("03", 8)).shared_loads, 128);
  EXPECT_EQ(instruction_mix(simt_shape_of<ladder::Step05Config>("05", 8)).shared_loads, 64);
  EXPECT_EQ(instruction_mix(simt_shape_of<ladder::Step05Config>("05", 4)).shared_loads, 32);
  InstructionMix const single = instruction_mix(simt_shape_of<ladder::Step03Config>("03", 4));
  InstructionMix const dual = instruction_mix(simt_shape_of<ladder::Step04Config>("04", 4));
  EXPECT_EQ(single.fma, 512);
  EXPECT_EQ(single.barriers, 2);
  EXPECT_EQ(dual.barriers, 1);
  EXPECT_EQ(single.global_loads, 16);  // (64 + 64) x 8 / 64 threads
}

TEST(LadderModel, BoundFallsAsTheRegisterBlockShrinks) {
  MachineDescription const h100 = h100_sxm();
  SimtKernelShape big;  // 8x8 per thread, 64x64 block, float
  big.element_bytes = 4, big.shared_load_bytes = 4;
  SimtKernelShape small = big;
  small.tm = 4, small.tn = 4, small.threads = 256;  // the same block, 4x4 per thread
  SimtKernelShape tiny = big;
  tiny.tm = 2, tiny.tn = 2, tiny.threads = 1024;
  double const b = predict_simt(h100, big, 4096, 4096, 4096).flops;
  double const s = predict_simt(h100, small, 4096, 4096, 4096).flops;
  double const t = predict_simt(h100, tiny, 4096, 4096, 4096).flops;
  EXPECT_GT(b, s);
  EXPECT_GT(s, t);
  // Seed 001's shared-memory requirement grows as the register block shrinks.
  EXPECT_DOUBLE_EQ(predict_simt(h100, small, 4096, 4096, 4096).smem_bytes_per_flop, 4.0 * (0.25 + 0.25) / 2);
}

TEST(LadderModel, CompiledLoopReplacesTheEstimatedMix) {
  // The FP32 SIMT kernel's 128x128 t8x8 slice: 1024 FFMA in a loop of 1321 instructions (SASS at
  // f4b242f). FFMA takes one issue slot, so the bound is the peak times 1024 / 1321.
  SimtKernelShape s;
  s.bm = 128, s.bn = 128, s.bk = 16, s.tm = 8, s.tn = 8, s.threads = 256, s.element_bytes = 4;
  s.buffers = 4, s.shared_load_bytes = 16, s.warp_m = 32, s.warp_n = 64, s.blocks_per_sm = 2;
  s.registers_per_thread = 127;
  MachineDescription const h100 = h100_sxm();
  SimtPrediction const estimated = predict_simt(h100, s, 8192, 8192, 8192);
  s.loop_fma = 1024, s.loop_instructions = 1321;
  SimtPrediction const compiled = predict_simt(h100, s, 8192, 8192, 8192);
  EXPECT_EQ(compiled.mix.fma, estimated.mix.fma);
  EXPECT_NEAR(compiled.issue_ceiling, h100.fp32_fma_flops * 1024.0 / 1321.0, 1.0);
  EXPECT_NE(compiled.issue_ceiling, estimated.issue_ceiling);
  // A loop unrolled over two slices has the same fraction.
  s.loop_fma = 2048, s.loop_instructions = 2642;
  EXPECT_NEAR(predict_simt(h100, s, 8192, 8192, 8192).issue_ceiling, compiled.issue_ceiling, 1.0);
  // The warp tile sets which lanes read distinct A fragments: 32 / 8 = 4 here, not 16 (bm / tm).
  EXPECT_EQ(s.lanes_m(), 4);
  s.warp_m = 0;
  EXPECT_EQ(s.lanes_m(), 16);
}

TEST(LadderModel, RequiredL2BandwidthIsSeed001s) {
  MachineDescription const h100 = h100_sxm();
  SimtPrediction const p = predict_simt(h100, simt_shape_of<ladder::Step03Config>("03", 8), 4096, 4096, 4096);
  EXPECT_DOUBLE_EQ(p.l2_bytes_per_flop, 8.0 * (1.0 / 64 + 1.0 / 64) / 2);
  EXPECT_NEAR(p.l2_ceiling, h100.l2_bytes_per_s / 0.125, 1.0);
}

TEST(LadderModel, OccupancyFromRegistersAndSharedMemory) {
  MachineDescription const h100 = h100_sxm();
  SimtKernelShape s = simt_shape_of<ladder::Step04Config>("04", 8);
  s.registers_per_thread = 250;  // 256 allocated x 64 threads: 4 blocks in 64K registers
  EXPECT_EQ(simt_resident_blocks(h100, s), 4);
  s.registers_per_thread = 150;  // 152 x 64: 6 blocks
  EXPECT_EQ(simt_resident_blocks(h100, s), 6);
  s.registers_per_thread = 32;   // registers no longer bind; 227 KiB / 16 KiB of buffers does
  EXPECT_EQ(simt_resident_blocks(h100, s), 14);
  s.bk = 512;                    // 2 x 512 x 128 doubles = 1 MiB of buffers: no fit
  EXPECT_EQ(simt_resident_blocks(h100, s), 0);
  EXPECT_EQ(predict_simt(h100, s, 1024, 1024, 1024).flops, 0.0);
}

TEST(LadderModel, FewTilesLeaveSchedulersIdle) {
  MachineDescription const h100 = h100_sxm();
  SimtKernelShape const s = simt_shape_of<ladder::Step06Config>("06", 4);
  // 512 x 512: 64 tiles of 2 warps on 132 SMs of 4 schedulers: at most 128 of 528 busy.
  SimtPrediction const few = predict_simt(h100, s, 512, 512, 512);
  SimtPrediction const many = predict_simt(h100, s, 4096, 4096, 4096);
  EXPECT_NEAR(few.placement_efficiency, 128.0 / 528.0, 1e-9);
  EXPECT_GT(many.placement_efficiency, 0.9);
  EXPECT_LT(few.flops, 0.3 * many.flops);
  // Edge tiles: 4097 computes a 4160-wide padded C.
  EXPECT_LT(predict_simt(h100, s, 4097, 4097, 4097).placement_efficiency, many.placement_efficiency);
}

}  // namespace
}  // namespace gemmkit::model
