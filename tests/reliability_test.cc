// Never a silent wrong number (issue 11): each class of impossible or odd input gets an error
// (exit 65 data, 2 options, 66 files; no output file) or a spoken warning (a diagnostics entry
// and a line on stderr). docs/reliability.md names these tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/native_format/native_writer.h"
#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;

namespace {

constexpr const char* kHeader =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\","
    "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

std::string Row(const std::string& name, int64_t start, int64_t end) {
  return "\"KERNEL_DISPATCH\",\"Agent 1\",\"1\",\"" + name + "\",\"" + std::to_string(start) +
         "\",\"" + std::to_string(end) + "\",\"256\",\"1\",\"1\"\n";
}

constexpr const char* kLog =
    "[phase] warmup_start monotonic_ns=1 boottime_ns=90000\n"
    "[phase] measured_start monotonic_ns=2 boottime_ns=400000\n"
    "[phase] decode_start monotonic_ns=3 boottime_ns=600000\n"
    "[phase] measured_end monotonic_ns=4 boottime_ns=800000\n"
    "\n[Profile Results]\n  Prompt tokens:    4\n  Generated tokens: 2\n"
    "  Prefill:          0.1 ms (40000.0 tok/s)\n  Decode:           0.2 ms (10000.0 tok/s)\n";

class ReliabilityTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  // A good decode: two kernels before the window, three inside.
  std::string Rows() {
    return Row("void mlx::core::rocm::qmv_wide_kernel<__half>()", 100000, 200000) +
           Row("void mlx::core::rocm::rms_norm_kernel<__half>()", 500000, 590000) +
           Row("void mlx::core::rocm::copy_v<float, __half>()", 610000, 635000) +
           Row("void mlx::core::rocm::softmax_kernel<float>()", 640000, 660000) +
           Row("void mlx::core::rocm::qmv_wide_kernel<__half>()", 700000, 760000);
  }
  decodeprof::testing::Result Summarize(const std::string& trace, const std::string& log,
                                        std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"summarize", "--trace",   trace,
                                     "--log",     log,         "--name",
                                     "t",         "--out-dir", (dir_ / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunBinary(args, {}, dir_);
  }
  nlohmann::json Summary() { return nlohmann::json::parse(Slurp(dir_ / "out" / "t_summary.json")); }
  bool HasDiagnostic(const std::string& code) {
    const nlohmann::json s = Summary();
    for (const auto& d : s["diagnostics"]) {
      if (d["code"] == code) return true;
    }
    return false;
  }
  bool NoOutput() { return !fs::exists(dir_ / "out") || fs::is_empty(dir_ / "out"); }

  decodeprof::testing::TempDir temp_{"dp_rel_"};
  fs::path dir_;
};

TEST_F(ReliabilityTest, AKernelEndingAtInt64MaxIsAnError) {
  const std::string trace =
      Write("trace.csv", kHeader + Rows() + Row("k_forever", 650000, INT64_MAX));
  const auto r = Summarize(trace, Write("bench.log", kLog));
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find(trace + ":7: a dispatch ends at 9223372036854775807 ns, beyond the latest "
                               "time a trace can hold (2^62 ns)"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(NoOutput());
}

TEST_F(ReliabilityTest, ANegativeTimestampIsAnError) {
  const std::string trace = Write("trace.csv", kHeader + Row("k", -5, 10) + Rows());
  const auto r = Summarize(trace, Write("bench.log", kLog));
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find(trace + ":2: a dispatch starts at a negative time (-5 ns)"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(NoOutput());
}

TEST_F(ReliabilityTest, AZeroLengthDispatchIsAWarning) {
  const auto r = Summarize(Write("trace.csv", kHeader + Rows() + Row("k", 770000, 770000)),
                           Write("bench.log", kLog));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("zero_duration_dispatches"));
  EXPECT_NE(r.err.find("zero_duration_dispatches"), std::string::npos) << r.err;
}

TEST_F(ReliabilityTest, ADispatchLongerThanTheWindowIsAWarning) {
  const auto r = Summarize(
      Write("trace.csv", kHeader + Rows() + Row("k_long", 770000, 770000 + 1'000'000'000)),
      Write("bench.log", kLog));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("dispatch_longer_than_window"));
  EXPECT_NE(r.err.find("1000000000 ns against a 200000 ns window"), std::string::npos) << r.err;
}

TEST_F(ReliabilityTest, EveryRowTwiceIsAnError) {
  const std::string trace = Write("trace.csv", kHeader + Rows() + Rows());
  const auto r = Summarize(trace, Write("bench.log", kLog));
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("a dispatch recorded twice"), std::string::npos) << r.err;
  EXPECT_TRUE(NoOutput());
}

TEST_F(ReliabilityTest, ADuplicatedColumnIsAWarningAndTheLastOneIsRead) {
  // End_Timestamp twice: the first copy holds 1 and 2, the last one the real ends.
  const std::string header =
      "\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\",\"End_Timestamp\"\n";
  const std::string rows =
      "\"void mlx::core::rocm::copy_v<float>()\",610000,1,635000\n"
      "\"void mlx::core::rocm::softmax_kernel<float>()\",640000,2,660000\n";
  const auto r = Summarize(Write("trace.csv", header + rows), Write("bench.log", kLog));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("duplicate_column"));
  EXPECT_EQ(Summary()["decode_dispatches"], 2);
  EXPECT_EQ(Summary()["decode_gpu_sum_ms"], 0.045);  // the last End_Timestamp column
}

TEST_F(ReliabilityTest, AnEmptyOrHeaderOnlyTraceIsNamedAsTheCulprit) {
  for (const std::string& text : {std::string(), std::string(kHeader)}) {
    const std::string trace = Write("trace.csv", text);
    const auto r = Summarize(trace, Write("bench.log", kLog));
    EXPECT_EQ(r.exit_code, 65) << r.err;
    EXPECT_NE(r.err.find("decodeprof: summarize: " + trace + ": the trace holds no dispatch"),
              std::string::npos)
        << r.err;
  }
}

TEST_F(ReliabilityTest, NonFiniteOrNegativeTemperatureIsAUsageError) {
  const std::string trace = Write("trace.csv", kHeader + Rows());
  const std::string log = Write("bench.log", kLog);
  for (const char* t : {"nan", "inf", "1e309", "-0.5"}) {
    const auto r = Summarize(trace, log, {"--temperature", t});
    EXPECT_EQ(r.exit_code, 2) << t << ": " << r.err;
    EXPECT_NE(r.err.find("--temperature: must be a number from 0 to 100"), std::string::npos)
        << t << ": " << r.err;
    EXPECT_TRUE(NoOutput());
  }
}

TEST_F(ReliabilityTest, ZeroGeneratedTokensOptionIsAUsageError) {
  const auto r = Summarize(Write("trace.csv", kHeader + Rows()), Write("bench.log", kLog),
                           {"--generated-tokens", "0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST_F(ReliabilityTest, ANegativeTokenCountInTheLogIsAWarningAndStaysNull) {
  std::string log = kLog;
  log.replace(log.find("Generated tokens: 2"), 19, "Generated tokens: -4");
  const std::string path = Write("bench.log", log);
  const auto r = Summarize(Write("trace.csv", kHeader + Rows()), path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Summary()["generated_tokens"].is_null());  // the seed's reading: no match
  EXPECT_TRUE(HasDiagnostic("log_line_unread"));
  EXPECT_NE(r.err.find(path + ": line 8: a value the seed's pattern does not read"),
            std::string::npos)
      << r.err;
}

TEST_F(ReliabilityTest, ANonNumericTimingAndZeroTokensAreWarnings) {
  std::string log = kLog;
  log.replace(log.find("0.2 ms (10000.0 tok/s)"), 22, "nan ms (inf tok/s)");
  log.replace(log.find("Generated tokens: 2"), 19, "Generated tokens: 0");
  const auto r = Summarize(Write("trace.csv", kHeader + Rows()), Write("bench.log", log));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = Summary();
  EXPECT_TRUE(s["profiled_decode_tok_s"].is_null());
  for (const auto& d : s["diagnostics"]) {
    if (d["code"] == "log_line_unread") {
      EXPECT_EQ(d["count"], 2);
    }
  }
  EXPECT_TRUE(HasDiagnostic("log_line_unread"));
}

TEST_F(ReliabilityTest, ADuplicatedMarkIsAWarning) {
  const std::string log = std::string("[phase] decode_start monotonic_ns=3 boottime_ns=1\n") + kLog;
  const auto r = Summarize(Write("trace.csv", kHeader + Rows()), Write("bench.log", log));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("duplicate_marks"));
}

TEST_F(ReliabilityTest, AMissingModelDirIsAnIoErrorAndAnEmptyOneAWarning) {
  const std::string trace = Write("trace.csv", kHeader + Rows());
  const std::string log = Write("bench.log", kLog);
  auto r = Summarize(trace, log, {"--model-dir", (dir_ / "nope").string()});
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_NE(r.err.find("--model-dir does not exist"), std::string::npos) << r.err;
  fs::create_directories(dir_ / "empty_model");
  r = Summarize(trace, log, {"--model-dir", (dir_ / "empty_model").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("model_dir_without_config"));
}

TEST_F(ReliabilityTest, APlainLogWithoutResultsIsAWarning) {
  const auto r = Summarize(Write("trace.csv", kHeader + Rows()), Write("bench.log", kLog),
                           {"--plain-log", Write("plain.log", "nothing here\n")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("log_without_results"));
}

TEST_F(ReliabilityTest, ControlCharactersAndInvalidUtf8InNamesAreRepaired) {
  const std::string esc = "evil\x1b[2Jkernel";
  const std::string bad = "bad\xff\xfekernel";
  const std::string trace =
      Write("trace.csv",
            kHeader + Row("void mlx::core::rocm::qmv_wide_kernel<__half>()", 100000, 200000) +
                Row(esc, 610000, 635000) + Row(bad, 640000, 660000));
  const auto r = Summarize(trace, Write("bench.log", kLog));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("names_repaired"));
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  const std::string csv = Slurp(dir_ / "out" / "t_decode_kernels.csv");
  EXPECT_NE(csv.find("evil\\x1b[2Jkernel"), std::string::npos) << csv;
  EXPECT_NE(csv.find("bad\xEF\xBF\xBD\xEF\xBF\xBDkernel"), std::string::npos) << csv;
  EXPECT_EQ(csv.find('\x1b'), std::string::npos);
}

// The same bad name in another format gets the same repair.
TEST_F(ReliabilityTest, TheSameRepairInTheNativeFormat) {
  namespace nf = decodeprof::native_format;
  const std::string path = (dir_ / "run.sqlite").string();
  {
    auto w = nf::NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(w.ok());
    const auto name = *(*w)->Intern("evil\x1b[2Jkernel");
    nf::RangeRow range;
    range.start_ns = 1000;
    range.end_ns = 9000;
    range.name = *(*w)->Intern("decodeprof:decode");
    range.domain = *(*w)->Intern("");
    ASSERT_TRUE((*w)->AddRange(range).ok());
    nf::KernelRow k;
    k.start_ns = 2000;
    k.end_ns = 3000;
    k.name = k.mangled = name;
    ASSERT_TRUE((*w)->AddKernel(k).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  const auto r = RunBinary({"summarize", "--trace", path, "--name", "t", "--out-dir",
                            (dir_ / "out").string(), "--generated-tokens", "2"},
                           {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("names_repaired"));
  EXPECT_NE(Slurp(dir_ / "out" / "t_decode_kernels.csv").find("evil\\x1b[2Jkernel"),
            std::string::npos);
}

TEST_F(ReliabilityTest, AStepRangeThatMatchesNothingIsAnError) {
  namespace nf = decodeprof::native_format;
  const std::string path = (dir_ / "run.sqlite").string();
  {
    auto w = nf::NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(w.ok());
    nf::RangeRow range;
    range.start_ns = 1000;
    range.end_ns = 9000;
    range.name = *(*w)->Intern("decodeprof:decode");
    range.domain = *(*w)->Intern("");
    ASSERT_TRUE((*w)->AddRange(range).ok());
    nf::KernelRow k;
    k.start_ns = 2000;
    k.end_ns = 3000;
    k.name = k.mangled = *(*w)->Intern("k");
    ASSERT_TRUE((*w)->AddKernel(k).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  const auto r = RunBinary({"summarize", "--trace", path, "--name", "t", "--out-dir",
                            (dir_ / "out").string(), "--step-range", "engine:step"},
                           {}, dir_);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("no range matches --step-range 'engine:step' inside the decode range"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(NoOutput());
}

// A decode range of 4 steps of 3 kernels each (native trace).
std::string FourStepTrace(const fs::path& dir) {
  namespace nf = decodeprof::native_format;
  const std::string path = (dir / "steps.sqlite").string();
  auto w = nf::NativeWriter::Create(path, "monotonic", "test");
  EXPECT_TRUE(w.ok());
  auto range = [&](const char* name, int64_t start, int64_t end) {
    nf::RangeRow r;
    r.start_ns = start;
    r.end_ns = end;
    r.name = *(*w)->Intern(name);
    r.domain = *(*w)->Intern("");
    EXPECT_TRUE((*w)->AddRange(r).ok());
  };
  range("decodeprof:decode", 1000, 100000);
  for (int step = 0; step < 4; ++step) {
    const int64_t base = 2000 + step * 20000;
    range("decodeprof:step", base, base + 15000);
    for (int k = 0; k < 3; ++k) {
      nf::KernelRow row;
      row.start_ns = base + 1000 + k * 4000;
      row.end_ns = row.start_ns + 3000;
      row.name = row.mangled = *(*w)->Intern("gemv_kernel_" + std::to_string(k));
      EXPECT_TRUE((*w)->AddKernel(row).ok());
    }
  }
  EXPECT_TRUE((*w)->Close().ok());
  return path;
}

TEST_F(ReliabilityTest, MoreTokensThanDispatchesIsAnError) {
  // From the flag: 99 decode tokens cannot come from 12 kernels.
  const std::string trace = FourStepTrace(dir_);
  auto r = RunBinary({"summarize", "--trace", trace, "--name", "t", "--out-dir",
                      (dir_ / "out").string(), "--generated-tokens", "100"},
                     {}, dir_);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("--generated-tokens: 100 generated tokens, but the decode window holds "
                       "only 12 dispatches"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(NoOutput());
  // From the log: its 50 tokens against the window's 3 dispatches.
  std::string log = kLog;
  log.replace(log.find("Generated tokens: 2"), 19, "Generated tokens: 50");
  r = Summarize(Write("t.csv", kHeader + Rows()), Write("t.log", log));
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("t.log: 50 generated tokens, but the decode window holds only 3 "
                       "dispatches"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(NoOutput());
}

TEST_F(ReliabilityTest, TokensFarFromTheWindowsStepsAreAWarning) {
  const std::string trace = FourStepTrace(dir_);
  auto run = [&](const char* tokens) {
    return RunBinary({"summarize", "--trace", trace, "--name", "t", "--out-dir",
                      (dir_ / "out").string(), "--generated-tokens", tokens},
                     {}, dir_);
  };
  auto r = run("5");  // 4 steps + the prefill's token
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(HasDiagnostic("tokens_disagree_with_steps"));
  r = run("11");  // 10 decode tokens from 4 steps
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("tokens_disagree_with_steps"));
  EXPECT_NE(r.err.find("tokens_disagree_with_steps"), std::string::npos) << r.err;
  r = run("2");  // 1 decode token from 4 steps
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasDiagnostic("tokens_disagree_with_steps"));
}

TEST_F(ReliabilityTest, ClassifyReadsBoundedLinesFromStdin) {
  // Names one per line, the last without a newline, CRs dropped.
  auto r = RunBinary({"classify", "--pack", "pytorch-cuda"},
                     Write("names.txt", "gemv_kernel\r\n\nflash_fwd_kernel"), dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\tgemv_kernel\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\tflash_fwd_kernel\n"), std::string::npos) << r.out;
  // An input without newlines (a device, a binary file) is an error at its line, not memory
  // without end.
  r = RunBinary({"classify", "--pack", "pytorch-cuda"},
                Write("long.txt", "a\n" + std::string((size_t{1} << 20) + 10, 'x')), dir_);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("stdin: line 2 is longer than 1 MiB"), std::string::npos) << r.err;
}

}  // namespace
