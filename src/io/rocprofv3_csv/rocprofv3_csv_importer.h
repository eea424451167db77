// rocprofv3 `<name>_kernel_trace.csv` (seed spec 2.2, reference/trace-formats.md 4).
//
// Columns are found by name in the header row, in any spelling rocprofv3 has used:
// kernel name = first present of Kernel_Name, KernelName; start = Start_Timestamp or
// BeginNs; end = End_Timestamp or EndNs; optional Grid_Size_X/Y/Z (grid = product over the
// present grid columns of max(int(value or 1), 1); 0 for every row when none is present).
// Every data row is a dispatch (no filtering by Kind, agent or queue). Fields follow RFC 4180
// quoting (quoted names may contain commas, doubled quotes and newlines); CRLF or LF rows.
//
// Errors (kData, where = "<path>:<line>"): a missing required column —
//   message "kernel trace has none of the columns (Kernel_Name, KernelName); header: [...]"
//   formatted as the seed's Python does (a Python list repr of the header fields);
// a row with fewer fields than the header needs (truncated), a non-integer timestamp, a
// negative duration (end < start), an unterminated quote. A missing/unreadable file → kIo.
#pragma once

#include <cstdint>
#include <string>

#include "src/base/status.h"
#include "src/io/dispatch_sink.h"
#include "src/trace/string_pool.h"

namespace decodeprof::io {

struct CsvImportStats {
  int64_t rows = 0;               // data rows read (= dispatches)
  bool has_grid_columns = false;  // false → every grid is 0 (seed spec 2.2 pitfall)
};

// Streams `path` into `sink` with bounded memory (a fixed-size read buffer; names interned
// into `names`).
base::StatusOr<CsvImportStats> ImportRocprofv3Csv(const std::string& path, trace::StringPool& names,
                                                  DispatchSink& sink);

}  // namespace decodeprof::io
