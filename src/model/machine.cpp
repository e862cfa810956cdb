/*! \file
    \brief The machine description as a flat JSON object: writer, and a reader for exactly that
    shape (one object of string and number values), so the model needs no JSON dependency; the
    same reader takes the top-level fields of a benchmark's JSON-lines row.
*/
#include "model/machine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <variant>

namespace gemmkit::model {

namespace {

using Member = std::variant<std::string MachineDescription::*, int MachineDescription::*, double MachineDescription::*>;

struct Field {
  char const* key;
  Member member;
  bool required;  ///< the model reads it: a description without it cannot be used
};

/// One table drives the writer and the reader, so the two cannot drift apart.
Field const kFields[] = {
    {"name", &MachineDescription::name, true},
    {"source", &MachineDescription::source, false},
    {"sm_count", &MachineDescription::sm_count, true},
    {"sm_clock_hz", &MachineDescription::sm_clock_hz, true},
    {"fp64_tensor_flops", &MachineDescription::fp64_tensor_flops, true},
    {"fp64_tensor_m8n8k4_flops", &MachineDescription::fp64_tensor_m8n8k4_flops, false},
    {"fp64_fma_flops", &MachineDescription::fp64_fma_flops, false},
    {"fp32_fma_flops", &MachineDescription::fp32_fma_flops, false},
    {"dram_bytes_per_s", &MachineDescription::dram_bytes_per_s, false},
    {"l2_bytes_per_s", &MachineDescription::l2_bytes_per_s, true},
    {"smem_bytes_per_clock_per_sm", &MachineDescription::smem_bytes_per_clock_per_sm, true},
    {"h2d_pinned_bytes_per_s", &MachineDescription::h2d_pinned_bytes_per_s, false},
    {"d2h_pinned_bytes_per_s", &MachineDescription::d2h_pinned_bytes_per_s, false},
    {"h2d_pageable_bytes_per_s", &MachineDescription::h2d_pageable_bytes_per_s, false},
    {"d2h_pageable_bytes_per_s", &MachineDescription::d2h_pageable_bytes_per_s, false},
    {"bidirectional_pinned_bytes_per_s", &MachineDescription::bidirectional_pinned_bytes_per_s, false},
    {"fp64_gemm_flops", &MachineDescription::fp64_gemm_flops, false},
    {"fp32_gemm_flops", &MachineDescription::fp32_gemm_flops, false},
    {"host_h2d_bytes_per_s", &MachineDescription::host_h2d_bytes_per_s, false},
    {"host_d2h_bytes_per_s", &MachineDescription::host_d2h_bytes_per_s, false},
    {"staged_copy_bytes_per_s", &MachineDescription::staged_copy_bytes_per_s, false},
    {"host_gemm_min_work", &MachineDescription::host_gemm_min_work, false},
    {"host_gemm_min_k", &MachineDescription::host_gemm_min_k, false},
    {"fp64_emulation_min_work", &MachineDescription::fp64_emulation_min_work, false},
    {"fp64_emulation_min_k", &MachineDescription::fp64_emulation_min_k, false},
    {"lds32_latency_cycles", &MachineDescription::lds32_latency_cycles, false},
    {"lds64_latency_cycles", &MachineDescription::lds64_latency_cycles, false},
    {"lds128_latency_cycles", &MachineDescription::lds128_latency_cycles, false},
    {"dfma_latency_cycles", &MachineDescription::dfma_latency_cycles, false},
    {"ffma_latency_cycles", &MachineDescription::ffma_latency_cycles, false},
    {"integer_latency_cycles", &MachineDescription::integer_latency_cycles, false},
    {"dmma_latency_cycles", &MachineDescription::dmma_latency_cycles, false},
    {"l2_load_latency_cycles", &MachineDescription::l2_load_latency_cycles, false},
    {"dram_load_latency_cycles", &MachineDescription::dram_load_latency_cycles, false},
    {"barrier_latency_cycles", &MachineDescription::barrier_latency_cycles, false},
    {"launch_latency_s", &MachineDescription::launch_latency_s, false},
    {"launch_interval_s", &MachineDescription::launch_interval_s, false},
    {"power_limit_w", &MachineDescription::power_limit_w, false},
    {"idle_power_w", &MachineDescription::idle_power_w, false},
    {"dmma_energy_j_per_flop", &MachineDescription::dmma_energy_j_per_flop, false},
    {"l2_energy_j_per_byte", &MachineDescription::l2_energy_j_per_byte, false},
    {"smem_energy_j_per_byte", &MachineDescription::smem_energy_j_per_byte, false},
    {"registers_per_sm", &MachineDescription::registers_per_sm, true},
    {"max_registers_per_thread", &MachineDescription::max_registers_per_thread, true},
    {"shared_bytes_per_sm", &MachineDescription::shared_bytes_per_sm, true},
    {"max_threads_per_sm", &MachineDescription::max_threads_per_sm, true},
    {"max_blocks_per_sm", &MachineDescription::max_blocks_per_sm, true},
    {"schedulers_per_sm", &MachineDescription::schedulers_per_sm, false},
};

std::string quoted(std::string const& text) {
  std::string out = "\"";
  for (char const c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// A value of the flat object: a string or a number (true, false and null are read and refused
/// by the field that meets them).
struct Value {
  enum class Kind { kString, kNumber, kOther } kind = Kind::kOther;
  std::string text;
  double number = 0;
};

/// Reads `{"key": value, ...}` with string, number, true, false and null values; nesting is an
/// error, or, with `skip_nested`, a nested object or array is passed over (kind kOther). Returns
/// "" or what is wrong, with the byte offset.
class FlatObjectReader {
 public:
  explicit FlatObjectReader(std::string const& text, bool skip_nested = false) : text_(text), skip_nested_(skip_nested) {}

  std::string read(std::map<std::string, Value>* out) {
    skip_space();
    if (!take('{')) return fail("expected '{'");
    skip_space();
    if (take('}')) return finish();
    while (true) {
      std::string key;
      skip_space();
      if (std::string e = read_string(&key); !e.empty()) return e;
      skip_space();
      if (!take(':')) return fail("expected ':' after \"" + key + "\"");
      skip_space();
      Value value;
      if (std::string e = read_value(&value); !e.empty()) return e;
      (*out)[key] = value;
      skip_space();
      if (take('}')) return finish();
      if (!take(',')) return fail("expected ',' or '}'");
    }
  }

 private:
  std::string finish() {
    skip_space();
    return at_ < text_.size() ? fail("text after the object") : std::string();
  }
  std::string fail(std::string const& what) const { return what + " at byte " + std::to_string(at_); }
  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t')) {
      ++at_;
    }
  }
  bool take(char c) {
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  std::string read_string(std::string* out) {
    if (!take('"')) return fail("expected a string");
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_++];
      if (c == '\\') {
        if (at_ >= text_.size()) break;
        char const e = text_[at_++];
        if (e == 'u') {  // the writer escapes control characters only: one byte is enough
          if (at_ + 4 > text_.size()) return fail("short \\u escape");
          c = static_cast<char>(std::strtol(text_.substr(at_, 4).c_str(), nullptr, 16));
          at_ += 4;
        } else {
          c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
        }
      }
      out->push_back(c);
    }
    if (!take('"')) return fail("unterminated string");
    return {};
  }

  std::string read_value(Value* out) {
    if (at_ >= text_.size()) return fail("expected a value");
    char const c = text_[at_];
    if (c == '"') {
      out->kind = Value::Kind::kString;
      return read_string(&out->text);
    }
    if (c == '{' || c == '[') {
      if (!skip_nested_) return fail("nested objects and arrays are not part of a machine description");
      out->kind = Value::Kind::kOther;
      return skip_nested_value();
    }
    for (char const* word : {"true", "false", "null"}) {
      if (text_.compare(at_, std::char_traits<char>::length(word), word) == 0) {
        at_ += std::char_traits<char>::length(word);
        out->kind = Value::Kind::kOther;
        out->text = word;
        return {};
      }
    }
    char const* begin = text_.c_str() + at_;
    char* end = nullptr;
    out->number = std::strtod(begin, &end);
    if (end == begin) return fail("expected a value");
    at_ += std::size_t(end - begin);
    out->kind = Value::Kind::kNumber;
    return {};
  }

  /// Passes a balanced {...} or [...] (strings inside may hold brackets).
  std::string skip_nested_value() {
    int depth = 0;
    do {
      if (at_ >= text_.size()) return fail("unterminated object or array");
      char const c = text_[at_];
      if (c == '"') {
        std::string ignored;
        if (std::string e = read_string(&ignored); !e.empty()) return e;
        continue;
      }
      depth += c == '{' || c == '[' ? 1 : (c == '}' || c == ']' ? -1 : 0);
      ++at_;
    } while (depth > 0);
    return {};
  }

  std::string const& text_;
  bool skip_nested_ = false;
  std::size_t at_ = 0;
};

}  // namespace

// Asked on every host call: the descriptions are built once.
double lowest_host_gemm_min_work() {
  static double const lowest = std::min(h100_sxm().host_gemm_min_work, h200_sxm().host_gemm_min_work);
  return lowest;
}

double lowest_host_gemm_min_k() {
  static double const lowest = std::min(h100_sxm().host_gemm_min_k, h200_sxm().host_gemm_min_k);
  return lowest;
}

std::string machine_description_json(MachineDescription const& machine) {
  std::string out = "{";
  for (Field const& f : kFields) {
    out += (out.size() > 1 ? ",\n  " : "\n  ") + quoted(f.key) + ": ";
    if (auto const* s = std::get_if<std::string MachineDescription::*>(&f.member)) {
      out += quoted(machine.**s);
    } else if (auto const* i = std::get_if<int MachineDescription::*>(&f.member)) {
      out += std::to_string(machine.**i);
    } else {
      double const value = machine.*std::get<double MachineDescription::*>(f.member);
      char number[32];
      std::snprintf(number, sizeof number, "%.17g", std::isfinite(value) ? value : 0.0);  // JSON has no NaN
      out += number;
    }
  }
  return out + "\n}\n";
}

std::string parse_machine_description(std::string const& text, std::string const& where, MachineDescription* out) {
  std::map<std::string, Value> values;
  if (std::string e = FlatObjectReader(text).read(&values); !e.empty()) {
    return where + ": not a machine description (a flat JSON object): " + e;
  }
  MachineDescription m;
  for (Field const& f : kFields) {
    auto const found = values.find(f.key);
    if (found == values.end()) {
      if (f.required) return where + ": machine description lacks \"" + f.key + "\"";
      continue;
    }
    Value const& v = found->second;
    if (auto const* s = std::get_if<std::string MachineDescription::*>(&f.member)) {
      if (v.kind != Value::Kind::kString) return where + ": \"" + f.key + "\" must be a string";
      m.** s = v.text;
    } else if (v.kind != Value::Kind::kNumber) {
      return where + ": \"" + f.key + "\" must be a number";
    } else if (auto const* i = std::get_if<int MachineDescription::*>(&f.member)) {
      if (v.number != std::floor(v.number) || std::fabs(v.number) > 2e9) {
        return where + ": \"" + f.key + "\" must be an integer";
      }
      m.** i = static_cast<int>(v.number);
    } else {
      m.*std::get<double MachineDescription::*>(f.member) = v.number;
    }
  }
  *out = m;
  return {};
}

std::string read_json_row(std::string const& line, std::map<std::string, std::string>* strings,
                          std::map<std::string, double>* numbers) {
  std::map<std::string, Value> values;
  if (std::string e = FlatObjectReader(line, true).read(&values); !e.empty()) return e;
  for (auto const& [key, value] : values) {
    if (value.kind == Value::Kind::kNumber) (*numbers)[key] = value.number;
    else (*strings)[key] = value.text;  // strings, and true / false / null as their words
  }
  return {};
}

std::string read_json_rows(std::string const& path, std::function<std::string(JsonRow&)> const& use) {
  std::ifstream file(path);
  if (!file) return path + ": cannot open";
  std::string line;
  for (int line_number = 1; std::getline(file, line); ++line_number) {
    if (line.empty()) continue;
    JsonRow row;
    std::string e = read_json_row(line, &row.text, &row.number);
    if (e.empty()) e = use(row);
    if (!e.empty()) return path + ":" + std::to_string(line_number) + ": " + e;
  }
  return {};
}

std::string load_machine_description(std::string const& path, MachineDescription* out) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return path + ": cannot open the machine description";
  std::ostringstream text;
  text << file.rdbuf();
  return parse_machine_description(text.str(), path, out);
}

}  // namespace gemmkit::model
