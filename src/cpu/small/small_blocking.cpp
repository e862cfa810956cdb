/*! \file
    \brief The CPU small kernels' tuning table: parsing small_blocking.csv and applying it.
*/
#include "cpu/small/small_blocking.hpp"

#include "base/csv_rows.hpp"
#include "cpu/small/small_blocking_data.hpp"

#include <algorithm>
#include <iterator>
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

char const* to_string(SmallPrefetch prefetch) {
  switch (prefetch) {
    case SmallPrefetch::kNone: return "none";
    case SmallPrefetch::kNextProblem: return "next";
    case SmallPrefetch::kAhead: return "ahead";
    case SmallPrefetch::kSpread: return "spread";
    case SmallPrefetch::kStep: return "step";
  }
  return "?";
}

char const* to_string(SmallPacked packed) {
  switch (packed) {
    case SmallPacked::kFlat: return "flat";
    case SmallPacked::kColumns: return "columns";
  }
  return "?";
}

char const* to_string(SmallVectors vectors) {
  switch (vectors) {
    case SmallVectors::kWide: return "wide";
    case SmallVectors::kSplit: return "split";
  }
  return "?";
}

namespace {

/// The enumerator of E whose name is `name`, or false.
template <typename E>
bool parse_enum(std::string const& name, int count, E* out) {
  for (int i = 0; i < count; ++i) {
    if (name == to_string(E(i))) {
      *out = E(i);
      return true;
    }
  }
  return false;
}

}  // namespace

bool is_tuning_key(std::string_view cpu) {
  return std::find(std::begin(kTuningKeys), std::end(kTuningKeys), cpu) != std::end(kTuningKeys);
}

std::vector<SmallBlockingRow> parse_small_blocking(std::string_view csv) {
  std::vector<SmallBlockingRow> rows;
  for_each_csv_row(csv, kSmallBlockingHeader, "small blocking table",
                   [&](std::string const& line, int number) {
    auto fail = [&](char const* what) {
      throw std::invalid_argument("small blocking table line " + std::to_string(number) + ": " + what + " '" + line + "'");
    };
    std::istringstream fields(line);
    std::string dtype, size, blocking, prefetch, vectors, by_m_prefetch, packed, extra;
    SmallBlockingRow row;
    if (!std::getline(fields, row.cpu, ',') || !std::getline(fields, row.isa, ',') || !std::getline(fields, dtype, ',') ||
        !std::getline(fields, size, ',') || !std::getline(fields, blocking, ',') ||
        !std::getline(fields, prefetch, ',') || !std::getline(fields, vectors, ',') ||
        !std::getline(fields, by_m_prefetch, ',') || !std::getline(fields, packed, ',') ||
        std::getline(fields, extra, ',')) {
      fail("not 9 fields");
    }
    if (!is_tuning_key(row.cpu)) fail("unknown cpu");
    if (row.isa != "avx512" && row.isa != "avx2") fail("unknown isa");
    if (dtype != "f64" && dtype != "f32") fail("unknown dtype");
    row.element_bytes = dtype == "f64" ? 8 : 4;
    std::size_t used = 0;
    try {
      row.size = std::stoi(size, &used);
    } catch (std::exception const&) {
      used = 0;
    }
    if (used != size.size() || row.size < 1 || row.size > kSmallMax) fail("size not in 1..32");
    if (!parse_enum(blocking, kSmallBlockings, &row.blocking)) fail("unknown blocking");
    if (!parse_enum(prefetch, kSmallPrefetches, &row.prefetch)) fail("unknown prefetch");
    if (!parse_enum(vectors, kSmallVectorChoices, &row.vectors)) fail("unknown vectors");
    if (!parse_enum(by_m_prefetch, kSmallPrefetches, &row.by_m_prefetch)) fail("unknown by_m prefetch");
    if (!parse_enum(packed, kSmallPackedChoices, &row.packed)) fail("unknown packed");
    for (SmallBlockingRow const& seen : rows) {
      if (seen.cpu == row.cpu && seen.isa == row.isa && seen.element_bytes == row.element_bytes &&
          seen.size == row.size) {
        fail("a second row for this cpu, isa, dtype and size");
      }
    }
    rows.push_back(row);
  });
  return rows;
}

std::string_view small_blocking_csv() { return kSmallBlockingCsv; }

std::vector<SmallBlockingRow> const& small_blocking_table() {
  static std::vector<SmallBlockingRow> const rows = parse_small_blocking(kSmallBlockingCsv);
  return rows;
}

std::string format_small_blocking_row(SmallBlockingRow const& row) {
  return row.cpu + ',' + row.isa + ',' + (row.element_bytes == 8 ? "f64" : "f32") + ',' + std::to_string(row.size) +
         ',' + to_string(row.blocking) + ',' + to_string(row.prefetch) + ',' + to_string(row.vectors) + ',' +
         to_string(row.by_m_prefetch) + ',' + to_string(row.packed);
}

template <typename T>
SmallKernelTable<T> with_tuned_blocking(SmallKernelTable<T> table, std::vector<SmallBlockingRow> const& rows,
                                        std::string_view cpu) {
  for (SmallBlockingRow const& row : rows) {
    if (row.cpu == cpu && row.element_bytes == int(sizeof(T)) && row.isa == table.isa) {
      int const vectors = int(row.vectors);
      table.square[row.size] = table.square_variant[int(row.blocking)][int(row.prefetch)][vectors][row.size];
      table.by_m[row.size] = table.by_m_variant[int(row.by_m_prefetch)][vectors][row.size];
      table.packed[row.size] =
          row.packed == SmallPacked::kFlat ? table.packed_variant[int(row.prefetch)][row.size] : nullptr;
    }
  }
  return table;
}

template SmallKernelTable<double> with_tuned_blocking(SmallKernelTable<double>, std::vector<SmallBlockingRow> const&,
                                                      std::string_view);
template SmallKernelTable<float> with_tuned_blocking(SmallKernelTable<float>, std::vector<SmallBlockingRow> const&,
                                                     std::string_view);

}  // namespace gemmkit::cpu
