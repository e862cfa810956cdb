/*! \file
    \brief The batched peers (OpenBLAS, BLIS, LIBXSMM per problem; Eigen and a plain loop built for
    this machine) registered as variants of kind peer, runnable when forced by id.

    They are not part of the installed library: they need optional libraries and, for Eigen and the
    loop, this machine's own ISA. gemmkit's registry calls register_peer_variants, which the library
    defines as a weak no-op (peer_registration.cpp); the object library gemmkit_peers
    (peers.cmake), linked by gemmkit-bench and the tests, defines the real one.
*/
#pragma once

#include "registry/function_variant.hpp"
#include "registry/registry.hpp"

#include <string>

namespace gemmkit {

void register_peer_variants(Registry& registry);

namespace peers {

/// "peer_<library>_dgemm_batched" or "..._sgemm_batched".
inline std::string peer_id(char const* library, Dtype dtype) {
  return std::string("peer_") + library + (dtype == Dtype::kF64 ? "_dgemm" : "_sgemm") + "_batched";
}

/// The peers run one problem per call, no transposes, over a strided batch (not pointer arrays).
inline bool plain_strided(GemmProblem const& p) {
  return p.trans_a == GK_OP_N && p.trans_b == GK_OP_N && !p.pointer_array;
}

/// Calls f(a, b, c) for every problem of the batch, split over the current OpenMP threads by
/// schedule(static): the way every peer is parallelized.
template <typename T, typename F>
void for_each_problem(GemmArguments const& args, F const& f) {
  GemmProblem const& p = args.problem;
  auto const* A = static_cast<T const*>(args.A);
  auto const* B = static_cast<T const*>(args.B);
  auto* C = static_cast<T*>(args.C);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < p.batch; ++i) f(A + i * p.stride_a, B + i * p.stride_b, C + i * p.stride_c);
}

/// Registers one peer for both dtypes: run<T>(args) returns its status.
template <template <typename> class Run>
void add_peer(Registry& registry, char const* library, std::string const& summary,
              FunctionVariant::CanImplement const& can_implement) {
  auto add = [&](Dtype dtype, FunctionVariant::Run run) {
    registry.add(std::make_unique<FunctionVariant>(
        VariantInfo{peer_id(library, dtype), dtype, Platform::kCpu, VariantKind::kPeer, 0, summary}, can_implement,
        std::move(run)));
  };
  add(Dtype::kF64, [](GemmArguments const& a, void*, ExecutionContext const&) { return Run<double>{}(a); });
  add(Dtype::kF32, [](GemmArguments const& a, void*, ExecutionContext const&) { return Run<float>{}(a); });
}

/// Eigen and the loop (peer_native_batched.cpp, built with this machine's flags).
void register_native_peers(Registry& registry);

}  // namespace peers
}  // namespace gemmkit
