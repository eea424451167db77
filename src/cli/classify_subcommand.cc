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

constexpr const char* kName = "classify";

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
    return ReportError(kName, base::UsageError(e.what(), "run `decodeprof classify --help`"));
  }

  base::StatusOr<std::unique_ptr<analysis::Pack>> pack = packs::LoadPack(pack_name);
  if (!pack.ok()) return ReportError(kName, pack.status());

  bool written = true;
  if (!names.empty()) {
    for (const std::string& name : names) written = written && WriteLine(**pack, name);
  } else {
    std::string line;
    while (written && std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      written = WriteLine(**pack, line);
    }
    if (std::cin.bad()) return ReportError(kName, base::IoError("stdin", "read error"));
  }
  if (!written || std::fflush(stdout) != 0) {
    return ReportError(kName, base::IoError("stdout", "cannot write the classes"));
  }
  return 0;
}

}  // namespace decodeprof::cli
