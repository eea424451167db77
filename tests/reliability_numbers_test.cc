// Numbers in files and marks (docs/reliability.md, "Numbers in files and marks"): every
// integer and time an importer reads has a range, and a value beyond it is a data error
// (exit 65) naming the file and the row or line, never a wrapped or merged number; marks that
// cannot be right are refused; nested ranges take linear time; one device numbering for the
// rocprofv3 CSV and rocpd.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"
#include "src/io/rocpd/testing/rocpd_db_writer.h"
#include "src/native_format/native_writer.h"
#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
namespace nf = decodeprof::native_format;
namespace rt = decodeprof::io::rocpd_testing;
namespace nt = decodeprof::io::nsys_testing;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;

namespace {

constexpr int64_t kMaxTime = int64_t{1} << 62;  // trace::kMaxTimestampNs
const std::string kPastMaxTime = std::to_string(kMaxTime + 1);

class NumbersTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  decodeprof::testing::Result Summarize(const std::string& trace,
                                        std::vector<std::string> extra = {}) {
    fs::remove_all(dir_ / "out");
    std::vector<std::string> args = {
        "summarize", "--trace", trace, "--name", "t", "--out-dir", (dir_ / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunBinary(args, {}, dir_);
  }
  bool NoOutput() const { return !fs::exists(dir_ / "out") || fs::is_empty(dir_ / "out"); }
  nlohmann::json Summary() const {
    return nlohmann::json::parse(Slurp(dir_ / "out" / "t_summary.json"));
  }

  // A good native trace: a decode range 1000..9000 ns holding a kernel and a copy launched
  // inside it, a device row, a mark.
  std::string NativeTrace(const std::string& name) {
    const std::string path = Path(name);
    auto w = nf::NativeWriter::Create(path, "monotonic", "test");
    EXPECT_TRUE(w.ok());
    nf::NativeWriter& writer = **w;
    const auto domain = *writer.Intern("");
    nf::RangeRow range;
    range.start_ns = 1000;
    range.end_ns = 9000;
    range.name = *writer.Intern("decodeprof:decode");
    range.domain = domain;
    range.thread = 42;
    EXPECT_TRUE(writer.AddRange(range).ok());
    const auto launch = *writer.Intern("cudaLaunchKernel");
    for (int i = 0; i < 4; ++i) {
      nf::KernelRow k;
      k.start_ns = 2000 + 1000 * i;
      k.end_ns = k.start_ns + 500;
      k.name = k.mangled = *writer.Intern(i % 2 == 0 ? "gemv_kernel" : "rms_norm_kernel");
      k.stream = 7;
      k.correlation = static_cast<uint32_t>(10 + i);
      k.grid[0] = 64;
      EXPECT_TRUE(writer.AddKernel(k).ok());
      nf::ApiCallRow call;
      call.start_ns = k.start_ns - 100;
      call.end_ns = k.start_ns - 50;
      call.name = launch;
      call.thread = 42;
      call.correlation = k.correlation;
      EXPECT_TRUE(writer.AddApiCall(call).ok());
    }
    nf::MemoryOpRow copy;
    copy.start_ns = 5700;
    copy.end_ns = 5800;
    copy.copy_kind = 1;
    copy.stream = 7;
    EXPECT_TRUE(writer.AddMemoryOp(copy).ok());
    nf::DeviceRow device;
    device.name = "NVIDIA H200";
    EXPECT_TRUE(writer.AddDevice(device).ok());
    nf::MarkRow mark;
    mark.time_ns = 3000;
    mark.name = *writer.Intern("token");
    mark.domain = domain;
    EXPECT_TRUE(writer.AddMark(mark).ok());
    EXPECT_TRUE(writer.Close().ok());
    return path;
  }

  decodeprof::testing::TempDir temp_{"dp_num_"};
  fs::path dir_;
};

// The native trace's boundary table: each integer column one past its range (or a text where
// a number belongs) is an error 65 naming the table, the row and the column.
TEST_F(NumbersTest, NativeColumnsBeyondTheirRangeAreErrorsNamingTheRow) {
  const std::string good = NativeTrace("good.sqlite");
  ASSERT_EQ(Summarize(good, {"--generated-tokens", "2"}).exit_code, 0);
  struct Case {
    std::string sql;
    std::string expected;  // in the message
  };
  const std::vector<Case> cases = {
      {"UPDATE kernels SET device = 65536 WHERE id = 1",
       "kernels id 1: device 65536 is not from 0"},
      {"UPDATE kernels SET device = 32768 WHERE id = 2",
       "kernels id 2: device 32768 is not from 0"},
      {"UPDATE kernels SET device = -1 WHERE id = 1", "kernels id 1: device -1 is not from 0"},
      {"UPDATE kernels SET stream = 4294967296 WHERE id = 3",
       "kernels id 3: stream 4294967296 is not from 0 to 4294967295"},
      {"UPDATE kernels SET start_ns = -1 WHERE id = 1", "kernels id 1: start_ns -1 is not from 0"},
      {"UPDATE kernels SET end_ns = " + kPastMaxTime + " WHERE id = 4",
       "kernels id 4: end_ns " + kPastMaxTime + " is not from 0 to " + std::to_string(kMaxTime)},
      {"UPDATE kernels SET end_ns = 9223372036854775807 WHERE id = 4",
       "kernels id 4: end_ns 9223372036854775807"},
      {"UPDATE kernels SET start_ns = 'abc' WHERE id = 1",
       "table kernels, row 1: column start_ns holds text 'abc' where an integer belongs"},
      {"UPDATE memory_ops SET device = 32768", "memory_ops id 1: device 32768"},
      {"UPDATE memory_ops SET stream = -1", "memory_ops id 1: stream -1"},
      {"UPDATE api_calls SET start_ns = -3 WHERE id = 2", "api_calls id 2: start_ns -3"},
      {"UPDATE api_calls SET end_ns = " + kPastMaxTime + " WHERE id = 2",
       "api_calls id 2: end_ns " + kPastMaxTime},
      {"UPDATE ranges SET start_ns = -5", "ranges id 1: start_ns -5 is not from 0"},
      {"UPDATE ranges SET start_ns = 'x'",
       "table ranges, row 1: column start_ns holds text 'x' where an integer belongs"},
      {"UPDATE ranges SET end_ns = 9223372036854775000", "ranges id 1: end_ns 9223372036854775000"},
      {"UPDATE ranges SET depth = 2147483648", "ranges id 1: depth 2147483648 is not from -1"},
      {"UPDATE ranges SET depth = -2", "ranges id 1: depth -2 is not from -1"},
      {"UPDATE devices SET id = 32768", "devices id 32768: id 32768 is not from 0 to 32767"},
      {"UPDATE marks SET time_ns = -1", "marks id 1: time_ns -1 is not from 0"},
      {"INSERT INTO meta(key, value) VALUES ('rank', '0'), ('devices_used', '0,70000')",
       "meta devices_used is '0,70000', not a comma-separated list of device ids (0 to 32767)"},
      {"INSERT INTO counters(name, value) VALUES ('cupti_dropped_records', -4)",
       "table counters: cupti_dropped_records is -4, not a count"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sql);
    const std::string path = Path("bad.sqlite");
    fs::copy_file(good, path, fs::copy_options::overwrite_existing);
    ASSERT_TRUE(rt::ExecSql(path, c.sql).ok());
    const auto r = Summarize(path, {"--generated-tokens", "2"});
    EXPECT_EQ(r.exit_code, 65) << r.err;
    EXPECT_NE(r.err.find("bad.sqlite"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
  }
}

// The rocprofv3 CSV's boundary table: ids past their type and times past 2^62, at their line.
TEST_F(NumbersTest, CsvFieldsBeyondTheirRangeAreErrorsAtTheirLine) {
  const std::string header =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Correlation_Id\",\"Kernel_Name\","
      "\"Start_Timestamp\",\"End_Timestamp\"\n";
  const auto row = [](const std::string& agent, const std::string& queue,
                      const std::string& correlation, const std::string& start,
                      const std::string& end) {
    return "\"KERNEL_DISPATCH\",\"" + agent + "\",\"" + queue + "\",\"" + correlation +
           "\",\"k\",\"" + start + "\",\"" + end + "\"\n";
  };
  const std::string ok = row("Agent 1", "1", "5", "1000", "2000");
  struct Case {
    std::string bad_row;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {row("Agent 32768", "1", "6", "3000", "4000"), "Agent_Id 'Agent 32768' is beyond its range"},
      {row("Agent 65536", "1", "6", "3000", "4000"), "Agent_Id 'Agent 65536' is beyond its range"},
      {row("Agent 1", "4294967296", "6", "3000", "4000"), "Queue_Id '4294967296' is beyond"},
      {row("Agent 1", "1", "18446744073709551616", "3000", "4000"), "Correlation_Id"},
      {row("Agent 1", "1", "6", "-1", "4000"), "starts at a negative time"},
      {row("Agent 1", "1", "6", std::to_string(kMaxTime), kPastMaxTime),
       "beyond the latest time a trace can hold"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.bad_row);
    const std::string path = Write("trace.csv", header + ok + c.bad_row + ok);
    const auto r = Summarize(path, {"--window", "all", "--generated-tokens", "2"});
    EXPECT_EQ(r.exit_code, 65) << r.err;
    EXPECT_NE(r.err.find("trace.csv:3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
  }
}

// Nsight Systems: device ids, stream ids, times and GPU ids beyond their ranges.
TEST_F(NumbersTest, NsysColumnsBeyondTheirRangeAreErrorsNamingTheRow) {
  nt::NsysDb db;
  for (int i = 0; i < 3; ++i) {
    nt::Kernel k;
    k.start = 1000 + 1000 * i;
    k.end = k.start + 500;
    k.demangled = "gemv_kernel";
    db.kernels.push_back(k);
  }
  const std::string good = Path("good.sqlite");
  ASSERT_TRUE(nt::WriteNsysDb(good, db).ok());
  ASSERT_EQ(Summarize(good, {"--window", "all", "--generated-tokens", "2"}).exit_code, 0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 32768 WHERE rowid = 1",
       "deviceId 32768 is beyond its range (0 to 32767)"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = -1 WHERE rowid = 1",
       "deviceId -1 is beyond its range"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = 4294967296 WHERE rowid = 2",
       "streamId 4294967296 is beyond its range"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET \"end\" = 4611686018427387904 WHERE rowid = 3",
       "is beyond its range (0 to 2^62"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -4000000000000000000 WHERE rowid = 1",
       "is beyond its range (0 to 2^62"},
  };
  for (const auto& [sql, expected] : cases) {
    SCOPED_TRACE(sql);
    const std::string path = Path("bad.sqlite");
    fs::copy_file(good, path, fs::copy_options::overwrite_existing);
    ASSERT_TRUE(rt::ExecSql(path, sql).ok());
    const auto r = Summarize(path, {"--window", "all", "--generated-tokens", "2"});
    EXPECT_EQ(r.exit_code, 65) << r.err;
    EXPECT_NE(r.err.find("CUPTI_ACTIVITY_KIND_KERNEL rowid"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
  }
}

// rocpd: times past 2^62 or below 0, on dispatches and on roctx ranges.
TEST_F(NumbersTest, RocpdTimesBeyondTheirRangeAreErrorsNamingTheRow) {
  rt::RocpdDb db;
  for (int i = 0; i < 3; ++i) {
    rt::KernelDispatch k;
    k.display_name = "gemv_kernel";
    k.start = 1000 + 1000 * i;
    k.end = k.start + 500;
    db.kernels.push_back(k);
  }
  db.regions.push_back(rt::ThreadRange(100, "decodeprof:decode", 500, 4000));
  const std::string good = Path("good.db");
  ASSERT_TRUE(rt::WriteRocpdDb(good, db).ok());
  ASSERT_EQ(Summarize(good, {"--generated-tokens", "2"}).exit_code, 0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"UPDATE rocpd_kernel_dispatch" + rt::TableSuffix(rt::kDefaultGuid) +
           " SET \"end\" = " + kPastMaxTime + " WHERE id = 2",
       "end " + kPastMaxTime + " ns is beyond its range"},
      {"UPDATE rocpd_kernel_dispatch" + rt::TableSuffix(rt::kDefaultGuid) +
           " SET start = -1 WHERE id = 1",
       "start -1 ns is beyond its range"},
      {"UPDATE rocpd_region" + rt::TableSuffix(rt::kDefaultGuid) + " SET start = -5",
       "start -5 ns is beyond its range"},
  };
  for (const auto& [sql, expected] : cases) {
    SCOPED_TRACE(sql);
    const std::string path = Path("bad.db");
    fs::copy_file(good, path, fs::copy_options::overwrite_existing);
    ASSERT_TRUE(rt::ExecSql(path, sql).ok());
    const auto r = Summarize(path, {"--generated-tokens", "2"});
    EXPECT_EQ(r.exit_code, 65) << r.err;
    EXPECT_NE(r.err.find("bad.db"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
  }
}

// Kineto JSON: device and stream past their ranges, an annotation before time 0.
TEST_F(NumbersTest, KinetoValuesBeyondTheirRangeAreErrorsAtTheirByte) {
  const auto trace = [](const std::string& device, const std::string& stream,
                        const std::string& annotation_ts) {
    return R"({"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "decodeprof:decode", "pid": 1, "tid": 1, "ts": )" +
           annotation_ts + R"(, "dur": 100},
{"ph": "X", "cat": "kernel", "name": "gemv_kernel", "pid": 0, "tid": 7, "ts": 20, "dur": 5,
 "args": {"device": )" +
           device + R"(, "stream": )" + stream + R"(, "correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "gemv_kernel", "pid": 0, "tid": 7, "ts": 40, "dur": 5,
 "args": {"device": 0, "stream": 7, "correlation": 4}}
]})";
  };
  ASSERT_EQ(
      Summarize(Write("good.json", trace("0", "7", "10")), {"--generated-tokens", "2"}).exit_code,
      0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {trace("32768", "7", "10"), "args.device 32768 is beyond its range (0 to 32767)"},
      {trace("65536", "7", "10"), "args.device 65536 is beyond its range"},
      {trace("0", "4294967296", "10"), "args.stream 4294967296 is beyond its range"},
      {trace("0", "-1", "10"), "args.stream -1 is beyond its range"},
      {trace("0", "7", "-5"), "annotation range 1 ('decodeprof:decode') starts at a negative time"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(expected);
    const auto r = Summarize(Write("bad.json", text), {"--generated-tokens", "2"});
    EXPECT_EQ(r.exit_code, 65) << r.err;
    EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
  }
}

constexpr const char* kCsvHeader =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n";
std::string CsvRow(const std::string& name, int64_t start, int64_t end,
                   const std::string& agent = "Agent 1") {
  return "\"KERNEL_DISPATCH\",\"" + agent + "\",\"1\",\"" + name + "\",\"" + std::to_string(start) +
         "\",\"" + std::to_string(end) + "\"\n";
}
// Two kernels before the window (the prefill), three inside.
std::string CsvRows() {
  return CsvRow("qmv_kernel", 100000, 200000) + CsvRow("rms_norm_kernel", 500000, 590000) +
         CsvRow("copy_kernel", 610000, 635000) + CsvRow("softmax_kernel", 640000, 660000) +
         CsvRow("qmv_kernel", 700000, 760000);
}
std::string Log(const std::string& warmup, const std::string& measured, const std::string& decode,
                const std::string& end) {
  return "[phase] warmup_start monotonic_ns=na boottime_ns=" + warmup +
         "\n[phase] measured_start monotonic_ns=na boottime_ns=" + measured +
         "\n[phase] decode_start monotonic_ns=na boottime_ns=" + decode +
         "\n[phase] measured_end monotonic_ns=na boottime_ns=" + end +
         "\n\n[Profile Results]\n  Prompt tokens:    4\n  Generated tokens: 2\n"
         "  Prefill:          0.1 ms (40000.0 tok/s)\n  Decode:           0.2 ms (10000.0 tok/s)\n";
}

// A bench log's marks: a clock value past 2^62 or below 0 is an error at its line; marks out
// of order are refused (they would count the prefill).
TEST_F(NumbersTest, BenchLogMarksThatCannotBeRightAreRefused) {
  const std::string trace = Write("trace.csv", kCsvHeader + CsvRows());
  const auto run = [&](const std::string& log) {
    return Summarize(trace, {"--log", Write("bench.log", log)});
  };
  ASSERT_EQ(run(Log("90000", "400000", "600000", "800000")).exit_code, 0);
  struct Case {
    std::string log;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {Log("90000", "400000", "600000", "9223372036854775807"),
       "bench.log:4: mark measured_end boottime_ns=9223372036854775807 is beyond the range"},
      {Log("90000", "400000", "600000", kPastMaxTime), "bench.log:4: mark measured_end"},
      {Log("90000", "400000", "-5", "800000"), "bench.log:3: mark decode_start boottime_ns=-5"},
      {Log("90000", "400000", "95000", "800000"),
       "out of order on the boottime clock: decode_start (95000) comes before measured_start "
       "(400000)"},
      {Log("450000", "400000", "600000", "800000"),
       "measured_start (400000) comes before warmup_start (450000)"},
      {Log("90000", "400000", "800000", "600000"),
       "measured_end (600000) comes before decode_start (800000)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expected);
    const auto r = run(c.log);
    EXPECT_EQ(r.exit_code, 65) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
  }
}

// Decode windows that cannot be a decode: copies only, every dispatch at one start time, a
// window reaching far past its dispatches (an end near the largest time).
TEST_F(NumbersTest, DecodeWindowsThatCannotBeADecodeAreRefused) {
  const auto native = [&](const std::string& name, int64_t range_end, bool kernels,
                          bool one_start) {
    const std::string path = Path(name);
    auto w = nf::NativeWriter::Create(path, "monotonic", "test");
    EXPECT_TRUE(w.ok());
    nf::RangeRow range;
    range.start_ns = 1000;
    range.end_ns = range_end;
    range.name = *(*w)->Intern("decodeprof:decode");
    range.domain = *(*w)->Intern("");
    EXPECT_TRUE((*w)->AddRange(range).ok());
    for (int i = 0; i < 45; ++i) {
      const int64_t start = one_start ? 2000 : 2000 + 100 * i;
      if (kernels) {
        nf::KernelRow k;
        k.start_ns = start;
        k.end_ns = start + 50;
        k.name = k.mangled = *(*w)->Intern("k" + std::to_string(i % 3));
        k.correlation = static_cast<uint32_t>(i + 1);
        EXPECT_TRUE((*w)->AddKernel(k).ok());
      } else {
        nf::MemoryOpRow m;
        m.start_ns = start;
        m.end_ns = start + 50;
        m.copy_kind = 1;
        m.correlation = static_cast<uint32_t>(i + 1);
        EXPECT_TRUE((*w)->AddMemoryOp(m).ok());
      }
    }
    EXPECT_TRUE((*w)->Close().ok());
    return path;
  };
  // No marks: 45 kernels sharing one start, then 45 copies one after another.
  const auto unmarked = [&](const std::string& name) {
    const std::string path = Path(name);
    auto w = nf::NativeWriter::Create(path, "monotonic", "test");
    EXPECT_TRUE(w.ok());
    for (int i = 0; i < 45; ++i) {
      nf::KernelRow k;
      k.start_ns = 500;
      k.end_ns = 600 + i;
      k.name = k.mangled = *(*w)->Intern("k" + std::to_string(i % 3));
      k.correlation = static_cast<uint32_t>(i + 1);
      EXPECT_TRUE((*w)->AddKernel(k).ok());
      nf::MemoryOpRow m;
      m.start_ns = 2000 + 100 * i;
      m.end_ns = m.start_ns + 50;
      m.copy_kind = 1;
      m.correlation = static_cast<uint32_t>(100 + i);
      EXPECT_TRUE((*w)->AddMemoryOp(m).ok());
    }
    EXPECT_TRUE((*w)->Close().ok());
    return path;
  };
  ASSERT_EQ(
      Summarize(native("good.sqlite", 9000, true, false), {"--generated-tokens", "2"}).exit_code,
      0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {native("copies.sqlite", 9000, false, false),
       "holds no kernel, only 45 memory copies and 0 memsets: it is not a decode"},
      {native("one_start.sqlite", 9000, true, true),
       "dispatches all start at the same time (2000 ns)"},
      {native("far_end.sqlite", kMaxTime - 1, true, false),
       "after its last dispatch: its end mark cannot be right"},
  };
  for (const auto& [path, expected] : cases) {
    SCOPED_TRACE(path);
    const auto r = Summarize(path, {"--generated-tokens", "2"});
    EXPECT_EQ(r.exit_code, 65) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
  }
  // The decode finder (no marks) is held to the same: a "loop" of copies is no decode.
  const auto r = Summarize(unmarked("unmarked.sqlite"), {"--generated-tokens", "2"});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("not a decode"), std::string::npos) << r.err;
  EXPECT_TRUE(NoOutput());
}

// One device numbering: the same GPU agent (logical index 4, as rocprofv3 numbers nodes
// with four CPU agents before it) is device 4 read as the CSV ("Agent 4") and as rocpd.
TEST_F(NumbersTest, OneAgentIsOneDeviceInTheCsvAndInRocpd) {
  std::string rows;
  rt::RocpdDb db;
  db.agents.clear();
  for (int64_t cpu = 0; cpu < 4; ++cpu) {
    rt::Agent a;
    a.id = cpu;
    a.type = "CPU";
    a.absolute_index = a.logical_index = cpu;
    a.type_index = cpu;
    a.name = "cpu";
    a.product_name = "AMD EPYC";
    db.agents.push_back(a);
  }
  rt::Agent gpu;
  gpu.id = 4;
  gpu.absolute_index = gpu.logical_index = 4;
  gpu.type_index = 0;  // the first GPU ("GPU 0" in type-relative numbering)
  db.agents.push_back(gpu);
  for (int i = 0; i < 30; ++i) {
    const std::string name = i % 3 == 0 ? "qmv_kernel" : i % 3 == 1 ? "rms_norm_kernel" : "softmax";
    const int64_t start = 1000 + 1000 * i;
    rows += CsvRow(name, start, start + 500, "Agent 4");
    rt::KernelDispatch k;
    k.agent_id = 4;
    k.display_name = name;
    k.start = start;
    k.end = start + 500;
    db.kernels.push_back(k);
  }
  const std::string csv = Write("run_kernel_trace.csv", kCsvHeader + rows);
  const std::string rocpd = Path("run_results.db");
  ASSERT_TRUE(rt::WriteRocpdDb(rocpd, db).ok());
  for (const std::string& trace : {csv, rocpd}) {
    SCOPED_TRACE(trace);
    const auto r = Summarize(trace, {"--window", "all", "--generated-tokens", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Summary()["device"], 4);
    const auto k = RunBinary({"kernels", trace}, {}, dir_);
    ASSERT_EQ(k.exit_code, 0) << k.err;
    EXPECT_NE(k.out.find("device 4"), std::string::npos) << k.out;
    // --device picks it by that number in both.
    EXPECT_EQ(
        Summarize(trace, {"--window", "all", "--generated-tokens", "2", "--device", "4"}).exit_code,
        0);
  }
}

// 10^5 nested NVTX-style ranges around the launches of 2000 kernels (the pack's op_path rules
// look up the ranges enclosing each launch): linear work, seconds even in a debug build (the
// quadratic lookup took minutes).
TEST_F(NumbersTest, DeeplyNestedRangesTakeLinearTime) {
  constexpr int kDepth = 100'000;
  constexpr int kKernels = 2000;
  const std::string path = Path("nested.sqlite");
  {
    auto w = nf::NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(w.ok());
    nf::NativeWriter& writer = **w;
    const auto domain = *writer.Intern("");
    const auto module = *writer.Intern("Module:model.layers.0");
    for (int d = 0; d < kDepth; ++d) {
      nf::RangeRow r;
      r.start_ns = 1000 + d;
      r.end_ns = 100'000'000 - d;
      r.name = module;
      r.domain = domain;
      r.thread = 42;
      r.depth = d;
      ASSERT_TRUE(writer.AddRange(r).ok());
    }
    const auto launch = *writer.Intern("cudaLaunchKernel");
    const auto names = std::vector{*writer.Intern("gemv_kernel"), *writer.Intern("rms_norm")};
    for (int i = 0; i < kKernels; ++i) {
      nf::KernelRow k;
      k.start_ns = 200'000 + 1000 * i;
      k.end_ns = k.start_ns + 500;
      k.name = k.mangled = names[static_cast<size_t>(i % 2)];
      k.correlation = static_cast<uint32_t>(i + 1);
      ASSERT_TRUE(writer.AddKernel(k).ok());
      nf::ApiCallRow call;
      call.start_ns = k.start_ns - 100;
      call.end_ns = k.start_ns - 50;
      call.name = launch;
      call.thread = 42;
      call.correlation = k.correlation;
      ASSERT_TRUE(writer.AddApiCall(call).ok());
    }
    ASSERT_TRUE(writer.Close().ok());
  }
  const auto begin = std::chrono::steady_clock::now();
  const auto r = Summarize(path, {"--window", "all", "--generated-tokens", "2"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Summary()["decode_dispatches"], kKernels);
  EXPECT_LT(seconds, 10.0);
}

// --window all of a trace without ranges is read straight into the window (in parts when
// large): the window is the trace's span, whatever order the rows come in, its source "all".
TEST_F(NumbersTest, TheWholeWindowOfACsvIsItsSpan) {
  const std::string path =
      Write("span_kernel_trace.csv", std::string(kCsvHeader) + CsvRow("b", 5000, 5600) +
                                         CsvRow("a", 1000, 1500) + CsvRow("c", 3000, 9000));
  const auto r = Summarize(path, {"--window", "all", "--generated-tokens", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = Summary();
  EXPECT_EQ(summary["window_source"], "all");
  EXPECT_EQ(summary["window_evidence"]["start_ns"], 1000);
  EXPECT_EQ(summary["window_evidence"]["end_ns"], 9000);
  EXPECT_EQ(summary["decode_dispatches"], 3);
  EXPECT_DOUBLE_EQ(summary["decode_wall_ms"].get<double>(), 0.008);
}

}  // namespace
