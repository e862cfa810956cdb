/*! \file
    \brief The tables compiled in as data (CSV with '#' comment lines and one header line): their
    rows, each with its line number, after the header is checked.
*/
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gemmkit {

/// Calls row(line, number) for every line after `header` that is neither empty nor a comment;
/// throws std::invalid_argument naming `table` when the first such line is not `header` or there
/// is none.
template <typename RowFn>
void for_each_csv_row(std::string_view csv, std::string_view header, std::string const& table, RowFn&& row) {
  std::istringstream in{std::string(csv)};
  std::string line;
  int number = 0;
  bool seen_header = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    if (!seen_header) {
      if (line != header) throw std::invalid_argument(table + " line " + std::to_string(number) + ": unexpected header");
      seen_header = true;
      continue;
    }
    row(line, number);
  }
  if (!seen_header) throw std::invalid_argument(table + ": no header");
}

}  // namespace gemmkit
