// decodeprof on the public traces of real engines and jobs in ../shared/real-traces/ (SOURCES.md
// there), one test per file of its table:
//   Census          `decodeprof kernels --window all` equals census.py, the folder's independent
//                   reading, per device: dispatches, kernels, memcpy, memset, total, every
//                   kernel's calls and total; `summarize --window all` its busy time. The files
//                   that are no kernel trace are refused (exit 65) with an error naming the file.
//   StepRange       `summarize --step-range GLOB` cuts a window holding (at least 95 % of) the
//                   dispatches launched inside the GLOB ranges, as real_traces/launched_inside.py
//                   counts them by launch correlation.
//   PlainSummarize  none of these traces holds a decode loop: without marks, summarize either
//                   refuses in one paragraph naming the trace, or says decode_loop_uncertain.
//   Refusal        the files that are no kernel trace are refused in at most three lines saying
//                  what they are, quoting no more than 200 bytes of them.
//   EngineSteps     the SGLang and vLLM traces are cut by their own step names, without
//                   --step-range: each step's kind and batch in the summary and the table.
// decodeprof reads the gzip-compressed traces as they are. The traces are never copied into
// the repository; without the folder every test is skipped.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::testing::Result;
using decodeprof::testing::RunBinary;
using decodeprof::testing::RunProgram;
using decodeprof::testing::Slurp;
using nlohmann::json;

namespace {

const fs::path kSource = DECODEPROF_SOURCE_DIR;
// Next to the clone, as CI has it.
const fs::path kTraces = (kSource / ".." / "shared" / "real-traces").lexically_normal();
const std::string kPython = DECODEPROF_PYTHON3;
const fs::path kLaunchedInside = kSource / "tests" / "real_traces" / "launched_inside.py";

struct TraceCase {
  std::string file;
  bool kernel_trace = true;  // false: a file that holds no kernel trace (a refusal test)
};

// SOURCES.md's table, in its order (TableListsTheseFiles checks the two agree).
const std::vector<TraceCase> kCases = {
    {"tracelens_sglang_qwen3-8b_prefilldecode_mi300x.json.gz"},
    {"tracelens_vllm_prefilldecode_piecewise_graph_execution_mi300.json.gz"},
    {"tracelens_vllm_decode_full_graph_capture_mi300.pt.trace.json.gz"},
    {"tracelens_vllm_eager_tp8_rank0_b200.json.gz"},
    {"tracelens_hf_qwen1.5-0.5b-chat_h100.json.gz"},
    {"tracelens_torch_compile_triton_mi300x.json.gz"},
    {"tracelens_rocprofv3_908_results.json.gz", false},
    {"hta_minitoy_train_mi250.json.gz"},
    {"hta_alexnet_a100.json.gz"},
    {"hta_negative_queue_rank0_a100.json.gz"},
    {"hta_legacy_categories_inference_rank1.json.gz"},
    {"hta_cpu_only_rank34.pt.trace.json.gz", false},
    {"dynamicvit_nsys_empty_profile.sqlite", false},
    {"rocprofiler-sdk_kernel_trace.csv"},
};

// The engine traces with per-step CPU ranges, and the glob of those ranges. The vLLM graph
// capture has no execute_* range: its ranges are capture_32_FULL (one per captured graph).
struct StepCase {
  std::string file;
  std::string glob;
};
const std::vector<StepCase> kStepCases = {
    {"tracelens_sglang_qwen3-8b_prefilldecode_mi300x.json.gz", "step?EXTEND*"},
    {"tracelens_vllm_prefilldecode_piecewise_graph_execution_mi300.json.gz", "execute_*"},
    {"tracelens_vllm_eager_tp8_rank0_b200.json.gz", "execute_*"},
    {"tracelens_vllm_decode_full_graph_capture_mi300.pt.trace.json.gz", "capture_*"},
};

// gtest prints a case by its file (and glob), not its bytes.
void PrintTo(const TraceCase& c, std::ostream* os) { *os << c.file; }
void PrintTo(const StepCase& c, std::ostream* os) {
  *os << c.file << " --step-range '" << c.glob << "'";
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// At most `n` bytes of a program's output, for a failure message (an error may be huge).
std::string Head(const std::string& text, size_t n = 600) {
  return text.size() <= n ? text
                          : text.substr(0, n) + "... (" + std::to_string(text.size()) + " bytes)";
}

// A test name from a file name: its letters and digits, the rest as '_'.
std::string CaseName(const std::string& file) {
  std::string name = file;
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return name;
}

// The name of a parameterized case: its file's.
template <typename Case>
std::string ParamName(const ::testing::TestParamInfo<Case>& param) {
  return CaseName(param.param.file);
}

class RealTraceTest : public ::testing::Test {
 protected:
  // Skips without the folder; the scratch directory of the test.
  void Prepare(const std::string& file) {
    if (!fs::is_directory(kTraces)) {
      GTEST_SKIP() << "the real traces are not here: " << kTraces.string()
                   << " (../shared/real-traces/ next to the repository) is absent";
    }
    original_ = kTraces / file;
    ASSERT_TRUE(fs::is_regular_file(original_)) << original_ << " is listed but absent";
    dir_ = temp_.path();
    fs::create_directories(dir_ / "in");
  }
  // The trace as decodeprof reads it: the file as it is, a .gz too (decodeprof decompresses
  // it as it reads; census.py and launched_inside.py decompress it their own way).
  fs::path Input() const { return original_; }

  Result Python(const std::vector<std::string>& args) { return RunProgram(kPython, args, dir_); }

  fs::path original_;
  decodeprof::testing::TempDir temp_{"dp_real_"};
  fs::path dir_;
};

class CensusTest : public RealTraceTest, public ::testing::WithParamInterface<TraceCase> {};

// Every kernel of a census: name -> {calls, total ns}.
using Rows = std::map<std::string, std::pair<int64_t, int64_t>>;

void ExpectSameRows(const Rows& want, const Rows& got, const std::string& where) {
  int shown = 0;
  for (const auto& [name, figures] : want) {
    auto it = got.find(name);
    if (it == got.end()) {
      ADD_FAILURE() << where << ": census.py's kernel is not in decodeprof's census: " << name;
    } else if (it->second != figures) {
      ADD_FAILURE() << where << ": " << name << ": census.py " << figures.first << " calls, "
                    << figures.second << " ns; decodeprof " << it->second.first << " calls, "
                    << it->second.second << " ns";
    } else {
      continue;
    }
    if (++shown == 20) return;
  }
  for (const auto& [name, figures] : got) {
    if (want.count(name) == 0) {
      ADD_FAILURE() << where << ": decodeprof's kernel is not in census.py's census: " << name;
      if (++shown == 20) return;
    }
  }
}

TEST_P(CensusTest, EqualsTheIndependentCensus) {
  Prepare(GetParam().file);
  if (IsSkipped() || HasFatalFailure()) return;
  const fs::path census_py = kTraces / "census.py";
  const Result census = Python({census_py.string(), original_.string()});
  const fs::path input = Input();
  const std::string input_name = input.filename().string();

  if (!GetParam().kernel_trace) {
    // census.py reads no GPU work here: it refuses the file (exit 2), or reads a trace of the
    // right format that holds no device at all (the CPU-only Kineto trace, the nsys export
    // without a CUDA table).
    if (census.exit_code == 0) {
      EXPECT_TRUE(json::parse(census.out)["devices"].empty()) << Head(census.out);
    } else {
      EXPECT_EQ(census.exit_code, 2) << census.err;
    }
    const Result r = RunBinary(
        {"kernels", input.string(), "--window", "all", "--output-format", "json"}, {}, dir_);
    EXPECT_EQ(r.exit_code, 65) << Head(r.err);
    EXPECT_NE(FirstLine(r.err).find(input_name), std::string::npos)
        << "the error does not name the file: " << Head(r.err);
    EXPECT_EQ(r.out, "");
    return;
  }

  ASSERT_EQ(census.exit_code, 0) << census.err;
  const json reference = json::parse(census.out);
  const json& devices = reference["devices"];
  ASSERT_FALSE(devices.empty()) << "census.py found no device";
  for (const auto& [device, want] : devices.items()) {
    const std::string where = input_name + " device " + device;
    // --device where the trace has several, as its user must give it.
    std::vector<std::string> device_args;
    if (devices.size() > 1) device_args = {"--device", device};

    std::vector<std::string> args = {"kernels", input.string(),    "--window",
                                     "all",     "--output-format", "json"};
    args.insert(args.end(), device_args.begin(), device_args.end());
    const Result r = RunBinary(args, {}, dir_);
    ASSERT_EQ(r.exit_code, 0) << where << ": " << Head(r.err);
    const json got = json::parse(r.out);
    EXPECT_EQ(got["device"].get<int64_t>(), std::stoll(device)) << where;
    EXPECT_EQ(got["device_dispatches"], want["dispatches"]) << where;
    EXPECT_EQ(got["dispatches"], want["dispatches"]) << where;
    EXPECT_EQ(got["total_ns"], want["total_ns"]) << where;
    EXPECT_EQ(got["rows_omitted"], 0) << where;
    std::map<std::string, int64_t> kinds = {{"kernel", 0}, {"memcpy", 0}, {"memset", 0}};
    Rows got_rows;
    for (const json& row : got["rows"]) {
      const std::string kind = row["kind"].get<std::string>();
      ASSERT_EQ(kinds.count(kind), 1u) << where << ": a row of kind " << kind;
      kinds[kind] += row["calls"].get<int64_t>();
      if (kind == "kernel") {
        got_rows[row["kernel"].get<std::string>()] = {row["calls"].get<int64_t>(),
                                                      row["total_ns"].get<int64_t>()};
      }
    }
    EXPECT_EQ(kinds["kernel"], want["kernels"].get<int64_t>()) << where;
    EXPECT_EQ(kinds["memcpy"], want["memcpy"].get<int64_t>()) << where;
    EXPECT_EQ(kinds["memset"], want["memset"].get<int64_t>()) << where;
    Rows want_rows;
    for (const json& row : want["kernel_rows"]) {
      const std::string name = row[0].is_string() ? row[0].get<std::string>() : "<no name>";
      want_rows[name] = {row[1].get<int64_t>(), row[2].get<int64_t>()};
    }
    ExpectSameRows(want_rows, got_rows, where);

    // The busy time (the union of the dispatches' intervals) is in no output of `kernels`:
    // `summarize --window all` gives it as decode_gpu_busy_ms, milliseconds rounded to 3
    // decimals (whole µs), so it equals census.py's busy_ns within half a µs; the same for the
    // sum of the durations (decode_gpu_sum_ms), whose exact ns `kernels` gave above.
    const fs::path out = dir_ / ("all_" + device);
    std::vector<std::string> summarize = {"summarize",  "--trace", input.string(), "--window",
                                          "all",        "--name",  "all",          "--out-dir",
                                          out.string(), "-q"};
    summarize.insert(summarize.end(), device_args.begin(), device_args.end());
    const Result s = RunBinary(summarize, {}, dir_);
    ASSERT_EQ(s.exit_code, 0) << where << ": " << Head(s.err);
    const json summary = json::parse(Slurp(out / "all_summary.json"));
    EXPECT_EQ(summary["device"].get<int64_t>(), std::stoll(device)) << where;
    EXPECT_EQ(summary["decode_dispatches"], want["dispatches"]) << where;
    EXPECT_NEAR(summary["decode_gpu_busy_ms"].get<double>() * 1e6, want["busy_ns"].get<double>(),
                500.001)
        << where << ": busy";
    EXPECT_NEAR(summary["decode_gpu_sum_ms"].get<double>() * 1e6, want["total_ns"].get<double>(),
                500.001)
        << where << ": sum of durations";
  }
}

INSTANTIATE_TEST_SUITE_P(RealTraces, CensusTest, ::testing::ValuesIn(kCases), ParamName<TraceCase>);

class StepRangeTest : public RealTraceTest, public ::testing::WithParamInterface<StepCase> {};

// The window of --step-range holds the dispatches launched inside the step ranges (a dispatch
// runs after the CPU range that launched it ends: the range's own times cut too few).
TEST_P(StepRangeTest, WindowHoldsTheDispatchesLaunchedInsideTheRanges) {
  Prepare(GetParam().file);
  if (IsSkipped() || HasFatalFailure()) return;
  const Result li = Python({kLaunchedInside.string(), original_.string(), GetParam().glob});
  ASSERT_EQ(li.exit_code, 0) << li.err;
  const json inside = json::parse(li.out);
  const int64_t launched = inside["dispatches_launched_inside"].get<int64_t>();
  ASSERT_GE(inside["ranges_matched"].get<int64_t>(), 1) << "no range matches " << GetParam().glob;
  ASSERT_GT(launched, 0);

  const fs::path input = Input();
  const fs::path out = dir_ / "steps";
  const Result r = RunBinary({"summarize", "--trace", input.string(), "--name", "x", "--out-dir",
                              out.string(), "--step-range", GetParam().glob},
                             {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << Head(r.err);
  const json summary = json::parse(Slurp(out / "x_summary.json"));
  const int64_t window = summary["decode_dispatches"].get<int64_t>();
  EXPECT_GE(window * 100, launched * 95)
      << "--step-range '" << GetParam().glob << "': the window holds " << window << " dispatches; "
      << launched << " were launched inside the " << inside["ranges_matched"].get<int64_t>()
      << " matching range(s)";
}

INSTANTIATE_TEST_SUITE_P(RealTraces, StepRangeTest, ::testing::ValuesIn(kStepCases),
                         ParamName<StepCase>);

// The engine traces' step names, as analysis/engine_steps.h reads them: one step each.
struct EngineStepCase {
  std::string file;
  std::string rule;
  std::vector<std::string> also_found;
  std::string kind;
  int64_t batch = 0;
  std::optional<int64_t> tokens;
};
const std::vector<EngineStepCase> kEngineStepCases = {
    {"tracelens_sglang_qwen3-8b_prefilldecode_mi300x.json.gz",
     "sglang",
     {"vllm-detailed"},
     "prefill",
     15,
     15360},
    {"tracelens_vllm_prefilldecode_piecewise_graph_execution_mi300.json.gz",
     "vllm-detailed",
     {},
     "mixed",
     46,
     8192},
    {"tracelens_vllm_eager_tp8_rank0_b200.json.gz", "vllm", {}, "prefill", 1, 888},
    {"tracelens_vllm_decode_full_graph_capture_mi300.pt.trace.json.gz",
     "vllm-capture",
     {},
     "capture",
     32,
     std::nullopt},
};
void PrintTo(const EngineStepCase& c, std::ostream* os) { *os << c.file; }

class EngineStepsTest : public RealTraceTest,
                        public ::testing::WithParamInterface<EngineStepCase> {};

TEST_P(EngineStepsTest, SummarizedByTheirOwnStepNames) {
  const EngineStepCase& c = GetParam();
  Prepare(c.file);
  if (IsSkipped() || HasFatalFailure()) return;
  const fs::path input = Input();
  const fs::path out = dir_ / "steps";
  const Result r = RunBinary(
      {"summarize", "--trace", input.string(), "--name", "x", "--out-dir", out.string()}, {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << Head(r.err);
  const json summary = json::parse(Slurp(out / "x_summary.json"));
  EXPECT_EQ(summary["window_source"], "engine-steps");
  const json& e = summary["engine_steps"];
  ASSERT_TRUE(e.is_object()) << summary.dump().substr(0, 600);
  EXPECT_EQ(e["rule"], c.rule);
  EXPECT_EQ(e["also_found"], json(c.also_found));
  EXPECT_EQ(e["window_kind"], c.kind);
  ASSERT_EQ(e["steps"].size(), 1u);
  const json& step = e["steps"][0];
  EXPECT_EQ(step["kind"], c.kind);
  EXPECT_EQ(step["batch"], c.batch);
  EXPECT_EQ(step["tokens"], c.tokens ? json(*c.tokens) : json(nullptr));
  EXPECT_TRUE(step["in_window"].get<bool>());
  ASSERT_EQ(e["kinds"].size(), 1u);
  EXPECT_EQ(e["kinds"][0]["batch_sizes"], json::array({c.batch}));
  // The step's GPU work is what the window holds: the dispatches launched inside its range.
  const json& evidence = summary["window_evidence"];
  EXPECT_EQ(evidence["projection"], "launch");
  EXPECT_GT(step["dispatches"].get<int64_t>(), 0);
  EXPECT_EQ(step["dispatches"], evidence["dispatches_launched_inside"]);
  EXPECT_GT(step["gpu_ms"].get<double>(), 0.0);
  // One step, not a decode: low confidence, said on stderr and in the table.
  EXPECT_EQ(evidence["confidence"], "low");
  EXPECT_NE(r.err.find("the window is the engine's own steps"), std::string::npos) << Head(r.err);
  EXPECT_NE(r.out.find("engine steps: kind"), std::string::npos) << Head(r.out);
  EXPECT_NE(r.out.find("                " + c.kind), std::string::npos) << Head(r.out);
}

INSTANTIATE_TEST_SUITE_P(RealTraces, EngineStepsTest, ::testing::ValuesIn(kEngineStepCases),
                         ParamName<EngineStepCase>);

class PlainSummarizeTest : public RealTraceTest, public ::testing::WithParamInterface<TraceCase> {};

// Every file under `dir` (none when it does not exist).
std::vector<std::string> FilesUnder(const fs::path& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_directory()) files.push_back(e.path().lexically_relative(dir).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// One paragraph: a few lines (the error and its hint), no blank line, not a dump of the file.
void ExpectOneParagraph(const std::string& err) {
  const int64_t lines = std::count(err.begin(), err.end(), '\n');
  EXPECT_FALSE(err.empty());
  EXPECT_LE(lines, 4) << Head(err);
  EXPECT_LE(err.size(), 2000u) << Head(err);
  EXPECT_EQ(err.find("\n\n"), std::string::npos) << Head(err);
}

// None of these traces holds a decode loop: summarize without marks must not pass off what it
// finds as one.
TEST_P(PlainSummarizeTest, RefusesOrSaysTheLoopIsUncertain) {
  Prepare(GetParam().file);
  if (IsSkipped() || HasFatalFailure()) return;
  const fs::path input = Input();
  const fs::path out = dir_ / "plain";
  const Result r = RunBinary(
      {"summarize", "--trace", input.string(), "--name", "x", "--out-dir", out.string()}, {}, dir_);
  if (r.exit_code == 65) {
    ExpectOneParagraph(r.err);
    EXPECT_NE(FirstLine(r.err).find(input.filename().string()), std::string::npos)
        << "the error does not name the trace: " << Head(r.err);
    EXPECT_EQ(FilesUnder(out), std::vector<std::string>{});
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << "neither a refusal (65) nor a summary: " << Head(r.err);
  const json summary = json::parse(Slurp(out / "x_summary.json"));
  bool uncertain = false;
  for (const json& d : summary["diagnostics"]) uncertain |= d["code"] == "decode_loop_uncertain";
  const json& evidence = summary["window_evidence"];
  EXPECT_TRUE(uncertain) << "no decode_loop_uncertain in the summary's diagnostics; the window ("
                         << summary["window_source"]
                         << "): " << summary["decode_dispatches"].get<int64_t>() << " dispatches, "
                         << (evidence.is_object() ? evidence["steps"].dump() : "null")
                         << " steps; stdout: " << FirstLine(r.out);
  std::istringstream lines(r.err);
  bool said = false;
  for (std::string line; std::getline(lines, line);) {
    said |= line.find("decode_loop_uncertain") != std::string::npos;
  }
  EXPECT_TRUE(said) << "no stderr line mentions decode_loop_uncertain: " << Head(r.err);
}

INSTANTIATE_TEST_SUITE_P(RealTraces, PlainSummarizeTest, ::testing::ValuesIn(kCases),
                         ParamName<TraceCase>);

// The files that are no kernel trace, and what decodeprof's refusal must call them.
struct RefusalCase {
  std::string file;
  std::string says;
};
void PrintTo(const RefusalCase& c, std::ostream* os) { *os << c.file; }
const std::vector<RefusalCase> kRefusalCases = {
    {"tracelens_rocprofv3_908_results.json.gz", "rocprofv3's JSON output (--output-format json)"},
    {"hta_cpu_only_rank34.pt.trace.json.gz", "a Chrome-trace JSON without GPU events"},
    {"dynamicvit_nsys_empty_profile.sqlite", "dynamicvit_nsys_empty_profile.sqlite"},
};

class RefusalTest : public RealTraceTest, public ::testing::WithParamInterface<RefusalCase> {};

// A refusal says what the file is in at most three lines and quotes no more than 200 bytes of
// it (the rocprofv3 JSON is one 37 MB line).
TEST_P(RefusalTest, SaysWhatTheFileIsInAFewLines) {
  Prepare(GetParam().file);
  if (IsSkipped() || HasFatalFailure()) return;
  const Result r = RunBinary({"kernels", Input().string()}, {}, dir_);
  EXPECT_EQ(r.exit_code, 65) << Head(r.err);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(FirstLine(r.err).find(GetParam().says), std::string::npos) << Head(r.err);
  EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 3) << Head(r.err);
  EXPECT_LE(r.err.size(), 200u + 2 * Input().string().size() + 400u) << Head(r.err);
}

INSTANTIATE_TEST_SUITE_P(RealTraces, RefusalTest, ::testing::ValuesIn(kRefusalCases),
                         ParamName<RefusalCase>);

// vLLM on ROCm (MI300, gpt-oss's MXFP4 experts in triton_kernels' Triton MoE): the pack chosen
// from the names is pytorch-rocm, the _matmul_ogs_ GEMMs (most of the GPU time) are the MoE
// unit's grouped GEMMs, no large kernel is left in class other, and the copies are HIP's.
TEST_F(RealTraceTest, VllmRocmMoeKernelsAreClassedAndCopiesAreHips) {
  Prepare("tracelens_vllm_prefilldecode_piecewise_graph_execution_mi300.json.gz");
  if (IsSkipped() || HasFatalFailure()) return;
  const fs::path input = Input();
  const fs::path out = dir_ / "moe";
  const Result r = RunBinary({"summarize", "--trace", input.string(), "--name", "x", "--out-dir",
                              out.string(), "--window", "all"},
                             {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << Head(r.err);
  EXPECT_NE(r.err.find("pack pytorch-rocm (chosen from the kernel names"), std::string::npos)
      << Head(r.err);
  const json summary = json::parse(Slurp(out / "x_summary.json"));
  EXPECT_EQ(summary["pack"], "pytorch-rocm");
  for (const json& d : summary["diagnostics"]) {
    EXPECT_NE(d["code"], "large_kernel_unclassified") << d.dump();
  }
  EXPECT_GT(summary["class_share_pct"]["grouped_gemm"].get<double>(), 60.0);
  int matmul_ogs = 0;
  for (const json& k : summary["top_kernels"]) {
    const std::string name = k["kernel"].get<std::string>();
    if (name.rfind("_matmul_ogs_", 0) == 0) {
      ++matmul_ogs;
      EXPECT_EQ(k["class"], "grouped_gemm") << name;
    }
    EXPECT_EQ(name.find("[CUDA memcpy"), std::string::npos) << name;
  }
  EXPECT_EQ(matmul_ogs, 2);
  const std::string csv = Slurp(out / "x_decode_kernels.csv");
  EXPECT_NE(csv.find("[HIP memcpy Host-to-Device],memcpy"), std::string::npos);
  EXPECT_EQ(csv.find("[CUDA memcpy"), std::string::npos);
}

// A dense Llama's vLLM decode on ROCm (a graph capture): the embedding lookup (a gather) and
// the fills are no MoE work, and the copies are HIP's.
TEST_F(RealTraceTest, DenseModelsGatherIsNoMoeWork) {
  Prepare("tracelens_vllm_decode_full_graph_capture_mi300.pt.trace.json.gz");
  if (IsSkipped() || HasFatalFailure()) return;
  const fs::path input = Input();
  const fs::path out = dir_ / "dense";
  const Result r = RunBinary({"summarize", "--trace", input.string(), "--name", "x", "--out-dir",
                              out.string(), "--window", "all"},
                             {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << Head(r.err);
  const json summary = json::parse(Slurp(out / "x_summary.json"));
  EXPECT_EQ(summary["pack"], "pytorch-rocm");  // a HIP trace of PyTorch's names alone
  bool gather = false;
  for (const json& k : summary["top_kernels"]) {
    const std::string name = k["kernel"].get<std::string>();
    gather |= name.find("vectorized_gather_kernel") != std::string::npos;
    EXPECT_EQ(name.find("[CUDA memcpy"), std::string::npos) << name;
  }
  EXPECT_TRUE(gather);
  ASSERT_TRUE(summary["port_units"].contains("fused_moe"));
  EXPECT_EQ(summary["port_units"]["fused_moe"]["fallback_share_pct"], 0.0)
      << summary["port_units"]["fused_moe"].dump();
  const std::string csv = Slurp(out / "x_decode_kernels.csv");
  EXPECT_EQ(csv.find("fused_moe"), std::string::npos) << csv;
  EXPECT_NE(csv.find("[HIP memcpy Device-to-Device]"), std::string::npos) << csv;
}

// Engine steps of separate processes, each "rank 0" by torch.profiler's distributedInfo (a
// tensor-parallel rank 0 of 8, two one-GPU processes): reported together as separate runs,
// without a rank table, every one left out of the headline (no model named, 2 tokens).
class EngineReportTest : public RealTraceTest {};

TEST_F(EngineReportTest, RankZeroOfSeparateEnginesReportTogether) {
  const std::vector<StepCase> engines = {kStepCases[0], kStepCases[1], kStepCases[2]};
  Prepare(engines[0].file);
  if (IsSkipped() || HasFatalFailure()) return;
  const fs::path out = dir_ / "runs";
  for (const StepCase& engine : engines) {
    original_ = kTraces / engine.file;
    const Result r = RunBinary({"summarize", "--trace", Input().string(), "--out-dir", out.string(),
                                "--step-range", engine.glob, "--quiet"},
                               {}, dir_);
    ASSERT_EQ(r.exit_code, 0) << engine.file << ": " << Head(r.err);
  }
  const Result md = RunBinary({"report", out.string()}, {}, dir_);
  ASSERT_EQ(md.exit_code, 0) << Head(md.err);
  EXPECT_EQ(md.out.find("| rank | run |"), std::string::npos) << Head(md.out, 4000);
  EXPECT_NE(md.out.find("(rank 0 of 8): one rank of a larger job"), std::string::npos)
      << Head(md.out, 4000);
  EXPECT_NE(md.out.find(": rank 0 of a world of 1, a single process"), std::string::npos);
  EXPECT_NE(md.out.find("**Left out of the headline**: 3 of 3 runs"), std::string::npos);
  const Result js = RunBinary({"report", out.string(), "--format", "json"}, {}, dir_);
  ASSERT_EQ(js.exit_code, 0) << Head(js.err);
  const json doc = json::parse(js.out);
  EXPECT_EQ(doc["runs"].size(), 3u);
  EXPECT_TRUE(doc["do_first"]["provisional"].get<bool>());
  EXPECT_EQ(doc["ranks"]["tables"].size(), 0u);
  EXPECT_EQ(RunBinary({"report", out.string(), "--fail-on", "flags"}, {}, dir_).exit_code, 1);
}

// The cases above are SOURCES.md's table: a trace added there is added here too.
TEST(RealTracesSourcesTest, TableListsTheseFiles) {
  if (!fs::is_directory(kTraces)) {
    GTEST_SKIP() << "the real traces are not here: " << kTraces.string()
                 << " (../shared/real-traces/ next to the repository) is absent";
  }
  std::istringstream text(Slurp(kTraces / "SOURCES.md"));
  std::vector<std::string> listed;
  for (std::string line; std::getline(text, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const size_t end = line.find('`', 3);
    if (end != std::string::npos) listed.push_back(line.substr(3, end - 3));
  }
  std::vector<std::string> ours;
  for (const TraceCase& c : kCases) ours.push_back(c.file);
  std::sort(listed.begin(), listed.end());
  std::sort(ours.begin(), ours.end());
  EXPECT_EQ(listed, ours);
}

}  // namespace
