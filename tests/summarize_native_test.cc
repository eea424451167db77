// `decodeprof summarize` on a native trace: phase marks from NVTX ranges decodeprof:*, tokens
// from step ranges, engine range names, and the default CUDA pack.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "src/native_format/native_writer.h"
#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::native_format::ApiCallRow;
using decodeprof::native_format::KernelRow;
using decodeprof::native_format::NativeWriter;
using decodeprof::native_format::RangeRow;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;

namespace {

class SummarizeNativeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_.path();
    fs::create_directories(dir_ / "out");
  }

  // A warmup, then a decode range of 3 steps (4 tokens) holding 2 kernels per step.
  std::string WriteTrace(const std::string& decode_name, const std::string& step_name,
                         int64_t dropped = 0) {
    const std::string path = (dir_ / "run.sqlite").string();
    auto writer = NativeWriter::Create(path, "monotonic", "test");
    EXPECT_TRUE(writer.ok());
    NativeWriter& w = **writer;
    const auto gemv = *w.Intern("void gemv2T_kernel_val<int, int, __nv_bfloat16>(params)");
    const auto add = *w.Intern(
        "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>()");
    const auto range = [&](const std::string& name, int64_t s, int64_t e, int depth) {
      RangeRow r;
      r.start_ns = s;
      r.end_ns = e;
      r.name = *w.Intern(name);
      r.domain = *w.Intern("");
      r.thread = 7;
      r.depth = depth;
      EXPECT_TRUE(w.AddRange(r).ok());
    };
    range("decodeprof:warmup", 100, 900, 0);
    KernelRow k;
    k.start_ns = 200;
    k.end_ns = 300;
    k.name = k.mangled = gemv;
    k.grid[0] = 64;
    EXPECT_TRUE(w.AddKernel(k).ok());
    range(decode_name, 1000, 2000, 0);
    for (int step = 0; step < 3; ++step) {
      const int64_t t = 1000 + step * 300;
      range(step_name, t, t + 300, 1);
      k.start_ns = t + 10;
      k.end_ns = t + 110;
      k.name = k.mangled = gemv;
      EXPECT_TRUE(w.AddKernel(k).ok());
      k.start_ns = t + 120;
      k.end_ns = t + 140;
      k.name = k.mangled = add;
      EXPECT_TRUE(w.AddKernel(k).ok());
    }
    if (dropped > 0) {
      EXPECT_TRUE(w.SetCounter("cupti_dropped_records", dropped).ok());
    }
    EXPECT_TRUE(w.Close().ok());
    return path;
  }

  decodeprof::testing::TempDir temp_{"dp_native_"};
  fs::path dir_;
};

TEST_F(SummarizeNativeTest, MarksFromNvtxRanges) {
  const std::string trace = WriteTrace("decodeprof:decode", "decodeprof:step");
  const auto r = RunBinary(
      {"summarize", "--trace", trace, "--name", "n", "--out-dir", (dir_ / "out").string()}, {},
      dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("pack pytorch-cuda"), std::string::npos) << r.err;
  const auto s = nlohmann::json::parse(Slurp(dir_ / "out" / "n_summary.json"));
  EXPECT_EQ(s["clock"], "monotonic");
  EXPECT_EQ(s["generated_tokens"], 4);  // 3 steps + the prefill's token
  EXPECT_EQ(s["decode_forward_passes"], 3);
  EXPECT_EQ(s["decode_dispatches"], 6);
  EXPECT_EQ(s["decode_gpu_sum_ms"], 0.0);    // 360 ns, rounded to 3 places of ms
  EXPECT_EQ(s["gpu_ms_per_token"], 0.0001);  // 360 ns / 4 tokens, rounded to 4 places
  EXPECT_EQ(s["class_share_pct"]["gemv"], 83.33);
  EXPECT_EQ(s["class_share_pct"]["elementwise"], 16.67);
  EXPECT_EQ(s["port_units"]["cuda_graph"]["host_gap"], "all");  // default_units h200-decode
}

TEST_F(SummarizeNativeTest, EngineRangeNamesAndExplicitTokens) {
  const std::string trace = WriteTrace("generate", "forward");
  // Without decodeprof's names the finder looks in the kernels: 3 repeats of (gemv, add) are no
  // forward pass (two kernels, no token boundary), so it refuses, naming the ranges that
  // repeat, and writes nothing.
  const auto found = RunBinary(
      {"summarize", "--trace", trace, "--name", "f", "--out-dir", (dir_ / "out").string()}, {},
      dir_);
  ASSERT_EQ(found.exit_code, 65) << found.err;
  EXPECT_NE(found.err.find("found no decode loop in 7 dispatches"), std::string::npos) << found.err;
  EXPECT_NE(found.err.find("a forward pass holds at least 4"), std::string::npos) << found.err;
  EXPECT_NE(found.err.find("ranges that repeat: 'forward' (3)"), std::string::npos) << found.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "f_summary.json"));

  // A --decode-range the trace lacks is an error that lists the ranges that repeat.
  const auto missing = RunBinary({"summarize", "--trace", trace, "--decode-range", "gen*x",
                                  "--name", "n", "--out-dir", (dir_ / "out").string()},
                                 {}, dir_);
  EXPECT_EQ(missing.exit_code, 65);
  EXPECT_NE(missing.err.find("no range matches --decode-range 'gen*x'"), std::string::npos)
      << missing.err;
  EXPECT_NE(missing.err.find("ranges that repeat: 'forward' (3)"), std::string::npos)
      << missing.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "n_summary.json"));

  const auto r = RunBinary(
      {"summarize", "--trace", trace, "--decode-range", "generate", "--step-range", "forward",
       "--generated-tokens", "4", "--name", "n", "--out-dir", (dir_ / "out").string()},
      {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = nlohmann::json::parse(Slurp(dir_ / "out" / "n_summary.json"));
  EXPECT_EQ(s["generated_tokens"], 4);
  EXPECT_EQ(s["decode_dispatches"], 6);
  EXPECT_EQ(s["window_source"], "ranges");
  EXPECT_EQ(s["window_evidence"]["range"], "generate");

  // Globs: the step ranges alone span the window when there is no decode range.
  const auto steps = RunBinary({"summarize", "--trace", trace, "--step-range", "for*", "--name",
                                "g", "--out-dir", (dir_ / "out").string()},
                               {}, dir_);
  ASSERT_EQ(steps.exit_code, 0) << steps.err;
  const auto g = nlohmann::json::parse(Slurp(dir_ / "out" / "g_summary.json"));
  EXPECT_EQ(g["window_source"], "ranges");
  EXPECT_EQ(g["window_evidence"]["steps"], 3);
  EXPECT_EQ(g["generated_tokens"], 4);
  EXPECT_EQ(g["decode_dispatches"], 6);

  // --window all and START..END.
  const auto all = RunBinary({"summarize", "--trace", trace, "--window", "all", "--name", "a",
                              "--generated-tokens", "4", "--out-dir", (dir_ / "out").string()},
                             {}, dir_);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto a = nlohmann::json::parse(Slurp(dir_ / "out" / "a_summary.json"));
  EXPECT_EQ(a["window_source"], "all");
  EXPECT_EQ(a["decode_dispatches"], 7);
  const auto bad = RunBinary({"summarize", "--trace", trace, "--window", "9..3", "--name", "b",
                              "--out-dir", (dir_ / "out").string()},
                             {}, dir_);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--window 9..3: the start is after the end"), std::string::npos)
      << bad.err;
}

// --name defaults to the trace's stem and --out-dir to the working directory; without
// --quiet a short table follows the one-line result.
TEST_F(SummarizeNativeTest, DefaultsAndTheShortTable) {
  const std::string trace = WriteTrace("decodeprof:decode", "decodeprof:step");
  const fs::path renamed = dir_ / "my.run.sqlite";
  fs::rename(trace, renamed);
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_ / "out");  // the binary inherits it
  const auto r = RunBinary({"summarize", "--trace", renamed.string()}, {}, dir_);
  const auto q = RunBinary({"summarize", "--trace", renamed.string(), "--quiet"}, {}, dir_);
  fs::current_path(cwd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The default name: the file name without its trace extension, other dots kept.
  EXPECT_TRUE(fs::exists(dir_ / "out" / "my.run_summary.json"));
  EXPECT_EQ(r.out.rfind("my.run: 6 decode dispatches, ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n  window:     the trace's ranges (decodeprof:decode)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  per token:  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  top kernels (share of GPU time):\n"), std::string::npos) << r.out;
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(std::count(q.out.begin(), q.out.end(), '\n'), 1) << q.out;
}

// An engine's own per-step ranges (torch.profiler's ProfilerStep#N): the first holds the
// prefill (many more dispatches) and is left out of the window by --step-range's glob.
TEST_F(SummarizeNativeTest, StepRangeGlobLeavesThePrefillStepOut) {
  const std::string path = (dir_ / "steps.sqlite").string();
  {
    auto writer = NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    NativeWriter& w = **writer;
    const auto kernel = *w.Intern("void gemv2T_kernel_val<int, int, __nv_bfloat16>(params)");
    int64_t t = 1000;
    for (int step = 1; step <= 5; ++step) {
      RangeRow r;
      r.start_ns = t;
      r.name = *w.Intern("ProfilerStep#" + std::to_string(step));
      r.domain = *w.Intern("");
      const int kernels = step == 1 ? 6 : 2;
      for (int k = 0; k < kernels; ++k) {
        KernelRow row;
        row.start_ns = t + 10;
        row.end_ns = t + 60;
        row.name = row.mangled = kernel;
        ASSERT_TRUE(w.AddKernel(row).ok());
        t += 100;
      }
      r.end_ns = t;
      t += 500;
      ASSERT_TRUE(w.AddRange(r).ok());
    }
    ASSERT_TRUE(w.Close().ok());
  }
  const auto r = RunBinary({"summarize", "--trace", path, "--step-range", "ProfilerStep#*",
                            "--name", "s", "--out-dir", (dir_ / "out").string()},
                           {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = nlohmann::json::parse(Slurp(dir_ / "out" / "s_summary.json"));
  EXPECT_EQ(s["window_source"], "ranges");
  EXPECT_EQ(s["window_evidence"]["range"], "ProfilerStep#*");
  EXPECT_EQ(s["window_evidence"]["steps"], 4);
  EXPECT_EQ(s["window_evidence"]["skipped_steps"], 1);
  EXPECT_EQ(s["window_evidence"]["deviated_steps"], 0);
  EXPECT_EQ(s["decode_forward_passes"], 4);
  EXPECT_EQ(s["decode_dispatches"], 8);
}

// An SGLang trace without flags: a prefill step and two decode steps, named as SGLang names
// them, cut the window by themselves; two decode steps are a warning (engine_steps_few); the
// summary and the terminal table give each kind with its batch.
TEST_F(SummarizeNativeTest, FewEngineDecodeStepsAreAWarning) {
  const std::string path = (dir_ / "sglang.sqlite").string();
  {
    auto writer = NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    NativeWriter& w = **writer;
    const auto kernel = *w.Intern("void gemv2T_kernel_val<int, int, __nv_bfloat16>(params)");
    int64_t t = 1'000'000;
    const std::vector<std::pair<std::string, int>> steps = {
        {"step[EXTEND bs=2 toks=64]", 6}, {"step[DECODE bs=2]", 2}, {"step[DECODE bs=2]", 2}};
    for (const auto& [name, kernels] : steps) {
      RangeRow r;
      r.start_ns = t;
      r.name = *w.Intern(name);
      r.domain = *w.Intern("");
      for (int k = 0; k < kernels; ++k) {
        KernelRow row;
        row.start_ns = t + 10'000;
        row.end_ns = t + 60'000;
        row.name = row.mangled = kernel;
        ASSERT_TRUE(w.AddKernel(row).ok());
        t += 100'000;
      }
      r.end_ns = t;
      t += 500'000;
      ASSERT_TRUE(w.AddRange(r).ok());
    }
    ASSERT_TRUE(w.Close().ok());
  }
  const auto r =
      RunBinary({"summarize", "--trace", path, "--name", "s", "--out-dir", (dir_ / "out").string()},
                {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = nlohmann::json::parse(Slurp(dir_ / "out" / "s_summary.json"));
  EXPECT_EQ(s["window_source"], "engine-steps");
  EXPECT_EQ(s["decode_dispatches"], 4);
  EXPECT_EQ(s["window_evidence"]["range"], "sglang");
  EXPECT_EQ(s["window_evidence"]["confidence"], "high");
  const auto& e = s["engine_steps"];
  EXPECT_EQ(e["rule"], "sglang");
  EXPECT_EQ(e["window_kind"], "decode");
  ASSERT_EQ(e["kinds"].size(), 2u);
  EXPECT_EQ(e["kinds"][0]["kind"], "decode");
  EXPECT_EQ(e["kinds"][0]["steps"], 2);
  EXPECT_EQ(e["kinds"][0]["batch_sizes"], nlohmann::json::array({2}));
  EXPECT_EQ(e["kinds"][0]["gpu_ms_p50"], 0.1);  // 2 kernels of 50 µs each
  EXPECT_EQ(e["kinds"][1]["kind"], "prefill");
  EXPECT_EQ(e["kinds"][1]["tokens"], nlohmann::json::array({64}));
  EXPECT_EQ(e["steps"].size(), 3u);
  bool few = false;
  for (const auto& d : s["diagnostics"]) few |= d["code"] == "engine_steps_few";
  EXPECT_TRUE(few) << s["diagnostics"].dump();
  EXPECT_NE(r.err.find("engine_steps_few"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the window is the engine's own steps (SGLang step names, rule sglang)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("engine steps: kind"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("prefill"), std::string::npos) << r.out;
}

// Two engines' names that disagree: exit 65, no output file.
TEST_F(SummarizeNativeTest, EngineStepNamesThatDisagreeAreRefused) {
  const std::string path = (dir_ / "both.sqlite").string();
  {
    auto writer = NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    NativeWriter& w = **writer;
    const auto kernel = *w.Intern("void gemv2T_kernel_val<int, int, __nv_bfloat16>(params)");
    for (int i = 0; i < 3; ++i) {
      const int64_t t = 1'000'000 * (i + 1);
      for (const char* name : {"step[DECODE bs=4]", "execute_context_4(40)_generation_0(0)"}) {
        RangeRow r;
        r.start_ns = t;
        r.end_ns = t + 100'000;
        r.name = *w.Intern(name);
        r.domain = *w.Intern("");
        ASSERT_TRUE(w.AddRange(r).ok());
      }
      KernelRow row;
      row.start_ns = t + 10'000;
      row.end_ns = t + 60'000;
      row.name = row.mangled = kernel;
      ASSERT_TRUE(w.AddKernel(row).ok());
    }
    ASSERT_TRUE(w.Close().ok());
  }
  const auto r =
      RunBinary({"summarize", "--trace", path, "--name", "s", "--out-dir", (dir_ / "out").string()},
                {}, dir_);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("both.sqlite"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'sglang' (3 decode) and 'vllm' (3 prefill)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "s_summary.json"));
}

// Op-path roles: a decode of 2 steps with module ranges (examples/hf_decode
// --module-ranges) and launch records. Per step, 200 ns of kernels: input norm 10, q_proj
// 40, attention core 20, mlp 80, residual add 10 (in the layer, outside its modules), a
// sampler kernel 20 (outside the model) and a kernel without a launch record 20.
TEST_F(SummarizeNativeTest, OpPathRolesFromModuleRanges) {
  const std::string path = (dir_ / "ops.sqlite").string();
  {
    auto writer = NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    NativeWriter& w = **writer;
    const auto domain = *w.Intern("");
    const auto launch = *w.Intern("cudaLaunchKernel");
    const auto range = [&](const std::string& name, int64_t s, int64_t e, int depth) {
      RangeRow r;
      r.start_ns = s;
      r.end_ns = e;
      r.name = *w.Intern(name);
      r.domain = domain;
      r.thread = 7;
      r.depth = depth;
      EXPECT_TRUE(w.AddRange(r).ok());
    };
    uint32_t correlation = 0;
    // A kernel launched at `at` (no launch record when `at` < 0), run at [gpu, gpu + ns).
    const auto kernel = [&](const std::string& name, int64_t at, int64_t gpu, int64_t ns) {
      KernelRow k;
      k.start_ns = gpu;
      k.end_ns = gpu + ns;
      k.name = k.mangled = *w.Intern(name);
      k.grid[0] = 1;
      k.correlation = ++correlation;
      EXPECT_TRUE(w.AddKernel(k).ok());
      if (at < 0) return;
      ApiCallRow a;
      a.start_ns = at;
      a.end_ns = at + 1;
      a.name = launch;
      a.thread = 7;
      a.correlation = k.correlation;
      EXPECT_TRUE(w.AddApiCall(a).ok());
    };
    range("decodeprof:decode", 1000, 3000, 0);
    for (int step = 0; step < 2; ++step) {
      const int64_t t = 1000 + step * 1000;
      range("decodeprof:step", t, t + 1000, 1);
      range("LlamaForCausalLM", t, t + 500, 2);
      range("LlamaDecoderLayer:model.layers.0", t + 10, t + 400, 3);
      range("LlamaRMSNorm:model.layers.0.input_layernorm", t + 10, t + 20, 4);
      range("LlamaAttention:model.layers.0.self_attn", t + 20, t + 200, 4);
      range("Linear:model.layers.0.self_attn.q_proj", t + 30, t + 40, 5);
      range("LlamaMLP:model.layers.0.mlp", t + 200, t + 300, 4);
      const int64_t g = t + 500;  // the GPU runs behind the host
      kernel("void at::native::rms_norm_kernel<float>()", t + 15, g, 10);
      kernel("void gemv2T_kernel_val<int, int, __nv_bfloat16>(params)", t + 35, g + 10, 40);
      kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop", t + 100, g + 50, 20);
      kernel("void gemv2T_kernel_val<int, int, float>(params)", t + 250, g + 70, 80);
      kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>()",
             t + 350, g + 150, 10);
      kernel("void at::native::reduce_kernel<512, 1, ArgMaxOps<float>>()", t + 600, g + 160, 20);
      kernel("void at::native::index_elementwise_kernel<128, 4>()", -1, g + 180, 20);
    }
    ASSERT_TRUE(w.Close().ok());
  }
  const auto r =
      RunBinary({"summarize", "--trace", path, "--name", "n", "--out-dir", (dir_ / "out").string()},
                {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = nlohmann::json::parse(Slurp(dir_ / "out" / "n_summary.json"));
  EXPECT_EQ(s["decode_dispatches"], 14);
  const auto expected = nlohmann::json::parse(R"({
    "mlp": 40.0, "q_proj": 20.0, "unattributed": 20.0, "attention": 10.0,
    "input_norm": 5.0, "residual": 5.0})");
  EXPECT_EQ(s["role_share_pct"], expected) << s["role_share_pct"].dump();
  EXPECT_EQ(s["role_dispatches_per_token"]["unattributed"], 1.3);  // 4 over 3 tokens
  EXPECT_EQ(s["warnings"], nlohmann::json::array());
}

// Without launch records the op-path rules are skipped, and the summary says so.
TEST_F(SummarizeNativeTest, OpPathRulesSkippedWithoutLaunchRecords) {
  const std::string trace = WriteTrace("decodeprof:decode", "decodeprof:step");
  const auto r = RunBinary(
      {"summarize", "--trace", trace, "--name", "n", "--out-dir", (dir_ / "out").string()}, {},
      dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = nlohmann::json::parse(Slurp(dir_ / "out" / "n_summary.json"));
  EXPECT_EQ(s["role_share_pct"], nlohmann::json::parse(R"({"unattributed": 100.0})"));
  ASSERT_EQ(s["warnings"].size(), 1u);
  EXPECT_NE(s["warnings"][0].get<std::string>().find("op_path rules were skipped"),
            std::string::npos);
}

// What summarize prints on stderr: every diagnostic of warning severity or worse, as a table.
TEST_F(SummarizeNativeTest, DiagnosticsArePrintedAsATable) {
  const std::string trace = WriteTrace("decodeprof:decode", "decodeprof:step", 12);
  const auto r = RunBinary(
      {"summarize", "--trace", trace, "--name", "n", "--out-dir", (dir_ / "out").string()}, {},
      dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Its kernels are PyTorch's and two of another engine's: a weak pack choice, a warning.
  EXPECT_NE(r.err.find("decodeprof: summarize: 3 diagnostics (the summary's \"diagnostics\"):\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("  data-loss  cupti_dropped_records            12  CUPTI dropped activity "
                       "records (its buffers were full): GPU work is missing [" +
                       trace + ": table counters: cupti_dropped_records = 12]\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("  warning    role_rule_warning                 1  "), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("  warning    pack_choice_weak                  1  "), std::string::npos)
      << r.err;
  const auto s = nlohmann::json::parse(Slurp(dir_ / "out" / "n_summary.json"));
  EXPECT_EQ(s["diagnostics"][0]["code"], "cupti_dropped_records");
}

TEST_F(SummarizeNativeTest, DeviceOptionPicksADevice) {
  const std::string trace = WriteTrace("decodeprof:decode", "decodeprof:step");
  auto r = RunBinary({"summarize", "--trace", trace, "--name", "n", "--out-dir",
                      (dir_ / "out").string(), "--device", "1"},
                     {}, dir_);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("the trace has no dispatch on device 1 (device 0: 7 dispatches)"),
            std::string::npos)
      << r.err;
  r = RunBinary({"summarize", "--trace", trace, "--name", "n", "--out-dir", (dir_ / "out").string(),
                 "--device", "0"},
                {}, dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunBinary({"summarize", "--trace", trace, "--name", "n", "--out-dir", (dir_ / "out").string(),
                 "--device", "-1"},
                {}, dir_);
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
