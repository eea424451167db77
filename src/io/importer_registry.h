// The importer registry: every built-in format (src/io/builtin_importers.inc), how a file's
// format is recognized, and the text that --format's help and errors show.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "src/base/status.h"
#include "src/io/importer.h"

namespace decodeprof::io {

// Every importer, ordered by name.
std::span<const Importer* const> Importers();

// Every importer in detection order: the highest priority first (builtin_importers.inc gives
// each its own).
std::span<const Importer* const> ImportersByPriority();
int DetectionPriority(const Importer& importer);

// The importers that recognize `probe`: the one sure of it (kYes; of several, the highest
// priority), and the one that may read it (kMaybe; likewise). Null where none is.
struct Recognized {
  const Importer* sure = nullptr;
  const Importer* maybe = nullptr;
};
Recognized RecognizeProbe(const FileProbe& probe);

// The importer named `name`, or null.
const Importer* FindImporter(std::string_view name);

// "auto|kineto-json|native|..." — the --format choices.
std::string FormatChoices();

// The importer of `path`: the one named `format`, or for "auto" (or "") the one that
// recognizes the file (RecognizeProbe: a kYes wins over a kMaybe; among equals, the highest
// detection priority). A
// compressed file is recognized by its decompressed start (file_probe.h).
// Errors: kUsage for an unknown format name (the hint lists the choices); kIo when the file
// cannot be read; kData when no importer is sure of it and it is a known format decodeprof
// does not read (unreadable_formats.h: what it is, in one line and a hint), when no importer
// recognizes it, or when compressed data is damaged within its first 64 KB (input_stream.h).
base::StatusOr<const Importer*> ResolveImporter(const std::string& path, std::string_view format);

// The docs' format table (docs/trace-formats.md, checked against this by a test): a Markdown
// table with one row per importer — --format, what it reads, how it is made, default pack,
// whether it carries ranges (phase marks inside the trace).
std::string FormatTableMarkdown();

}  // namespace decodeprof::io
