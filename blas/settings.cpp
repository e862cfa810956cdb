/*! \file
    \brief Reads libgemmkit_blas's environment variables and its optional settings file.
*/
#include "settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace gemmkit::blas {

namespace {

std::string trimmed(std::string const& text) {
  auto const first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

/// The settings file's NAME=value lines (# starts a comment).
std::map<std::string, std::string>& file_values() {
  static std::map<std::string, std::string> values;
  return values;
}

std::string from_environment_then_file(char const* name) {
  if (char const* value = std::getenv(name); value != nullptr) return value;
  auto const& values = file_values();
  auto const at = values.find(name);
  return at == values.end() ? std::string() : at->second;
}

}  // namespace

Settings parse_settings(std::string (*lookup)(char const* name)) {
  Settings s;
  std::string const mode = lookup("GEMMKIT_BLAS");
  if (mode == "off" || mode == "0") s.off = true;
  else if (!mode.empty() && mode != "on" && mode != "1") s.problems.push_back("GEMMKIT_BLAS must be on or off, not '" + mode + "'");
  s.cpu_library = lookup("GEMMKIT_BLAS_CPU_LIB");
  if (s.cpu_library.empty()) s.cpu_library = "libopenblas.so.0";
  if (std::string const text = lookup("GEMMKIT_BLAS_CROSSOVER"); !text.empty()) {
    char* end = nullptr;
    double const value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(value >= 0)) {
      s.problems.push_back("GEMMKIT_BLAS_CROSSOVER must be a number of multiply-adds m*n*k >= 0, not '" + text + "'");
    } else {
      s.crossover = value;
    }
  }
  if (std::string const text = lookup("GEMMKIT_BLAS_GPUS"); !text.empty()) {
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ',')) {
      char* end = nullptr;
      long const device = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || device < 0) {
        s.problems.push_back("GEMMKIT_BLAS_GPUS must list device numbers (0,1,...), not '" + text + "'");
        s.gpus.clear();
        break;
      }
      s.gpus.push_back(int(device));
    }
  }
  if (std::string const memory = lookup("GEMMKIT_BLAS_HOST_MEMORY"); !memory.empty()) {
    if (memory == "auto") s.host_memory = GK_HOST_MEMORY_AUTO;
    else if (memory == "pinned") s.host_memory = GK_HOST_MEMORY_PINNED;
    else if (memory == "pageable") s.host_memory = GK_HOST_MEMORY_PAGEABLE;
    else s.problems.push_back("GEMMKIT_BLAS_HOST_MEMORY must be auto, pinned or pageable, not '" + memory + "'");
  }
  s.cpu_share = lookup("GEMMKIT_BLAS_CPU_SHARE") == "1";
  if (std::string const text = lookup("GEMMKIT_BLAS_DEVICE_MEMORY"); !text.empty()) {
    // Bytes, or with a suffix K, M, G (powers of 1024): processes sharing a GPU each take a share.
    char* end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    std::string const suffix = end != nullptr ? std::string(end) : std::string();
    double const unit = suffix.empty() ? 1 : suffix == "K" ? 1024.0 : suffix == "M" ? 1048576.0
                      : suffix == "G" ? 1073741824.0 : 0;
    if (end == text.c_str() || unit == 0 || !(value > 0)) {
      s.problems.push_back("GEMMKIT_BLAS_DEVICE_MEMORY must be a size in bytes (or with K, M, G), not '" + text + "'");
    } else {
      s.device_memory = static_cast<std::size_t>(value * unit);
    }
  }
  s.trace = lookup("GEMMKIT_BLAS_TRACE");
  if (std::string const level = lookup("GEMMKIT_BLAS_VERBOSE"); !level.empty()) {
    s.verbosity = std::atoi(level.c_str());
  }
  return s;
}

Settings const& settings() {
  static Settings const s = [] {
    std::vector<std::string> file_problems;
    if (char const* path = std::getenv("GEMMKIT_BLAS_CONFIG"); path != nullptr && *path != '\0') {
      std::ifstream file(path);
      if (!file) file_problems.push_back(std::string("GEMMKIT_BLAS_CONFIG: cannot read ") + path);
      std::string line;
      while (std::getline(file, line)) {
        line = trimmed(line.substr(0, line.find('#')));
        if (line.empty()) continue;
        auto const equals = line.find('=');
        if (equals == std::string::npos) {
          file_problems.push_back(std::string(path) + ": '" + line + "' is not NAME=value");
          continue;
        }
        file_values()[trimmed(line.substr(0, equals))] = trimmed(line.substr(equals + 1));
      }
    }
    Settings parsed = parse_settings(from_environment_then_file);
    parsed.problems.insert(parsed.problems.begin(), file_problems.begin(), file_problems.end());
    for (std::string const& problem : parsed.problems) std::fprintf(stderr, "gemmkit BLAS: %s\n", problem.c_str());
    return parsed;
  }();
  return s;
}

}  // namespace gemmkit::blas
