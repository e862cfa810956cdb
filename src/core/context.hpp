/*! \file
    \brief The gk_context internals: stream, device, memory budget, options and the last error.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#include <cstddef>
#include <string>

struct gk_context_st {
  void* stream = nullptr;
  int device = 0;
  std::size_t device_memory_budget = 0;
  gk_backend backend = GK_BACKEND_AUTO;
  int verbosity = 0;
  std::string forced_variant;
  std::string last_variant;
  std::string last_error;
  int error_parameter = 0;
};

namespace gemmkit {

/// The context a call should use: ctx itself, or a per-thread default when ctx is NULL.
gk_context_st& resolve_context(gk_context ctx);

/// Records a failure on the context and returns the status, so callers can `return fail(...)`.
gk_status fail(gk_context_st& ctx, gk_status status, std::string message, int parameter = 0);

/// Clears the last error; called at the start of every API call.
void clear_error(gk_context_st& ctx);

/// Prints a note to stderr when ctx.verbosity >= level.
void note(gk_context_st const& ctx, int level, std::string const& message);

}  // namespace gemmkit
