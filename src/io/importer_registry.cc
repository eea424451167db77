#include "src/io/importer_registry.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

#include "src/io/unreadable_formats.h"

namespace decodeprof::io {

#define DECODEPROF_IMPORTER(fn, priority) const Importer& fn();
#include "src/io/builtin_importers.inc"
#undef DECODEPROF_IMPORTER

namespace {

struct Registered {
  const Importer* importer;
  int priority;
};

constexpr int kPriorities[] = {
#define DECODEPROF_IMPORTER(fn, priority) priority,
#include "src/io/builtin_importers.inc"
#undef DECODEPROF_IMPORTER
};

constexpr bool Distinct(const int (&values)[std::size(kPriorities)]) {
  for (size_t i = 0; i < std::size(values); ++i) {
    for (size_t j = i + 1; j < std::size(values); ++j) {
      if (values[i] == values[j]) return false;
    }
  }
  return true;
}
static_assert(Distinct(kPriorities),
              "two importers share a detection priority (builtin_importers.inc)");

const std::vector<Registered>& Registry() {
  static const std::vector<Registered> registry = {
#define DECODEPROF_IMPORTER(fn, priority) {&fn(), priority},
#include "src/io/builtin_importers.inc"
#undef DECODEPROF_IMPORTER
  };
  return registry;
}

// The importers sorted by `before`.
template <typename Before>
std::vector<const Importer*> SortedBy(Before before) {
  std::vector<Registered> all = Registry();
  std::sort(all.begin(), all.end(), before);
  std::vector<const Importer*> out;
  for (const Registered& r : all) out.push_back(r.importer);
  return out;
}

}  // namespace

std::span<const Importer* const> Importers() {
  static const std::vector<const Importer*> by_name =
      SortedBy([](const Registered& a, const Registered& b) {
        return a.importer->name() < b.importer->name();
      });
  return by_name;
}

std::span<const Importer* const> ImportersByPriority() {
  static const std::vector<const Importer*> by_priority =
      SortedBy([](const Registered& a, const Registered& b) { return a.priority > b.priority; });
  return by_priority;
}

int DetectionPriority(const Importer& importer) {
  for (const Registered& r : Registry()) {
    if (r.importer == &importer) return r.priority;
  }
  return 0;
}

Recognized RecognizeProbe(const FileProbe& probe) {
  Recognized out;
  for (const Importer* importer : ImportersByPriority()) {
    const Recognition r = importer->Recognize(probe);
    if (r == Recognition::kYes && out.sure == nullptr) out.sure = importer;
    if (r == Recognition::kMaybe && out.maybe == nullptr) out.maybe = importer;
  }
  return out;
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
  const Recognized recognized = RecognizeProbe(probe);
  if (recognized.sure != nullptr) return recognized.sure;
  // A file of a format decodeprof knows and does not read is named by what it is.
  if (std::optional<base::Status> refusal = RefuseUnreadable(probe)) return *std::move(refusal);
  if (recognized.maybe != nullptr) return recognized.maybe;
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
