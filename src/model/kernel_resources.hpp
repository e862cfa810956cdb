/*! \file
    \brief What the compiled tensor-core kernels cost beyond their tile shape, as the model reads
    it: per kernel instance, the registers and the local-memory (spill) traffic of its main loop,
    read from the SASS by bench/sass_spills.py (one JSON object per instance).
*/
#pragma once

#include "model/gemm_model.hpp"

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
  int bm = 0, bn = 0, bk = 0, warp_m = 0, warp_n = 0, stages = 0, blocks_per_sm = 0, mma_k = 0;
  bool fragment_prefetch = false;
  InstanceForm form;
  int registers = 0;
  int loop_dmma = 0;                           ///< DMMAs in one pass of the main loop
  int loop_local_load_bytes = 0;               ///< per thread, LDL in one pass
  int loop_local_store_bytes = 0;              ///< per thread, STL in one pass
};

/// Reads the f64 rows of a bench/sass_spills.py file; an error message, or empty.
std::string load_kernel_resources(std::string const& path, std::vector<KernelResources>* out);

/// The form an NN launch of m x n x k with dense column-major operands (lda = m, ldb = k) runs:
/// 16-byte copies need both leading dimensions in whole 16-byte chunks.
InstanceForm dense_nn_form(std::int64_t m, std::int64_t k, int element_bytes = 8);

/// Sets each config's registers and spill traffic per k-tile from its instance of `form`; configs
/// without a row are left as they are. Returns how many matched.
int apply_kernel_resources(std::vector<TileConfig>* configs, std::vector<KernelResources> const& resources,
                           InstanceForm const& form);

}  // namespace gemmkit::model
