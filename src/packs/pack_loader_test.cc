// The loader: built-in names, files, and every error carrying "file:line".
#include "src/packs/pack_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "src/analysis/roles.h"
#include "src/base/file_io.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::packs {
namespace {

using base::ErrorKind;

std::string TempPath(const std::string& name) {
  static const std::string dir = decodeprof::testing::ScratchDir("decodeprof_pack_loader_test_");
  return dir + "/" + name;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

constexpr const char* kHeader =
    "[pack]\n"             // 1
    "name = \"t\"\n"       // 2
    "roles = [\"a\"]\n"    // 3
    "[[class]]\n"          // 4
    "name = \"x\"\n"       // 5
    "patterns = ['x']\n";  // 6

// Loads `text` as a pack file and returns the error (which must be kConfig).
base::Status PackError(const std::string& name, const std::string& text) {
  auto pack = LoadPack(WriteTemp(name, text));
  EXPECT_FALSE(pack.ok());
  if (pack.ok()) return base::OkStatus();
  EXPECT_EQ(pack.status().kind(), ErrorKind::kConfig) << pack.status().ToString();
  return pack.status();
}

void ExpectAt(const base::Status& status, const std::string& file, int line,
              const std::string& text) {
  EXPECT_EQ(status.where(), base::AtLine(TempPath(file), line)) << status.ToString();
  EXPECT_NE(status.message().find(text), std::string::npos) << status.ToString();
}

TEST(LoadPackTest, BuiltinPackByName) {
  auto pack = LoadPack("mlx-rocm");
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  EXPECT_EQ((*pack)->name(), "mlx-rocm");
  EXPECT_EQ(DefaultUnitsOf(**pack), "mlx-rocm-ports");
  EXPECT_EQ(BuiltinPackNames(),
            (std::vector<std::string>{"ggml", "mlx-rocm", "pytorch-cuda", "pytorch-rocm"}));
  EXPECT_EQ(BuiltinUnitsNames(), (std::vector<std::string>{"ggml-decode", "h200-decode",
                                                           "mlx-rocm-ports", "rocm-decode"}));
}

TEST(LoadPackTest, UnknownBuiltinNameListsTheBuiltinPacks) {
  auto pack = LoadPack("mlx-cuda");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.status().kind(), ErrorKind::kConfig);
  EXPECT_NE(pack.status().message().find("unknown pack 'mlx-cuda'"), std::string::npos);
  EXPECT_NE(pack.status().message().find("mlx-rocm"), std::string::npos);
  auto units = LoadUnits("nope", **LoadPack("mlx-rocm"));
  ASSERT_FALSE(units.ok());
  EXPECT_NE(units.status().message().find("mlx-rocm-ports"), std::string::npos);
  auto none = LoadUnits("", **LoadPack("mlx-rocm"));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().kind(), ErrorKind::kConfig);
  EXPECT_NE(none.status().message().find("no units file"), std::string::npos);
}

TEST(LoadPackTest, MissingFileIsAnIoError) {
  auto pack = LoadPack("/nonexistent/dir/pack.toml");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.status().kind(), ErrorKind::kIo);
}

TEST(LoadPackTest, FileWithRelativeDefaultUnitsResolvesAgainstItsDirectory) {
  const std::string path = WriteTemp(
      "ok.toml", "[pack]\nname = \"t\"\ndefault_units = \"units/mine.toml\"\nroles = [\"a\"]\n");
  auto pack = LoadPack(path);
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  EXPECT_EQ(DefaultUnitsOf(**pack),
            (std::filesystem::path(path).parent_path() / "units/mine.toml").string());
  EXPECT_EQ((*pack)->class_names(), (std::vector<std::string>{"memcpy", "memset", "other"}));
}

TEST(PackErrorsTest, TomlSyntaxError) {
  const base::Status s = PackError("syntax.toml", "[pack]\nname = \"t\nroles = []\n");
  ExpectAt(s, "syntax.toml", 2, "TOML syntax error");
}

TEST(PackErrorsTest, MalformedTableHeadersAreSyntaxErrorsNotAborts) {
  // toml++ 3.3 asserts on these in debug builds unless its asserts are off.
  ExpectAt(PackError("header.toml", "[pack]\nname = \"t\"\n[!]\n"), "header.toml", 3,
           "TOML syntax error");
  ExpectAt(PackError("header2.toml", "[pack]\nname = \"t\"\n\n[[\x01]]\n"), "header2.toml", 4,
           "TOML syntax error");
}

TEST(PackErrorsTest, NonAsciiCharactersWhereWhitespaceMayBeDoNotReachUndefinedBehaviour) {
  // toml++ 3.3 reached __builtin_unreachable in its Unicode whitespace test for these (found by
  // tests/fuzz/pack_parser_fuzzer; UBSan reports it in the asan preset): U+00B9 after a bare
  // key, U+00A7 after a line-ending backslash in a multi-line string (valid TOML).
  ExpectAt(PackError("unicode.toml", "[pack]\nname\xc2\xb9 = \"t\"\n"), "unicode.toml", 2,
           "TOML syntax error");
  auto pack = LoadPack(WriteTemp("unicode2.toml", "[pack]\nname = \"\"\"\\\n\xc2\xa7\"\"\"\n"));
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  EXPECT_EQ((*pack)->name(), "\xc2\xa7");
}

TEST(PackErrorsTest, UnknownRuleKind) {
  const base::Status s = PackError("kind.toml", std::string(kHeader) +
                                                    "[[role_rule]]\n"        // 7
                                                    "kind = \"tail_end\"\n"  // 8
                                                    "role = \"a\"\n");
  ExpectAt(s, "kind.toml", 8, "unknown rule kind 'tail_end'");
  EXPECT_NE(s.message().find("span_around"), std::string::npos);
}

TEST(PackErrorsTest, UnknownClassReferenced) {
  const base::Status s = PackError("class.toml", std::string(kHeader) +
                                                     "[[role_rule]]\n"            // 7
                                                     "kind = \"follow_run\"\n"    // 8
                                                     "anchor_class = \"rope\"\n"  // 9
                                                     "role = \"a\"\n"             // 10
                                                     "follow = { names = [\"k\"] }\n"
                                                     "overwrite = false\n");
  ExpectAt(s, "class.toml", 9, "unknown class \"rope\"");
  EXPECT_NE(s.message().find("x, memcpy, memset, other"), std::string::npos) << s.message();
}

TEST(PackErrorsTest, UnknownClassInsideACondition) {
  const base::Status s = PackError("cond.toml", std::string(kHeader) +
                                                    "[[role_rule]]\n"                // 7
                                                    "kind = \"follow_run\"\n"        // 8
                                                    "anchor_class = \"x\"\n"         // 9
                                                    "role = \"a\"\n"                 // 10
                                                    "follow = [\n"                   // 11
                                                    "  { names = [\"k\"] },\n"       // 12
                                                    "  { classes = [\"nope\"] },\n"  // 13
                                                    "]\n"
                                                    "overwrite = false\n");
  ExpectAt(s, "cond.toml", 13, "unknown class \"nope\"");
}

TEST(PackErrorsTest, UnknownRoleReferenced) {
  const base::Status s = PackError("role.toml", std::string(kHeader) +
                                                    "[[role_rule]]\n"             // 7
                                                    "kind = \"name_contains\"\n"  // 8
                                                    "role = \"b\"\n"              // 9
                                                    "names = [\"paged\"]\n"
                                                    "overwrite = false\n");
  ExpectAt(s, "role.toml", 9, "unknown role \"b\"");
}

TEST(PackErrorsTest, BadRegexCarriesRe2sErrorText) {
  const base::Status s = PackError("regex.toml", std::string(kHeader) +
                                                     "[[class]]\n"                    // 7
                                                     "name = \"y\"\n"                 // 8
                                                     "patterns = ['ok',\n"            // 9
                                                     "            'gather(qmv']\n");  // 10
  ExpectAt(s, "regex.toml", 10, "bad pattern 'gather(qmv'");
  EXPECT_NE(s.message().find("missing )"), std::string::npos) << s.message();
}

TEST(PackErrorsTest, DuplicateClass) {
  const base::Status s = PackError("dup.toml", std::string(kHeader) +
                                                   "\n"              // 7
                                                   "[[class]]\n"     // 8
                                                   "name = \"x\"\n"  // 9
                                                   "patterns = ['y']\n");
  ExpectAt(s, "dup.toml", 8, "duplicate class \"x\"");
}

TEST(PackErrorsTest, ClassOtherIsImplicit) {
  const base::Status s = PackError("other.toml",
                                   "[pack]\nname = \"t\"\n[[class]]\n"
                                   "name = \"other\"\npatterns = ['x']\n");
  ExpectAt(s, "other.toml", 3, "implicit");
}

TEST(PackErrorsTest, MissingFields) {
  ExpectAt(PackError("noname.toml", "[pack]\ndescription = \"d\"\n"), "noname.toml", 1,
           "missing key 'name'");
  ExpectAt(PackError("nopack.toml", "\n[[class]]\nname = \"x\"\npatterns = ['x']\n"), "nopack.toml",
           1, "needs a [pack] table");
  ExpectAt(PackError("nopatterns.toml", "[pack]\nname = \"t\"\n\n[[class]]\nname = \"x\"\n"),
           "nopatterns.toml", 4, "missing key 'patterns'");
  const base::Status s = PackError("nooverwrite.toml", std::string(kHeader) +
                                                           "[[role_rule]]\n"  // 7
                                                           "kind = \"name_contains\"\n"
                                                           "role = \"a\"\n"
                                                           "names = [\"paged\"]\n");
  ExpectAt(s, "nooverwrite.toml", 7, "missing key 'overwrite'");
}

TEST(PackErrorsTest, UnknownKeyAndWrongType) {
  ExpectAt(PackError("key.toml", std::string(kHeader) + "pattern = 'y'\n"), "key.toml", 7,
           "unknown key 'pattern'");
  ExpectAt(PackError("type.toml", std::string(kHeader) + "case_sensitive = \"yes\"\n"), "type.toml",
           7, "'case_sensitive' must be true or false, not a string");
}

TEST(PackErrorsTest, MovesNamesKnownByteKinds) {
  const base::Status s =
      PackError("moves.toml", std::string(kHeader) + "moves = [\"weights\"]\n");  // line 7
  ExpectAt(s, "moves.toml", 7, "unknown byte kind 'weights'");
  EXPECT_NE(s.message().find("dense_weights"), std::string::npos) << s.ToString();
  auto pack = LoadPack(
      WriteTemp("moves_ok.toml", std::string(kHeader) + "moves = [\"kv_cache\", \"state\"]\n"));
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  const auto& moves = (*pack)->class_moves();
  ASSERT_EQ(moves.size(), (*pack)->class_names().size());
  EXPECT_EQ(moves[0], (std::vector<std::string>{"kv_cache", "state"}));
  EXPECT_TRUE(moves.back().empty());  // other
}

TEST(LoadPackTest, BuiltinPacksSayWhichClassesMoveTheWeightsAndTheKvCache) {
  for (const std::string& name : BuiltinPackNames()) {
    auto pack = LoadPack(name);
    ASSERT_TRUE(pack.ok()) << name;
    bool weights = false, kv = false;
    for (const auto& kinds : (*pack)->class_moves()) {
      for (const std::string& k : kinds) {
        weights = weights || k == "dense_weights";
        kv = kv || k == "kv_cache";
      }
    }
    EXPECT_TRUE(weights) << name;
    EXPECT_TRUE(kv) << name;
  }
}

TEST(PackErrorsTest, RuleParameterConsistency) {
  const std::string clusters = std::string(kHeader) +
                               "[[role_rule]]\n"          // 7
                               "kind = \"clusters\"\n"    // 8
                               "member_class = \"x\"\n"   // 9
                               "max_gap = 12\n"           // 10
                               "member_role = \"a\"\n"    // 11
                               "overwrite = true\n"       // 12
                               "between_role = \"a\"\n";  // 13
  ExpectAt(PackError("partner.toml", clusters), "partner.toml", 13,
           "'between_role' needs 'between'");
  ExpectAt(PackError("empty_cond.toml", std::string(kHeader) + "[[role_rule]]\n"  // 7
                                                               "kind = \"follow_run\"\n"
                                                               "anchor_class = \"x\"\n"
                                                               "role = \"a\"\n"
                                                               "follow = {}\n"  // 11
                                                               "overwrite = false\n"),
           "empty_cond.toml", 11, "a condition needs");
}

// ---- units files ------------------------------------------------------------------------

base::Status UnitsError(const std::string& name, const std::string& text,
                        const std::string& pack_name = "mlx-rocm") {
  auto pack = LoadPack(pack_name);
  EXPECT_TRUE(pack.ok());
  auto units = LoadUnits(WriteTemp(name, text), **pack);
  EXPECT_FALSE(units.ok());
  if (units.ok()) return base::OkStatus();
  EXPECT_EQ(units.status().kind(), ErrorKind::kConfig) << units.status().ToString();
  return units.status();
}

TEST(UnitsErrorsTest, UnknownRoleNamesTheLine) {
  ExpectAt(UnitsError("u_role.toml",
                      "[[unit]]\n"                   // 1
                      "id = \"1\"\n"                 // 2
                      "port = \"p\"\n"               // 3
                      "roles = [\"ssm_step\",\n"     // 4
                      "         \"ssm_stepp\"]\n"),  // 5
           "u_role.toml", 5, "unknown role \"ssm_stepp\"");
  ExpectAt(UnitsError("u_reach.toml",
                      "[[unit]]\n"
                      "id = \"1\"\n"
                      "port = \"p\"\n"
                      "roles = []\n"
                      "[[unit.reach]]\n"          // 5
                      "default = [\"nope\"]\n"),  // 6
           "u_reach.toml", 6, "unknown role \"nope\"");
}

TEST(UnitsErrorsTest, DuplicateIdMissingPortAndSyntax) {
  ExpectAt(UnitsError("u_dup.toml",
                      "[[unit]]\nid = 7\nport = \"p\"\nroles = []\n"
                      "[[unit]]\nid = \"7\"\nport = \"q\"\nroles = []\n"),
           "u_dup.toml", 6, "duplicate unit \"7\"");
  ExpectAt(UnitsError("u_port.toml", "\n[[unit]]\nid = \"1\"\nroles = []\n"), "u_port.toml", 2,
           "missing key 'port'");
  ExpectAt(UnitsError("u_syntax.toml", "[[unit]]\nid = \"1\"\nport = = \"p\"\n"), "u_syntax.toml",
           3, "TOML syntax error");
  ExpectAt(UnitsError("u_key.toml",
                      "[[unit]]\nid = \"1\"\nport = \"p\"\nroles = []\n"
                      "[[unit.reach]]\nmodel = [\"llama\"]\n"),
           "u_key.toml", 6, "unknown key 'model'");
}

TEST(UnitsErrorsTest, ClassesHostGapAndWholeReach) {
  ExpectAt(UnitsError("u_class.toml",
                      "[[unit]]\n"                // 1
                      "id = \"1\"\n"              // 2
                      "port = \"p\"\n"            // 3
                      "classes = [\"qmv\",\n"     // 4
                      "           \"qmvv\"]\n"),  // 5
           "u_class.toml", 5, "unknown class \"qmvv\" (classes of pack mlx-rocm: ");
  ExpectAt(UnitsError("u_gap.toml",
                      "[[unit]]\n"               // 1
                      "id = \"1\"\n"             // 2
                      "port = \"p\"\n"           // 3
                      "host_gap = \"some\"\n"),  // 4
           "u_gap.toml", 4, "host_gap \"some\" is neither \"roles\" nor \"all\"");
  ExpectAt(UnitsError("u_gap_type.toml", "[[unit]]\nid = \"1\"\nport = \"p\"\nhost_gap = 1\n"),
           "u_gap_type.toml", 4, "host_gap");
  // Without classes or host_gap, roles stay required.
  ExpectAt(UnitsError("u_noroles.toml", "[[unit]]\nid = \"1\"\nport = \"p\"\n"), "u_noroles.toml",
           1, "missing key 'roles'");
  // "all" is only the bare string; in a list it is a role name like any other.
  ExpectAt(UnitsError("u_all_list.toml",
                      "[[unit]]\nid = \"1\"\nport = \"p\"\nroles = []\n"
                      "[[unit.reach]]\n"         // 5
                      "default = [\"all\"]\n"),  // 6
           "u_all_list.toml", 6, "unknown role \"all\"");
}

TEST(LoadUnitsTest, UnlessGraphReplay) {
  auto pack = LoadPack("mlx-rocm");
  ASSERT_TRUE(pack.ok());
  auto units = LoadUnits(WriteTemp("u_unless.toml",
                                   "[[unit]]\nid = \"graph\"\nport = \"p\"\nhost_gap = \"all\"\n"
                                   "unless = \"graph_replay\"\n"
                                   "[[unit.reach]]\ndefault = \"all\"\n"),
                         **pack);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  EXPECT_TRUE((*units)->units()[0].unless_graph_replay);
  const auto bad = LoadUnits(WriteTemp("u_unless_bad.toml",
                                       "[[unit]]\nid = \"graph\"\nport = \"p\"\n"
                                       "host_gap = \"all\"\nunless = \"eager\"\n"),
                             **pack);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unless \"eager\" is not \"graph_replay\""),
            std::string::npos)
      << bad.status().message();
  EXPECT_EQ(bad.status().kind(), ErrorKind::kConfig);
}

TEST(LoadUnitsTest, RequiresNamesClassesAndNeedsClasses) {
  auto pack = LoadPack("ggml");
  ASSERT_TRUE(pack.ok());
  auto units = LoadUnits(WriteTemp("u_requires.toml",
                                   "[[unit]]\nid = \"moe\"\nport = \"p\"\n"
                                   "classes = [\"grouped_gemm\", \"sort_topk\"]\n"
                                   "requires = [\"grouped_gemm\"]\n"
                                   "[[unit.reach]]\ndefault = \"all\"\n"),
                         **pack);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  ASSERT_EQ((*units)->units()[0].requires_classes.size(), 1u);
  EXPECT_EQ((*pack)->class_names()[(*units)->units()[0].requires_classes[0]], "grouped_gemm");
  // An unknown class, and `requires` without `classes`, name the file and line.
  ExpectAt(UnitsError("u_requires_bad.toml",
                      "[[unit]]\nid = \"1\"\nport = \"p\"\n"
                      "classes = [\"gemv\"]\n"
                      "requires = [\"moe\"]\n",
                      "ggml"),
           "u_requires_bad.toml", 5, "unknown class \"moe\"");
  ExpectAt(UnitsError("u_requires_alone.toml",
                      "[[unit]]\nid = \"1\"\nport = \"p\"\n"
                      "host_gap = \"all\"\n"
                      "requires = [\"gemv\"]\n",
                      "ggml"),
           "u_requires_alone.toml", 5, "'requires' needs 'classes'");
}

TEST(LoadUnitsTest, ClassesHostGapAndWholeReach) {
  auto pack = LoadPack("mlx-rocm");
  ASSERT_TRUE(pack.ok());
  auto units = LoadUnits(WriteTemp("u_host.toml",
                                   "[[unit]]\nid = \"graph\"\nport = \"p\"\nhost_gap = \"all\"\n"
                                   "[[unit.reach]]\ndefault = \"all\"\n"
                                   "[[unit]]\nid = \"k\"\nport = \"q\"\n"
                                   "roles = [\"ssm_step\"]\nclasses = [\"gemm\", \"qmv\"]\n"
                                   "host_gap = \"roles\"\n"
                                   "[[unit.reach]]\nsampled = true\noptin = \"all\"\n"),
                         **pack);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  ASSERT_EQ((*units)->units().size(), 2u);
  const analysis::Unit& graph = (*units)->units()[0];
  EXPECT_TRUE(graph.fallback_roles.empty());
  EXPECT_TRUE(graph.classes.empty());
  EXPECT_EQ(graph.host_gap, analysis::HostGapOwnership::kAll);
  const analysis::UnitReach graph_reach = (*units)->Reach(0, {}, false);
  EXPECT_TRUE(graph_reach.default_whole);
  EXPECT_FALSE(graph_reach.optin_whole);
  const analysis::Unit& k = (*units)->units()[1];
  EXPECT_EQ(k.host_gap, analysis::HostGapOwnership::kRoles);
  ASSERT_EQ(k.classes.size(), 2u);
  EXPECT_EQ((*pack)->class_names()[k.classes[0]], "gemm");
  EXPECT_EQ((*pack)->class_names()[k.classes[1]], "qmv");
  const analysis::UnitReach sampled = (*units)->Reach(1, {}, true);
  EXPECT_FALSE(sampled.default_whole);
  EXPECT_TRUE(sampled.default_roles.empty());
  EXPECT_TRUE(sampled.optin_whole);
  EXPECT_EQ(sampled.optin_roles, k.fallback_roles);  // "all" reaches the unit's roles too
  EXPECT_FALSE((*units)->Reach(1, {}, false).optin_whole);
}

TEST(LoadUnitsTest, FileWithConditionsAndTemplates) {
  auto pack = LoadPack("mlx-rocm");
  ASSERT_TRUE(pack.ok());
  auto units = LoadUnits(WriteTemp("u_ok.toml",
                                   "[units]\nname = \"mine\"\n"
                                   "[[unit]]\nid = 1\nport = \"p\"\n"
                                   "roles = [\"ssm_step\"]\n"
                                   "[[unit.reach]]\nmodel_type = \"plamo2\"\n"
                                   "sampled = false\ndefault = [\"ssm_step\"]\n"
                                   "note = \"{model_type} greedy\"\n"),
                         **pack);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  ASSERT_EQ((*units)->units().size(), 1u);
  EXPECT_EQ((*units)->units()[0].id, "1");
  const analysis::UnitReach greedy = (*units)->Reach(0, {"plamo2", ""}, false);
  EXPECT_EQ(greedy.note, "plamo2 greedy");
  EXPECT_EQ(greedy.default_roles.size(), 1u);
  EXPECT_TRUE(greedy.optin_roles.empty());
  EXPECT_TRUE((*units)->Reach(0, {"plamo2", ""}, true).note.empty());
}

TEST(RobustnessTest, EveryPrefixOfTheBuiltinFilesLoadsOrFailsCleanly) {
  // Truncated files (and a few corruptions) give a Status, never a crash or a hang.
  auto full = LoadPack("mlx-rocm");
  ASSERT_TRUE(full.ok());
  const std::string pack_text =
      *base::ReadFile(std::string(DECODEPROF_SOURCE_DIR) + "/packs/mlx-rocm.toml");
  const std::string units_text =
      *base::ReadFile(std::string(DECODEPROF_SOURCE_DIR) + "/packs/units/mlx-rocm-ports.toml");
  size_t failures = 0;
  for (size_t n = 0; n < pack_text.size(); n += 7) {
    std::string text = pack_text.substr(0, n);
    if (n % 2 == 1) text += "\x01]]{";
    auto pack = LoadPack(WriteTemp("prefix.toml", text));
    if (!pack.ok()) {
      ++failures;
      EXPECT_EQ(pack.status().kind(), ErrorKind::kConfig) << pack.status().ToString();
      EXPECT_NE(pack.status().where().find("prefix.toml"), std::string::npos)
          << pack.status().ToString();
    }
  }
  EXPECT_GT(failures, 0u);
  for (size_t n = 0; n < units_text.size(); n += 5) {
    auto units = LoadUnits(WriteTemp("prefix_units.toml", units_text.substr(0, n)), **full);
    if (!units.ok()) {
      EXPECT_EQ(units.status().kind(), ErrorKind::kConfig) << units.status().ToString();
    }
  }
}

}  // namespace
}  // namespace decodeprof::packs
