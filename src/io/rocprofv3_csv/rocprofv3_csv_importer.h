// rocprofv3 `<name>_kernel_trace.csv` (seed spec 2.2, reference/trace-formats.md 4).
//
// Columns are found by name in the header row, in any spelling rocprofv3 has used:
// kernel name = first present of Kernel_Name, KernelName; start = Start_Timestamp or
// BeginNs; end = End_Timestamp or EndNs; optional Grid_Size_X/Y/Z (grid = product over the
// present grid columns of max(int(value or 1), 1); 0 for every row when none is present).
// Every data row is a dispatch (no filtering by Kind, agent or queue). Fields follow RFC 4180
// quoting (quoted names may contain commas, doubled quotes and newlines); CRLF or LF rows.
//
// Rows: a blank line is skipped (csv.DictReader does); a row may have more fields than the
// header. A column name that occurs twice in the header refers to its last occurrence (as in
// csv.DictReader). Dispatch::line is the line the row starts on (saturated at UINT32_MAX). Names
// are interned through the StringPool (a lookup, no allocation for a name seen before). A UTF-8
// byte order mark is skipped. An empty file, or one with only a header row, imports 0 rows without
// error (the caller decides whether that is an error).
//
// Timestamps and grid values are read as Python's int() reads them (surrounding whitespace,
// a sign, digit-separating underscores), limited to int64. Grid: empty → 1, <= 0 → 1.
//
// Errors:
//   kIo, where = path: the file is missing, unreadable or a directory;
//   kData, where = path: a required column is missing —
//     "kernel trace has none of the columns ('Kernel_Name', 'KernelName'); header: ['Kind', ...]"
//     (the candidates as a Python tuple repr, the header fields as a Python list repr), checked
//     for the name, then start ('Start_Timestamp', 'BeginNs'), then end ('End_Timestamp',
//     'EndNs');
//   kData, where = "<path>:<line the row starts on>":
//     "row has N fields, the header has M"  (N <= the highest needed column index),
//     "<column> is not an integer: '<value>'"  (timestamps and grid; value as Python repr),
//     "<column> does not fit in 64 bits: '<value>'"  (an integer beyond int64),
//     "end before start (<end> < <start>)",
//     "grid size does not fit in 64 bits",
//     plus the CsvReader's errors (an unterminated quote, an over-long record).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/io/common/csv_reader.h"
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

// The same with explicit reader options (buffer sizes; used by tests and benchmarks).
base::StatusOr<CsvImportStats> ImportRocprofv3Csv(const std::string& path, trace::StringPool& names,
                                                  DispatchSink& sink,
                                                  const CsvReader::Options& options);

// The same over a reader the caller opened (any source, e.g. CsvReader::FromString); errors
// name reader.where().
base::StatusOr<CsvImportStats> ImportRocprofv3Csv(CsvReader& reader, trace::StringPool& names,
                                                  DispatchSink& sink);

// The same import on two threads, for large files (the parse is most of `summarize`'s time).
//
// The file is cut at the first line start after its middle (CsvReader::NextLineStart). A
// second thread imports the rows from the cut on into `later`, interning their names into a
// private pool, while the calling thread imports the rows before the cut into `first`. When
// the calling thread's parse ends exactly at the cut (no quoted field spans it) and the second
// thread met no error, the result's `later` is set and the caller appends `later` to `first`
// (e.g. WindowCollector::Merge with CsvLaterPart::Rebase): both together then hold what
// `first` alone would hold after ImportRocprofv3Csv, and `names` holds the same names with the
// same ids (the second part's new names are interned after the first's, in their order).
// Otherwise the calling thread carries on past the cut and imports the whole file into
// `first`; the result's `later` is empty and the caller must ignore `later` (it may hold rows
// of the abandoned second part).
//
// One thread does everything when the file is smaller than options.min_split_bytes, when
// fewer than 2 cores are available (options.cores), or when no thread can be started. Errors are
// exactly those of ImportRocprofv3Csv (the first in file order, with its line): an error after the
// cut makes the calling thread parse on to it.
struct CsvSplitOptions {
  CsvReader::Options reader;
  int64_t min_split_bytes = int64_t{64} << 20;
  // Cores available; 0 = those this process may run on (its CPU affinity).
  unsigned cores = 0;
};

struct CsvLaterPart {
  int64_t split = 0;        // byte offset of the first row the second part read
  int64_t line_offset = 0;  // the second part counts lines from 1 at `split`: add this
  std::vector<trace::StringId> name_map;  // its private name ids → ids in `names`

  // Puts a dispatch `later` received into the terms of `names` and of the whole file.
  void Rebase(trace::Dispatch& d) const;
};

struct CsvPartsImport {
  CsvImportStats stats;  // over the whole file
  std::optional<CsvLaterPart> later;
};

base::StatusOr<CsvPartsImport> ImportRocprofv3CsvInParts(const std::string& path,
                                                         trace::StringPool& names,
                                                         DispatchSink& first, DispatchSink& later,
                                                         const CsvSplitOptions& options);

}  // namespace decodeprof::io
