/*! \file
    \brief `batched` on the GPU: device memory checks and the grouped case's layout.
*/
#include "batched_gpu_cases.hpp"

#include "table_printer.hpp"  // format

namespace gemmkit::bench {

std::string device_memory_shortfall(double need) {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (std::string e = cuda_error_text(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"); !e.empty()) {
    return e;
  }
  if (need <= 0.9 * double(free_bytes)) return "";
  return format("needs %.0f MiB of device memory, %.0f MiB free", need / kMiB, double(free_bytes) / kMiB);
}

std::string cublas_error_text(cublasStatus_t status, char const* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return {};
  return std::string(what) + ": " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")";
}

std::vector<GroupShape> const& grouped_mix() {
  static std::vector<GroupShape> const mix = {{4, 4, 4},   {8, 8, 8},   {16, 16, 16}, {32, 32, 32},
                                              {5, 7, 3},   {20, 12, 28, GK_OP_T, GK_OP_N},
                                              {12, 24, 6, GK_OP_N, GK_OP_T}};
  return mix;
}

GroupedCase lay_out_grouped(std::vector<GroupShape> const& shapes, Dtype dtype, BatchedSettings const& settings) {
  GroupedCase out;
  out.dtype = dtype;
  out.alpha = settings.alpha;
  out.beta = settings.beta;
  std::int64_t const share = (settings.bytes + std::int64_t(shapes.size()) - 1) / std::int64_t(shapes.size());
  std::int64_t const align = 256 / std::int64_t(size_of(dtype));
  auto aligned = [align](std::int64_t elements) { return (elements + align - 1) / align * align; };
  for (GroupShape const& shape : shapes) {
    GroupedCase::Group g;
    g.shape = shape;
    g.size = batch_for_bytes(shape.m, shape.n, shape.k, size_of(dtype), share);
    g.first = out.problems;
    g.a_offset = out.a_elements;
    g.b_offset = out.b_elements;
    g.c_offset = out.c_elements;
    out.problems += g.size;
    out.a_elements = aligned(out.a_elements + g.size * g.stride_a());
    out.b_elements = aligned(out.b_elements + g.size * g.stride_b());
    out.c_elements = aligned(out.c_elements + g.size * g.stride_c());
    out.groups.push_back(g);
  }
  return out;
}

}  // namespace gemmkit::bench
