/*! \file
    \brief The CPU small kernels' blocking table: parsing small_blocking.csv and applying it.
*/
#include "cpu/small/small_blocking.hpp"

#include "core/csv_rows.hpp"
#include "cpu/small/small_blocking_data.hpp"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace gemmkit::cpu {

char const* to_string(SmallBlocking blocking) {
  switch (blocking) {
    case SmallBlocking::kBalanced: return "balanced";
    case SmallBlocking::kWidest: return "widest";
    case SmallBlocking::kNarrow: return "narrow";
  }
  return "?";
}

std::vector<SmallBlockingRow> parse_small_blocking(std::string_view csv) {
  std::vector<SmallBlockingRow> rows;
  for_each_csv_row(csv, "isa,dtype,n,blocking", "small blocking table", [&](std::string const& line, int number) {
    auto fail = [&](char const* what) {
      throw std::invalid_argument("small blocking table line " + std::to_string(number) + ": " + what + " '" + line + "'");
    };
    std::istringstream fields(line);
    std::string isa, dtype, size, blocking, extra;
    if (!std::getline(fields, isa, ',') || !std::getline(fields, dtype, ',') || !std::getline(fields, size, ',') ||
        !std::getline(fields, blocking, ',') || std::getline(fields, extra, ',')) {
      fail("not 4 fields");
    }
    SmallBlockingRow row;
    row.isa = isa;
    if (isa != "avx512" && isa != "avx2") fail("unknown isa");
    if (dtype != "f64" && dtype != "f32") fail("unknown dtype");
    row.element_bytes = dtype == "f64" ? 8 : 4;
    std::size_t used = 0;
    try {
      row.size = std::stoi(size, &used);
    } catch (std::exception const&) {
      used = 0;
    }
    if (used != size.size() || row.size < 1 || row.size > kSmallMax) fail("size not in 1..32");
    bool known = false;
    for (int b = 0; b < kSmallBlockings; ++b) {
      if (blocking == to_string(SmallBlocking(b))) row.blocking = SmallBlocking(b), known = true;
    }
    if (!known) fail("unknown blocking");
    rows.push_back(row);
  });
  return rows;
}

std::vector<SmallBlockingRow> const& small_blocking_table() {
  static std::vector<SmallBlockingRow> const rows = parse_small_blocking(kSmallBlockingCsv);
  return rows;
}

template <typename T>
SmallKernelTable<T> with_tuned_blocking(SmallKernelTable<T> table, std::vector<SmallBlockingRow> const& rows) {
  for (SmallBlockingRow const& row : rows) {
    if (row.element_bytes == int(sizeof(T)) && std::strcmp(row.isa.c_str(), table.isa) == 0) {
      table.square[row.size] = table.square_blocking[int(row.blocking)][row.size];
    }
  }
  return table;
}

template SmallKernelTable<double> with_tuned_blocking(SmallKernelTable<double>, std::vector<SmallBlockingRow> const&);
template SmallKernelTable<float> with_tuned_blocking(SmallKernelTable<float>, std::vector<SmallBlockingRow> const&);

}  // namespace gemmkit::cpu
