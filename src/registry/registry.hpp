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

/// Whether a rule asks for operands that allow 16-byte copies (leading dimensions and strides that
/// are multiples of the elements in 16 bytes: 2 doubles, 4 floats).
enum class Alignment { kAny, kAligned, kMisaligned };

/// Where the selecting machine's GPU pipeline starts to beat its host CPU on host operands (0 = no
/// bound): m*n*k at least min_work and k at least min_k (an update of small k moves all of C over the
/// host link for the little work it brings).
struct HostCrossover {
  double min_work = 0;
  double min_k = 0;
};

/// One row of the selection table: for this backend and dtype, problems inside every bound use
/// the variant named; rows are tried in order. A bound of 0 means unbounded.
struct SelectionRule {
  Platform backend;
  Dtype dtype;
  double min_work = 0;  ///< m*n*k*batch at least
  bool min_work_from_machine = false;  ///< the bound is the selecting machine's host crossover
  double max_work = 0;  ///< m*n*k*batch at most
  double max_mn = 0;    ///< m*n at most
  double min_k = 0;     ///< k at least
  double max_k = 0;     ///< k at most
  double min_side = 0;  ///< min(m, n) at least
  Alignment alignment = Alignment::kAny;
  double min_wave_eff = 0;  ///< the variant's wave_efficiency on the selecting GPU at least
  std::string trans = "*";  ///< "nn", "nt", "tn", "tt" (A then B; conjugate counts as t) or "*"
  std::string variant_id;

  /// `machine` is the bound of a rule whose min_work says `machine`.
  bool admits(GemmProblem const& problem, HostCrossover const& machine = {}) const;
};

/// Which host-operand variants a selection may pick (the backend policy's say): any, only those
/// computing on the CPU, or only those computing on the GPUs (VariantInfo::stages_host_operands).
enum class HostCompute { kAny, kCpuOnly, kGpuOnly };

class Registry {
 public:
  std::vector<GemmVariant const*> variants() const;
  GemmVariant const* find(std::string_view id) const;
  /// The variant the selection table picks for this problem, or nullptr if no rule matches.
  /// With a compute capability (major*10+minor), rules whose variant needs more are passed over,
  /// so GPUs without FP64 tensor cores fall through to the SIMT rows; with a multiprocessor count,
  /// rules whose variant would leave more of its last wave empty than min_wave_eff allows; with a
  /// workspace limit (bytes), rules whose variant needs a larger workspace for this problem; for
  /// host operands, the variants `host_compute` allows; `host_crossover` is the machine's bound for
  /// the rules whose min_work says `machine` (zeros: those rules have no bound).
  GemmVariant const* select(GemmProblem const& problem, Platform backend, int compute_capability = 0,
                            int multiprocessors = 0, std::size_t workspace_limit = 0,
                            HostCompute host_compute = HostCompute::kAny, HostCrossover const& host_crossover = {}) const;
  std::vector<SelectionRule> const& rules() const { return rules_; }
  /// The first FP64-emulating CUDA variant (VariantInfo::emulates_fp64; registration order puts gemmkit's own
  /// engine first) that runs this double-precision problem on a GPU of this compute capability, or nullptr.
  GemmVariant const* emulation_for(GemmProblem const& problem, int compute_capability) const;

  void add(std::unique_ptr<GemmVariant> variant);
  void set_rules(std::vector<SelectionRule> rules);

 private:
  /// Looks up every rule's variant (select runs on every call and must not compare strings).
  void resolve_rules();

  std::vector<std::unique_ptr<GemmVariant>> variants_;
  std::vector<SelectionRule> rules_;
  std::vector<GemmVariant const*> rule_variants_;  ///< rules_[i]'s variant, nullptr when not registered
};

/// Parses the CSV selection table. The header line names the columns: backend, dtype and variant
/// are required; min_work, max_work, max_mn, min_k, min_wave_eff (numbers or *), aligned (yes, no or *) and
/// trans are optional; min_work may also say `machine` (the selecting machine's host crossover, its
/// work and k bounds).
/// Throws std::invalid_argument naming the line on a malformed header or row.
std::vector<SelectionRule> parse_selection_table(std::string_view csv);

}  // namespace gemmkit
