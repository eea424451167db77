// `decodeprof summarize --ranks` and the rank table of `report` over the two-rank
// tensor-parallel fixture (tests/support/tp_trace_writer.h: its comment derives the
// expected waits), with the bad inputs that must be refused before any output.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tp_trace_writer.h"

namespace fs = std::filesystem;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;
using decodeprof::testing::TpTraceOptions;
using decodeprof::testing::WriteTpRankTrace;

namespace {

class SummarizeRanksTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  std::string Write(const std::string& file, TpTraceOptions options) {
    const std::string path = (dir_ / file).string();
    EXPECT_TRUE(WriteTpRankTrace(path, options).ok());
    return path;
  }
  std::string Rank(int32_t rank) {
    TpTraceOptions o;
    o.rank = rank;
    return Write("tp." + std::to_string(1000 + rank) + ".sqlite", o);
  }
  decodeprof::testing::Result Summarize(std::vector<std::string> args,
                                        const std::string& out = "out") {
    std::vector<std::string> all = {"summarize", "--out-dir", (dir_ / out).string(), "-q"};
    all.insert(all.end(), args.begin(), args.end());
    return RunBinary(all, {}, dir_);
  }
  nlohmann::json Summary(const std::string& name, const std::string& out = "out") {
    return nlohmann::json::parse(Slurp(dir_ / out / (name + "_summary.json")));
  }
  bool OutDirEmpty(const std::string& out = "out") {
    return !fs::exists(dir_ / out) || fs::is_empty(dir_ / out);
  }

  decodeprof::testing::TempDir temp_{"dp_ranks_"};
  fs::path dir_;
};

TEST_F(SummarizeRanksTest, ExactWaitsPerRank) {
  const std::string r0 = Rank(0);
  const std::string r1 = Rank(1);
  // Given in any order: the summaries come by rank.
  const auto r = Summarize({"--ranks", r1, r0});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "tp_rank0: 24 decode dispatches, 0.0284 GPU ms/token, 0.0516 host gap ms/token, 8 "
            "collectives, 0.0092 collective ms/token, 0.0012 wait ms/token\n"
            "tp_rank1: 24 decode dispatches, 0.0274 GPU ms/token, 0.0526 host gap ms/token, 8 "
            "collectives, 0.0082 collective ms/token, 0.0002 wait ms/token\n");
  const auto s0 = Summary("tp_rank0");
  const auto s1 = Summary("tp_rank1");
  EXPECT_EQ(s0["name"], "tp_rank0");
  EXPECT_EQ(s0["device"], 0);
  EXPECT_EQ(s1["device"], 1);
  EXPECT_EQ(s0["generated_tokens"], 5);    // 4 steps + the prefill's token
  EXPECT_EQ(s0["decode_dispatches"], 24);  // 4 steps of 2 blocks of 3 kernels
  EXPECT_EQ(s0["rank"], nlohmann::json::parse(R"({"rank": 0, "world_size": 2, "local_rank": 0,
      "run_id": "4242:/fixtures/tp.sqlite", "group": "tp"})"));
  EXPECT_EQ(s1["rank"]["rank"], 1);
  // rank 0: 46 us of all-reduce over 5 tokens, 6 us of it waiting for rank 1; 11.5 % of the
  // 400 us decode wall. Rank 1 waits 1 us (step 2, block 1) and is the slowest rank.
  EXPECT_EQ(s0["collectives"], nlohmann::json::parse(R"({"count": 8, "total_ms_per_token": 0.0092,
      "wait_ms_per_token": 0.0012, "transfer_ms_per_token": 0.008, "pct_of_wall": 11.5,
      "slowest_rank": 1, "matched": true})"));
  EXPECT_EQ(s1["collectives"], nlohmann::json::parse(R"({"count": 8, "total_ms_per_token": 0.0082,
      "wait_ms_per_token": 0.0002, "transfer_ms_per_token": 0.008, "pct_of_wall": 10.25,
      "slowest_rank": 1, "matched": true})"));
  // The all-reduce is a collective of pytorch-cuda (not a reduction), and the h200-decode
  // unit tp_communication owns it: 46 of 142 us of rank 0's kernel time.
  EXPECT_EQ(s0["class_share_pct"]["communication"], 32.39);
  EXPECT_FALSE(s0["class_share_pct"].contains("reduce"));
  EXPECT_EQ(s0["port_units"]["tp_communication"]["fallback_share_pct"], 32.39);
  // The rank objects come after every other field.
  std::vector<std::string> keys;
  const auto ordered = nlohmann::ordered_json::parse(Slurp(dir_ / "out" / "tp_rank0_summary.json"));
  for (const auto& [key, value] : ordered.items()) keys.push_back(key);
  ASSERT_GE(keys.size(), 3u);
  EXPECT_EQ(keys[keys.size() - 3], "ranked_units");
  EXPECT_EQ(keys[keys.size() - 2], "rank");
  EXPECT_EQ(keys.back(), "collectives");
}

TEST_F(SummarizeRanksTest, ReportPrintsTheRankTable) {
  ASSERT_EQ(Summarize({"--ranks", Rank(0), Rank(1)}).exit_code, 0);
  const auto md = RunBinary({"report", (dir_ / "out").string(), "--do-first", "0"}, {}, dir_);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  const std::string table =
      "\n## Ranks\n\nRun `tp`:\n\n"
      "| rank | run | device | GPU busy ms/token | host gap ms/token | collectives | "
      "collective ms/token | collective % of wall | wait ms/token | transfer ms/token |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
      "| 0 | tp_rank0 | 0 | 0.0284 | 0.0516 | 8 | 0.0092 | 11.5 | 0.0012 | 0.008 |\n"
      "| 1 | tp_rank1 | 1 | 0.0274 | 0.0526 | 8 | 0.0082 | 10.25 | 0.0002 | 0.008 |\n"
      "\nSlowest rank: 1 (the other ranks' collectives wait for it; wait = the time a rank's "
      "collective runs before the last rank arrives).\n";
  ASSERT_GE(md.out.size(), table.size());
  EXPECT_EQ(md.out.substr(md.out.size() - table.size()), table) << md.out;
  // --full puts it after its own sections too.
  const auto full = RunBinary({"report", (dir_ / "out").string(), "--full"}, {}, dir_);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_EQ(full.out.substr(full.out.size() - table.size()), table);
  const auto html = RunBinary({"report", (dir_ / "out").string(), "--format", "html"}, {}, dir_);
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("<section>\n<h2>Ranks</h2>\n<p>Run <code>tp</code>:</p>"),
            std::string::npos);
  EXPECT_NE(html.out.find("<tr><td class=\"l\">1</td><td class=\"l\">tp_rank1</td><td>1</td>"
                          "<td>0.0274</td><td>0.0526</td><td>8</td><td>0.0082</td><td>10.25</td>"
                          "<td>0.0002</td><td>0.008</td></tr>"),
            std::string::npos)
      << html.out;
}

TEST_F(SummarizeRanksTest, DifferentCollectiveCountsWarnAndGiveNoWait) {
  TpTraceOptions short_one;
  short_one.rank = 1;
  short_one.drop_last_collective = true;
  const auto r = Summarize({"--ranks", Rank(0), Write("tp.1001.sqlite", short_one)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning    collective_count_mismatch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 0: 8 collectives, rank 1: 7 collectives"), std::string::npos);
  const auto s1 = Summary("tp_rank1");
  EXPECT_EQ(s1["collectives"]["count"], 7);
  EXPECT_EQ(s1["collectives"]["matched"], false);
  EXPECT_TRUE(s1["collectives"]["wait_ms_per_token"].is_null());
  EXPECT_TRUE(s1["collectives"]["slowest_rank"].is_null());
  EXPECT_EQ(s1["diagnostics"].back()["code"], "collective_count_mismatch");
  const auto md = RunBinary({"report", (dir_ / "out").string()}, {}, dir_);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("| 1 | tp_rank1 | 1 | "), std::string::npos);
  EXPECT_NE(md.out.find("| 7 | "), std::string::npos);
  EXPECT_NE(md.out.find("different numbers of collectives (collective_count_mismatch): no wait "
                        "figures."),
            std::string::npos)
      << md.out;
}

TEST_F(SummarizeRanksTest, OneTraceAtATimeKeepsTheRankButNoCrossRankFigures) {
  const auto r = Summarize({"--trace", Rank(1), "--name", "one"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = Summary("one");
  EXPECT_EQ(s["rank"]["rank"], 1);
  EXPECT_TRUE(s["rank"]["group"].is_null());
  EXPECT_FALSE(s.contains("collectives"));
  const auto md = RunBinary({"report", (dir_ / "out").string()}, {}, dir_);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("Run `4242:/fixtures/tp.sqlite`:"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| 1 | one | 1 | 0.0274 | 0.0526 | n/a | n/a |"), std::string::npos);
  EXPECT_NE(md.out.find("No cross-rank figures"), std::string::npos);
}

// Data that cannot be one run: exit 65, the file named, nothing written.
TEST_F(SummarizeRanksTest, TracesThatAreNotOneRunAreRefused) {
  const std::string r0 = Rank(0);
  TpTraceOptions o;
  o.rank = 1;
  o.world_size = 4;
  const std::string four = Write("four.sqlite", o);
  o.world_size = 2;
  o.run_id = "77:/elsewhere/tp.sqlite";
  const std::string other_run = Write("other.sqlite", o);
  TpTraceOptions none;
  none.write_rank = false;
  const std::string no_rank = Write("plain.sqlite", none);
  TpTraceOptions bad;
  bad.rank_text = "one";
  const std::string bad_rank = Write("bad.sqlite", bad);
  struct Case {
    std::vector<std::string> traces;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{r0, four}, four + ": world_size 4, but " + r0 + " has world_size 2"},
      {{r0, r0}, r0 + ": rank 0 again (it is also " + r0 + "'s)"},
      {{r0, other_run}, other_run + ": a trace of another run: run_id '77:/elsewhere/tp.sqlite'"},
      {{r0}, r0 + ": rank 1 of 2 is missing"},
      {{r0, no_rank}, no_rank + ": no rank in the trace's metadata"},
      {{bad_rank, r0}, bad_rank + ": meta rank is 'one', not an integer from 0"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--ranks"};
    args.insert(args.end(), c.traces.begin(), c.traces.end());
    const auto r = Summarize(args);
    EXPECT_EQ(r.exit_code, 65) << c.message;
    EXPECT_NE(r.err.find("decodeprof: summarize: " + c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(OutDirEmpty()) << c.message;
  }
}

TEST_F(SummarizeRanksTest, OptionsThatDoNotGoWithRanksAreUsageErrors) {
  const std::string r0 = Rank(0);
  const std::string r1 = Rank(1);
  const std::vector<std::vector<std::string>> cases = {
      {"--ranks", r0, r1, "--trace", r0},
      {"--ranks", r0, r1, "--log", r0},
      {"--ranks", r0, r1, "--device", "0"},
      {"--name", "x"},  // neither --trace nor --ranks
  };
  for (const auto& args : cases) {
    const auto r = Summarize(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_TRUE(OutDirEmpty());
  }
  const auto help = RunBinary({"summarize", "--help"}, {}, dir_);
  EXPECT_NE(help.out.find("--ranks TRACE..."), std::string::npos) << help.out;
}

TEST_F(SummarizeRanksTest, ReportRefusesARankTwiceInOneRun) {
  ASSERT_EQ(Summarize({"--ranks", Rank(0), Rank(1)}, "a").exit_code, 0);
  ASSERT_EQ(Summarize({"--ranks", Rank(0), Rank(1)}, "b").exit_code, 0);
  const auto r = RunBinary({"report", (dir_ / "a").string(), (dir_ / "b").string()}, {}, dir_);
  EXPECT_EQ(r.exit_code, 65);
  EXPECT_NE(r.err.find((dir_ / "b" / "tp_rank0_summary.json").string() +
                       ": rank 0 of run `tp` again (also " +
                       (dir_ / "a" / "tp_rank0_summary.json").string() + ")"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace

namespace {

// torch.profiler's per-rank traces: the rank comes from distributedInfo. Four steps of a GEMM,
// an all-reduce and a norm; rank 0 reaches each all-reduce 5 us after rank 1.
std::string KinetoRank(const fs::path& dir, int rank) {
  std::string events =
      R"({"ph": "X", "cat": "user_annotation", "name": "decodeprof:decode", "pid": 1, "tid": 1, "ts": 0.0, "dur": 400.0, "args": {}})";
  int correlation = 1;
  for (int s = 0; s < 4; ++s) {
    const double t = s * 100.0;
    events +=
        R"(, {"ph": "X", "cat": "user_annotation", "name": "decodeprof:step", "pid": 1, "tid": 1, "ts": )" +
        std::to_string(t) + R"(, "dur": 99.0, "args": {}})";
    const struct {
      const char* name;
      double start, duration;
    } kernels[] = {{"nvjet_sm90_gemm", t + 1, 20},
                   {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", t + 22 + (rank == 0 ? 5 : 0), 30},
                   {"rms_norm_kernel", t + 60, 10}};
    for (const auto& k : kernels) {
      const std::string c = std::to_string(correlation++);
      events += R"(, {"ph": "X", "cat": "kernel", "name": ")" + std::string(k.name) +
                R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(k.start) + R"(, "dur": )" +
                std::to_string(k.duration) + R"(, "args": {"device": )" + std::to_string(rank) +
                R"(, "stream": 7, "correlation": )" + c + "}}";
    }
  }
  const std::string path = (dir / ("r" + std::to_string(rank) + ".pt.trace.json")).string();
  std::ofstream(path)
      << R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": )" << rank
      << R"(, "world_size": 2}, "baseTimeNanoseconds": 1775078550000000000, "traceEvents": [)"
      << events << "]}";
  return path;
}

}  // namespace

TEST_F(SummarizeRanksTest, TorchProfilerTracesOfEachRank) {
  const std::string r0 = KinetoRank(dir_, 0);
  const std::string r1 = KinetoRank(dir_, 1);
  const auto r = Summarize({"--ranks", r0, r1, "--name", "tp"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json s0 = Summary("tp_rank0");
  const nlohmann::json s1 = Summary("tp_rank1");
  EXPECT_EQ(s0["rank"]["rank"], 0);
  EXPECT_EQ(s1["rank"]["world_size"], 2);
  EXPECT_EQ(s0["collectives"]["count"], 4);
  EXPECT_EQ(s0["collectives"]["slowest_rank"], 0);
  EXPECT_DOUBLE_EQ(s0["collectives"]["wait_ms_per_token"].get<double>(), 0.0);
  // Rank 1 waits 5 us at each of 4 all-reduces over 5 tokens (4 steps + 1): 0.004 ms.
  EXPECT_DOUBLE_EQ(s1["collectives"]["wait_ms_per_token"].get<double>(), 0.004);
}
