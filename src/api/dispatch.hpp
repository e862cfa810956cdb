/*! \file
    \brief The dispatcher: special cases, pointer location, backend policy and variant selection.
*/
#pragma once

#include "api/context.hpp"
#include "base/problem.hpp"
#include "registry/registry.hpp"

namespace gemmkit {

/// BLAS parameter indices of the operand pointers as dispatch sees them (after the row-major
/// rewrite swapped A and B), for the NULL-pointer errors.
struct OperandPositions {
  int a = 8, b = 10, c = 13;
};

/// What a caller tells dispatch besides the arguments: the BLAS positions of the operand pointers,
/// and whether the call's kernel may start while the stream's previous kernel drains (true for a
/// grouped call's second and later groups, whose problems are independent of the group before).
struct CallSite {
  CallSite(OperandPositions positions_ = {}, bool overlaps_previous_kernel_ = false)  // NOLINT: implicit on purpose
      : positions(positions_), overlaps_previous_kernel(overlaps_previous_kernel_) {}
  OperandPositions positions;
  bool overlaps_previous_kernel;
};

/// Runs one checked, column-major (strided-batched) GEMM. Handles m|n|batch = 0, k = 0 and
/// alpha = 0 itself (C = beta*C without reading A or B); everything else goes to the variant the
/// context forces or the selection table picks.
gk_status dispatch(gk_context_st& ctx, GemmArguments const& args, CallSite const& call = {});

/// What dispatch checks of a pointer-array batch with host arrays before it runs any problem: its entries
/// (no NULL C, nor A or B where read) and where its first problem's matrices are (the backend they take).
/// A grouped call checks every group so before running the first (its problems numbered from `numbered_from`).
/// `first_backend` receives the backend of the first problem's matrices.
gk_status check_pointer_array(gk_context_st& ctx, GemmArguments const& args, CallSite const& call = {},
                              std::int64_t numbered_from = 0, Platform* first_backend = nullptr);

/// The crossover of a GPU (from where host operands go to the host-resident pipeline): its machine
/// description's, or the default description's for a GPU gemmkit has none of.
HostCrossover device_host_crossover(int device);

/// What dispatch would do with a checked single problem, found as dispatch finds it (pointer
/// locations, backend policy, the forced variant or the selection table) without running anything.
struct DispatchPlan {
  char const* variant = "";   ///< the variant's id; "" when nothing runs, "scale_c" for C = beta*C alone
  bool on_gpu = false;        ///< computes on a GPU (device operands, or host ones through the pipeline)
  bool host_resident = false; ///< host operands through the host-resident pipeline
};
gk_status plan_dispatch(gk_context_st& ctx, GemmArguments const& args, DispatchPlan* plan, CallSite const& call = {});

}  // namespace gemmkit
