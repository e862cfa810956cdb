/*! \file
    \brief The kernel registry and the table-driven selection it performs.
*/
#include "registry/registry.hpp"

#include <algorithm>
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

GemmVariant const* Registry::emulation_for(GemmProblem const& problem, int compute_capability) const {
  if (problem.dtype != Dtype::kF64) return nullptr;
  for (auto const& v : variants_) {
    VariantInfo const& info = v->info();
    if (info.emulates_fp64 && info.backend == Platform::kCuda && info.dtype == Dtype::kF64 &&
        info.min_sm <= compute_capability && v->can_implement(problem) == GK_SUCCESS) {
      return v.get();
    }
  }
  return nullptr;
}

GemmVariant const* Registry::select(GemmProblem const& problem, Platform backend, int compute_capability,
                                    int multiprocessors, std::size_t workspace_limit, HostCompute host_compute,
                                    HostCrossover const& host_crossover) const {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    SelectionRule const& rule = rules_[i];
    if (rule.backend != backend || rule.dtype != problem.dtype || !rule.admits(problem, host_crossover)) continue;
    GemmVariant const* v = rule_variants_[i];
    if (v == nullptr || (problem.pointer_array && !v->info().pointer_array)) continue;
    if (compute_capability != 0 && v->info().min_sm > compute_capability) continue;
    bool const host_operands = backend == Platform::kCpu;  // the filter speaks only of them
    if (host_operands && host_compute != HostCompute::kAny &&
        v->info().stages_host_operands != (host_compute == HostCompute::kGpuOnly)) {
      continue;
    }
    if (rule.min_wave_eff != 0 && wave_efficiency(v->info().tiles, problem, multiprocessors) < rule.min_wave_eff) continue;
    if (v->can_implement(problem) != GK_SUCCESS) continue;
    if (workspace_limit != 0 && v->workspace_bytes(problem) > workspace_limit) continue;
    return v;
  }
  return nullptr;
}

void Registry::add(std::unique_ptr<GemmVariant> variant) {
  if (find(variant->info().id) != nullptr) {
    throw std::logic_error("variant id registered twice: " + variant->info().id);
  }
  variants_.push_back(std::move(variant));
  resolve_rules();  // a rule may name the variant just added
}

void Registry::set_rules(std::vector<SelectionRule> rules) {
  rules_ = std::move(rules);
  resolve_rules();
}

void Registry::resolve_rules() {
  rule_variants_.resize(rules_.size());
  for (std::size_t i = 0; i < rules_.size(); ++i) rule_variants_[i] = find(rules_[i].variant_id);
}

double wave_efficiency(TileGeometry const& tiles, GemmProblem const& p, int multiprocessors) {
  if (tiles.tile_m <= 0 || tiles.tile_n <= 0 || tiles.blocks_per_sm <= 0 || multiprocessors <= 0) return 1.0;
  std::int64_t const blocks = (p.m + tiles.tile_m - 1) / tiles.tile_m * ((p.n + tiles.tile_n - 1) / tiles.tile_n) * p.batch;
  return wave_efficiency(blocks, std::int64_t(multiprocessors) * tiles.blocks_per_sm);
}

bool SelectionRule::admits(GemmProblem const& p, HostCrossover const& machine) const {
  double const work = double(p.m) * double(p.n) * double(p.k) * double(p.batch);
  double const least = min_work_from_machine ? machine.min_work : min_work;
  if (least != 0 && work < least) return false;
  if (min_work_from_machine && machine.min_k != 0 && double(p.k) < machine.min_k) return false;
  if (max_work != 0 && work > max_work) return false;
  if (max_mn != 0 && double(p.m) * double(p.n) > max_mn) return false;
  if (trans != "*" && (trans[0] == 't') != is_transposed(p.trans_a)) return false;
  if (trans != "*" && (trans[1] == 't') != is_transposed(p.trans_b)) return false;
  if (min_k != 0 && double(p.k) < min_k) return false;
  if (max_k != 0 && double(p.k) > max_k) return false;
  if (min_side != 0 && double(std::min(p.m, p.n)) < min_side) return false;
  if (alignment != Alignment::kAny) {
    std::int64_t const per_16_bytes = p.dtype == Dtype::kF32 ? 4 : 2;  // elements in one 16-byte copy
    auto const whole = [&](std::int64_t v) { return v % per_16_bytes == 0; };
    bool const aligned = whole(p.lda) && whole(p.ldb) && (p.batch == 1 || (whole(p.stride_a) && whole(p.stride_b)));
    if (aligned != (alignment == Alignment::kAligned)) return false;
  }
  return true;
}

std::vector<SelectionRule> parse_selection_table(std::string_view csv) {
  std::vector<SelectionRule> rules;
  std::stringstream stream{std::string(csv)};
  std::string line;
  int number = 0;
  std::vector<std::string> columns;
  auto bad = [&](std::string const& why) {
    return std::invalid_argument("selection table line " + std::to_string(number) + ": " + why);
  };
  auto bound = [&](std::string const& text, char const* name) {
    if (text == "*") return 0.0;
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(text, &used);
    } catch (std::exception const&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) throw bad(std::string(name) + " must be a number or *, got '" + text + "'");
    return value;
  };
  while (std::getline(stream, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    std::vector<std::string> const f = split(line, ',');
    if (columns.empty()) {  // the first non-comment line names the columns
      columns = f;
      for (char const* required : {"backend", "dtype", "variant"}) {
        if (std::find(columns.begin(), columns.end(), required) == columns.end()) {
          throw bad(std::string("header lacks the column '") + required + "'");
        }
      }
      for (std::string const& c : columns) {
        if (c != "backend" && c != "dtype" && c != "variant" && c != "min_work" && c != "max_work" && c != "max_mn" &&
            c != "min_k" && c != "max_k" && c != "min_side" && c != "min_wave_eff" && c != "aligned" && c != "trans") {
          throw bad("unknown column '" + c + "'");
        }
      }
      continue;
    }
    if (f.size() != columns.size()) {
      throw bad("expected " + std::to_string(columns.size()) + " fields, got " + std::to_string(f.size()));
    }
    SelectionRule rule;
    for (std::size_t i = 0; i < f.size(); ++i) {
      std::string const& c = columns[i];
      if (c == "backend") {
        if (f[i] == "cpu") rule.backend = Platform::kCpu;
        else if (f[i] == "cuda") rule.backend = Platform::kCuda;
        else throw bad("backend must be cpu or cuda, got '" + f[i] + "'");
      } else if (c == "dtype") {
        if (f[i] == "f64") rule.dtype = Dtype::kF64;
        else if (f[i] == "f32") rule.dtype = Dtype::kF32;
        else throw bad("dtype must be f64 or f32, got '" + f[i] + "'");
      } else if (c == "variant") {
        if (f[i].empty()) throw bad("variant id is empty");
        rule.variant_id = f[i];
      } else if (c == "min_work") {
        rule.min_work_from_machine = f[i] == "machine";
        if (!rule.min_work_from_machine) rule.min_work = bound(f[i], "min_work");
      } else if (c == "max_work") {
        rule.max_work = bound(f[i], "max_work");
      } else if (c == "max_mn") {
        rule.max_mn = bound(f[i], "max_mn");
      } else if (c == "min_k") {
        rule.min_k = bound(f[i], "min_k");
      } else if (c == "max_k") {
        rule.max_k = bound(f[i], "max_k");
      } else if (c == "min_side") {
        rule.min_side = bound(f[i], "min_side");
      } else if (c == "min_wave_eff") {
        rule.min_wave_eff = bound(f[i], "min_wave_eff");
      } else if (c == "trans") {
        if (f[i] != "*" && f[i] != "nn" && f[i] != "nt" && f[i] != "tn" && f[i] != "tt") {
          throw bad("trans must be nn, nt, tn, tt or *, got '" + f[i] + "'");
        }
        rule.trans = f[i];
      } else if (c == "aligned") {
        if (f[i] == "*") rule.alignment = Alignment::kAny;
        else if (f[i] == "yes") rule.alignment = Alignment::kAligned;
        else if (f[i] == "no") rule.alignment = Alignment::kMisaligned;
        else throw bad("aligned must be yes, no or *, got '" + f[i] + "'");
      }
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace gemmkit
