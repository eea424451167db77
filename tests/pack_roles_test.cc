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

#include <sqlite3.h>

#include "src/io/common/csv_reader.h"
#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

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
    dir_ = temp_.path();
    fs::create_directories(dir_ / "out");
  }

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
    return Dispatches(run, data / (run + ".sqlite"), PackArg(rules),
                      run + "_" + std::to_string(static_cast<int>(rules)));
  }

  // The same with the trace `trace` (a copy of the run's) and the pack `pack`.
  std::vector<Row> Dispatches(const std::string& run, const fs::path& trace,
                              const std::string& pack, const std::string& name) {
    const fs::path data = kSource / "examples" / "data" / run;
    const auto r =
        RunBinary({"summarize", "--trace", trace.string(), "--log",
                   (data / (run + "_bench.log")).string(), "--model-dir", data.string(), "--pack",
                   pack, "--name", name, "--out-dir", (dir_ / "out").string(), "--emit-dispatches"},
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

  decodeprof::testing::TempDir temp_{"dp_pack_roles_"};
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

// What ROCm runs in place of a CUDA library kernel of the H200 recordings, as the
// pytorch-rocm pack names it (src/packs/pytorch_rocm_pack_test.cc records the names' sources);
// the name itself when PyTorch's own kernel runs on both (at::native keeps its names on ROCm).
std::string RocmCounterpart(const std::string& name) {
  const auto has = [&name](const char* part) { return name.find(part) != std::string::npos; };
  if (has("splitKreduce")) return "Cijk_SS_BiasS_HAS_ScaleAlphaVec_PostGSU16_VW1";
  if (has("nvjet")) {
    return "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x1024_MI16x16x1_SN_LDSB1_AFC0_"
           "AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA4_GRVWB4_"
           "WSGRB0_WS64_WG16_4_4";
  }
  if (has("GroupProblemShape")) return "void ck::kernel_grouped_gemm_xdl_splitk<x>(x)";
  if (has("cutlass") && has("sgemm")) {
    return "Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0_APM1_AF0EM1_AF1EM1_AMAS0_ASE_ASGT_ASLT_ASAE01";
  }
  if (has("dot_kernel") || has("gemv")) {
    return "void rocblas_gemvt_kernel<false, 256, float, float, float>(x)";
  }
  if (has("lean_reduction")) {
    return "void ck_tile::kentry<64, 2, ck_tile::FmhaFwdSplitKVCombineKernel<x> >(x)";
  }
  if (has("cudnn")) return "void ck_tile::kentry<64, 1, ck_tile::FmhaFwdSplitKVKernel<x> >(x)";
  if (has("cub::") && has("Scan")) {
    return "void rocprim::ROCPRIM_300000_NS::detail::lookback_scan_kernel<x>(x)";
  }
  if (has("cub::") && has("Sort")) {
    return "void rocprim::ROCPRIM_300000_NS::detail::onesweep_iteration_kernel<x>(x)";
  }
  return name;
}

// `from` copied to `to` with every string that names a CUDA library kernel renamed to its ROCm
// counterpart.
void WriteRocmCopy(const fs::path& from, const fs::path& to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(to.string().c_str(), &db), SQLITE_OK);
  std::vector<std::pair<int64_t, std::string>> renamed;
  sqlite3_stmt* select = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT id, text FROM strings", -1, &select, nullptr),
            SQLITE_OK);
  while (sqlite3_step(select) == SQLITE_ROW) {
    const std::string text(reinterpret_cast<const char*>(sqlite3_column_text(select, 1)));
    const std::string rocm = RocmCounterpart(text);
    if (rocm != text) renamed.emplace_back(sqlite3_column_int64(select, 0), rocm);
  }
  sqlite3_finalize(select);
  EXPECT_GT(renamed.size(), 5u);
  sqlite3_stmt* update = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(db, "UPDATE strings SET text = ? WHERE id = ?", -1, &update, nullptr),
      SQLITE_OK);
  for (const auto& [id, text] : renamed) {
    sqlite3_bind_text(update, 1, text.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(update, 2, id);
    EXPECT_EQ(sqlite3_step(update), SQLITE_DONE);
    sqlite3_reset(update);
  }
  sqlite3_finalize(update);
  sqlite3_close(db);
}

// The pytorch-rocm pack shares pytorch-cuda's role rules for eager transformers decode, with
// ROCm's projections (docs/packs.md): on the H200 recordings with their CUDA library kernels
// renamed to what ROCm runs in their place, it must give every dispatch the role pytorch-cuda
// gives it on the original, with module ranges (op_path) and without (the sequence rules).
TEST_F(PackRolesTest, PytorchRocmGivesTheSameRolesOnTheRecordingsWithRocmKernelNames) {
  for (const std::string run : {"llama_greedy-modules", "Llama-3.1-8B-Instruct_greedy",
                                "NVIDIA-Nemotron-3-Nano-30B-A3B_greedy"}) {
    const fs::path data = kSource / "examples" / "data" / run;
    const fs::path rocm = dir_ / (run + "_rocm.sqlite");
    WriteRocmCopy(data / (run + ".sqlite"), rocm);
    const std::vector<Row> cuda =
        Dispatches(run, data / (run + ".sqlite"), "pytorch-cuda", run + "_cuda");
    const std::vector<Row> rows = Dispatches(run, rocm, "pytorch-rocm", run + "_rocm");
    ASSERT_EQ(rows.size(), cuda.size()) << run;
    size_t differ = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].role == cuda[i].role) continue;
      if (differ++ < 5) {
        ADD_FAILURE() << run << ": dispatch " << i << " (" << cuda[i].cls << " → " << rows[i].cls
                      << ") gets '" << rows[i].role << "', pytorch-cuda '" << cuda[i].role << "'";
      }
    }
    EXPECT_EQ(differ, 0u) << run;
  }
}

}  // namespace
