/*! \file
    \brief A fixed-width text table that prints rows as they are measured (long sweeps show progress).
*/
#include "table_printer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>

#include <unistd.h>

namespace gemmkit::bench {

std::string format(char const* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int const size = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(size > 0 ? std::size_t(size) : 0, '\0');
  if (size > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  va_end(args);
  return out;
}

Progress::Progress() : tty_(isatty(fileno(stderr)) != 0) {}

void Progress::show(std::string const& text) {
  if (tty_) std::fprintf(stderr, "\r%s\033[K", text.c_str());
  else std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

void Progress::clear() {
  if (tty_) std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

std::string format_gflops(double gflops) {
  if (!std::isfinite(gflops)) return "-";
  if (gflops >= 100) return format("%.0f", gflops);
  if (gflops >= 10) return format("%.1f", gflops);
  return format("%.2f", gflops);
}

std::string format_ms(double ms) {
  if (!std::isfinite(ms)) return "-";
  if (ms >= 100) return format("%.1f", ms);
  if (ms >= 1) return format("%.3f", ms);
  return format("%.4f", ms);
}

std::string format_ratio(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  return format("%.3f", ratio);
}

void TablePrinter::print_row(std::vector<std::string> const& cells) const {
  std::string line;
  int overflow = 0;  // characters a wide cell took from the columns after it
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    std::string const& cell = i < cells.size() ? cells[i] : std::string();
    int const width = std::max(0, columns_[i].width - overflow);
    int const pad = std::max(0, width - int(cell.size()));
    overflow = std::max(0, int(cell.size()) - width);
    if (i > 0) line += "  ";
    if (columns_[i].left) {
      line += cell;
      if (i + 1 < columns_.size()) line.append(std::size_t(pad), ' ');
    } else {
      line.append(std::size_t(pad), ' ');
      line += cell;
    }
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void TablePrinter::print_header() const {
  std::vector<std::string> titles;
  for (auto const& c : columns_) titles.push_back(c.title);
  print_row(titles);
  print_rule();
}

void TablePrinter::print_rule() const {
  int total = 0;
  for (auto const& c : columns_) total += c.width + 2;
  std::fprintf(out_, "%s\n", std::string(std::size_t(std::max(0, total - 2)), '-').c_str());
}

}  // namespace gemmkit::bench
