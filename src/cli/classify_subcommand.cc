// `decodeprof classify --pack NAME|FILE [NAME...]`: the class of each kernel name under a
// rule pack, one `<class>\t<name>` line per name. Names come from the arguments, or from
// stdin one per line when none are given (empty lines are skipped, a trailing CR dropped).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/cli/option_checks.h"
#include "src/cli/subcommand.h"
#include "src/packs/pack_loader.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kClassifyCommand = "classify";
constexpr size_t kMaxNameBytes = size_t{1} << 20;  // one name read from stdin

bool WriteLine(const analysis::Pack& pack, std::string_view name) {
  std::string line = pack.class_names()[pack.Classify(name)];
  line += '\t';
  line += name;
  line += '\n';
  return std::fwrite(line.data(), 1, line.size(), stdout) == line.size();
}

}  // namespace

int ClassifyMain(int argc, char** argv) {
  std::string builtin;
  for (const std::string& name : packs::BuiltinPackNames()) {
    builtin += (builtin.empty() ? "" : ", ") + name;
  }
  CLI::App app{
      "Print the class of kernel names under a rule pack, one `<class><TAB><name>` line per "
      "name. Names come from the arguments, or from stdin one per line when none are given.",
      "decodeprof classify"};
  std::string pack_name;
  std::vector<std::string> names;
  app.add_option("--pack", pack_name,
                 "built-in pack name (" + builtin + ") or path of a pack file (.toml)")
      ->required()
      ->check(NonEmpty("a pack name or file"));
  app.add_option("NAME", names, "kernel names (demangled, as the trace writes them)")
      ->check(NonEmpty("a kernel name"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return ReportError(kClassifyCommand,
                       base::UsageError(e.what(), "run `decodeprof classify --help`"));
  }

  base::StatusOr<std::unique_ptr<analysis::Pack>> pack = packs::LoadPack(pack_name);
  if (!pack.ok()) return ReportError(kClassifyCommand, pack.status());

  bool written = true;
  if (!names.empty()) {
    for (const std::string& name : names) written = written && WriteLine(**pack, name);
  } else {
    // Read in blocks, each line at most kMaxNameBytes: an input without newlines (a device,
    // a binary file) is an error, not memory without end.
    std::string line;
    int64_t line_number = 1;
    auto finish_line = [&] {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) written = WriteLine(**pack, line);
      line.clear();
      ++line_number;
    };
    std::vector<char> block(size_t{1} << 16);
    while (written) {
      std::cin.read(block.data(), static_cast<std::streamsize>(block.size()));
      const auto got = static_cast<size_t>(std::cin.gcount());
      if (got == 0) break;
      for (size_t i = 0; i < got && written; ++i) {
        if (block[i] == '\n') {
          finish_line();
        } else if (line.size() >= kMaxNameBytes) {
          return ReportError(
              kClassifyCommand,
              base::DataError("stdin",
                              "line " + std::to_string(line_number) + " is longer than " +
                                  std::to_string(kMaxNameBytes >> 20) + " MiB: not a kernel name",
                              "give one kernel name per line"));
        } else {
          line.push_back(block[i]);
        }
      }
    }
    if (std::cin.bad()) return ReportError(kClassifyCommand, base::IoError("stdin", "read error"));
    if (written && !line.empty()) finish_line();
  }
  if (!written || std::fflush(stdout) != 0) {
    return ReportError(kClassifyCommand, base::IoError("stdout", "cannot write the classes"));
  }
  return 0;
}

}  // namespace decodeprof::cli
