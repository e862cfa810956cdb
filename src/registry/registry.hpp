/*! \file
    \brief The one kernel registry: every variant, lookup by id, and table-driven selection.
*/
#pragma once

#include "registry/gemm_variant.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gemmkit {

/// One row of the selection table: for this backend and dtype, problems with m*n*k*batch up to
/// max_work (0 = unbounded) use the variant named; rows are tried in order.
struct SelectionRule {
  Platform backend;
  Dtype dtype;
  double max_work = 0;
  std::string variant_id;
};

class Registry {
 public:
  /// The process-wide registry, filled on first use with every variant this build has.
  static Registry const& instance();

  std::vector<GemmVariant const*> variants() const;
  GemmVariant const* find(std::string_view id) const;
  /// The variant the selection table picks for this problem, or nullptr if no rule matches.
  GemmVariant const* select(GemmProblem const& problem, Platform backend) const;
  std::vector<SelectionRule> const& rules() const { return rules_; }

  void add(std::unique_ptr<GemmVariant> variant);
  void set_rules(std::vector<SelectionRule> rules) { rules_ = std::move(rules); }

 private:
  std::vector<std::unique_ptr<GemmVariant>> variants_;
  std::vector<SelectionRule> rules_;
};

/// Parses the CSV selection table ("backend,dtype,max_work,variant" with a header line).
/// Throws std::invalid_argument naming the line on a malformed row.
std::vector<SelectionRule> parse_selection_table(std::string_view csv);

/// Registration hooks, one per layer; each adds what its layer built.
void register_cpu_variants(Registry& registry);
void register_cuda_variants(Registry& registry);

}  // namespace gemmkit
