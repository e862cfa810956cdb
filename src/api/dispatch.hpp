/*! \file
    \brief The dispatcher: special cases, pointer location, backend policy and variant selection.
*/
#pragma once

#include "api/context.hpp"
#include "base/problem.hpp"

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

}  // namespace gemmkit
