/*! \file
    \brief The case lists the variant tests of both binaries iterate: shapes, one check's ops and
    scalars, and named groups of checks that run as one test.
*/
#pragma once

#include "registry/registry.hpp"
#include "variants/variants.hpp"

#include <gemmkit/gemmkit.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
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

/// All four N/T combos of one shape with (1, 0) on NaN C and (-1.5, 0.25), padding alternating.
inline CaseGroup shape_group(std::string name, Shape s) {
  CaseGroup g{std::move(name), {}};
  int i = 0;
  for (gk_op ta : {GK_OP_N, GK_OP_T}) {
    for (gk_op tb : {GK_OP_N, GK_OP_T}) {
      g.cases.push_back({s, ta, tb, 1.0, 0.0, (i++ % 2) * 3});
      g.cases.push_back({s, ta, tb, -1.5, 0.25, (i++ % 2) * 5});
    }
  }
  return g;
}

/// Strided batches of 3 of one shape, packed and with poisoned gaps between entries, both ops of A.
inline CaseGroup batch3_group(Shape const& s) {
  CaseGroup g{"batch3_" + shape_name(s), {}};
  for (gk_op ta : {GK_OP_N, GK_OP_T}) {
    g.cases.push_back({s, ta, GK_OP_T, 1.0, 0.0, 0, 3});
    g.cases.push_back({s, ta, GK_OP_N, 0.5, -2.0, 4, 3});
  }
  return g;
}

/// Ids of every registered variant of one platform, the parameter list of the variant tests.
/// Variants that compute where their operands live: the host-resident ones (host operands computed
/// on the GPUs) have tests of their own (tests/variants/test_host_resident.cpp).
inline std::vector<std::string> variant_ids(Platform platform) {
  std::vector<std::string> ids;
  for (GemmVariant const* v : variant_registry().variants()) {
    if (v->info().backend == platform && !v->info().stages_host_operands) ids.push_back(v->info().id);
  }
  return ids;
}

/// The same, only the ids that `keep` accepts (the forms one test file covers).
template <typename Keep>
std::vector<std::string> variant_ids(Platform platform, Keep const& keep) {
  std::vector<std::string> ids;
  for (std::string const& id : variant_ids(platform)) {
    if (keep(id)) ids.push_back(id);
  }
  return ids;
}

}  // namespace gemmkit::test
