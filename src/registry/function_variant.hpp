/*! \file
    \brief FunctionVariant: a GemmVariant assembled from plain functions, so a kernel family
    registers each instance with one line instead of a class per config.
*/
#pragma once

#include "registry/gemm_variant.hpp"

#include <functional>
#include <utility>

namespace gemmkit {

class FunctionVariant final : public GemmVariant {
 public:
  using CanImplement = std::function<bool(GemmProblem const&)>;
  using Run = std::function<gk_status(GemmArguments const&, void* workspace, ExecutionContext const&)>;
  using Initialize = std::function<gk_status(ExecutionContext const&)>;
  using WorkspaceBytes = std::function<std::size_t(GemmProblem const&)>;

  FunctionVariant(VariantInfo info, CanImplement can_implement, Run run, Initialize initialize = {},
                  WorkspaceBytes workspace_bytes = {})
      : info_(std::move(info)),
        can_implement_(std::move(can_implement)),
        run_(std::move(run)),
        initialize_(std::move(initialize)),
        workspace_bytes_(std::move(workspace_bytes)) {}

  VariantInfo const& info() const override { return info_; }
  gk_status can_implement(GemmProblem const& p) const override {
    return p.dtype == info_.dtype && (!can_implement_ || can_implement_(p)) ? GK_SUCCESS : GK_NOT_SUPPORTED;
  }
  std::size_t workspace_bytes(GemmProblem const& p) const override {
    return workspace_bytes_ ? workspace_bytes_(p) : 0;
  }
  gk_status initialize(ExecutionContext const& exec) const override {
    return initialize_ ? initialize_(exec) : GK_SUCCESS;
  }
  gk_status run(GemmArguments const& args, void* workspace, ExecutionContext const& exec) const override {
    return run_(args, workspace, exec);
  }

 private:
  VariantInfo info_;
  CanImplement can_implement_;
  Run run_;
  Initialize initialize_;
  WorkspaceBytes workspace_bytes_;
};

}  // namespace gemmkit
