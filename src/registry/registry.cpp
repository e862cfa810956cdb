/*! \file
    \brief The kernel registry and the table-driven selection it performs.
*/
#include "registry/registry.hpp"

#include "registry/selection_table_data.hpp"

#include <sstream>
#include <stdexcept>

namespace gemmkit {

namespace {

std::vector<std::string> split(std::string const& line, char separator) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, separator)) {
    auto const first = field.find_first_not_of(" \t\r");
    auto const last = field.find_last_not_of(" \t\r");
    fields.push_back(first == std::string::npos ? "" : field.substr(first, last - first + 1));
  }
  return fields;
}

}  // namespace

Registry const& Registry::instance() {
  static Registry const registry = [] {
    Registry r;
    register_cpu_variants(r);
    register_cuda_variants(r);
    r.set_rules(parse_selection_table(kSelectionTableCsv));
    return r;
  }();
  return registry;
}

std::vector<GemmVariant const*> Registry::variants() const {
  std::vector<GemmVariant const*> out;
  out.reserve(variants_.size());
  for (auto const& v : variants_) out.push_back(v.get());
  return out;
}

GemmVariant const* Registry::find(std::string_view id) const {
  for (auto const& v : variants_) {
    if (v->info().id == id) return v.get();
  }
  return nullptr;
}

GemmVariant const* Registry::select(GemmProblem const& problem, Platform backend) const {
  double const work = double(problem.m) * double(problem.n) * double(problem.k) * double(problem.batch);
  for (SelectionRule const& rule : rules_) {
    if (rule.backend != backend || rule.dtype != problem.dtype) continue;
    if (rule.max_work != 0 && work > rule.max_work) continue;
    GemmVariant const* v = find(rule.variant_id);
    if (v != nullptr && v->can_implement(problem) == GK_SUCCESS) return v;
  }
  return nullptr;
}

void Registry::add(std::unique_ptr<GemmVariant> variant) {
  if (find(variant->info().id) != nullptr) {
    throw std::logic_error("variant id registered twice: " + variant->info().id);
  }
  variants_.push_back(std::move(variant));
}

std::vector<SelectionRule> parse_selection_table(std::string_view csv) {
  std::vector<SelectionRule> rules;
  std::stringstream stream{std::string(csv)};
  std::string line;
  int number = 0;
  bool header_seen = false;
  while (std::getline(stream, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    if (!header_seen) {  // the first non-comment line names the columns
      header_seen = true;
      continue;
    }
    std::vector<std::string> const f = split(line, ',');
    auto bad = [&](std::string const& why) {
      return std::invalid_argument("selection table line " + std::to_string(number) + ": " + why);
    };
    if (f.size() != 4) throw bad("expected 4 fields (backend,dtype,max_work,variant)");
    SelectionRule rule;
    if (f[0] == "cpu") rule.backend = Platform::kCpu;
    else if (f[0] == "cuda") rule.backend = Platform::kCuda;
    else throw bad("backend must be cpu or cuda, got '" + f[0] + "'");
    if (f[1] == "f64") rule.dtype = Dtype::kF64;
    else if (f[1] == "f32") rule.dtype = Dtype::kF32;
    else throw bad("dtype must be f64 or f32, got '" + f[1] + "'");
    if (f[2] == "*") {
      rule.max_work = 0.0;
    } else {
      std::size_t used = 0;
      try {
        rule.max_work = std::stod(f[2], &used);
      } catch (std::exception const&) {
        used = 0;
      }
      if (used == 0 || used != f[2].size()) throw bad("max_work must be a number or *, got '" + f[2] + "'");
    }
    if (f[3].empty()) throw bad("variant id is empty");
    rule.variant_id = f[3];
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace gemmkit
