/*! \file
    \brief The host-resident executor in a build without CUDA: there is no device to run it on.
*/
#include "ooc/executor.hpp"

namespace gemmkit::ooc {

class ExecutorCache {};

void ExecutorCacheDeleter::operator()(ExecutorCache* cache) const { delete cache; }
ExecutorCachePtr make_executor_cache() { return ExecutorCachePtr(new ExecutorCache); }

int pipeline_host_threads(GemmArguments const&, ExecutorOptions const&) { return 0; }

gk_status execute(GemmArguments const&, ExecutorOptions const&, ExecutorCache*, std::string* error, ExecutionReport*) {
  *error = "this gemmkit was built without CUDA: no GPU for the host-resident GEMM";
  return GK_NO_DEVICE;
}

}  // namespace gemmkit::ooc
