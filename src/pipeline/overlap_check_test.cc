// Dispatches that overlap more than a GPU can run at once: the window's summed durations over
// its GPU-busy time. Over 8x is a warning, over 128x an error (exit 65, no output), as a
// sampled CUDA-graph recording whose graph kernels came back ~12 ms long showed (163x).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "src/native_format/native_writer.h"
#include "src/pipeline/summarize_run.h"

namespace decodeprof::pipeline {
namespace {

namespace fs = std::filesystem;
namespace nf = native_format;

// Four 1 ms steps; in each, `overlapping` kernels on as many streams span the same 0.5 ms.
void WriteRun(const std::string& path, int overlapping) {
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  nf::NativeWriter& w = **writer;
  const auto domain = *w.Intern("");
  const auto range = [&](const char* name, int64_t a, int64_t b, int32_t depth) {
    nf::RangeRow r{a, b, *w.Intern(name), domain, 1, depth, nf::RangeKind::kPushPop};
    ASSERT_TRUE(w.AddRange(r).ok());
  };
  const int64_t base = 1'000'000'000;
  range("decodeprof:decode", base, base + 4'000'000, 0);
  uint32_t correlation = 0;
  for (int s = 0; s < 4; ++s) {
    const int64_t t = base + s * 1'000'000;
    range("decodeprof:step", t, t + 1'000'000, 1);
    for (int k = 0; k < overlapping; ++k) {
      nf::KernelRow row;
      row.start_ns = t + 100'000;
      row.end_ns = t + 600'000;
      row.name = row.mangled = *w.Intern("nvjet_gemm");
      row.stream = static_cast<uint32_t>(k + 1);
      row.correlation = ++correlation;
      ASSERT_TRUE(w.AddKernel(row).ok());
    }
  }
  ASSERT_TRUE(w.Close().ok());
}

class OverlapCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("decodeprof_overlap_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  base::StatusOr<SummarizeResult> Run(int overlapping) {
    const std::string trace = (dir_ / ("o" + std::to_string(overlapping) + ".sqlite")).string();
    WriteRun(trace, overlapping);
    SummarizeRequest req;
    req.trace = trace;
    req.name = "o" + std::to_string(overlapping);
    req.out_dir = (dir_ / "out").string();
    return RunSummarize(req);
  }
  static bool Has(const SummarizeResult& r, trace::Diag code) {
    for (const auto& d : r.summary.diagnostics) {
      if (d.code == code) return true;
    }
    return false;
  }
  fs::path dir_;
};

TEST_F(OverlapCheckTest, AFewStreamsAtOnceAreFine) {
  auto r = Run(4);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(Has(*r, trace::Diag::kDispatchesOverlap));
}

TEST_F(OverlapCheckTest, ManyAtOnceIsAWarning) {
  auto r = Run(20);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(Has(*r, trace::Diag::kDispatchesOverlap));
}

TEST_F(OverlapCheckTest, MoreThanAGpuRunsIsAnErrorWithoutOutput) {
  auto r = Run(200);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), base::ErrorKind::kData);
  EXPECT_NE(r.status().ToString().find("dispatches_overlap_impossible"), std::string::npos)
      << r.status().ToString();
  EXPECT_FALSE(fs::exists(dir_ / "out" / "o200_summary.json"));
}

}  // namespace
}  // namespace decodeprof::pipeline
