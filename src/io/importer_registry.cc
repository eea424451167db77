#include "src/io/importer_registry.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "src/io/unreadable_formats.h"

namespace decodeprof::io {

#define DECODEPROF_IMPORTER(fn) const Importer& fn();
#include "src/io/builtin_importers.inc"
#undef DECODEPROF_IMPORTER

namespace {

std::vector<const Importer*> MakeRegistry() {
  std::vector<const Importer*> all = {
#define DECODEPROF_IMPORTER(fn) &fn(),
#include "src/io/builtin_importers.inc"
#undef DECODEPROF_IMPORTER
  };
  std::sort(all.begin(), all.end(),
            [](const Importer* a, const Importer* b) { return a->name() < b->name(); });
  return all;
}

}  // namespace

std::span<const Importer* const> Importers() {
  static const std::vector<const Importer*> registry = MakeRegistry();
  return registry;
}

const Importer* FindImporter(std::string_view name) {
  for (const Importer* importer : Importers()) {
    if (importer->name() == name) return importer;
  }
  return nullptr;
}

std::string FormatChoices() {
  std::string out = "auto";
  for (const Importer* importer : Importers()) {
    out += "|";
    out += importer->name();
  }
  return out;
}

base::StatusOr<const Importer*> ResolveImporter(const std::string& path, std::string_view format) {
  if (!format.empty() && format != "auto") {
    if (const Importer* importer = FindImporter(format)) return importer;
    std::string choices = FormatChoices();
    std::replace(choices.begin(), choices.end(), '|', ' ');
    return base::UsageError("unknown --format '" + std::string(format) + "'",
                            "use one of: " + choices);
  }
  DP_ASSIGN_OR_RETURN(const FileProbe probe, FileProbe::Open(path));
  const Importer* maybe = nullptr;
  for (const Importer* importer : Importers()) {
    const Recognition r = importer->Recognize(probe);
    if (r == Recognition::kYes) return importer;
    if (r == Recognition::kMaybe && maybe == nullptr) maybe = importer;
  }
  // A file of a format decodeprof knows and does not read is named by what it is.
  if (std::optional<base::Status> refusal = RefuseUnreadable(probe)) return *std::move(refusal);
  if (maybe != nullptr) return maybe;
  std::string choices = FormatChoices();
  std::replace(choices.begin(), choices.end(), '|', ' ');
  return base::DataError(path, "not a trace of any format decodeprof reads",
                         "formats: " + choices.substr(5) + " (docs/trace-formats.md)");
}

std::string FormatTableMarkdown() {
  std::string out =
      "| `--format` | reads | made by | default pack | marks inside the trace |\n"
      "|---|---|---|---|---|\n";
  for (const Importer* importer : Importers()) {
    out += "| `" + std::string(importer->name()) + "` | " + std::string(importer->description()) +
           " | `" + std::string(importer->produced_by()) + "` | `" +
           std::string(importer->default_pack()) + "` | " +
           (importer->carries_ranges() ? "yes" : "no (needs `--log`)") + " |\n";
  }
  return out;
}

}  // namespace decodeprof::io
