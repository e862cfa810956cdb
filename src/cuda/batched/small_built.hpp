/*! \file
    \brief Which candidates of the small batched GPU kernel this build compiled, per precision:
    those a row of small_tuning.csv picks (and a bucket's first candidate where the table has no
    row for it, as small_tuned_candidate falls back), or every one when CMake was configured with
    GEMMKIT_BUILD_ALL_CONFIGS (the tuner's sweep). Indices stay those of SmallCandidates; a launch
    of a candidate not built returns cudaErrorNotSupported. Plain C++, evaluated at compile time by
    the part files and at run time by the launcher, the tests and the tuner.
*/
#pragma once

#include "cuda/batched/small_batched_config.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace gemmkit::small {

namespace small_built_detail {

#define GEMMKIT_SMALL_BUILD_ALL(all) inline constexpr bool kAll = all;
#define GEMMKIT_SMALL_LAUNCH_PARTS(parts) inline constexpr int kParts = parts;
#define GEMMKIT_SMALL_PICKED(...)
#include "cuda/batched/small_picked.def"
#undef GEMMKIT_SMALL_BUILD_ALL
#undef GEMMKIT_SMALL_LAUNCH_PARTS
#undef GEMMKIT_SMALL_PICKED

/// A shape as one integer (bucket m, n, k in the high bits), so that matching the table's rows to
/// candidates is integer compares, cheap in nvcc's slow constant evaluator (it runs in every part).
constexpr std::uint64_t shape_key(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t rows,
                                  std::uint64_t cols, std::uint64_t problems, std::uint64_t registers,
                                  std::uint64_t stages) {
  return ((((((m * 64 + n) * 64 + k) * 64 + rows) * 64 + cols) * 1024 + problems) * 1024 + registers) * 8 + stages;
}
/// shape_key / kBucketDivisor: the bucket alone.
inline constexpr std::uint64_t kBucketDivisor = std::uint64_t(64) * 64 * 1024 * 1024 * 8;

/// The table's rows: GPU index (0: the default GPU's rows), element bytes and shape, then 0 bytes (so
/// the arrays are never empty).
inline constexpr int kRowGpus[] = {
#define GEMMKIT_SMALL_BUILD_ALL(all)
#define GEMMKIT_SMALL_LAUNCH_PARTS(parts)
#define GEMMKIT_SMALL_PICKED(gpu, bytes, ...) gpu,
#include "cuda/batched/small_picked.def"
#undef GEMMKIT_SMALL_BUILD_ALL
#undef GEMMKIT_SMALL_LAUNCH_PARTS
#undef GEMMKIT_SMALL_PICKED
    0};
inline constexpr int kRowBytes[] = {
#define GEMMKIT_SMALL_BUILD_ALL(all)
#define GEMMKIT_SMALL_LAUNCH_PARTS(parts)
#define GEMMKIT_SMALL_PICKED(gpu, bytes, ...) bytes,
#include "cuda/batched/small_picked.def"
#undef GEMMKIT_SMALL_BUILD_ALL
#undef GEMMKIT_SMALL_LAUNCH_PARTS
#undef GEMMKIT_SMALL_PICKED
    0};
inline constexpr std::uint64_t kRowShapes[] = {
#define GEMMKIT_SMALL_BUILD_ALL(all)
#define GEMMKIT_SMALL_LAUNCH_PARTS(parts)
#define GEMMKIT_SMALL_PICKED(gpu, bytes, ...) shape_key(__VA_ARGS__),
#include "cuda/batched/small_picked.def"
#undef GEMMKIT_SMALL_BUILD_ALL
#undef GEMMKIT_SMALL_LAUNCH_PARTS
#undef GEMMKIT_SMALL_PICKED
    0};

/// The candidates' shape keys, expanded over the tuple's types (tuple_element_t of each index
/// would instantiate O(n^2) templates under nvcc). The tuple itself must not be instantiated (its
/// 264 levels of bases exceed nvcc's depth): a type_identity tag, and no ADL on it.
template <class... Shape>
constexpr std::array<std::uint64_t, sizeof...(Shape)> candidate_shapes(std::type_identity<std::tuple<Shape...>>) {
  return {shape_key(Shape::kM, Shape::kN, Shape::kK, Shape::kRowsPerThread, Shape::kColsPerThread,
                    Shape::kProblemsPerBlock, Shape::kRegisterBudget, Shape::kStages)...};
}

/// Bit 0: built for f64, bit 1: for f32. What small_tuned_candidate can pick: for each GPU, precision and
/// bucket the GPU's first row (a later row of the bucket is not read), and where the default GPU (index 0)
/// has no row, the bucket's first candidate.
constexpr std::array<unsigned char, kSmallCandidateCount> built_flags() {
  constexpr int kCount = kSmallCandidateCount;
  constexpr auto shapes = small_built_detail::candidate_shapes(std::type_identity<SmallCandidates>{});  // qualified: no ADL
  std::array<unsigned char, kSmallCandidateCount> flags{};
  std::array<int, kSmallCandidateCount> first_of_bucket{};
  for (int c = 0; c < kCount; ++c) {
    first_of_bucket[std::size_t(c)] = c;
    for (int e = 0; e < c; ++e) {
      if (shapes[std::size_t(e)] / kBucketDivisor == shapes[std::size_t(c)] / kBucketDivisor) {
        first_of_bucket[std::size_t(c)] = e;
        break;
      }
    }
  }
  int gpus = 1;
  for (std::size_t r = 0; kRowBytes[r] != 0; ++r) gpus = kRowGpus[r] + 1 > gpus ? kRowGpus[r] + 1 : gpus;
  for (int precision = 0; precision < 2; ++precision) {
    unsigned char const bit = precision == 0 ? 1 : 2;
    std::array<bool, kSmallCandidateCount> default_has_row{};  // by the bucket's first candidate
    for (int gpu = 0; gpu < gpus; ++gpu) {
      std::array<bool, kSmallCandidateCount> has_row{};
      for (std::size_t r = 0; kRowBytes[r] != 0; ++r) {
        if (kRowGpus[r] != gpu || kRowBytes[r] != (precision == 0 ? 8 : 4)) continue;
        for (int c = 0; c < kCount; ++c) {
          if (shapes[std::size_t(c)] != kRowShapes[r]) continue;
          std::size_t const bucket = std::size_t(first_of_bucket[std::size_t(c)]);
          if (!has_row[bucket]) flags[std::size_t(c)] |= bit;
          has_row[bucket] = true;
          break;
        }
      }
      if (gpu == 0) default_has_row = has_row;
    }
    for (int c = 0; c < kCount; ++c) {
      if (kAll || (first_of_bucket[std::size_t(c)] == c && !default_has_row[std::size_t(c)])) flags[std::size_t(c)] |= bit;
    }
  }
  return flags;
}
inline constexpr auto kBuilt = built_flags();

/// Each built (candidate, precision) its part: round robin over the built ones in index order, so
/// the parts compile about as many instances each.
constexpr std::array<signed char, 2 * kSmallCandidateCount> part_of_built(int parts) {
  std::array<signed char, 2 * kSmallCandidateCount> part{};
  int next = 0;
  for (int c = 0; c < kSmallCandidateCount; ++c) {
    for (int precision = 0; precision < 2; ++precision) {
      part[std::size_t(2 * c + precision)] =
          ((kBuilt[std::size_t(c)] >> precision) & 1) ? static_cast<signed char>(next++ % parts) : -1;
    }
  }
  return part;
}

template <int kParts>
inline constexpr auto kPartOf = part_of_built(kParts);

}  // namespace small_built_detail

/// Whether this build compiled candidate `candidate` (an index of SmallCandidates) for elements of
/// element_bytes (8 or 4).
constexpr bool small_candidate_built(int candidate, int element_bytes) {
  if (candidate < 0 || candidate >= kSmallCandidateCount || (element_bytes != 8 && element_bytes != 4)) return false;
  return ((small_built_detail::kBuilt[std::size_t(candidate)] >> (element_bytes == 8 ? 0 : 1)) & 1) != 0;
}

/// Whether this build compiled every candidate (GEMMKIT_BUILD_ALL_CONFIGS).
inline constexpr bool kSmallAllCandidatesBuilt = small_built_detail::kAll;

/// The translation units the instances are compiled in (small_batched_part.cu), CMake's choice.
inline constexpr int kSmallLaunchParts = small_built_detail::kParts;

/// The part (of `parts`) whose translation unit holds a built candidate's instances for elements
/// of element_bytes; -1 where it is not built.
template <int kParts>
constexpr int small_candidate_part(int candidate, int element_bytes) {
  if (!small_candidate_built(candidate, element_bytes)) return -1;
  return small_built_detail::kPartOf<kParts>[std::size_t(2 * candidate + (element_bytes == 8 ? 0 : 1))];
}

}  // namespace gemmkit::small
