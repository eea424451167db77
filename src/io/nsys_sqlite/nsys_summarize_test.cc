// `summarize` over Nsight Systems exports (issue 10 item 7): one synthetic decode run written
// both as a native trace (NativeWriter) and in nsys's schema (testing/nsys_db_writer.h) must
// give the same outputs. Both files are written, in turn, at the same path, so that the
// diagnostics' file names agree too.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"
#include "src/native_format/native_writer.h"
#include "src/pipeline/summarize_run.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::pipeline {
namespace {

namespace fs = std::filesystem;
namespace nf = native_format;
namespace nt = io::nsys_testing;

// The host's CLOCK_MONOTONIC at the run's time 0 (about 83 days after boot) and nsys's
// session start (systemClockNs), two seconds earlier: nsys times are kBase - kSession + t.
constexpr int64_t kBase = 7'150'000'123'456'789;
constexpr int64_t kSession = kBase - 2'000'000'000;
constexpr uint32_t kPid = 514683;
constexpr uint32_t kThread = 514683;
constexpr uint32_t kStream = 7;

struct Range {
  std::string name;
  int64_t start = 0;  // ns after kBase
  int64_t end = 0;
  int32_t depth = 0;  // what the native recorder writes; nsys's is rebuilt by the importer
};

struct Launch {
  std::string native_name;  // as decodeprof record writes it
  std::string nsys_name;    // as nsys spells it (API version suffix)
  bool driver = false;
};

struct Work {  // a kernel or memory operation
  nf::MemoryOpKind memory = nf::MemoryOpKind::kMemcpy;
  bool kernel = true;
  std::string name;
  int64_t launch = -1;  // ns after kBase of its launch call; -1: none recorded
  Launch api;
  int64_t start = 0;
  int64_t duration = 0;
  int32_t grid_x = 1;
  uint32_t correlation = 0;
};

struct SyntheticRun {
  std::vector<Range> ranges;
  std::vector<Work> work;
};

// A warmup, then a decode loop of 3 steps through one Llama layer with module ranges (op
// paths), a sampler kernel outside the model, a kernel without a launch record, the sampled
// token's copy to the host and a memset in the first step. Times have nanosecond parts.
SyntheticRun MakeRun() {
  SyntheticRun run;
  uint32_t correlation = 0;
  const Launch launch_kernel{"cudaLaunchKernel", "cudaLaunchKernel_v7000"};
  const Launch driver_launch{"cuLaunchKernel", "cuLaunchKernel", true};
  const auto kernel = [&](std::string name, int64_t launch, int64_t start, int64_t duration,
                          int32_t grid_x, const Launch& api) {
    Work w;
    w.name = std::move(name);
    w.launch = launch;
    w.api = api;
    w.start = start;
    w.duration = duration;
    w.grid_x = grid_x;
    w.correlation = ++correlation;
    run.work.push_back(w);
  };
  const auto memory = [&](nf::MemoryOpKind kind, int64_t launch, int64_t start, int64_t duration,
                          const Launch& api) {
    Work w;
    w.kernel = false;
    w.memory = kind;
    w.launch = launch;
    w.api = api;
    w.start = start;
    w.duration = duration;
    w.correlation = ++correlation;
    run.work.push_back(w);
  };
  run.ranges.push_back({"decodeprof:warmup", 1'000, 20'000, 0});
  kernel("void gemv2T_kernel_val<int, int, __nv_bfloat16>(params)", 1'500, 3'017, 4'004, 64,
         launch_kernel);
  run.ranges.push_back({"decodeprof:decode", 100'000, 460'000, 0});
  for (int step = 0; step < 3; ++step) {
    const int64_t t = 100'000 + step * 120'000;
    run.ranges.push_back({"decodeprof:step", t, t + 110'000, 1});
    run.ranges.push_back({"LlamaForCausalLM", t + 1'000, t + 60'000, 2});
    run.ranges.push_back({"LlamaDecoderLayer:model.layers.0", t + 2'000, t + 50'000, 3});
    run.ranges.push_back({"LlamaRMSNorm:model.layers.0.input_layernorm", t + 2'100, t + 4'000, 4});
    run.ranges.push_back({"LlamaAttention:model.layers.0.self_attn", t + 4'000, t + 30'000, 4});
    run.ranges.push_back({"Linear:model.layers.0.self_attn.q_proj", t + 5'000, t + 9'000, 5});
    run.ranges.push_back({"LlamaMLP:model.layers.0.mlp", t + 30'000, t + 45'000, 4});
    const int64_t g = t + 20'000;  // the GPU runs behind the host
    kernel("void at::native::rms_norm_kernel<float>()", t + 2'500, g + 1, 2'203, 1, launch_kernel);
    kernel("void gemv2T_kernel_val<int, int, __nv_bfloat16>(params)", t + 6'000, g + 2'500, 8'117,
           128, launch_kernel);
    kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop", t + 12'000, g + 11'000, 4'409, 32,
           driver_launch);
    kernel("void gemv2T_kernel_val<int, int, float>(params)", t + 33'000, g + 16'000, 15'999, 256,
           launch_kernel);
    kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>()",
           t + 47'000, g + 32'500, 1'001, 16, launch_kernel);
    if (step == 0) {
      memory(nf::MemoryOpKind::kMemset, t + 48'000, g + 33'600, 700,
             {"cudaMemsetAsync", "cudaMemsetAsync_v3020"});
    }
    kernel("void at::native::reduce_kernel<512, 1, ArgMaxOps<float>>()", t + 70'000, g + 55'000,
           3'333, 1, launch_kernel);
    memory(nf::MemoryOpKind::kMemcpy, t + 72'000, g + 59'000, 1'536,
           {"cudaMemcpyAsync", "cudaMemcpyAsync_v3020"});
    kernel("void at::native::index_elementwise_kernel<128, 4>()", -1, g + 61'000, 2'000, 1, {});
  }
  return run;
}

void WriteNative(const SyntheticRun& run, const std::string& path) {
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  nf::NativeWriter& w = **writer;
  nf::DeviceRow device;
  device.name = "NVIDIA H200";
  ASSERT_TRUE(w.AddDevice(device).ok());
  const auto domain = *w.Intern("");
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
  for (const Work& k : run.work) {
    if (k.kernel) {
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
    } else {
      nf::MemoryOpRow row;
      row.start_ns = kBase + k.start;
      row.end_ns = kBase + k.start + k.duration;
      row.bytes = 8;
      row.kind = k.memory;
      row.copy_kind = k.memory == nf::MemoryOpKind::kMemcpy ? 2 : 0;  // device to host
      row.stream = kStream;
      row.correlation = k.correlation;
      ASSERT_TRUE(w.AddMemoryOp(row).ok());
    }
    if (k.launch >= 0) {
      nf::ApiCallRow a;
      a.start_ns = kBase + k.launch;
      a.end_ns = kBase + k.launch + 800;
      a.name = *w.Intern(k.api.native_name);
      a.thread = kThread;
      a.correlation = k.correlation;
      ASSERT_TRUE(w.AddApiCall(a).ok());
    }
  }
  ASSERT_TRUE(w.Close().ok());
}

// The same run as nsys exports it: session-relative times, names in StringIds, launch names
// with nsys's suffixes, NVTX push/pop ranges without depths (half of them registered strings).
nt::NsysDb NsysRun(const SyntheticRun& run, nt::NsysSchema schema) {
  nt::NsysDb db;
  db.schema = schema;
  db.system_clock_ns = kSession;
  db.gpus = {{0, "NVIDIA H200"}};
  const int64_t at = kBase - kSession;  // the run's time 0 in session time
  const uint64_t thread = nt::GlobalTid(kPid, kThread);
  bool registered = false;
  for (const Range& r : run.ranges) {
    nt::NvtxEvent e;
    e.start = at + r.start;
    e.end = at + r.end;
    e.text = r.name;
    e.registered = (registered = !registered);
    e.global_tid = thread;
    db.nvtx.push_back(e);
  }
  for (const Work& k : run.work) {
    if (k.kernel) {
      nt::Kernel row;
      row.start = at + k.start;
      row.end = at + k.start + k.duration;
      row.stream = static_cast<int32_t>(kStream);
      row.correlation = k.correlation;
      row.demangled = k.name;
      row.grid[0] = k.grid_x;
      row.global_pid = nt::GlobalPid(kPid);
      db.kernels.push_back(row);
    } else {
      nt::MemoryOp row;
      row.memset = k.memory == nf::MemoryOpKind::kMemset;
      row.start = at + k.start;
      row.end = at + k.start + k.duration;
      row.stream = static_cast<int32_t>(kStream);
      row.correlation = k.correlation;
      row.copy_kind = 2;
      row.global_pid = nt::GlobalPid(kPid);
      db.memory_ops.push_back(row);
    }
    if (k.launch >= 0) {
      db.api_calls.push_back({at + k.launch, at + k.launch + 800, k.api.nsys_name, thread,
                              k.correlation, k.api.driver});
    }
  }
  return db;
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// `text` without its lines that contain one of `keys`; the removed lines go to `removed`.
std::string WithoutLines(const std::string& text, const std::vector<std::string>& keys,
                         std::vector<std::string>& removed) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    bool drop = false;
    for (const std::string& key : keys) drop = drop || line.find(key) != std::string::npos;
    if (drop) {
      removed.push_back(line);
    } else {
      out += line + "\n";
    }
  }
  return out;
}

class NsysSummarizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_.path();
    trace_ = (dir_ / "run.sqlite").string();
  }

  base::StatusOr<SummarizeResult> Summarize(const std::string& out) const {
    SummarizeRequest req;
    req.trace = trace_;
    req.name = "decode";
    req.out_dir = (dir_ / out).string();
    req.emit_dispatches = true;
    return RunSummarize(req);
  }

  decodeprof::testing::TempDir temp_{"dp_nsys_sum_"};
  fs::path dir_;
  std::string trace_;  // where both files are written, in turn
};

TEST_F(NsysSummarizeTest, SameRunAsNativeAndNsysGivesTheSameOutputs) {
  const SyntheticRun run = MakeRun();
  WriteNative(run, trace_);
  auto from_native = Summarize("native");
  ASSERT_TRUE(from_native.ok()) << from_native.status().ToString();
  ASSERT_TRUE(nt::WriteNsysDb(trace_, NsysRun(run, nt::NsysSchema::k2025_6)).ok());
  auto from_nsys = Summarize("nsys");
  ASSERT_TRUE(from_nsys.ok()) << from_nsys.status().ToString();
  EXPECT_EQ(from_native->format, "native");
  EXPECT_EQ(from_nsys->format, "nsys-sqlite");
  ASSERT_EQ(from_nsys->notes.size(), 1u);
  EXPECT_EQ(from_nsys->notes[0],
            "pack pytorch-cuda (chosen from the kernel names: 5 of 7 CUDA library and PyTorch / "
            "Triton kernels, 34.9 % of the GPU time: "
            "cudnn_generated_fort_native_sdpa_sm90_flash_fpro..., at::native::reduce_kernel, "
            "at::native::rms_norm_kernel, at::native::index_elementwise_kernel, ...; --pack "
            "overrides)");

  // The kernel table and the dispatch list: byte for byte.
  for (const char* file : {"decode_decode_kernels.csv", "decode_decode_dispatches.csv"}) {
    const std::string a = Slurp(dir_ / "native" / file);
    ASSERT_FALSE(a.empty()) << file;
    EXPECT_EQ(a, Slurp(dir_ / "nsys" / file)) << file;
  }
  // The summary: byte for byte but for the one field that legitimately differs, the format
  // that read the trace ("trace_format"). The clock is the same (monotonic: systemClockNs
  // maps nsys's session times onto it), and so is every diagnostic (launch_not_found, with
  // the same file, record and correlation): both fields stay in the comparison.
  const std::string native_json = Slurp(dir_ / "native" / "decode_summary.json");
  const std::string nsys_json = Slurp(dir_ / "nsys" / "decode_summary.json");
  std::vector<std::string> native_removed;
  std::vector<std::string> nsys_removed;
  EXPECT_EQ(WithoutLines(native_json, {"\"trace_format\": "}, native_removed),
            WithoutLines(nsys_json, {"\"trace_format\": "}, nsys_removed));
  EXPECT_EQ(native_removed, std::vector<std::string>{"  \"trace_format\": \"native\","});
  EXPECT_EQ(nsys_removed, std::vector<std::string>{"  \"trace_format\": \"nsys-sqlite\","});

  EXPECT_NE(nsys_json.find("\"clock\": \"monotonic\","), std::string::npos);
  EXPECT_NE(nsys_json.find("\"decode_dispatches\": 25,"), std::string::npos) << nsys_json;
  EXPECT_NE(nsys_json.find("\"generated_tokens\": 4,"), std::string::npos);
  EXPECT_NE(nsys_json.find("\"q_proj\": "), std::string::npos);  // op-path roles
  EXPECT_NE(nsys_json.find("\"launch_not_found\""), std::string::npos);
}

TEST_F(NsysSummarizeTest, EveryVersionGivesTheSameKernelTable) {
  const SyntheticRun run = MakeRun();
  WriteNative(run, trace_);
  ASSERT_TRUE(Summarize("native").ok());
  const std::string expected = Slurp(dir_ / "native" / "decode_decode_kernels.csv");
  for (nt::NsysSchema schema : nt::kAllSchemas) {
    SCOPED_TRACE(nt::SchemaName(schema));
    ASSERT_TRUE(nt::WriteNsysDb(trace_, NsysRun(run, schema)).ok());
    const std::string out = std::string("nsys") + nt::SchemaName(schema);
    auto r = Summarize(out);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Slurp(dir_ / out / "decode_decode_kernels.csv"), expected);
    const std::string summary = Slurp(dir_ / out / "decode_summary.json");
    // Exports before 2025.6 have no systemClockNs: the session clock, said in the summary.
    const bool session = schema != nt::NsysSchema::k2025_6;
    EXPECT_NE(summary.find(session ? "\"clock\": \"session\"," : "\"clock\": \"monotonic\","),
              std::string::npos);
    EXPECT_EQ(summary.find("\"session_clock\"") != std::string::npos, session);
  }
}

}  // namespace
}  // namespace decodeprof::pipeline
