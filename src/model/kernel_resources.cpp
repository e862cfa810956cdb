/*! \file
    \brief Reading the compiled kernels' resources and applying them to the model's tile configs.
*/
#include "model/kernel_resources.hpp"

#include "model/machine.hpp"

namespace gemmkit::model {

std::string load_kernel_resources(std::string const& path, std::vector<KernelResources>* out) {
  return read_json_rows(path, [&](JsonRow& row) -> std::string {
    auto& text = row.text;
    auto& number = row.number;
    if (text["suite"] != "sass-spills") return {};
    // Rows written before the SIMT kernel was read name no kernel: tensor-core ones.
    bool const simt = text.count("kernel") && text["kernel"] == "simt";
    std::vector<char const*> required = {"bm", "bn", "bk", "warp_m", "warp_n", "stages", "blocks_per_sm", "vec_a",
                                         "vec_b", "registers", "loop_instructions", "loop_ldl_bytes",
                                         "loop_stl_bytes"};
    for (char const* key : simt ? std::vector<char const*>{"thread_m", "thread_n", "loop_ffma"}
                                : std::vector<char const*>{"mma_k", "loop_dmma"}) {
      required.push_back(key);
    }
    for (char const* key : required) {
      if (!number.count(key)) return std::string("no number for \"") + key + "\"";
    }
    KernelResources r;
    r.simt = simt;
    r.element_bytes = text["dtype"] == "f32" ? 4 : 8;
    r.bm = int(number["bm"]), r.bn = int(number["bn"]), r.bk = int(number["bk"]);
    r.warp_m = int(number["warp_m"]), r.warp_n = int(number["warp_n"]), r.stages = int(number["stages"]);
    r.blocks_per_sm = int(number["blocks_per_sm"]), r.mma_k = int(number["mma_k"]);
    r.fragment_prefetch = text["fragment_prefetch"] == "true";
    r.thread_m = int(number["thread_m"]), r.thread_n = int(number["thread_n"]);
    r.form.trans_a = text["trans_a"] == "true", r.form.trans_b = text["trans_b"] == "true";
    r.form.c_transposed = text["c_transposed"] == "true";
    r.form.vec_a = int(number["vec_a"]), r.form.vec_b = int(number["vec_b"]);
    r.registers = int(number["registers"]);
    r.loop_instructions = int(number["loop_instructions"]);
    r.loop_dmma = int(number["loop_dmma"]), r.loop_ffma = int(number["loop_ffma"]);
    r.loop_local_load_bytes = int(number["loop_ldl_bytes"]), r.loop_local_store_bytes = int(number["loop_stl_bytes"]);
    out->push_back(r);
    return {};
  });
}

InstanceForm dense_nn_form(std::int64_t m, std::int64_t k, int element_bytes) {
  InstanceForm form;
  std::int64_t const per_chunk = 16 / element_bytes;
  bool const wide = m % per_chunk == 0 && k % per_chunk == 0;
  form.vec_a = form.vec_b = wide ? int(per_chunk) : 1;
  return form;
}

InstanceForm dense_nn_simt_form(std::int64_t m) {
  InstanceForm form;
  form.vec_a = form.vec_b = m % 4 == 0 ? 4 : 1;
  return form;
}

namespace {

bool same_form(InstanceForm const& a, InstanceForm const& b) {
  return a.trans_a == b.trans_a && a.trans_b == b.trans_b && a.c_transposed == b.c_transposed &&
         a.vec_a == b.vec_a && a.vec_b == b.vec_b;
}

bool same_instance(TileConfig const& c, KernelResources const& r, InstanceForm const& form) {
  // The m16n8k8 forms double-buffer fragments by construction; the m16n8k16 ones by prefetching.
  bool const double_buffered = r.mma_k == 8 || r.fragment_prefetch;
  return !r.simt && c.element_bytes == r.element_bytes && c.bm == r.bm && c.bn == r.bn && c.bk == r.bk &&
         c.warp_m == r.warp_m && c.warp_n == r.warp_n && c.stages == r.stages && c.blocks_per_sm == r.blocks_per_sm &&
         c.mma_k == r.mma_k && c.fragment_double_buffer == double_buffered && same_form(r.form, form);
}

bool same_instance(SimtKernelShape const& s, KernelResources const& r, InstanceForm const& form) {
  return r.simt && s.element_bytes == r.element_bytes && s.bm == r.bm && s.bn == r.bn && s.bk == r.bk &&
         s.warp_m == r.warp_m && s.warp_n == r.warp_n && s.tm == r.thread_m && s.tn == r.thread_n &&
         s.buffers == r.stages && s.blocks_per_sm == r.blocks_per_sm && same_form(r.form, form);
}

/// Calls apply(shape, row) for each shape with a row of its instance of `form`; counts them.
template <typename Shape, typename Apply>
int apply_matching(std::vector<Shape>* shapes, std::vector<KernelResources> const& resources,
                   InstanceForm const& form, Apply apply) {
  int matched = 0;
  for (Shape& shape : *shapes) {
    for (KernelResources const& r : resources) {
      if (!same_instance(shape, r, form)) continue;
      apply(shape, r);
      ++matched;
      break;
    }
  }
  return matched;
}

}  // namespace

int apply_kernel_resources(std::vector<TileConfig>* configs, std::vector<KernelResources> const& resources,
                           InstanceForm const& form) {
  return apply_matching(configs, resources, form, [](TileConfig& c, KernelResources const& r) {
    c.registers_per_thread = r.registers;
    // The loop may be unrolled over several k-tiles: scale its traffic by the DMMAs of one.
    double const dmma_per_k_tile = double(c.warp_m / 16) * (c.warp_n / 8) * (c.bk / c.mma_k);
    double const k_tiles_per_pass = r.loop_dmma > 0 ? r.loop_dmma / dmma_per_k_tile : 1.0;
    c.spill_bytes_per_k_tile = (r.loop_local_load_bytes + r.loop_local_store_bytes) / k_tiles_per_pass;
  });
}

int apply_kernel_resources(std::vector<SimtKernelShape>* shapes, std::vector<KernelResources> const& resources,
                           InstanceForm const& form) {
  return apply_matching(shapes, resources, form, [](SimtKernelShape& s, KernelResources const& r) {
    s.registers_per_thread = r.registers;
    s.loop_fma = r.loop_ffma, s.loop_instructions = r.loop_instructions;
  });
}

}  // namespace gemmkit::model
