/*! \file
    \brief The case lists the variant tests of both binaries iterate: shapes, one check's ops and
    scalars, and named groups of checks that run as one test.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace gemmkit::test {

struct Shape {
  std::int64_t m, n, k;
};

/// One check: a shape, the ops, scalars, padding and batch.
struct VariantCase {
  Shape shape;
  gk_op ta, tb;
  double alpha, beta;
  std::int64_t ld_pad = 0;
  std::int64_t batch = 1;
};

/// Checks that share a shape run as one test, so CTest (one process per test) stays quick; each
/// failure message names its ops, scalars, padding and seed.
struct CaseGroup {
  std::string name;
  std::vector<VariantCase> cases;
};

/// gtest prints a parameter on failure; the group's name says it all.
inline void PrintTo(CaseGroup const& group, std::ostream* os) { *os << group.name; }

inline std::string shape_name(Shape const& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

}  // namespace gemmkit::test
