// A recording sampled by CUDA graph launches (`record --sample-steps N` on an engine without
// step ranges, recorder.h "Graph launches as steps"): the recorder writes a
// decodeprof:graph-step range per graph launch and a decodeprof:sampled range over each
// sampled launch, and keeps recording after a sampled launch until its GPU work is done, so
// the trace also holds work launched after the period (here an eager copy). Summarized
// without marks, the graph steps are the decode's steps, each sampled step holds the work
// launched in it (by its launch call), whenever it ran on the GPU, and nothing else.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "src/native_format/native_writer.h"
#include "src/pipeline/summarize_run.h"

namespace decodeprof::pipeline {
namespace {

namespace fs = std::filesystem;
namespace nf = native_format;

constexpr int64_t kBase = 1'000'000'000;
constexpr int kSteps = 12;
constexpr int64_t kStepNs = 1'000'000;  // host: one graph launch a millisecond
constexpr int64_t kLagNs = 2'500'000;   // the GPU runs a launch 2.5 steps after it was made

// Twelve graph launches, one in four sampled (2, 6, 10). A launch's graph runs four 200 us
// kernels back to back, kLagNs after the launch (the engine never synchronizes). After each
// sampled launch the engine launches an eager copy kernel while recording is still on; its
// launch call is outside the period.
void WriteGraphSampledRun(const std::string& path) {
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  nf::NativeWriter& w = **writer;
  const auto domain = *w.Intern("decodeprof");
  const auto graph_launch = *w.Intern("cuGraphLaunch");
  const auto launch_kernel = *w.Intern("cudaLaunchKernel");
  const auto add_range = [&](const char* name, int64_t start, int64_t end) {
    nf::RangeRow r;
    r.start_ns = start;
    r.end_ns = end;
    r.name = *w.Intern(name);
    r.domain = domain;
    r.thread = 7;
    r.depth = -1;
    r.kind = nf::RangeKind::kStartEnd;
    ASSERT_TRUE(w.AddRange(r).ok());
  };
  uint32_t correlation = 0;
  for (int s = 0; s < kSteps; ++s) {
    const int64_t launch = kBase + s * kStepNs;
    add_range("decodeprof:graph-step", launch, launch + 20'000);
    if (s % 4 != 2) continue;
    add_range("decodeprof:sampled", launch - 1'000, launch + 21'000);
    nf::ApiCallRow call;
    call.start_ns = launch + 2'000;
    call.end_ns = launch + 18'000;
    call.name = graph_launch;
    call.thread = 7;
    call.correlation = ++correlation;
    ASSERT_TRUE(w.AddApiCall(call).ok());
    for (int k = 0; k < 4; ++k) {
      nf::KernelRow row;
      row.start_ns = launch + kLagNs + k * 200'000;
      row.end_ns = row.start_ns + 200'000;
      row.name = row.mangled = *w.Intern(k % 2 == 0 ? "nvjet_gemm" : "rms_norm_kernel");
      row.stream = 7;
      row.correlation = correlation;
      row.graph_id = 1;
      ASSERT_TRUE(w.AddKernel(row).ok());
    }
    // Copies whose calls the recorder does not keep: one inside the graph's run (a memcpy
    // node between its kernels: the step's), one 1 ms after it (the next steps' input copy,
    // made while the period's switch off waited).
    for (const int64_t at : {launch + kLagNs + 390'000, launch + kLagNs + 1'800'000}) {
      nf::MemoryOpRow m;
      m.kind = nf::MemoryOpKind::kMemcpy;
      m.copy_kind = 8;  // device to device
      m.bytes = 8;
      m.start_ns = at;
      m.end_ns = at + 5'000;
      m.correlation = 100000 + static_cast<uint32_t>(at % 100000);
      ASSERT_TRUE(w.AddMemoryOp(m).ok());
    }
    // The next launch's eager copy, made after the period (still recorded: the period's
    // switch off waits for its graph), running right after the graph.
    nf::ApiCallRow copy_call = call;
    copy_call.start_ns = launch + kStepNs + 30'000;
    copy_call.end_ns = copy_call.start_ns + 5'000;
    copy_call.name = launch_kernel;
    copy_call.correlation = ++correlation;
    ASSERT_TRUE(w.AddApiCall(copy_call).ok());
    nf::KernelRow copy;
    copy.start_ns = launch + kLagNs + 800'000;
    copy.end_ns = copy.start_ns + 50'000;
    copy.name = copy.mangled = *w.Intern("copy_inputs_kernel");
    copy.stream = 7;
    copy.correlation = correlation;
    ASSERT_TRUE(w.AddKernel(copy).ok());
  }
  ASSERT_TRUE(w.SetMeta("sample_steps", "4").ok());
  ASSERT_TRUE(w.Close().ok());
}

TEST(GraphSampledTest, GraphStepsAreTheStepsAndEachHoldsWhatItLaunched) {
  const fs::path dir =
      fs::temp_directory_path() / ("decodeprof_graph_sampled_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string trace = (dir / "graph.sqlite").string();
  WriteGraphSampledRun(trace);
  SummarizeRequest req;
  req.trace = trace;
  req.name = "graph";
  req.out_dir = dir.string();
  auto result = RunSummarize(req);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::ifstream in(dir / "graph_summary.json");
  const nlohmann::json s = nlohmann::json::parse(in);
  ASSERT_TRUE(s.contains("sampling")) << s.dump();
  ASSERT_TRUE(s.contains("window_evidence")) << s.dump();
  EXPECT_EQ(s["window_source"], "marks");
  EXPECT_EQ(s["window_evidence"]["range"], "decodeprof:graph-step");
  EXPECT_EQ(s["sampling"]["steps_seen"], kSteps);
  EXPECT_EQ(s["sampling"]["steps_sampled"], 3);
  // Each sampled step: its graph's four kernels (0.8 ms busy) and the copy in their run,
  // though they ran after the step's range had closed; neither the kernel launched after the
  // period nor the copy after the graph is in it. The GPU ran behind the host: a step's time
  // is its work's span on the GPU (0.8 ms), not from its range's start.
  EXPECT_EQ(s["decode_dispatches"], 15);
  EXPECT_DOUBLE_EQ(s["decode_gpu_busy_ms"].get<double>(), 2.4);
  EXPECT_DOUBLE_EQ(s["decode_wall_ms"].get<double>(), 2.4);
  EXPECT_EQ(s.dump().find("copy_inputs_kernel"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace decodeprof::pipeline
