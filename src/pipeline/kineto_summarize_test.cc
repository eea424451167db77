// `summarize` over Kineto (torch.profiler) JSON traces: one synthetic decode run written both
// as a native trace (NativeWriter) and as libkineto would write it must give byte-identical
// outputs. The same generator writes the committed golden input
// tests/golden/summarize/kineto_decode/trace.json (DECODEPROF_UPDATE_GOLDEN=1 rewrites it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "src/native_format/native_writer.h"
#include "src/pipeline/summarize_run.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::pipeline {
namespace {

namespace fs = std::filesystem;
namespace nf = native_format;

// libkineto's base time of a trace (output_json.cpp: the profiler's start, whole seconds).
constexpr int64_t kBase = 1775078550000000000;
constexpr uint64_t kPid = 514683;
constexpr uint64_t kThread = 514683;
constexpr uint32_t kStream = 7;

struct Range {
  std::string name;
  int64_t start = 0;  // ns after kBase
  int64_t end = 0;
  int depth = 0;
};

struct Kernel {
  std::string name;
  int64_t launch = -1;  // ns after kBase of the cudaLaunchKernel call; -1: none recorded
  int64_t start = 0;
  int64_t duration = 0;
  int32_t grid_x = 1;
  uint32_t correlation = 0;
};

struct Copy {  // a device-to-host token copy
  int64_t launch = 0;
  int64_t start = 0;
  int64_t duration = 0;
  uint32_t correlation = 0;
};

struct SyntheticRun {
  std::vector<Range> ranges;
  std::vector<Kernel> kernels;
  std::vector<Copy> copies;
};

// A warmup, then a decode loop of 3 steps through one Llama layer with module ranges
// (op paths), a sampler kernel outside the model, a kernel without a launch record and the
// sampled token's copy to the host. Times have nanosecond parts on purpose.
SyntheticRun MakeRun() {
  SyntheticRun run;
  uint32_t correlation = 0;
  const auto kernel = [&](std::string name, int64_t launch, int64_t start, int64_t duration,
                          int32_t grid_x) {
    run.kernels.push_back({std::move(name), launch, start, duration, grid_x, ++correlation});
  };
  run.ranges.push_back({"ProfilerStep#0", 0, 500'000, 0});
  run.ranges.push_back({"decodeprof:warmup", 1'000, 20'000, 1});
  kernel("void gemv2T_kernel_val<int, int, __nv_bfloat16>(params)", 1'500, 3'017, 4'004, 64);
  run.ranges.push_back({"decodeprof:decode", 100'000, 460'000, 1});
  for (int step = 0; step < 3; ++step) {
    const int64_t t = 100'000 + step * 120'000;
    run.ranges.push_back({"decodeprof:step", t, t + 110'000, 2});
    run.ranges.push_back({"LlamaForCausalLM", t + 1'000, t + 60'000, 3});
    run.ranges.push_back({"LlamaDecoderLayer:model.layers.0", t + 2'000, t + 50'000, 4});
    run.ranges.push_back({"LlamaRMSNorm:model.layers.0.input_layernorm", t + 2'100, t + 4'000, 5});
    run.ranges.push_back({"LlamaAttention:model.layers.0.self_attn", t + 4'000, t + 30'000, 5});
    run.ranges.push_back({"Linear:model.layers.0.self_attn.q_proj", t + 5'000, t + 9'000, 6});
    run.ranges.push_back({"LlamaMLP:model.layers.0.mlp", t + 30'000, t + 45'000, 5});
    const int64_t g = t + 20'000;  // the GPU runs behind the host
    kernel("void at::native::rms_norm_kernel<float>()", t + 2'500, g + 1, 2'203, 1);
    kernel("void gemv2T_kernel_val<int, int, __nv_bfloat16>(params)", t + 6'000, g + 2'500, 8'117,
           128);
    kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop", t + 12'000, g + 11'000, 4'409, 32);
    kernel("void gemv2T_kernel_val<int, int, float>(params)", t + 33'000, g + 16'000, 15'999, 256);
    kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>()",
           t + 47'000, g + 32'500, 1'001, 16);
    kernel("void at::native::reduce_kernel<512, 1, ArgMaxOps<float>>()", t + 70'000, g + 55'000,
           3'333, 1);
    run.copies.push_back({t + 72'000, g + 59'000, 1'536, ++correlation});
    kernel("void at::native::index_elementwise_kernel<128, 4>()", -1, g + 61'000, 2'000, 1);
  }
  return run;
}

void WriteNative(const SyntheticRun& run, const std::string& path) {
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  nf::NativeWriter& w = **writer;
  const auto domain = *w.Intern("");
  const auto launch = *w.Intern("cudaLaunchKernel");
  const auto copy = *w.Intern("cudaMemcpyAsync");
  const auto api = [&](nf::StringRef name, int64_t at, uint32_t correlation) {
    nf::ApiCallRow a;
    a.start_ns = kBase + at;
    a.end_ns = kBase + at + 800;
    a.name = name;
    a.thread = kThread;
    a.correlation = correlation;
    ASSERT_TRUE(w.AddApiCall(a).ok());
  };
  for (const Range& r : run.ranges) {
    nf::RangeRow row;
    row.start_ns = kBase + r.start;
    row.end_ns = kBase + r.end;
    row.name = *w.Intern(r.name);
    row.domain = domain;
    row.thread = kThread;
    row.depth = r.depth;
    ASSERT_TRUE(w.AddRange(row).ok());
  }
  for (const Kernel& k : run.kernels) {
    nf::KernelRow row;
    row.start_ns = kBase + k.start;
    row.end_ns = kBase + k.start + k.duration;
    row.name = row.mangled = *w.Intern(k.name);
    row.stream = kStream;
    row.correlation = k.correlation;
    row.grid[0] = k.grid_x;
    row.grid[1] = row.grid[2] = 1;
    row.block[0] = 128;
    ASSERT_TRUE(w.AddKernel(row).ok());
    if (k.launch >= 0) api(launch, k.launch, k.correlation);
  }
  for (const Copy& c : run.copies) {
    nf::MemoryOpRow row;
    row.start_ns = kBase + c.start;
    row.end_ns = kBase + c.start + c.duration;
    row.bytes = 8;
    row.kind = nf::MemoryOpKind::kMemcpy;
    row.copy_kind = 2;  // device to host
    row.stream = kStream;
    row.correlation = c.correlation;
    ASSERT_TRUE(w.AddMemoryOp(row).ok());
    api(copy, c.launch, c.correlation);
  }
  ASSERT_TRUE(w.Close().ok());
}

// "ts" / "dur" as libkineto prints them: microseconds with three decimals.
std::string Us(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  return text;
}

// The trace in libkineto's layout (output_json.cpp): header, the CPU-side events (annotations,
// ops, runtime calls with their ac2g flow starts), then the GPU activities with their flow ends
// and the GPU projections of the annotations.
std::string KinetoJson(const SyntheticRun& run) {
  std::multimap<int64_t, std::string> cpu;
  std::multimap<int64_t, std::string> gpu;
  const std::string pid = std::to_string(kPid);
  const std::string tid = std::to_string(kThread);
  const std::string stream = std::to_string(kStream);
  const auto complete = [](const std::string& cat, const std::string& name, const std::string& p,
                           const std::string& t, int64_t start, int64_t duration,
                           const std::string& args) {
    return "  {\n    \"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name +
           "\", \"pid\": " + p + ", \"tid\": " + t + ",\n    \"ts\": " + Us(start) +
           ", \"dur\": " + Us(duration) + ",\n    \"args\": {\n      " + args + "\n    }\n  }";
  };
  const auto flow = [&](char ph, uint32_t id, const std::string& p, const std::string& t,
                        int64_t at) {
    return "  {\n    \"ph\": \"" + std::string(1, ph) + "\", \"id\": " + std::to_string(id) +
           ", \"pid\": " + p + ", \"tid\": " + t + ", \"ts\": " + Us(at) +
           ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"" + (ph == 'f' ? ", \"bp\": \"e\"" : "") +
           "\n  }";
  };
  int external = 0;
  for (const Range& r : run.ranges) {
    ++external;
    const std::string args =
        "\"External id\": " + std::to_string(external) +
        ", \"Record function id\": 0, \"Ev Idx\": " + std::to_string(external - 1);
    cpu.emplace(r.start,
                complete("user_annotation", r.name, pid, tid, r.start, r.end - r.start, args));
    if (r.name == "decodeprof:step") {
      gpu.emplace(r.start + 20'000,
                  complete("gpu_user_annotation", r.name, "0", stream, r.start + 19'999,
                           r.end - r.start + 2, "\"External id\": " + std::to_string(external)));
    }
  }
  const auto launch = [&](const std::string& name, int64_t at, uint32_t correlation, int cbid) {
    cpu.emplace(at, complete("cuda_runtime", name, pid, tid, at, 800,
                             "\"cbid\": " + std::to_string(cbid) +
                                 ", \"correlation\": " + std::to_string(correlation)));
    cpu.emplace(at, flow('s', correlation, pid, tid, at));
  };
  for (const Kernel& k : run.kernels) {
    if (k.launch >= 0) {
      cpu.emplace(k.launch - 200, complete("cpu_op", "aten::mm", pid, tid, k.launch - 200, 1'500,
                                           "\"External id\": " + std::to_string(++external) +
                                               ", \"Input Dims\": [[1, 2048], [2048, 6144]]"));
      launch("cudaLaunchKernel", k.launch, k.correlation, 211);
    }
    const std::string args =
        "\"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": " + stream +
        ", \"correlation\": " + std::to_string(k.correlation) +
        ", \"registers per thread\": 32, \"shared memory\": 0, \"blocks per SM\": 0.484848, "
        "\"warps per SM\": 1.939394, \"grid\": [" +
        std::to_string(k.grid_x) +
        ", 1, 1], \"block\": [128, 1, 1], \"est. achieved occupancy %\": 3, \"graph id\": 0, "
        "\"graph node id\": 0";
    gpu.emplace(k.start, complete("kernel", k.name, "0", stream, k.start, k.duration, args));
    if (k.launch >= 0) gpu.emplace(k.start, flow('f', k.correlation, "0", stream, k.start));
  }
  for (const Copy& c : run.copies) {
    launch("cudaMemcpyAsync", c.launch, c.correlation, 41);
    gpu.emplace(c.start, complete("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", "0", stream,
                                  c.start, c.duration,
                                  "\"device\": 0, \"context\": 1, \"stream\": " + stream +
                                      ", \"correlation\": " + std::to_string(c.correlation) +
                                      ", \"bytes\": 8, \"memory bandwidth (GB/s)\": 0.005208"));
    gpu.emplace(c.start, flow('f', c.correlation, "0", stream, c.start));
  }
  std::string out =
      "\n  {\n    \"schemaVersion\": 1,\n    \"deviceProperties\": [\n    {\n      \"id\": 0, "
      "\"name\": \"NVIDIA H200\", \"totalGlobalMem\": 150121545728,\n      \"computeMajor\": 9, "
      "\"computeMinor\": 0,\n      \"maxThreadsPerBlock\": 1024, "
      "\"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
      "      \"sharedMemPerBlock\": 49152, \"numSms\": 132\n    }\n    ],\n"
      "      \"cuda_driver_version\": 12080,\n      \"cuda_runtime_version\": 12080,\n"
      "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": " +
      std::to_string(kBase) + ",\n  \"traceEvents\": [\n";
  out += "  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": " + pid +
         ", \"tid\": 0,\n    \"args\": {\n      \"name\": \"python3\"\n    }\n  },\n";
  for (const auto* events : {&cpu, &gpu}) {
    for (const auto& [at, text] : *events) out += text + ",\n";
  }
  out +=
      "  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
      "    \"pid\": \"\", \"tid\": \"\", \"ts\": 500000.000\n  }\n  ],\n"
      "  \"traceName\": \"decode.pt.trace.json\"\n}";
  return out;
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class KinetoSummarizeTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  SummarizeRequest Request(const std::string& trace, const std::string& out) const {
    SummarizeRequest req;
    req.trace = trace;
    req.name = "decode";
    req.out_dir = (dir_ / out).string();
    req.emit_dispatches = true;
    return req;
  }

  decodeprof::testing::TempDir temp_{"dp_kineto_sum_"};
  fs::path dir_;
};

TEST_F(KinetoSummarizeTest, CommittedGoldenInputIsTheGeneratorsOutput) {
  const fs::path golden = fs::path(DECODEPROF_SOURCE_DIR) / "tests" / "golden" / "summarize" /
                          "kineto_decode" / "trace.json";
  const std::string text = KinetoJson(MakeRun());
  if (std::getenv("DECODEPROF_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << text;
  }
  EXPECT_EQ(Slurp(golden), text) << "regenerate with DECODEPROF_UPDATE_GOLDEN=1";
}

TEST_F(KinetoSummarizeTest, SameRunAsNativeAndKinetoGivesTheSameOutputs) {
  const SyntheticRun run = MakeRun();
  const std::string native = (dir_ / "run.sqlite").string();
  WriteNative(run, native);
  const std::string kineto = (dir_ / "run.pt.trace.json").string();
  std::ofstream(kineto, std::ios::binary) << KinetoJson(run);

  auto from_native = RunSummarize(Request(native, "native"));
  ASSERT_TRUE(from_native.ok()) << from_native.status().ToString();
  auto from_kineto = RunSummarize(Request(kineto, "kineto"));
  ASSERT_TRUE(from_kineto.ok()) << from_kineto.status().ToString();
  ASSERT_EQ(from_kineto->notes.size(), 1u);
  EXPECT_EQ(from_kineto->notes[0],
            "pack pytorch-cuda (chosen from the kernel names: 5 of 7 CUDA library and PyTorch / "
            "Triton kernels, 34.9 % of the GPU time: "
            "cudnn_generated_fort_native_sdpa_sm90_flash_fpro..., at::native::reduce_kernel, "
            "at::native::rms_norm_kernel, at::native::index_elementwise_kernel, ...; --pack "
            "overrides)");

  for (const char* file : {"decode_decode_kernels.csv", "decode_decode_dispatches.csv"}) {
    const std::string a = Slurp(dir_ / "native" / file);
    ASSERT_FALSE(a.empty()) << file;
    EXPECT_EQ(a, Slurp(dir_ / "kineto" / file)) << file;
  }
  // The summaries differ only where the formats do: the clock (the native file's monotonic,
  // Kineto's realtime), the format's name, the trace's file name and what each importer
  // counted.
  auto native_json = nlohmann::ordered_json::parse(Slurp(dir_ / "native" / "decode_summary.json"));
  auto kineto_json = nlohmann::ordered_json::parse(Slurp(dir_ / "kineto" / "decode_summary.json"));
  EXPECT_EQ(native_json["clock"], "monotonic");
  EXPECT_EQ(kineto_json["clock"], "realtime");
  for (const char* key : {"clock", "trace_format", "trace_file", "diagnostics"}) {
    native_json.erase(key);
    kineto_json.erase(key);
  }
  EXPECT_EQ(native_json.dump(2), kineto_json.dump(2));
  const analysis::Summary& s = from_kineto->summary;
  EXPECT_TRUE(s.warnings.empty());
  const std::string summary = Slurp(dir_ / "kineto" / "decode_summary.json");
  EXPECT_NE(summary.find("\"decode_dispatches\": 24,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"generated_tokens\": 4,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"q_proj\": "), std::string::npos) << summary;  // op-path roles
}

// A one-pass import keeps the dispatches and launch calls in spools; with a spool of 3
// records in memory nearly all of them go through the temporary file, and every output is
// the same byte for byte.
TEST_F(KinetoSummarizeTest, SpooledToATemporaryFileGivesTheSameOutputs) {
  const std::string kineto = (dir_ / "run.pt.trace.json").string();
  std::ofstream(kineto, std::ios::binary) << KinetoJson(MakeRun());
  auto in_memory = RunSummarize(Request(kineto, "memory"));
  ASSERT_TRUE(in_memory.ok()) << in_memory.status().ToString();
  setenv("DECODEPROF_SPOOL_RECORDS", "3", 1);
  auto spilled = RunSummarize(Request(kineto, "spilled"));
  unsetenv("DECODEPROF_SPOOL_RECORDS");
  ASSERT_TRUE(spilled.ok()) << spilled.status().ToString();
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "memory")) {
    const std::string a = Slurp(entry.path());
    EXPECT_EQ(a, Slurp(dir_ / "spilled" / entry.path().filename())) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 3);
  EXPECT_EQ(spilled->summary.decode_dispatches, 24);
}

// DECODEPROF_STAGE_TIMES: one line per stage on stderr, in the order they run; the outputs
// are the same.
TEST_F(KinetoSummarizeTest, StageTimesNameEveryStageInOrder) {
  const std::string kineto = (dir_ / "run.pt.trace.json").string();
  std::ofstream(kineto, std::ios::binary) << KinetoJson(MakeRun());
  setenv("DECODEPROF_STAGE_TIMES", "1", 1);
  ::testing::internal::CaptureStderr();
  auto timed = RunSummarize(Request(kineto, "timed"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  unsetenv("DECODEPROF_STAGE_TIMES");
  ASSERT_TRUE(timed.ok()) << timed.status().ToString();
  size_t at = 0;
  for (const char* stage : {"inputs", "import", "window", "steps", "pack", "launch join", "tokens",
                            "attribution", "speed of light", "summary", "diagnostics", "write"}) {
    at = err.find(std::string("decodeprof: stage ") + stage + " ", at);
    ASSERT_NE(at, std::string::npos) << stage << " in\n" << err;
  }
  auto plain = RunSummarize(Request(kineto, "plain"));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(Slurp(dir_ / "timed" / "decode_summary.json"),
            Slurp(dir_ / "plain" / "decode_summary.json"));
}

TEST_F(KinetoSummarizeTest, TraceRangesWinOverALogOnOtherClocks) {
  const std::string kineto = (dir_ / "run.pt.trace.json").string();
  std::ofstream(kineto, std::ios::binary) << KinetoJson(MakeRun());
  const std::string log = (dir_ / "bench.log").string();
  std::ofstream(log) << "[phase] warmup_start monotonic_ns=1000 boottime_ns=5000\n"
                        "[phase] decode_start monotonic_ns=2500 boottime_ns=6500\n"
                        "[phase] measured_end monotonic_ns=3000 boottime_ns=7000\n"
                        "[Profile Results]\n  Generated tokens: 10\n";
  SummarizeRequest req = Request(kineto, "out");
  req.format = "kineto-json";
  req.log = log;
  auto r = RunSummarize(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string summary = Slurp(dir_ / "out" / "decode_summary.json");
  EXPECT_NE(summary.find("\"decode_dispatches\": 24,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"generated_tokens\": 10,"), std::string::npos) << summary;
  // The log's marks were not used: said, not silent.
  EXPECT_NE(summary.find("\"code\": \"log_marks_unused\""), std::string::npos) << summary;

  // Without a decode range the log's marks are used: here they bracket no dispatch.
  req.decode_range = "no-such-range";
  auto missing = RunSummarize(req);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().where(), log);
}

TEST_F(KinetoSummarizeTest, TheSummaryNamesItsFormatClockAndDevice) {
  const std::string kineto = (dir_ / "run.pt.trace.json").string();
  std::ofstream(kineto, std::ios::binary) << KinetoJson(MakeRun());
  auto r = RunSummarize(Request(kineto, "out"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->format, "kineto-json");
  const std::string summary = Slurp(dir_ / "out" / "decode_summary.json");
  EXPECT_NE(summary.find("\"clock\": \"realtime\","), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"trace_format\": \"kineto-json\","), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"device\": 0,"), std::string::npos) << summary;
}

TEST_F(KinetoSummarizeTest, AnUnknownFormatNameIsAUsageError) {
  SummarizeRequest req = Request((dir_ / "x.json").string(), "out");
  req.format = "kineto";
  auto r = RunSummarize(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().exit_code(), 2);
}

}  // namespace
}  // namespace decodeprof::pipeline
