#include "src/record/rocprofv3_runner.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/io/native/native_importer.h"
#include "src/io/rocpd/rocpd_importer.h"
#include "src/io/rocpd/testing/rocpd_db_writer.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::record {
namespace {

GetEnvFn RunnerEnv(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

// A stand-in for rocprofv3: checks the seed's flags (spec 2.2), writes a kernel trace in
// rocprofv3 1.3.5's format into -d DIR as <-o NAME>_kernel_trace.csv, then runs the command
// after "--" and exits with its status.
constexpr const char* kStandIn = R"sh(#!/bin/sh
[ "$1 $2 $3 $4 $5" = "--kernel-trace --hip-graph-trace --stats -f csv" ] || exit 90
[ "$6" = "-d" ] && [ "$8" = "-o" ] && [ "${10}" = "--" ] || exit 91
dir=$7; name=$9
shift 10
mkdir -p "$dir"
cat > "$dir/${name}_kernel_trace.csv" <<'CSV'
"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"
"KERNEL_DISPATCH","Agent 1",1,0,4242,1,7,"gemv_bf16, tiled",1,1000,2000,0,0,32,0,16,256,1,1,4096,2,1
"KERNEL_DISPATCH","Agent 1",1,0,4242,2,8,"rms_norm",2,2100,2300,0,0,32,0,16,256,1,1,256,1,1
"KERNEL_DISPATCH","Agent 1",1,0,4242,3,9,"arg_reduce_final",3,2400,2450,0,0,32,0,16,64,1,1,64,1,1
CSV
"$@"
)sh";

class Rocprofv3RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = decodeprof::testing::ScratchDir("rocprofv3_");
    script_ = dir_ + "/rocprofv3";
    std::ofstream(script_) << kStandIn;
    ASSERT_EQ(::chmod(script_.c_str(), 0755), 0);
  }
  std::string dir_;
  std::string script_;
};

TEST_F(Rocprofv3RunnerTest, RunsTheCommandAndConvertsTheTrace) {
  RecordOptions options;
  options.output = dir_ + "/out.sqlite";
  options.backend = Backend::kRocprofv3;
  options.command = {"sh", "-c", "exit 5"};
  base::Status conversion = base::InternalError("", "not set");
  auto result = RecordWithRocprofv3(options, RunnerEnv({{"ROCPROFV3", script_}}), &conversion);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->status, 5);  // the command's own status
  ASSERT_TRUE(conversion.ok()) << conversion.ToString();

  trace::StringPool names;
  struct Sink : trace::DispatchSink {
    void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
    trace::DispatchVector dispatches;
  } sink;
  auto imported = io::ImportNative(options.output, names, sink);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_FALSE(imported->clock.has_value());  // "unknown": the phase marks decide
  EXPECT_TRUE(imported->complete);
  EXPECT_EQ(imported->meta.at("recorder"), "rocprofv3 (converted)");
  ASSERT_EQ(sink.dispatches.size(), 3u);
  EXPECT_EQ(names.Get(sink.dispatches[0].name), "gemv_bf16, tiled");
  EXPECT_EQ(sink.dispatches[0].grid, 8192);
  EXPECT_EQ(sink.dispatches[0].start, 1000);
  EXPECT_EQ(sink.dispatches[2].end, 2450);
}

TEST_F(Rocprofv3RunnerTest, ATraceWithoutGridColumnsKeepsGridZero) {
  const std::string csv = dir_ + "/nogrid.csv";
  std::ofstream(csv) << "\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n"
                        "\"k\",10,20\n";
  ASSERT_TRUE(ConvertRocprofv3Csv(csv, dir_ + "/nogrid.sqlite").ok());
  trace::StringPool names;
  struct Sink : trace::DispatchSink {
    void Add(const trace::Dispatch& d) override { grid = d.grid; }
    int64_t grid = -1;
  } sink;
  ASSERT_TRUE(io::ImportNative(dir_ + "/nogrid.sqlite", names, sink).ok());
  EXPECT_EQ(sink.grid, 0);
}

TEST_F(Rocprofv3RunnerTest, NoKernelTraceIsAnIoErrorButTheStatusIsKept) {
  const std::string silent = dir_ + "/silent";
  std::ofstream(silent) << "#!/bin/sh\nshift 10\n\"$@\"\n";
  ASSERT_EQ(::chmod(silent.c_str(), 0755), 0);
  RecordOptions options;
  options.output = dir_ + "/out2.sqlite";
  options.command = {"sh", "-c", "exit 0"};
  base::Status conversion;
  auto result = RecordWithRocprofv3(options, RunnerEnv({{"ROCPROFV3", silent}}), &conversion);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 0);
  EXPECT_EQ(conversion.kind(), base::ErrorKind::kIo);
  EXPECT_EQ(conversion.where(), options.output + ".rocprofv3/trace_kernel_trace.csv");
}

namespace rt = io::rocpd_testing;

// A stand-in for a rocprofv3 that writes rocpd (rocprofiler-sdk 1.0+): its --help lists rocpd
// among the output formats; a run checks the rocpd flags and copies FIXTURE into -d DIR as
// <-o NAME>_results.db (unless FIXTURE is "none"), then runs the command after "--".
std::string RocpdStandIn(const std::string& fixture) {
  return R"sh(#!/bin/sh
if [ "$1" = "--help" ]; then
  echo "usage: rocprofv3 [-h] [-f {csv,json,pftrace,otf2,rocpd} ...] ..."
  exit 0
fi
[ "$1 $2 $3 $4 $5 $6" = "--kernel-trace --hip-graph-trace --marker-trace --stats -f rocpd" ] || exit 90
[ "$7" = "-d" ] && [ "$9" = "-o" ] && [ "${11}" = "--" ] || exit 91
dir=$8; name=${10}
shift 11
mkdir -p "$dir"
)sh" + std::string(fixture == "none" ? "" : "cp '" + fixture + "' \"$dir/${name}_results.db\"\n") +
         "\"$@\"\n";
}

// A recording: two kernels launched by HIP calls, a memory copy, roctx ranges and a mark.
rt::RocpdDb RocpdRecording() {
  rt::RocpdDb db;
  constexpr int64_t t = 5'000'000'000'000;
  for (int64_t i = 0; i < 2; ++i) {
    rt::KernelDispatch k;
    k.display_name = i == 0 ? "void mlx::core::rocm::rms_norm_kernel<__half>()" : "gemv_bf16";
    k.kernel_name = "_Z1kv.kd";
    k.start = t + 1'000 + i * 1'000;
    k.end = k.start + 500;
    k.grid[0] = 4096;
    k.grid[1] = 2;
    k.correlation = 700 + i;
    db.kernels.push_back(k);
    db.regions.push_back(rt::HipCall(700 + i, "hipLaunchKernel", k.start - 400, k.start - 300));
  }
  rt::MemoryCopy copy;
  copy.start = t + 3'000;
  copy.end = t + 3'100;
  copy.correlation = 702;
  db.copies.push_back(copy);
  db.regions.push_back(rt::HipCall(702, "hipMemcpyAsync", t + 2'800, t + 2'900));
  db.regions.push_back(rt::ThreadRange(1, "decodeprof:decode", t + 100, t + 4'000));
  db.regions.push_back(rt::ThreadRange(2, "decodeprof:step", t + 200, t + 2'000));
  db.regions.push_back(rt::ProcessRange(3, "load", t + 50, t + 60));
  rt::Sample mark;
  mark.id = 4;
  mark.timestamp = t + 150;
  mark.message = "tick";
  db.samples.push_back(mark);
  return db;
}

struct Model {
  trace::DispatchVector dispatches;
  trace::ImportedTrace trace;
  trace::StringPool names;
};

TEST_F(Rocprofv3RunnerTest, TheOutputFormatIsRocpdWhereRocprofv3HasIt) {
  const std::string rocpd = dir_ + "/rocprofv3_7";
  std::ofstream(rocpd) << RocpdStandIn("none");
  ASSERT_EQ(::chmod(rocpd.c_str(), 0755), 0);
  auto format = Rocprofv3OutputFor(rocpd, RunnerEnv({}));
  ASSERT_TRUE(format.ok());
  EXPECT_EQ(*format, Rocprofv3Output::kRocpd);
  // The seed-era stand-in's --help fails (exit 90): CSV.
  format = Rocprofv3OutputFor(script_, RunnerEnv({}));
  ASSERT_TRUE(format.ok());
  EXPECT_EQ(*format, Rocprofv3Output::kCsv);
  // A missing program: CSV (its run then says why).
  EXPECT_EQ(*Rocprofv3OutputFor(dir_ + "/absent", RunnerEnv({})), Rocprofv3Output::kCsv);
  // The environment decides when set.
  EXPECT_EQ(*Rocprofv3OutputFor(rocpd, RunnerEnv({{"DECODEPROF_ROCPROFV3_FORMAT", "csv"}})),
            Rocprofv3Output::kCsv);
  EXPECT_EQ(*Rocprofv3OutputFor(script_, RunnerEnv({{"DECODEPROF_ROCPROFV3_FORMAT", "rocpd"}})),
            Rocprofv3Output::kRocpd);
  auto bad = Rocprofv3OutputFor(rocpd, RunnerEnv({{"DECODEPROF_ROCPROFV3_FORMAT", "json"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), base::ErrorKind::kConfig);
  EXPECT_EQ(bad.status().message(), "must be csv or rocpd, not 'json'");
}

TEST_F(Rocprofv3RunnerTest, TheCommandLinesOfBothFormats) {
  const std::vector<std::string> cmd = {"python3", "bench.py"};
  EXPECT_EQ(
      Rocprofv3Command("rp", Rocprofv3Output::kCsv, "D", cmd),
      (std::vector<std::string>{"rp", "--kernel-trace", "--hip-graph-trace", "--stats", "-f", "csv",
                                "-d", "D", "-o", "trace", "--", "python3", "bench.py"}));
  EXPECT_EQ(Rocprofv3Command("rp", Rocprofv3Output::kRocpd, "D", cmd),
            (std::vector<std::string>{"rp", "--kernel-trace", "--hip-graph-trace", "--marker-trace",
                                      "--stats", "-f", "rocpd", "-d", "D", "-o", "trace", "--",
                                      "python3", "bench.py"}));
}

TEST_F(Rocprofv3RunnerTest, RecordsRocpdAndConvertsWhatTheModelReads) {
  const std::string fixture = dir_ + "/fixture_results.db";
  ASSERT_TRUE(rt::WriteRocpdDb(fixture, RocpdRecording()).ok());
  const std::string rocpd = dir_ + "/rocprofv3_7";
  std::ofstream(rocpd) << RocpdStandIn(fixture);
  ASSERT_EQ(::chmod(rocpd.c_str(), 0755), 0);
  RecordOptions options;
  options.output = dir_ + "/rec.sqlite";
  options.backend = Backend::kRocprofv3;
  options.command = {"sh", "-c", "exit 3"};
  base::Status conversion = base::InternalError("", "not set");
  auto result = RecordWithRocprofv3(options, RunnerEnv({{"ROCPROFV3", rocpd}}), &conversion);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->status, 3);
  ASSERT_TRUE(conversion.ok()) << conversion.ToString();

  // The rocpd database and the native file give the same model (correlations renumbered).
  const auto model = [](const std::string& path, const io::Importer& importer) {
    auto m = std::make_unique<Model>();
    struct Sink : trace::DispatchSink {
      void Add(const trace::Dispatch& d) override { out->push_back(d); }
      trace::DispatchVector* out = nullptr;
    } sink;
    sink.out = &m->dispatches;
    trace::TraceBuilder builder(m->names, sink);
    const base::Status s = importer.Import(path, builder);
    EXPECT_TRUE(s.ok()) << s.ToString();
    m->trace = std::move(builder).Finish();
    return m;
  };
  const auto from_db = model(options.output + ".rocprofv3/trace_results.db", io::RocpdImporter());
  const auto native = model(options.output, io::NativeImporter());
  EXPECT_EQ(native->trace.clock, trace::ClockDomain::kBoottime);
  EXPECT_EQ(native->trace.meta.at("recorder"), "rocprofv3 (converted from rocpd)");
  ASSERT_EQ(native->dispatches.size(), 3u);
  ASSERT_EQ(from_db->dispatches.size(), 3u);
  const trace::LaunchIndex db_launches(from_db->trace.launches);
  const trace::LaunchIndex native_launches(native->trace.launches);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const trace::Dispatch& a = from_db->dispatches[i];
    const trace::Dispatch& b = native->dispatches[i];
    EXPECT_EQ(from_db->names.Get(a.name), native->names.Get(b.name));
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.end, b.end);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.device, b.device);
    EXPECT_EQ(a.stream, b.stream);
    EXPECT_EQ(a.grid, b.grid);
    EXPECT_EQ(b.correlation, i + 1);
    ASSERT_NE(db_launches.Find(a.correlation), nullptr);
    ASSERT_NE(native_launches.Find(b.correlation), nullptr);
    EXPECT_EQ(from_db->names.Get(db_launches.Find(a.correlation)->name),
              native->names.Get(native_launches.Find(b.correlation)->name));
  }
  EXPECT_EQ(native->names.Get(native->dispatches[2].name), "[HIP memcpy Device-to-Host]");
  EXPECT_EQ(native->trace.runtime, trace::Runtime::kHip);
  EXPECT_EQ(native->dispatches[0].grid, 8192);
  ASSERT_EQ(native->trace.ranges.size(), from_db->trace.ranges.size());
  ASSERT_EQ(native->trace.ranges.size(), 4u);
  for (size_t i = 0; i < native->trace.ranges.size(); ++i) {
    const trace::Range& a = from_db->trace.ranges[i];
    const trace::Range& b = native->trace.ranges[i];
    EXPECT_EQ(from_db->names.Get(a.name), native->names.Get(b.name));
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.end, b.end);
    EXPECT_EQ(a.depth, b.depth);
    EXPECT_EQ(a.thread, b.thread);
  }
  ASSERT_EQ(native->trace.devices.size(), 1u);
  EXPECT_EQ(native->trace.devices[0].id, 1);
  EXPECT_EQ(native->trace.devices[0].name, "AMD Radeon 8060S");
}

TEST_F(Rocprofv3RunnerTest, NoRocpdDatabaseIsAnIoErrorButTheStatusIsKept) {
  const std::string rocpd = dir_ + "/rocprofv3_7";
  std::ofstream(rocpd) << RocpdStandIn("none");
  ASSERT_EQ(::chmod(rocpd.c_str(), 0755), 0);
  RecordOptions options;
  options.output = dir_ + "/none.sqlite";
  options.command = {"sh", "-c", "exit 0"};
  base::Status conversion;
  auto result = RecordWithRocprofv3(options, RunnerEnv({{"ROCPROFV3", rocpd}}), &conversion);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->status, 0);
  EXPECT_EQ(conversion.kind(), base::ErrorKind::kIo);
  EXPECT_EQ(conversion.where(), options.output + ".rocprofv3/trace_results.db");
  EXPECT_EQ(conversion.message(), "rocprofv3 wrote no rocpd database");
}

TEST_F(Rocprofv3RunnerTest, MissingRocprofv3IsAConfigError) {
  auto found = FindRocprofv3(RunnerEnv({{"ROCPROFV3", dir_ + "/absent"}}));
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().kind(), base::ErrorKind::kConfig);
  EXPECT_EQ(found.status().message(), "rocprofv3 not found (set ROCPROFV3)");
  auto on_path = FindRocprofv3(RunnerEnv({{"PATH", dir_}}));
  ASSERT_TRUE(on_path.ok());
  EXPECT_EQ(*on_path, script_);
}

}  // namespace
}  // namespace decodeprof::record
