// The importer plug-in interface (ARCHITECTURE.md "Importers are plug-ins"). A format is one
// folder under src/io/ holding one Importer object, listed by one line in
// src/io/builtin_importers.inc. Nothing outside src/io names a format: `--format` choices,
// help text, default packs and hints come from the registry (importer_registry.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"
#include "src/io/common/file_probe.h"
#include "src/trace/trace.h"

namespace decodeprof::io {

// How sure a recognizer is that a file is in its format.
enum class Recognition { kNo, kMaybe, kYes };

// Optional capability: import a large file on several threads into per-part sinks (today the
// rocprofv3 CSV importer). See rocprofv3_csv_importer.h ImportRocprofv3CsvInParts.
class PartsImporter {
 public:
  // Makes the sink of part `index` (0, 1, ... in file order), about `bytes` long.
  using SinkFactory = std::function<trace::DispatchSink*(size_t index, int64_t bytes)>;
  // A part whose sink must be appended, in order, to the first sink; Rebase puts a dispatch
  // its sink received into the terms of the whole file (names, lines).
  struct LaterPart {
    size_t index = 0;
    std::function<void(trace::Dispatch&)> rebase;
  };
  struct Result {
    trace::ImportedTrace trace;
    std::vector<LaterPart> later;  // empty: `first` holds everything
  };
  virtual ~PartsImporter() = default;
  virtual base::StatusOr<Result> ImportInParts(const std::string& path, trace::StringPool& names,
                                               trace::DispatchSink& first,
                                               const SinkFactory& new_part) const = 0;
};

// Optional capability: read a trace's annotations first — everything but its dispatches and
// launch calls: ranges, devices, clock, meta, the importer's diagnostics — then stream the
// dispatches in start order and only the launch calls a filter keeps. A window cut by the
// trace's own ranges (or a log) then holds only the window in memory, however large the file
// (native traces; formats whose ranges lie in their own table).
class StagedImporter {
 public:
  using LaunchFilter = std::function<bool(uint64_t correlation)>;
  virtual ~StagedImporter() = default;
  virtual base::Status ImportAnnotations(const std::string& path,
                                         trace::TraceBuilder& builder) const = 0;
  // The dispatches (start order; file order on ties) into `builder`, then the launch calls
  // whose correlation `keep` accepts; it is called after the last dispatch was streamed.
  virtual base::Status ImportDispatches(const std::string& path, trace::TraceBuilder& builder,
                                        const LaunchFilter& keep) const = 0;
};

class Importer {
 public:
  virtual ~Importer() = default;
  // The --format value ("nsys-sqlite").
  virtual std::string_view name() const = 0;
  // One line for --help and the docs' format table ("Nsight Systems SQLite export").
  virtual std::string_view description() const = 0;
  // How the format is made, for the docs and hints ("nsys export --type sqlite FILE.nsys-rep").
  virtual std::string_view produced_by() const = 0;
  // The built-in pack for traces of this format ("pytorch-cuda", "mlx-rocm").
  virtual std::string_view default_pack() const = 0;
  virtual Recognition Recognize(const FileProbe& probe) const = 0;
  // Streams the trace at `path` into `builder`. Errors: kIo (unreadable), kData (malformed,
  // with the file and the line, byte or table row).
  virtual base::Status Import(const std::string& path, trace::TraceBuilder& builder) const = 0;
  // How a Dispatch::line is named in messages: "line" for text formats, else "record".
  virtual std::string_view position_word() const { return "record"; }
  // False for a format that cannot hold annotation ranges (its phase marks must come from a
  // bench log).
  virtual bool carries_ranges() const { return true; }
  // The several-thread import, when the format has one.
  virtual const PartsImporter* parts() const { return nullptr; }
  // The annotations-first import, when the format has one.
  virtual const StagedImporter* staged() const { return nullptr; }
  // The refusal of a trace of this format that holds no dispatch (kData, where = `path`):
  // what the file is and why it holds none, in a line and a hint. `t`: what the import gave.
  virtual base::Status NoDispatch(const std::string& path, const trace::ImportedTrace&) const {
    return base::DataError(path, "the trace holds no dispatch (no kernel, no memory operation)",
                           "was the GPU work recorded? (an empty or header-only file)");
  }
};

}  // namespace decodeprof::io
