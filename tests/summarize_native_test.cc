// `decodeprof summarize` on a native trace: phase marks from NVTX ranges decodeprof:*, tokens
// from step ranges, engine range names, and the default CUDA pack.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "src/native_format/native_writer.h"
#include "tests/cli_runner.h"

namespace fs = std::filesystem;
using decodeprof::native_format::KernelRow;
using decodeprof::native_format::NativeWriter;
using decodeprof::native_format::RangeRow;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;

namespace {

class SummarizeNativeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dp_native_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A warmup, then a decode range of 3 steps (4 tokens) holding 2 kernels per step.
  std::string WriteTrace(const std::string& decode_name, const std::string& step_name) {
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
    EXPECT_TRUE(w.Close().ok());
    return path;
  }

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
  EXPECT_EQ(s["port_units"], nlohmann::json::object());
}

TEST_F(SummarizeNativeTest, EngineRangeNamesAndExplicitTokens) {
  const std::string trace = WriteTrace("generate", "forward");
  const auto missing = RunBinary(
      {"summarize", "--trace", trace, "--name", "n", "--out-dir", (dir_ / "out").string()}, {},
      dir_);
  EXPECT_EQ(missing.exit_code, 65);
  EXPECT_NE(missing.err.find("no range named 'decodeprof:decode'"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));

  const auto r = RunBinary(
      {"summarize", "--trace", trace, "--decode-range", "generate", "--step-range", "forward",
       "--generated-tokens", "10", "--name", "n", "--out-dir", (dir_ / "out").string()},
      {}, dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = nlohmann::json::parse(Slurp(dir_ / "out" / "n_summary.json"));
  EXPECT_EQ(s["generated_tokens"], 10);
  EXPECT_EQ(s["decode_dispatches"], 6);
}

}  // namespace
