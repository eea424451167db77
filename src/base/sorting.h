// decodeprof::base — sorting what mostly comes in order. The SQLite importers read ranges in
// row order: push/pop ranges are written as they end, so an enclosing range follows the ones it
// encloses, and a trace with a range per dispatch holds millions of them. std::sort then takes
// O(n log n) for an order a linear pass almost finds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace decodeprof::base {

// Sorts `v` by `less`, a strict order under which no two elements are equal (the importers'
// orders end with a row id), with the result std::sort gives. The elements that keep the order
// of those before them are kept in place (compacted); the rest (out of order: an enclosing
// range after the ones it encloses) are sorted apart and merged in from the back. That takes
// O(n + k log k) for k elements out of order, and room for those k only. When more than
// n / kFewOutOfOrder are out of order, one std::sort.
inline constexpr size_t kFewOutOfOrder = 8;

// `passed(i)` is told, in each of the two passes in order, that the elements before i are done
// with (for a caller whose elements or what they point to are in files, base/spill.h, to let
// go of them as the passes go: spill::ReleaseBehind); the merge and a std::sort tell nothing.
struct NothingPassed {
  void operator()(size_t /*i*/) const {}
};

template <typename It, typename Less, typename Passed = NothingPassed>
void SortMostlySorted(It first, It last, Less less, Passed passed = {}) {
  using T = typename std::iterator_traits<It>::value_type;
  using Diff = typename std::iterator_traits<It>::difference_type;
  const auto at = [first](size_t i) -> T& { return first[static_cast<Diff>(i)]; };
  const size_t n = static_cast<size_t>(last - first);
  if (n < 2) return;
  // How many a greedy pass sets aside: an element below the last one kept.
  size_t out_of_order = 0;
  size_t top = 0;
  for (size_t i = 1; i < n; ++i) {
    passed(i);
    if (less(at(i), at(top))) {
      ++out_of_order;
    } else {
      top = i;
    }
  }
  if (out_of_order == 0) return;
  if (out_of_order > n / kFewOutOfOrder) {
    std::sort(first, last, less);
    return;
  }
  std::vector<T> apart;
  apart.reserve(out_of_order);
  size_t kept = 1;  // [first, first + kept) in order
  for (size_t i = 1; i < n; ++i) {
    passed(i);
    if (less(at(i), at(kept - 1))) {
      apart.push_back(std::move(at(i)));
    } else {
      if (kept != i) at(kept) = std::move(at(i));
      ++kept;
    }
  }
  std::sort(apart.begin(), apart.end(), less);
  // From the back: the larger of the two tails goes last (the room behind `kept` is free).
  size_t i = kept;
  size_t j = apart.size();
  size_t w = n;
  while (j > 0) {
    if (i > 0 && less(apart[j - 1], at(i - 1))) {
      at(--w) = std::move(at(--i));
    } else {
      at(--w) = std::move(apart[--j]);
    }
  }
}

template <typename T, typename Less>
void SortMostlySorted(std::vector<T>& v, Less less) {
  SortMostlySorted(v.begin(), v.end(), less);
}

}  // namespace decodeprof::base
