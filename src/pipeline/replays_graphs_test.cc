// ReplaysGraphs: most of the window's dispatches launched by a graph launch call, named as
// graph nodes, or, without launch calls, sharing their correlation id with another kernel.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "src/pipeline/summarize_stages.h"

namespace decodeprof::pipeline {
namespace {

// `n` kernels named `name`; kernel i has correlation id ids(i).
template <typename Ids>
analysis::DecodeWindow Window(trace::StringPool& names, size_t n, Ids ids) {
  analysis::DecodeWindow w;
  const trace::StringId name = names.Intern("gemm");
  for (size_t i = 0; i < n; ++i) {
    trace::Dispatch& d = w.dispatches.emplace_back();
    d.name = name;
    d.start = static_cast<trace::TimestampNs>(10 * i);
    d.end = d.start + 5;
    d.correlation = ids(i);
  }
  return w;
}

TEST(ReplaysGraphsTest, KernelsSharingTheirIdsWithoutLaunchCallsAreAReplay) {
  trace::StringPool names;
  const trace::ImportedTrace no_launches;
  // One id per kernel: plain launches.
  EXPECT_FALSE(
      ReplaysGraphs(Window(names, 1000, [](size_t i) { return i + 1; }), no_launches, names));
  // Ids in fours, out of order: a graph's kernels share its launch's.
  EXPECT_TRUE(ReplaysGraphs(Window(names, 1000, [](size_t i) { return (i * 7919 % 1000) / 4 + 1; }),
                            no_launches, names));
  // Half of the kernels in shared ids (the other half plain) is still most.
  EXPECT_TRUE(
      ReplaysGraphs(Window(names, 1000, [](size_t i) { return i < 500 ? i / 2 + 1 : i + 100000; }),
                    no_launches, names));
  // Fewer than half is not.
  EXPECT_FALSE(
      ReplaysGraphs(Window(names, 1000, [](size_t i) { return i < 400 ? i / 2 + 1 : i + 100000; }),
                    no_launches, names));
  // Id 0 is no id.
  EXPECT_FALSE(
      ReplaysGraphs(Window(names, 1000, [](size_t) { return uint64_t{0}; }), no_launches, names));
}

TEST(ReplaysGraphsTest, GraphLaunchCallsMakeAReplay) {
  trace::StringPool names;
  trace::ImportedTrace info;
  const trace::StringId graph = names.Intern("cudaGraphLaunch");
  const trace::StringId plain = names.Intern("cudaLaunchKernel");
  for (uint64_t id = 1; id <= 1000; ++id) {
    info.launches.push_back({id <= 600 ? graph : plain, 0, 1, 7, id});
  }
  EXPECT_TRUE(ReplaysGraphs(Window(names, 1000, [](size_t i) { return i + 1; }), info, names));
  for (trace::ApiCall& call : info.launches) call.name = plain;
  EXPECT_FALSE(ReplaysGraphs(Window(names, 1000, [](size_t i) { return i + 1; }), info, names));
}

// A whole-trace window, counted in parts on threads: graph launch calls, kernels sharing an id
// without a launch call (in pairs from an odd index, so that a pair lies across the cut
// between two parts on 2, 4 or 8 CPUs) and
// "[CUDA graph" rows add up across the parts, exactly at half; the same with the ids out of
// order (all of them sorted at once instead).
TEST(ReplaysGraphsTest, AWholeWindowIsCountedInPartsExactlyAtHalf) {
  constexpr size_t kN = 300'000;
  trace::StringPool names;
  trace::ImportedTrace info;
  const trace::StringId graph = names.Intern("cudaGraphLaunch");
  const trace::StringId plain = names.Intern("cudaLaunchKernel");
  const trace::StringId node = names.Intern("[CUDA graph 3]");
  // Kernels 0..99,999 launched by calls (the first 60,000 graph launches); 100,001..180,000 in
  // pairs sharing an id without a call (80,000); the others with ids of their own, of which
  // 10,000 are graph rows: 150,000 in all.
  analysis::DecodeWindow w = Window(names, kN, [](size_t i) -> uint64_t {
    if (i <= 100'000) return i + 1;
    if (i <= 180'000) return 200'001 + (i - 100'001) / 2;
    return 1'000'000 + i;
  });
  for (uint64_t id = 1; id <= 100'000; ++id) {
    info.launches.push_back({id <= 60'000 ? graph : plain, 0, 1, 7, id});
  }
  for (size_t i = 200'000; i < 210'000; ++i) w.dispatches[i].name = node;
  EXPECT_TRUE(ReplaysGraphs(w, info, names));
  // Out of order: two unshared ids swapped late in the window.
  std::swap(w.dispatches[290'000].correlation, w.dispatches[290'001].correlation);
  EXPECT_TRUE(ReplaysGraphs(w, info, names));
  w.dispatches[200'000].name = names.Intern("gemm");
  EXPECT_FALSE(ReplaysGraphs(w, info, names));
  std::swap(w.dispatches[290'000].correlation, w.dispatches[290'001].correlation);
  EXPECT_FALSE(ReplaysGraphs(w, info, names));
}

}  // namespace
}  // namespace decodeprof::pipeline
