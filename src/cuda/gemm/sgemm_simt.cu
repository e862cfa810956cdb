/*! \file
    \brief The launchers of the FP32 SIMT GEMM for one named config, GEMMKIT_INSTANCE_CONFIG; CMake
    compiles this file once per config it builds (sgemm_simt_configs.def).
*/
#include "cuda/gemm/sgemm_simt.cuh"
#include "cuda/gemm/sgemm_simt.hpp"
#include "cuda/gemm/tile_launch.cuh"
#include "cuda/gemm/transpose.hpp"

#include <cstdint>
#include <type_traits>

namespace gemmkit::gemm {

namespace {

/// What a launch form passes its kernel besides the params: nothing (the plain kernel), the split-K
/// fixup or the stream-K plan.
struct Plain {};

/// The kernel of the form `Extra` names, over its blocks.
template <typename Cfg, bool kTransA, bool kTransB, int kVec, typename Extra>
cudaError_t launch_instance(KernelParams<float> const& p, Extra const& extra, cudaStream_t stream) {
  std::int64_t const tiles = ((p.m + Cfg::kBM - 1) / Cfg::kBM) * ((p.n + Cfg::kBN - 1) / Cfg::kBN);
  if constexpr (std::is_same_v<Extra, SplitKFixup<float>>) {
    return launch_tiles<sgemm_simt_fixup_kernel<Cfg, kTransA, kTransB, kVec, kVec>>(
        p, tiles * extra.slices, Cfg::kThreads, Cfg::smem_bytes(), stream, extra);
  } else if constexpr (std::is_same_v<Extra, StreamKFixup<float>>) {
    return launch_tiles<sgemm_simt_stream_k_kernel<Cfg, kTransA, kTransB, kVec, kVec>>(
        p, extra.plan.blocks(), Cfg::kThreads, Cfg::smem_bytes(), stream, extra);
  } else {
    return launch_tiles<sgemm_simt_kernel<Cfg, kTransA, kTransB, kVec, kVec>>(p, tiles, Cfg::kThreads,
                                                                             Cfg::smem_bytes(), stream);
  }
}

/// 16-byte copies apply to the operands contiguous along M or N (A untransposed, B transposed).
template <typename Cfg, bool kTransA, bool kTransB, typename Extra>
cudaError_t launch_aligned_or_not(KernelParams<float> const& p, Extra const& extra, cudaStream_t stream) {
  if constexpr (kTransA && !kTransB) {
    return launch_instance<Cfg, kTransA, kTransB, 1>(p, extra, stream);  // both K-contiguous: no vector copies
  } else {
    bool const wide = (kTransA || vector_aligned(p.A, p.lda, p.stride_a, p.batch)) &&
                      (!kTransB || vector_aligned(p.B, p.ldb, p.stride_b, p.batch));
    return wide ? launch_instance<Cfg, kTransA, kTransB, 4>(p, extra, stream)
                : launch_instance<Cfg, kTransA, kTransB, 1>(p, extra, stream);
  }
}

template <typename Cfg, typename Extra>
cudaError_t launch_transposes(KernelParams<float> const& p, Extra const& extra, cudaStream_t stream) {
  if (!p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, false, false>(p, extra, stream);
  if (!p.trans_a && p.trans_b) return launch_aligned_or_not<Cfg, false, true>(p, extra, stream);
  if (p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, true, false>(p, extra, stream);
  return launch_aligned_or_not<Cfg, true, true>(p, extra, stream);
}

}  // namespace

template <typename Cfg>
cudaError_t launch_sgemm_simt(KernelParams<float> const& p, cudaStream_t stream) {
  return launch_transposes<Cfg>(p, Plain{}, stream);
}

template <typename Cfg>
std::size_t sgemm_simt_split_fixup_workspace(GemmProblem const& problem, int slices) {
  return split_k_fixup_workspace_bytes<Cfg, float>(problem, slices);
}

template <typename Cfg>
cudaError_t launch_sgemm_simt_split_fixup(KernelParams<float> const& p, int slices, float* workspace,
                                          cudaStream_t stream) {
  if constexpr (!kSgemmSplitFixup<Cfg>) {
    return cudaErrorNotSupported;  // not built for this config (sgemm_simt.hpp)
  } else {
    return launch_split_fixup<Cfg>(p, problem_shape(p), slices, workspace, stream, launch_sgemm_simt<Cfg>,
                                   launch_transposes<Cfg, SplitKFixup<float>>);
  }
}

template <typename Cfg>
std::size_t sgemm_simt_stream_k_workspace(GemmProblem const& problem) {
  return stream_k_workspace_bytes<Cfg, float>(problem);
}

template <typename Cfg>
cudaError_t launch_sgemm_simt_stream_k(KernelParams<float> const& p, float* workspace, cudaStream_t stream) {
  if constexpr (!kSgemmStreamK<Cfg>) {
    return cudaErrorNotSupported;  // not built for this config (sgemm_simt.hpp)
  } else {
    return launch_stream_k<Cfg>(p, problem_shape(p), workspace, stream, launch_sgemm_simt<Cfg>,
                                launch_transposes<Cfg, StreamKFixup<float>>);
  }
}

template <typename Cfg>
std::size_t sgemm_simt_split_k_workspace(GemmProblem const& problem) {
  return split_k_workspace_bytes<Cfg, float>(problem);
}

template <typename Cfg>
cudaError_t launch_sgemm_simt_split_k(KernelParams<float> const& p, float* workspace, cudaStream_t stream) {
  return launch_split_k<Cfg>(p, workspace, stream, launch_sgemm_simt<Cfg>);
}

template <typename Cfg>
std::size_t sgemm_simt_packed_workspace(GemmProblem const& problem) {
  return packed_workspace_bytes<float>(problem, PackedLayout::kNT);
}

template <typename Cfg>
cudaError_t launch_sgemm_simt_packed(KernelParams<float> const& p, float* workspace, cudaStream_t stream) {
  return launch_packed(p, workspace, PackedLayout::kNT, stream, launch_sgemm_simt<Cfg>);
}

template <typename Cfg>
std::size_t sgemm_simt_packed_stream_k_workspace(GemmProblem const& problem) {
  // Packing keeps m, n and k, so stream-K's workspace is the unpacked problem's.
  return packed_prefix_bytes<float>(problem, PackedLayout::kNT) + sgemm_simt_stream_k_workspace<Cfg>(problem);
}

template <typename Cfg>
cudaError_t launch_sgemm_simt_packed_stream_k(KernelParams<float> const& p, float* workspace, cudaStream_t stream) {
  return launch_packed(p, workspace, PackedLayout::kNT, stream, launch_sgemm_simt_stream_k<Cfg>);
}

using InstanceConfig = GEMMKIT_INSTANCE_CONFIG;
template cudaError_t launch_sgemm_simt<InstanceConfig>(KernelParams<float> const&, cudaStream_t);
template std::size_t sgemm_simt_split_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_sgemm_simt_split_k<InstanceConfig>(KernelParams<float> const&, float*, cudaStream_t);
template std::size_t sgemm_simt_packed_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_sgemm_simt_packed<InstanceConfig>(KernelParams<float> const&, float*, cudaStream_t);
template std::size_t sgemm_simt_stream_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_sgemm_simt_stream_k<InstanceConfig>(KernelParams<float> const&, float*, cudaStream_t);
template std::size_t sgemm_simt_packed_stream_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_sgemm_simt_packed_stream_k<InstanceConfig>(KernelParams<float> const&, float*,
                                                                        cudaStream_t);
template std::size_t sgemm_simt_split_fixup_workspace<InstanceConfig>(GemmProblem const&, int);
template cudaError_t launch_sgemm_simt_split_fixup<InstanceConfig>(KernelParams<float> const&, int, float*,
                                                                   cudaStream_t);

}  // namespace gemmkit::gemm
