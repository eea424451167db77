// No diagnostic or warning text outside the one list (src/trace/diagnostics_list.h): the
// sources under src/ are scanned, so that a new free-text warning fails the tests.
//
// The rule, over every .h and .cc file under src/ except tests (*_test.cc, *_test_util.*,
// testdata/, testing/) and the list's own files (src/trace/diagnostics*):
//   1. No string literal holds "warning:". The label of a printed warning comes from the list
//      (trace::DiagnosticLine, DiagnosticText), with the code's severity.
//   2. The words of an occurrence are a message of the list (DECODEPROF_DIAGNOSTIC_MESSAGES):
//      no string literal of more than one word is an argument of a call that prints a warning
//      or stores one (Warn, AppendText, DiagnosticLine, DiagnosticText, Message, an append to
//      a `warnings` list), of a diagnostic's example (Diagnostics::Add, Example) or of a
//      trust flag's detail (MakeTrustFlag). The
//      injection library (src/record/cupti) is held to it too: it includes the list, which
//      is header-only.
//   3. Every call of a function named Warn is given a message (trace::Message or a
//      DiagMessage): none takes a plain string.
//   4. No string literal is a code's name: code names come from the list (Describe(code).name)
//      except the recorder's counter names in kCounterNameFiles, which the list checks
//      (DiagnosticsListTest.TheRecorderCountersAreTheRecorderCodes, schema.h's static_asserts).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "src/trace/diagnostics.h"

namespace decodeprof {
namespace {

namespace fs = std::filesystem;

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

// The argument text of the call whose '(' ends at `open` in `code` (up to its ')').
std::string ArgumentsAt(const std::string& code, size_t open) {
  int depth = 1;
  size_t end = open;
  while (end < code.size() && depth > 0) {
    depth += code[end] == '(' ? 1 : code[end] == ')' ? -1 : 0;
    ++end;
  }
  return code.substr(open, end - open);
}

// A call rule 2 looks into: where its name starts and where its arguments do (after '(').
struct Call {
  size_t start;
  size_t open;
};

// Skips blanks in `code` from `i`.
size_t SkipBlanks(const std::string& code, size_t i) {
  while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
  return i;
}

// The calls rule 2 looks into, in `code` (comments and literals blanked): what prints or stores
// an occurrence (Warn, AppendText, DiagnosticLine, DiagnosticText, Message<...>, Example, an
// append to a `warnings` list) and a diagnostic's example (`.Add(Diag::...` or
// `.Add(trace::Diag::...`). A plain scan of identifiers: std::regex over the tree is slow.
std::vector<Call> OccurrenceCalls(const std::string& code) {
  static const std::set<std::string, std::less<>> kPrinters = {
      "Warn", "AppendText", "DiagnosticLine", "DiagnosticText", "Example", "MakeTrustFlag"};
  static const std::set<std::string, std::less<>> kAppends = {"push_back", "emplace_back", "insert",
                                                              "append"};
  const auto ident_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  std::vector<Call> calls;
  size_t i = 0;
  while (i < code.size()) {
    if (!ident_char(code[i]) || (i > 0 && ident_char(code[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < code.size() && ident_char(code[end])) ++end;
    const std::string_view word(code.data() + i, end - i);
    size_t j = SkipBlanks(code, end);
    if (word == "Message" && j < code.size() && code[j] == '<') {
      j = SkipBlanks(code, code.find('>', j) + 1);
    } else if (word == "warnings" && j < code.size() && (code[j] == '.' || code[j] == '-')) {
      j = SkipBlanks(code, j + (code[j] == '.' ? 1 : 2));
      size_t k = j;
      while (k < code.size() && ident_char(code[k])) ++k;
      if (!kAppends.contains(std::string_view(code.data() + j, k - j))) j = code.size();
      j = SkipBlanks(code, k);
    } else if (word == "Add" && i > 0 && code[i - 1] == '.' && j < code.size() && code[j] == '(') {
      const size_t arg = SkipBlanks(code, j + 1);
      if (code.compare(arg, 6, "Diag::") != 0 && code.compare(arg, 13, "trace::Diag::") != 0) {
        j = code.size();
      }
    } else if (!kPrinters.contains(word)) {
      j = code.size();
    }
    if (j < code.size() && code[j] == '(') calls.push_back({i, j + 1});
    i = end;
  }
  return calls;
}

// A position in a file, as an example names it ("line 12", "table kernels", "meta warnings").
bool IsPosition(const std::string& text) {
  for (const char* word : {"line ", "byte ", "table ", "meta ", "row ", "column ", "event "}) {
    if (text.starts_with(word)) return true;
  }
  return false;
}

// Words: runs of two or more letters ("a", "ns" and " id " are no sentence; "ns window" is).
int Words(const std::string& text) {
  int words = 0;
  size_t run = 0;
  for (const char c : text + " ") {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      ++run;
      continue;
    }
    words += run >= 2 ? 1 : 0;
    run = 0;
  }
  return words;
}

// The literals of `f` on lines [first, last] of two words or more that are no position.
std::vector<Literal> SentencesOn(const SourceFile& f, int first, int last) {
  std::vector<Literal> out;
  for (const Literal& literal : f.scanned.literals) {
    if (literal.line >= first && literal.line <= last && Words(literal.text) >= 2 &&
        !IsPosition(literal.text)) {
      out.push_back(literal);
    }
  }
  return out;
}

// Rule 2: the sentences of the calls of OccurrenceCalls in `f` ("path:line: text" each).
std::vector<std::string> SentencesInOccurrences(const SourceFile& f) {
  std::vector<std::string> found;
  const std::string& code = f.scanned.code;
  std::set<int> seen;
  for (const Call& call : OccurrenceCalls(code)) {
    const size_t open = call.open;
    const std::string arguments = ArgumentsAt(code, open);
    if (arguments.find("\"\"") == std::string::npos) continue;  // no literal in it
    const int first = LineOf(code, call.start);
    const int last = LineOf(code, open + arguments.size());
    for (const Literal& literal : SentencesOn(f, first, last)) {
      if (seen.insert(literal.line).second) {
        found.push_back(f.path + ":" + std::to_string(literal.line) + ": \"" + literal.text + "\"");
      }
    }
  }
  return found;
}

// Rule 2.
TEST(DiagnosticsTextTest, TheWordsOfAnOccurrenceAreAMessageOfTheList) {
  for (const SourceFile& f : Sources()) {
    for (const std::string& sentence : SentencesInOccurrences(f)) {
      ADD_FAILURE() << sentence
                    << ": a sentence written for a diagnostic: make it a message of "
                       "src/trace/diagnostics_list.h (DECODEPROF_DIAGNOSTIC_MESSAGES)";
    }
  }
}

TEST(DiagnosticsTextTest, TheSentenceRuleSeesAPlantedSentence) {
  for (const char* planted :
       {"void F() { Warn(subcommand, trace::Diag::kX, \"a sentence here\"); }",
        "void F() {\n  warnings.push_back(\"the thing \" + x);\n}",
        "void F() {\n  diag.Add(trace::Diag::kX, 1,\n    {path, \"\", \"what was seen\"});\n}",
        "void F() { Warn(trace::Message<trace::Msg::kX>(\"two words\")); }"}) {
    const SourceFile f{"src/x.cc", Scan(planted)};
    EXPECT_EQ(SentencesInOccurrences(f).size(), 1u) << planted;
  }
  for (const char* clean :
       {"void F() { Warn(subcommand, trace::Message<trace::Msg::kX>(name, \"on\")); }",
        "void F() { diag.Add(trace::Diag::kX, 1, {path, \"line 3\", detail}); }",
        "void F() { other(\"a sentence\"); }"}) {
    const SourceFile f{"src/x.cc", Scan(clean)};
    EXPECT_TRUE(SentencesInOccurrences(f).empty()) << clean;  // "line 3" is a position
  }
}

// Rule 3.
TEST(DiagnosticsTextTest, EveryWarnCallIsGivenAMessage) {
  for (const SourceFile& f : Sources()) {
    const std::string& code = f.scanned.code;
    for (const Call& call : OccurrenceCalls(code)) {
      if (code.compare(call.start, 4, "Warn") != 0) continue;
      const size_t open = call.open;
      const std::string arguments = ArgumentsAt(code, open);
      EXPECT_EQ(arguments.find('+'), std::string::npos)
          << f.path << ":" << LineOf(code, open) << ": Warn(" << arguments
          << " builds its text: give it a trace::Message of src/trace/diagnostics_list.h";
    }
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
