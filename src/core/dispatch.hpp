/*! \file
    \brief The dispatcher: special cases, pointer location, backend policy and variant selection.
*/
#pragma once

#include "core/context.hpp"
#include "core/problem.hpp"

namespace gemmkit {

/// BLAS parameter indices of the operand pointers as dispatch sees them (after the row-major
/// rewrite swapped A and B), for the NULL-pointer errors.
struct OperandPositions {
  int a = 8, b = 10, c = 13;
};

/// Runs one checked, column-major (strided-batched) GEMM. Handles m|n|batch = 0, k = 0 and
/// alpha = 0 itself (C = beta*C without reading A or B); everything else goes to the variant the
/// context forces or the selection table picks.
gk_status dispatch(gk_context_st& ctx, GemmArguments const& args, OperandPositions positions = {});

}  // namespace gemmkit
