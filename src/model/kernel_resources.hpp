/*! \file
    \brief What the compiled kernels cost beyond their tile shape, as the model reads it: per
    instance of the tensor-core kernel (FP64 and FP32 operands) and of the FP32 SIMT kernel, the
    registers and its main loop's instructions, FMAs and local-memory (spill) traffic, read from
    the SASS by bench/sass_spills.py (one JSON object per instance).
*/
#pragma once

#include "model/gemm_model.hpp"
#include "model/ladder_model.hpp"

#include <string>
#include <vector>

namespace gemmkit::model {

/// Which instance of a config a launch runs: the transposes it was built for and its copy widths
/// (elements per cp.async: 16 bytes where the operand allows, else one).
struct InstanceForm {
  bool trans_a = false, trans_b = false, c_transposed = false;
  int vec_a = 1, vec_b = 1;
};

/// One compiled instance.
struct KernelResources {
  bool simt = false;                           ///< the FP32 SIMT kernel; else the tensor-core one
  int element_bytes = 8;                       ///< operand type: 8 double, 4 float
  int bm = 0, bn = 0, bk = 0, warp_m = 0, warp_n = 0, stages = 0, blocks_per_sm = 0;
  int mma_k = 0;                               ///< tensor-core instances
  bool fragment_prefetch = false;              ///< tensor-core instances
  int thread_m = 0, thread_n = 0;              ///< SIMT instances: the register block per lane
  InstanceForm form;
  int registers = 0;
  int loop_instructions = 0;                   ///< one pass of the main loop
  int loop_dmma = 0, loop_ffma = 0;            ///< its math instructions
  int loop_local_load_bytes = 0;               ///< per thread, LDL in one pass
  int loop_local_store_bytes = 0;              ///< per thread, STL in one pass
};

/// Reads the rows of a bench/sass_spills.py file; an error message, or empty.
std::string load_kernel_resources(std::string const& path, std::vector<KernelResources>* out);

/// The form an NN launch of m x n x k with dense column-major operands (lda = m, ldb = k) runs:
/// 16-byte copies need both leading dimensions in whole 16-byte chunks.
InstanceForm dense_nn_form(std::int64_t m, std::int64_t k, int element_bytes = 8);

/// The form the FP32 SIMT kernel runs for the same launch: 16-byte copies when A's leading
/// dimension allows them (B, K-contiguous in NN, is read by elements either way).
InstanceForm dense_nn_simt_form(std::int64_t m);

/// Sets each config's registers and spill traffic per k-tile from its instance of `form`; configs
/// without a row are left as they are. Returns how many matched.
int apply_kernel_resources(std::vector<TileConfig>* configs, std::vector<KernelResources> const& resources,
                           InstanceForm const& form);

/// The same for SIMT kernel shapes: registers, spills and the main loop's FMAs and instructions.
int apply_kernel_resources(std::vector<SimtKernelShape>* shapes, std::vector<KernelResources> const& resources,
                           InstanceForm const& form);

}  // namespace gemmkit::model
