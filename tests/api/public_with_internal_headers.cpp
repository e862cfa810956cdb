/*! \file
    \brief Compiled (not linked) by the CTest test headers.public_and_internal_headers_compose:
    the C++ API and the internal headers must fit in one translation unit, as they do in the
    tools and tests that use both.
*/
#include <gemmkit/gemmkit.hpp>

#include "api/argument_check.hpp"
#include "base/problem.hpp"
#include "registry/gemm_variant.hpp"

namespace {

// Each side's backend enumeration must stay nameable next to the other.
[[maybe_unused]] gemmkit::Context* public_context = nullptr;
[[maybe_unused]] gemmkit::GemmProblem internal_problem{};

}  // namespace
