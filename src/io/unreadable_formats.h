// Files decodeprof knows and does not read, named by what they are. When no importer is sure
// of a file (importer_registry.h ResolveImporter), these are tried before an importer that
// only might read it, so that such a file is refused in a few lines saying what it is, rather
// than read as something else (a one-line JSON file "read" as a CSV header).
//
//   rocprofv3 JSON   `rocprofv3 --output-format json`: one object `{"rocprofiler-sdk-tool":
//                    [...]}`.
//   Perfetto         a protobuf trace (`.pftrace`, `.perfetto-trace`; `rocprofv3
//                    --output-format pftrace`, Perfetto's own recorders): a run of
//                    `Trace.packet` records (field 1, length-delimited) from the first byte.
//   PyTorch ET       a PyTorch execution trace (torch.profiler's ExecutionTraceObserver,
//                    Chakra): a JSON object with `schema` and `nodes` — operators and tensors,
//                    no GPU time.
//   other JSON       a JSON document that is no Chrome/Kineto trace (no `traceEvents` or
//                    `schemaVersion` in its first 64 KB).
//   compressed SQLite  a gzip / zstd / xz-compressed SQLite file (sqlite_db.h).
// A Chrome/Kineto trace without GPU events is read, then refused for holding no dispatch, by
// its importer's NoDispatch (importer.h).
#pragma once

#include <optional>

#include "src/base/status.h"
#include "src/io/common/file_probe.h"

namespace decodeprof::io {

// The refusal of a file of a known format that decodeprof does not read (kData, where = the
// probe's path, a message of one line and a hint naming what decodeprof reads instead);
// nullopt for any other file.
std::optional<base::Status> RefuseUnreadable(const FileProbe& probe);

// True if `head` (a file's first bytes) starts as a Perfetto protobuf trace: records of field
// 1, wire type 2 (byte 0x0a, a varint length), at least two whole ones in `head` or one that
// runs past its end, holding binary bytes (a text file that starts with an empty line is no
// such run).
bool LooksLikePerfettoProtobuf(std::string_view head);

}  // namespace decodeprof::io
