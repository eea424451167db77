// No diagnostic or warning text outside the one list (src/trace/diagnostics_list.h): the
// sources under src/ are scanned, so that a new free-text warning fails the tests.
//
// The rule, over every .h and .cc file under src/ except tests (*_test.cc, *_test_util.*,
// testdata/, testing/) and the list's own files (src/trace/diagnostics*):
//   1. No string literal holds "warning:". The label of a printed warning comes from the list
//      (trace::DiagnosticLine, DiagnosticText, SummaryWarningText), with the code's severity.
//   2. Every call of a function named Warn names a code: its arguments hold "Diag". The
//      injection library (src/record/cupti) is exempt: it cannot link the list (style.md
//      7.8); its warnings go to the traced program's stderr and to the trace's meta
//      `warnings`, which the native importer turns into recorder_records_off.
//   3. Free text is appended to a `warnings` list only where it is the detail of a code:
//      kWarningWriters below names each file and its code. A new file appending to one fails.
//   4. No string literal is a code's name: code names come from the list (Describe(code).name)
//      except the recorder's counter names in kCounterNameFiles, which the list checks
//      (DiagnosticsListTest.TheRecorderCountersAreTheRecorderCodes, schema.h's static_asserts).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "src/trace/diagnostics.h"

namespace decodeprof {
namespace {

namespace fs = std::filesystem;

// Rule 3: the files that append free text to a `warnings` list, and the code it is the detail of.
const std::map<std::string, std::string> kWarningWriters = {
    {"src/analysis/roles.cc", "role_rule_warning"},
    {"src/analysis/summary.cc", "copies RunFacts::warnings, summarize_judgments.cc's"},
    {"src/analysis/role_rules.cc", "role_rule_warning"},
    {"src/analysis/role_rules_oppath.cc", "role_rule_warning"},
    {"src/record/launcher.cc", "injection_variable_replaced"},
    {"src/pipeline/summarize_judgments.cc",
     "recorder_lost_records, trace_incomplete (RecorderWarnings)"},
};

// Rule 4: the files that spell recorder counter names (each checked against the list).
const std::set<std::string> kCounterNameFiles = {"src/native_format/schema.h",
                                                 "src/record/only_range.h"};

struct Literal {
  int line;
  std::string text;
};

// The file's text with comments and literals blanked, and its string literals (raw ones too).
struct Scanned {
  std::string code;
  std::vector<Literal> literals;
};

Scanned Scan(const std::string& text) {
  Scanned out;
  out.code.reserve(text.size());
  int line = 1;
  size_t i = 0;
  const auto keep = [&](char c) {
    out.code += c;
    if (c == '\n') ++line;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? text.size() : end + 2;
      for (; i < stop; ++i) {
        if (text[i] == '\n') keep('\n');
      }
    } else if (c == 'R' && i + 1 < text.size() && text[i + 1] == '"' &&
               (i == 0 ||
                !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_'))) {
      const size_t open = text.find('(', i + 2);
      const std::string delim = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const size_t close = text.find(delim, open);
      const size_t stop = close == std::string::npos ? text.size() : close + delim.size();
      out.literals.push_back({line, text.substr(open + 1, close - open - 1)});
      out.code += "\"\"";
      for (; i < stop; ++i) {
        if (text[i] == '\n') keep('\n');
      }
    } else if (c == '\'' && i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1]))) {
      keep(c);  // a digit separator: 1'000
      ++i;
    } else if (c == '"' || c == '\'') {
      std::string literal;
      const int start_line = line;
      ++i;
      while (i < text.size() && text[i] != c && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < text.size()) literal += text[i++];
        literal += text[i++];
      }
      ++i;
      if (c == '"') out.literals.push_back({start_line, literal});
      out.code += std::string(2, c);
    } else {
      keep(c);
      ++i;
    }
  }
  return out;
}

struct SourceFile {
  std::string path;  // relative to the source tree: "src/cli/recording.cc"
  Scanned scanned;
};

std::vector<SourceFile> Sources() {
  const fs::path root(DECODEPROF_SOURCE_DIR);
  std::vector<SourceFile> files;
  for (const auto& entry : fs::recursive_directory_iterator(root / "src")) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    const std::string rel = fs::relative(entry.path(), root).generic_string();
    const std::string name = entry.path().filename().string();
    if (name.ends_with("_test.cc") || name.find("_test_util.") != std::string::npos ||
        rel.find("/testdata/") != std::string::npos || rel.find("/testing/") != std::string::npos ||
        rel.starts_with("src/trace/diagnostics")) {
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    files.push_back({rel, Scan(text.str())});
  }
  return files;
}

// The line of `offset` in `code` (its newlines are the file's).
int LineOf(const std::string& code, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < code.size(); ++i) line += code[i] == '\n' ? 1 : 0;
  return line;
}

TEST(DiagnosticsTextTest, TheScannerSeesLiteralsAndSkipsComments) {
  const Scanned s = Scan(
      "// \"warning: in a comment\"\nf(\"a\\\"b\", 'x'); /* \"c\" */ g(R\"x(raw \"q\")x\");\n");
  ASSERT_EQ(s.literals.size(), 2u);
  EXPECT_EQ(s.literals[0].text, "a\\\"b");
  EXPECT_EQ(s.literals[0].line, 2);
  EXPECT_EQ(s.literals[1].text, "raw \"q\"");
  EXPECT_EQ(s.code.find("comment"), std::string::npos);
  EXPECT_NE(s.code.find("g(\"\")"), std::string::npos);
}

TEST(DiagnosticsTextTest, TheTreeIsScanned) {
  const std::vector<SourceFile> files = Sources();
  EXPECT_GT(files.size(), 100u);
  bool saw_recording = false;
  for (const SourceFile& f : files) saw_recording |= f.path == "src/cli/recording.cc";
  EXPECT_TRUE(saw_recording);
}

// Rule 1.
TEST(DiagnosticsTextTest, NoWarningLabelOutsideTheList) {
  for (const SourceFile& f : Sources()) {
    for (const Literal& literal : f.scanned.literals) {
      EXPECT_EQ(literal.text.find("warning:"), std::string::npos)
          << f.path << ":" << literal.line << ": \"" << literal.text
          << "\": print a code of src/trace/diagnostics_list.h (trace::DiagnosticLine)";
    }
  }
}

// Rule 2.
TEST(DiagnosticsTextTest, EveryWarnCallNamesACode) {
  const std::regex call(R"(\bWarn\s*\()");
  for (const SourceFile& f : Sources()) {
    if (f.path.starts_with("src/record/cupti/")) continue;
    const std::string& code = f.scanned.code;
    for (auto it = std::sregex_iterator(code.begin(), code.end(), call);
         it != std::sregex_iterator(); ++it) {
      const size_t open = static_cast<size_t>(it->position() + it->length());
      int depth = 1;
      size_t end = open;
      while (end < code.size() && depth > 0) {
        depth += code[end] == '(' ? 1 : code[end] == ')' ? -1 : 0;
        ++end;
      }
      const std::string arguments = code.substr(open, end - open);
      EXPECT_NE(arguments.find("Diag"), std::string::npos)
          << f.path << ":" << LineOf(code, open) << ": Warn(" << arguments
          << " names no code of src/trace/diagnostics_list.h";
    }
  }
}

// Rule 3.
TEST(DiagnosticsTextTest, FreeTextWarningsAreTheDetailsOfACode) {
  const std::regex append(R"(\bwarnings\s*(\.|->)\s*(push_back|emplace_back|insert|append)\b)");
  std::set<std::string> writers;
  for (const SourceFile& f : Sources()) {
    if (f.path.starts_with("src/record/cupti/")) continue;  // rule 2's exemption
    const std::string& code = f.scanned.code;
    for (auto it = std::sregex_iterator(code.begin(), code.end(), append);
         it != std::sregex_iterator(); ++it) {
      writers.insert(f.path);
      EXPECT_TRUE(kWarningWriters.contains(f.path))
          << f.path << ":" << LineOf(code, static_cast<size_t>(it->position()))
          << ": free text appended to a warnings list: make it a code of "
             "src/trace/diagnostics_list.h (its detail goes to the code's example)";
    }
  }
  // The list of writers holds no file that writes none (it would let one in unseen).
  for (const auto& [path, code] : kWarningWriters) {
    EXPECT_TRUE(writers.contains(path)) << path << " (" << code << ") appends no warning now";
  }
}

// Rule 4.
TEST(DiagnosticsTextTest, NoCodeNameIsSpelledOutsideTheList) {
  std::set<std::string, std::less<>> names;
  for (const trace::DiagnosticInfo& info : trace::AllDiagnostics()) names.emplace(info.name);
  for (const SourceFile& f : Sources()) {
    if (kCounterNameFiles.contains(f.path)) continue;
    for (const Literal& literal : f.scanned.literals) {
      EXPECT_FALSE(names.contains(literal.text))
          << f.path << ":" << literal.line << ": \"" << literal.text
          << "\" is a code's name: use trace::Describe(trace::Diag::...).name";
    }
  }
}

}  // namespace
}  // namespace decodeprof
