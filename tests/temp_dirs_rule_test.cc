// Every test makes its temporary folders with the test-support library (tests/support/
// temp_dir.h: TempDir, ScratchDir), which honours TMPDIR and removes what it made: the C++
// test sources under tests/ and src/ are scanned, so that a new hand-made folder fails.
//
// The rule, over every .h, .cc and .c file under tests/ and every test file under src/
// (*_test.cc, *_test_util.*, *_test_fakes.*, testing/, testdata/), except tests/support/ (the
// library itself) and kAllowed below (each with its reason): no call of
// std::filesystem::temp_directory_path(), mkdtemp() or GoogleTest's ::testing::TempDir() (a
// folder shared by every test, never emptied) outside comments.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The files that may call them anyway, and why.
const std::map<std::string, std::string> kAllowed = {
    {"tests/temp_dirs_rule_test.cc", "the rule's own file names the calls it looks for"},
};

// GoogleTest's testing::TempDir() but not decodeprof::testing::TempDir's constructor.
const std::regex kCall(
    R"(\b(temp_directory_path|mkdtemp)\s*\(|(?:^|[^\w:]|\W::)testing::TempDir\s*\(\s*\))");

bool IsTestFile(const std::string& relative) {
  if (relative.starts_with("tests/")) return !relative.starts_with("tests/support/");
  const std::string name = fs::path(relative).filename().string();
  return name.ends_with("_test.cc") || name.find("_test_util.") != std::string::npos ||
         name.find("_test_fakes.") != std::string::npos ||
         relative.find("/testing/") != std::string::npos ||
         relative.find("/testdata/") != std::string::npos;
}

// `text` without its // and /* */ comments (string literals are kept: a call's name is code).
std::string WithoutComments(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      if (i < text.size()) out += '\n';
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? text.size() : end + 2;
      for (; i < stop; ++i) {
        if (text[i] == '\n') out += '\n';
      }
      --i;
    } else {
      out += text[i];
    }
  }
  return out;
}

// "path:line: call" for every call in the test files under `root` (tests/ and src/).
std::vector<std::string> Violations(const fs::path& root,
                                    std::map<std::string, int>* allowed_hits) {
  std::vector<std::string> found;
  for (const char* top : {"tests", "src"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const fs::path& path = entry.path();
      const std::string ext = path.extension().string();
      if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h" && ext != ".c")) continue;
      const std::string relative = fs::relative(path, root).generic_string();
      if (!IsTestFile(relative)) continue;
      std::ifstream in(path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      std::istringstream lines(WithoutComments(text.str()));
      int number = 0;
      for (std::string line; std::getline(lines, line);) {
        ++number;
        std::smatch m;
        if (!std::regex_search(line, m, kCall)) continue;
        if (kAllowed.count(relative) != 0) {
          ++(*allowed_hits)[relative];
        } else {
          std::string call = m.str(0);
          call.erase(0, call.find_first_not_of(" \t(,=+!&|<"));
          found.push_back(relative + ":" + std::to_string(number) + ": " + call);
        }
      }
    }
  }
  return found;
}

TEST(TempDirsRuleTest, NoTestMakesItsOwnTemporaryFolder) {
  const fs::path root = DECODEPROF_SOURCE_DIR;
  std::map<std::string, int> allowed_hits;
  const std::vector<std::string> found = Violations(root, &allowed_hits);
  std::string list;
  for (const std::string& f : found) list += "  " + f + "\n";
  EXPECT_TRUE(found.empty())
      << "tests make temporary folders with decodeprof::testing::TempDir or ScratchDir "
         "(tests/support/temp_dir.h), or are listed in kAllowed with a reason:\n"
      << list;
  // An entry that no longer needs its exemption goes.
  for (const auto& [file, reason] : kAllowed) {
    EXPECT_GT(allowed_hits[file], 0) << file << " is allowed (" << reason << ") but calls neither";
  }
}

TEST(TempDirsRuleTest, TheScanSeesCallsAndSkipsComments) {
  EXPECT_TRUE(std::regex_search(WithoutComments("auto d = fs::temp_directory_path();"), kCall));
  EXPECT_TRUE(std::regex_search(WithoutComments("::mkdtemp (pattern.data());"), kCall));
  EXPECT_FALSE(std::regex_search(WithoutComments("// fs::temp_directory_path() here"), kCall));
  EXPECT_FALSE(std::regex_search(WithoutComments("/* mkdtemp(x) */ int y;"), kCall));
  EXPECT_TRUE(std::regex_search(WithoutComments("f(::testing::TempDir() + \"/x\");"), kCall));
  EXPECT_TRUE(std::regex_search(WithoutComments("auto p = testing::TempDir();"), kCall));
  EXPECT_FALSE(
      std::regex_search(WithoutComments("decodeprof::testing::TempDir t(\"p_\");"), kCall));
  EXPECT_FALSE(std::regex_search(WithoutComments("decodeprof::testing::TempDir()"), kCall));
  EXPECT_TRUE(IsTestFile("tests/golden_test.cc"));
  EXPECT_TRUE(IsTestFile("src/guard/guard_cli_test_util.cc"));
  EXPECT_TRUE(IsTestFile("src/io/rocpd/testing/rocpd_db_writer.cc"));
  EXPECT_FALSE(IsTestFile("tests/support/temp_dir.cc"));
  EXPECT_FALSE(IsTestFile("src/cli/kernels_subcommand.cc"));
}

}  // namespace
