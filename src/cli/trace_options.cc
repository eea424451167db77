// What the subcommands that read traces print besides their results: the diagnostics table
// and the list of formats in --help.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/cli/option_checks.h"
#include "src/cli/subcommand.h"
#include "src/io/importer_registry.h"

namespace decodeprof::cli {

void PrintDiagnostics(std::string_view subcommand, std::span<const trace::DiagnosticEntry> entries,
                      std::string_view listed_in) {
  std::string table;
  int shown = 0;
  for (const trace::DiagnosticEntry& e : entries) {
    const trace::DiagnosticInfo& info = trace::Describe(e.code);
    if (info.severity == trace::Severity::kInfo) continue;
    ++shown;
    std::string where = e.first.file;
    if (!e.first.position.empty()) where += ": " + e.first.position;
    // The detail may quote the input (a log line, categories): cut as every quote of input is.
    if (!e.first.detail.empty()) where += ": " + base::Excerpt(e.first.detail);
    table += fmt::format("  {:<9}  {:<26} {:>8}  {}", trace::SeverityName(info.severity), info.name,
                         e.count, info.meaning);
    if (!where.empty()) table += " [" + where + "]";
    table += "\n";
  }
  if (shown == 0) return;
  const std::string listed = listed_in.empty() ? "" : " (" + std::string(listed_in) + ")";
  std::fprintf(stderr, "decodeprof: %.*s: %d diagnostic%s%s:\n%s",
               static_cast<int>(subcommand.size()), subcommand.data(), shown, shown == 1 ? "" : "s",
               listed.c_str(), table.c_str());
}

CLI::Validator TraceFormat() {
  std::vector<std::string> choices = {"auto"};
  for (const io::Importer* importer : io::Importers()) choices.emplace_back(importer->name());
  CLI::Validator one_of = OneOf(choices);
  one_of.description("");  // --help lists the formats already
  return one_of;
}

std::string FormatTable() {
  std::string out = "Trace formats (--format; auto recognizes them by content):\n";
  for (const io::Importer* importer : io::Importers()) {
    out += fmt::format("  {:<14} {} [default pack {}]\n", importer->name(), importer->description(),
                       importer->default_pack());
  }
  return out;
}

}  // namespace decodeprof::cli
