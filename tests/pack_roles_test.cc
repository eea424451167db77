// The pytorch-cuda pack's two families of role rules on the real H200 recordings in
// examples/data (docs/packs.md, "Sequence rules as the fallback of op_path"):
//   * on llama_greedy-modules (recorded with NVTX module ranges) the op_path rules are the
//     truth: the whole pack must give exactly their roles (the sequence rules only fill in
//     where op_path left a dispatch without a role), and the sequence rules alone must agree
//     with them on at least 99% of the decode GPU time;
//   * on Llama-3.1-8B-Instruct_greedy and NVIDIA-Nemotron-3-Nano-30B-A3B_greedy (no module
//     ranges) the sequence rules must leave less than 10% of the decode GPU time unattributed.
// The figures are printed and recorded as test properties.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "src/io/common/csv_reader.h"
#include "tests/cli_runner.h"

namespace fs = std::filesystem;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;

namespace {

const fs::path kSource(DECODEPROF_SOURCE_DIR);

struct Row {
  int64_t ns = 0;
  std::string cls;
  std::string role;  // "" when unattributed
};

enum class Rules { kAll, kOpPathOnly, kSequenceOnly };

class PackRolesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dp_pack_roles_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // packs/pytorch-cuda.toml with only the [[role_rule]] tables `rules` keeps (each table runs
  // from its header to the next one); kAll is the built-in pack itself.
  std::string PackArg(Rules rules) {
    if (rules == Rules::kAll) return "pytorch-cuda";
    const std::string text = Slurp(kSource / "packs" / "pytorch-cuda.toml");
    EXPECT_FALSE(text.empty());
    const std::regex header(R"((^|\n)\[\[role_rule\]\][ \t]*\n)");
    std::vector<size_t> starts;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), header);
         it != std::sregex_iterator(); ++it) {
      starts.push_back(static_cast<size_t>(it->position()) + it->str(1).size());
    }
    EXPECT_GT(starts.size(), 20u);
    std::string out = text.substr(0, starts.empty() ? text.size() : starts[0]);
    size_t kept = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
      const size_t end = i + 1 < starts.size() ? starts[i + 1] : text.size();
      const std::string table = text.substr(starts[i], end - starts[i]);
      const bool op_path = table.find("kind = \"op_path\"") != std::string::npos;
      if (op_path == (rules == Rules::kOpPathOnly)) {
        out += table;
        ++kept;
      }
    }
    EXPECT_GT(kept, 0u);
    const fs::path path =
        dir_ / (rules == Rules::kOpPathOnly ? "op_path_only.toml" : "sequence_only.toml");
    std::ofstream(path, std::ios::binary) << out;
    return path.string();
  }

  // `decodeprof summarize --emit-dispatches` on examples/data/<run> (<run>.sqlite and
  // <run>_bench.log) → one Row per decode dispatch, in start order.
  std::vector<Row> Dispatches(const std::string& run, Rules rules) {
    const fs::path data = kSource / "examples" / "data" / run;
    const std::string name = run + "_" + std::to_string(static_cast<int>(rules));
    const auto r = RunBinary(
        {"summarize", "--trace", (data / (run + ".sqlite")).string(), "--log",
         (data / (run + "_bench.log")).string(), "--model-dir", data.string(), "--pack",
         PackArg(rules), "--name", name, "--out-dir", (dir_ / "out").string(), "--emit-dispatches"},
        {}, dir_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<Row> rows;
    auto reader = decodeprof::io::CsvReader::Open(
        (dir_ / "out" / (name + "_decode_dispatches.csv")).string());
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return rows;
    auto& csv = **reader;
    EXPECT_TRUE(csv.Next());
    EXPECT_EQ(csv.size(), 7u);  // index,kernel,start_ns,end_ns,class,role,units
    while (csv.Next()) {
      EXPECT_EQ(csv.size(), 7u) << "line " << csv.line();
      if (csv.size() != 7) break;
      rows.push_back(Row{std::stoll(std::string(csv[3])) - std::stoll(std::string(csv[2])),
                         std::string(csv[4]), std::string(csv[5])});
    }
    EXPECT_TRUE(csv.status().ok()) << csv.status().ToString();
    EXPECT_GT(rows.size(), 1000u) << run;
    return rows;
  }

  static int64_t TotalNs(const std::vector<Row>& rows) {
    int64_t total = 0;
    for (const Row& r : rows) total += r.ns;
    return total;
  }

  void Report(const std::string& key, double fraction) {
    std::cout << "[ figure   ] " << key << " = " << 100 * fraction << "% of decode GPU time\n";
    RecordProperty(key, std::to_string(100 * fraction));
  }

  fs::path dir_;
};

TEST_F(PackRolesTest, WithModuleRangesThePackKeepsExactlyTheOpPathRoles) {
  const std::vector<Row> op_path = Dispatches("llama_greedy-modules", Rules::kOpPathOnly);
  const std::vector<Row> all = Dispatches("llama_greedy-modules", Rules::kAll);
  ASSERT_EQ(all.size(), op_path.size());
  size_t roles = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(all[i].role, op_path[i].role) << "dispatch " << i << " (" << all[i].cls << ")";
    roles += !op_path[i].role.empty();
  }
  EXPECT_GT(roles, all.size() * 99 / 100);  // the module ranges do attribute the run
}

TEST_F(PackRolesTest, SequenceRulesAloneAgreeWithTheOpPathRoles) {
  const std::vector<Row> truth = Dispatches("llama_greedy-modules", Rules::kOpPathOnly);
  const std::vector<Row> sequence = Dispatches("llama_greedy-modules", Rules::kSequenceOnly);
  ASSERT_EQ(sequence.size(), truth.size());
  int64_t agree = 0;
  for (size_t i = 0; i < truth.size(); ++i) {
    if (sequence[i].role == truth[i].role) agree += truth[i].ns;
  }
  const double agreement = static_cast<double>(agree) / static_cast<double>(TotalNs(truth));
  Report("llama_greedy_modules_sequence_vs_op_path_agreement", agreement);
  EXPECT_GE(agreement, 0.99);
}

TEST_F(PackRolesTest, WithoutModuleRangesLittleIsLeftUnattributed) {
  for (const std::string run :
       {"Llama-3.1-8B-Instruct_greedy", "NVIDIA-Nemotron-3-Nano-30B-A3B_greedy"}) {
    const std::vector<Row> rows = Dispatches(run, Rules::kAll);
    int64_t unattributed = 0;
    for (const Row& r : rows) unattributed += r.role.empty() ? r.ns : 0;
    const double share = static_cast<double>(unattributed) / static_cast<double>(TotalNs(rows));
    Report(run + "_unattributed", share);
    EXPECT_LT(share, 0.10) << run;
    EXPECT_GT(share, 0.0) << run << ": the sampler runs outside the model and keeps no role";
  }
}

}  // namespace
