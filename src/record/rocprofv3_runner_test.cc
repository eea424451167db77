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

namespace decodeprof::record {
namespace {

std::string TempDir() {
  std::string dir = ::testing::TempDir() + "rocprofv3_" + std::string(6, 'X');
  if (::mkdtemp(dir.data()) == nullptr) return {};
  return dir;
}

GetEnvFn Env(std::map<std::string, std::string> vars) {
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
    dir_ = TempDir();
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
  auto result = RecordWithRocprofv3(options, Env({{"ROCPROFV3", script_}}), &conversion);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->status, 5);  // the command's own status
  ASSERT_TRUE(conversion.ok()) << conversion.ToString();

  trace::StringPool names;
  struct Sink : trace::DispatchSink {
    void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
    std::vector<trace::Dispatch> dispatches;
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
  auto result = RecordWithRocprofv3(options, Env({{"ROCPROFV3", silent}}), &conversion);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 0);
  EXPECT_EQ(conversion.kind(), base::ErrorKind::kIo);
  EXPECT_EQ(conversion.where(), options.output + ".rocprofv3/trace_kernel_trace.csv");
}

TEST_F(Rocprofv3RunnerTest, MissingRocprofv3IsAConfigError) {
  auto found = FindRocprofv3(Env({{"ROCPROFV3", dir_ + "/absent"}}));
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().kind(), base::ErrorKind::kConfig);
  EXPECT_EQ(found.status().message(), "rocprofv3 not found (set ROCPROFV3)");
  auto on_path = FindRocprofv3(Env({{"PATH", dir_}}));
  ASSERT_TRUE(on_path.ok());
  EXPECT_EQ(*on_path, script_);
}

}  // namespace
}  // namespace decodeprof::record
