#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/synth_models.h"
#include "bench/synth_run.h"
#include "bench/synth_trace_sink.h"

namespace decodeprof::bench {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path TempDir(const std::string& tag) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path p = fs::temp_directory_path() /
               ("dp_gen_" + std::string(info->name()) + "_" + tag + "_" + std::to_string(getpid()));
  fs::remove_all(p);
  return p;
}

// Splits one rocprofv3 row: quoted fields hold no quotes, so a quote toggles the state.
std::vector<std::string> SplitRow(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

struct Row {
  std::string name;
  uint64_t start;
  uint64_t end;
};

std::vector<Row> ReadTrace(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);  // header
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    auto f = SplitRow(line);
    EXPECT_EQ(f.size(), 22u) << line;
    if (f.size() != 22) break;
    rows.push_back({f[7], std::stoull(f[9]), std::stoull(f[10])});
  }
  return rows;
}

// label → {monotonic, boottime} from the [phase] lines.
std::map<std::string, std::pair<uint64_t, uint64_t>> Marks(const std::string& log) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> marks;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("[phase] ")) continue;
    std::istringstream ls(line.substr(8));
    std::string label, mono, boot;
    ls >> label >> mono >> boot;
    marks[label] = {std::stoull(mono.substr(mono.find('=') + 1)),
                    std::stoull(boot.substr(boot.find('=') + 1))};
  }
  return marks;
}

size_t CountContaining(const ModelProgram& p, const KernelTable& t, std::string_view needle) {
  return static_cast<size_t>(std::count_if(
      p.decode_step.begin(), p.decode_step.end(),
      [&](const Op& op) { return t.at(op.kernel).name.find(needle) != std::string::npos; }));
}

GenOptions SmallRun(const fs::path& dir) {
  GenOptions o;
  o.model = ModelKind::kLlama;
  o.tokens = 4;
  o.warmup_tokens = 2;
  o.prompt_tokens = 64;
  o.name = "small";
  o.out_dir = dir.string();
  return o;
}

TEST(GenDecodeTraceTest, DecodeStepSizesMatchTheDesign) {
  const std::map<ModelKind, size_t> greedy = {
      {ModelKind::kLlama, 489}, {ModelKind::kQwen3Moe, 1545}, {ModelKind::kMamba2Hybrid, 3207}};
  for (const auto& [kind, size] : greedy) {
    KernelTable t1, t2, t3;
    EXPECT_EQ(BuildProgram(kind, Sampler::kGreedy, 512, &t1).decode_step.size(), size);
    EXPECT_EQ(BuildProgram(kind, Sampler::kSampled, 512, &t2).decode_step.size(), size + 29);
    EXPECT_EQ(BuildProgram(kind, Sampler::kTopP, 512, &t3).decode_step.size(), size + 61);
  }
}

TEST(GenDecodeTraceTest, PerLayerKernelCountsMatchTheSeedsSanityChecks) {
  KernelTable q;
  const ModelProgram qwen = BuildProgram(ModelKind::kQwen3Moe, Sampler::kGreedy, 512, &q);
  EXPECT_EQ(CountContaining(qwen, q, "gather_qmv_wide_kernel"), 48u * 3);
  EXPECT_EQ(CountContaining(qwen, q, "qmv_wide_kernel"), 48u * 3 + 48 * 3 + 1);
  EXPECT_EQ(CountContaining(qwen, q, "arange_kernel<unsigned int>"), 48u * 3);
  EXPECT_EQ(CountContaining(qwen, q, "block_sort_kernel"), 48u);
  EXPECT_EQ(CountContaining(qwen, q, "::Divide,"), 48u);

  KernelTable g;
  const ModelProgram hybrid = BuildProgram(ModelKind::kMamba2Hybrid, Sampler::kGreedy, 512, &g);
  EXPECT_EQ(CountContaining(hybrid, g, "depthwise_conv1d_kernel"), 36u);
  EXPECT_EQ(CountContaining(hybrid, g, "gather_qmv_wide_kernel"), 40u * 3);
  EXPECT_EQ(CountContaining(hybrid, g, "kernel_sdpav_1pass"), 4u);
  EXPECT_EQ(CountContaining(hybrid, g, "binary_g<mlx::core::rocm::Multiply, float"), 36u * 5);

  KernelTable l;
  const ModelProgram llama = BuildProgram(ModelKind::kLlama, Sampler::kGreedy, 512, &l);
  EXPECT_EQ(CountContaining(llama, l, "rope_single_freqs_1d"), 64u);
  EXPECT_EQ(CountContaining(llama, l, "copy_gg_byval"), 64u);
  EXPECT_EQ(CountContaining(llama, l, "kernel_sdpav_1pass"), 32u);
}

TEST(GenDecodeTraceTest, LmHeadIsTheOnlyWidestQmvOfAStep) {
  for (ModelKind kind : {ModelKind::kLlama, ModelKind::kQwen3Moe, ModelKind::kMamba2Hybrid}) {
    KernelTable t;
    const ModelProgram p = BuildProgram(kind, Sampler::kTopP, 512, &t);
    uint64_t widest = 0;
    size_t widest_at = 0;
    int count = 0;
    for (size_t i = 0; i < p.decode_step.size(); ++i) {
      const Op& op = p.decode_step[i];
      const std::string& name = t.at(op.kernel).name;
      if (name.find("qmv_wide_kernel") == std::string::npos || name.find("gather") != name.npos) {
        continue;
      }
      const uint64_t grid = uint64_t{op.grid_x} * op.grid_y * op.grid_z;
      if (grid > widest) {
        widest = grid;
        widest_at = i;
        count = 1;
      } else if (grid == widest) {
        ++count;
      }
    }
    EXPECT_EQ(count, 1);
    // Only the sampler tail follows it: no GEMV, norm or attention after the head.
    for (size_t i = widest_at + 1; i < p.decode_step.size(); ++i) {
      const std::string& name = t.at(p.decode_step[i].kernel).name;
      EXPECT_EQ(name.find("qmv"), std::string::npos) << name;
      EXPECT_EQ(name.find("rms_norm"), std::string::npos) << name;
    }
  }
}

TEST(GenDecodeTraceTest, SameArgumentsGiveByteIdenticalFiles) {
  const fs::path a = TempDir("a");
  const fs::path b = TempDir("b");
  const fs::path c = TempDir("c");
  ASSERT_TRUE(GenerateRun(SmallRun(a)).ok());
  ASSERT_TRUE(GenerateRun(SmallRun(b)).ok());
  GenOptions other = SmallRun(c);
  other.seed = 2;
  ASSERT_TRUE(GenerateRun(other).ok());
  for (const char* f : {"small_kernel_trace.csv", "small_kernel_stats.csv", "small_bench.log",
                        "small_plain_bench.log", "small_model/config.json"}) {
    const std::string fa = Slurp(a / f);
    EXPECT_FALSE(fa.empty()) << f;
    EXPECT_EQ(fa, Slurp(b / f)) << f;
  }
  EXPECT_NE(Slurp(a / "small_kernel_trace.csv"), Slurp(c / "small_kernel_trace.csv"));
  EXPECT_FALSE(fs::exists(a / "small_kernel_trace.csv.tmp"));
  for (const auto& d : {a, b, c}) fs::remove_all(d);
}

TEST(GenDecodeTraceTest, TraceAndLogFollowTheSeedFormats) {
  const fs::path dir = TempDir("x");
  auto result = GenerateRun(SmallRun(dir));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const std::string trace = Slurp(dir / "small_kernel_trace.csv");
  EXPECT_TRUE(trace.starts_with(kKernelTraceHeader));
  EXPECT_NE(trace.find("\n\"KERNEL_DISPATCH\",\"Agent 1\",1,0,"), std::string::npos);

  const std::string log = Slurp(dir / "small_bench.log");
  const auto marks = Marks(log);
  ASSERT_EQ(marks.size(), 4u);
  for (const auto& [label, stamp] : marks) {
    EXPECT_EQ(stamp.second - stamp.first, 3741u) << label;  // boottime − monotonic
  }
  EXPECT_NE(log.find("\n[Profile Results]\n  Prompt tokens:    64\n  Generated tokens: 4\n"),
            std::string::npos);
  EXPECT_NE(log.find("[long-prompt] target=64 tokens -> using 64 tokens"), std::string::npos);
  EXPECT_NE(log.find("output_stream.cpp:105] Opened result file:"), std::string::npos);
  EXPECT_TRUE(Slurp(dir / "small_plain_bench.log").starts_with("[Profile Results]\n"));
  EXPECT_TRUE(Slurp(dir / "small_kernel_stats.csv")
                  .starts_with("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\","));
  EXPECT_NE(Slurp(dir / "small_model/config.json").find("\"model_type\": \"llama\""),
            std::string::npos);

  // The decode window [decode_start, measured_end] holds exactly tokens − 1 forward passes,
  // and the last dispatch before it is the first token's argmax.
  const std::vector<Row> rows = ReadTrace(dir / "small_kernel_trace.csv");
  ASSERT_EQ(rows.size(), result->dispatches);
  const uint64_t lo = marks.at("decode_start").second;
  const uint64_t hi = marks.at("measured_end").second;
  size_t in_window = 0;
  const Row* last_before = nullptr;
  for (const Row& r : rows) {
    EXPECT_LE(r.start, r.end);
    if (r.start >= lo && r.start <= hi) ++in_window;
    if (r.end <= lo) last_before = &r;
    EXPECT_FALSE(r.start < lo && lo < r.end) << "straddles decode_start: " << r.name;
  }
  EXPECT_EQ(in_window, 3u * 489);
  EXPECT_EQ(result->decode_dispatches, 3u * 489);
  ASSERT_NE(last_before, nullptr);
  EXPECT_NE(last_before->name.find("arg_reduce_final"), std::string::npos);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end(),
                             [](const Row& x, const Row& y) { return x.start < y.start; }));
  fs::remove_all(dir);
}

TEST(GenDecodeTraceTest, TargetBytesExtendsTheDecode) {
  const fs::path dir = TempDir("t");
  GenOptions o = SmallRun(dir);
  o.target_bytes = 6u << 20;
  auto result = GenerateRun(o);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_GE(result->trace_bytes, o.target_bytes);
  EXPECT_GT(result->generated_tokens, 4);
  EXPECT_EQ(result->decode_dispatches, static_cast<uint64_t>(result->generated_tokens - 1) * 489);
  EXPECT_NE(Slurp(dir / "small_bench.log")
                .find("Generated tokens: " + std::to_string(result->generated_tokens) + "\n"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(GenDecodeTraceTest, RejectsInvalidOptions) {
  GenOptions o = SmallRun(TempDir("bad"));
  o.tokens = 1;
  EXPECT_EQ(GenerateRun(o).status().kind(), base::ErrorKind::kUsage);
  o = SmallRun(TempDir("bad"));
  o.top_p = 0.0;
  EXPECT_EQ(GenerateRun(o).status().kind(), base::ErrorKind::kUsage);
  o = SmallRun(TempDir("bad"));
  o.name = "a/b";
  EXPECT_EQ(GenerateRun(o).status().kind(), base::ErrorKind::kUsage);
}

}  // namespace
}  // namespace decodeprof::bench
