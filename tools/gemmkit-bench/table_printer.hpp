/*! \file
    \brief A fixed-width text table that prints rows as they are measured (long sweeps show progress).
*/
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace gemmkit::bench {

struct TableColumn {
  std::string title;
  int width = 8;
  bool left = false;  ///< left-aligned (text) instead of right-aligned (numbers)
};

class TablePrinter {
 public:
  explicit TablePrinter(std::vector<TableColumn> columns, std::FILE* out = stdout)
      : columns_(std::move(columns)), out_(out) {}

  void print_header() const;
  /// A cell wider than its column pushes the rest of the row right rather than being cut.
  void print_row(std::vector<std::string> const& cells) const;
  void print_rule() const;

 private:
  std::vector<TableColumn> columns_;
  std::FILE* out_;
};

/// Progress on stderr: overwritten in place on a terminal, one line per step in a log.
class Progress {
 public:
  Progress();
  void show(std::string const& text);
  void clear();

 private:
  bool tty_;
};

/// printf-style formatting into a std::string.
std::string format(char const* fmt, ...) __attribute__((format(printf, 1, 2)));

/// A measured number with a sensible number of digits for a table cell, or "-" when absent.
std::string format_gflops(double gflops);
std::string format_ms(double ms);
std::string format_ratio(double ratio);

}  // namespace gemmkit::bench
