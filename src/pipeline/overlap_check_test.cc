// Dispatches that overlap more than a GPU can run at once: the window's summed durations over
// its GPU-busy time. Over 8x is a warning, over 128x an error (exit 65, no output), as a
// sampled CUDA-graph recording whose graph kernels came back ~12 ms long showed (163x). And
// kernels of one CUDA stream that end after the next kernel of their stream ended (a warning:
// late end timestamps, as a graph replayed before CUPTI read the recorded replay gave).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "src/native_format/native_writer.h"
#include "src/pipeline/summarize_run.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::pipeline {
namespace {

namespace fs = std::filesystem;
namespace nf = native_format;

// A kernel of a step: start and end from the step's start, name, stream.
struct StepKernel {
  int64_t start = 0;
  int64_t end = 0;
  const char* name = "nvjet_gemm";
  uint32_t stream = 1;
};

// Four 1 ms steps in a decode range, recorded by `recorder`, each with the kernels that
// `kernels(step)` gives.
void WriteSteps(const std::string& path, const char* recorder,
                const std::function<std::vector<StepKernel>(int)>& kernels) {
  auto writer = nf::NativeWriter::Create(path, "monotonic", recorder);
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
    for (const StepKernel& k : kernels(s)) {
      nf::KernelRow row;
      row.start_ns = t + k.start;
      row.end_ns = t + k.end;
      row.name = row.mangled = *w.Intern(k.name);
      row.stream = k.stream;
      row.correlation = ++correlation;
      ASSERT_TRUE(w.AddKernel(row).ok());
    }
  }
  ASSERT_TRUE(w.Close().ok());
}

// In each step, `overlapping` kernels on as many streams span the same 0.5 ms.
void WriteOverlapRun(const std::string& path, int overlapping) {
  WriteSteps(path, "test", [&](int) {
    std::vector<StepKernel> ks;
    for (int k = 0; k < overlapping; ++k) {
      ks.push_back({100'000, 600'000, "nvjet_gemm", static_cast<uint32_t>(k + 1)});
    }
    return ks;
  });
}

class OverlapCheckTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }
  base::StatusOr<SummarizeResult> Run(int overlapping) {
    const std::string trace = (dir_ / ("o" + std::to_string(overlapping) + ".sqlite")).string();
    WriteOverlapRun(trace, overlapping);
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
  decodeprof::testing::TempDir temp_{"decodeprof_overlap_"};
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

// Ten 20 us kernels a step on one stream, recorded by `recorder`; in step 2 the first `late`
// kernels end 1.9 ms late (as a graph replayed before CUPTI read them showed).
void WriteStreamRun(const std::string& path, const char* recorder, int late) {
  WriteSteps(path, recorder, [&](int s) {
    std::vector<StepKernel> ks;
    for (int k = 0; k < 10; ++k) {
      const int64_t start = 100'000 + k * 30'000;
      ks.push_back({start, start + 20'000 + (s == 2 && k < late ? 1'900'000 : 0),
                    k % 2 == 0 ? "nvjet_gemm" : "rms_norm_kernel", 7});
    }
    return ks;
  });
}

TEST_F(OverlapCheckTest, AKernelThatOutlastsTheNextOfItsStreamIsAWarning) {
  const auto run = [&](const char* recorder, int late) {
    const std::string trace = (dir_ / (std::to_string(late) + recorder + ".sqlite")).string();
    WriteStreamRun(trace, recorder, late);
    SummarizeRequest req;
    req.trace = trace;
    req.name = "s" + std::to_string(late);
    req.out_dir = (dir_ / "out" / recorder).string();  // two traces, one name: apart
    return RunSummarize(req);
  };
  const auto entry = [](const SummarizeResult& r) -> const trace::DiagnosticEntry* {
    for (const auto& d : r.summary.diagnostics) {
      if (d.code == trace::Diag::kDispatchesOutOfStreamOrder) return &d;
    }
    return nullptr;
  };
  auto in_order = run("decodeprof-cupti 0.1.0", 0);
  ASSERT_TRUE(in_order.ok()) << in_order.status().ToString();
  EXPECT_EQ(entry(*in_order), nullptr);
  // Three kernels of step 2 end late, each after the one before: the seven kernels after
  // them in step 2 and the ten of step 3 end before the third late one does.
  auto late = run("decodeprof-cupti 0.1.0", 3);
  ASSERT_TRUE(late.ok()) << late.status().ToString();
  const trace::DiagnosticEntry* e = entry(*late);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->count, 17);
  EXPECT_NE(e->first.detail.find("the first: nvjet_gemm on stream 7 (1920.0 us)"),
            std::string::npos)
      << e->first.detail;
  // A rocprofv3 recording converted: a ROCm queue may run its packets at once; no warning.
  auto rocm = run("rocprofv3 (converted)", 3);
  ASSERT_TRUE(rocm.ok()) << rocm.status().ToString();
  EXPECT_EQ(entry(*rocm), nullptr);
}

// Two streams taking turns (7: the even kernels, 8: the odd ones), the first kernel of step 2
// ending 1.9 ms late: only the kernels of its own stream that end before it count (the four
// after it in step 2 and the five of step 3), not stream 8's.
TEST_F(OverlapCheckTest, OnlyTheLateKernelsOwnStreamCounts) {
  const std::string trace = (dir_ / "two_streams.sqlite").string();
  WriteSteps(trace, "decodeprof-cupti 0.1.0", [&](int s) {
    std::vector<StepKernel> ks;
    for (int k = 0; k < 10; ++k) {
      const int64_t start = 100'000 + k * 30'000;
      ks.push_back({start, start + 20'000 + (s == 2 && k == 0 ? 1'900'000 : 0),
                    k % 2 == 0 ? "nvjet_gemm" : "rms_norm_kernel", k % 2 == 0 ? 7u : 8u});
    }
    return ks;
  });
  SummarizeRequest req;
  req.trace = trace;
  req.name = "two";
  req.out_dir = (dir_ / "out").string();
  auto r = RunSummarize(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const trace::DiagnosticEntry* e = nullptr;
  for (const auto& d : r->summary.diagnostics) {
    if (d.code == trace::Diag::kDispatchesOutOfStreamOrder) e = &d;
  }
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->count, 9);
  EXPECT_NE(e->first.detail.find("the first: nvjet_gemm on stream 7"), std::string::npos)
      << e->first.detail;
}

}  // namespace
}  // namespace decodeprof::pipeline
