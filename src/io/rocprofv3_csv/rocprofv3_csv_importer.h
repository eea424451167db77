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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/io/common/csv_reader.h"
#include "src/io/importer.h"
#include "src/trace/dispatch_sink.h"
#include "src/trace/string_pool.h"

namespace decodeprof::io {

// The plug-in (registered in src/io/builtin_importers.inc), with the several-thread import.
// Dispatches carry Agent_Id as device, Queue_Id as stream and Correlation_Id (the number that
// ends each field; 0 without the column). The clock is the one the bench log's marks pick.
const Importer& Rocprofv3CsvImporter();

struct CsvImportStats {
  int64_t rows = 0;               // data rows read (= dispatches)
  bool has_grid_columns = false;  // false → every grid is 0 (seed spec 2.2 pitfall)
  // Read columns named more than once in the header (the last occurrence is read, as
  // csv.DictReader does): diagnostic duplicate_column.
  std::vector<std::string> duplicate_columns;
};

// Streams `path` into `sink` with bounded memory (a fixed-size read buffer; names interned
// into `names`).
base::StatusOr<CsvImportStats> ImportRocprofv3Csv(const std::string& path, trace::StringPool& names,
                                                  trace::DispatchSink& sink);

// The same with explicit reader options (buffer sizes; used by tests and benchmarks).
base::StatusOr<CsvImportStats> ImportRocprofv3Csv(const std::string& path, trace::StringPool& names,
                                                  trace::DispatchSink& sink,
                                                  const CsvReader::Options& options);

// The same over a reader the caller opened (any source, e.g. CsvReader::FromString); errors
// name reader.where().
base::StatusOr<CsvImportStats> ImportRocprofv3Csv(CsvReader& reader, trace::StringPool& names,
                                                  trace::DispatchSink& sink);

// The same import on several threads, for large files (the parse is most of `summarize`'s
// time).
//
// The file is cut into parts at the first line start after each k/K of it (K up to 4 per core,
// parts of options.min_part_bytes at least; CsvReader::NextLineStart). The calling thread
// imports from the start into `first`, taking the parts in order as it reaches them, while
// helper threads (one per further core) take parts from the end, each into a sink of its own
// from `new_part` with names interned into a private pool: the threads meet wherever the
// slower ones are. Where the calling thread meets the helpers' parts, they are used when its
// record starts exactly at the cut and each part ended exactly at the next cut (no quoted field
// spans a cut) without error: the result's `later` then lists them in file order, and the
// caller appends each part's sink to `first` in that order (e.g. WindowCollector::Merge with
// CsvLaterPart::Rebase). `first` and the appended parts then hold what `first` alone would
// hold after ImportRocprofv3Csv, and `names` holds the same names with the same ids (each
// part's new names are interned after the earlier ones', in their order). Otherwise the calling
// thread carries on past the cut alone and `later` is empty; the caller must ignore the part
// sinks (they may hold rows of abandoned parts).
//
// One thread does everything when the file is smaller than options.min_split_bytes, when it is
// compressed (one stream, decompressed on a thread of its own), when fewer than 2 cores are
// available (options.cores), or when no thread can be started. Errors
// are exactly those of ImportRocprofv3Csv (the first in file order, with its line): a part
// with an error makes the calling thread parse on to it.
struct CsvSplitOptions {
  CsvReader::Options reader;
  int64_t min_split_bytes = int64_t{64} << 20;
  int64_t min_part_bytes = int64_t{4} << 20;
  // Cores available; 0 = those this process may run on (its CPU affinity).
  unsigned cores = 0;
};

// Makes the sink for the part of index `index` (0, 1, ... in file order; called on the calling
// thread before any helper starts), about `bytes` bytes of the file long. The sink must stay
// valid until ImportRocprofv3CsvInParts returns; it is used by one helper thread at a time.
using PartSinkFactory = std::function<trace::DispatchSink*(size_t index, int64_t bytes)>;

struct CsvLaterPart {
  size_t index = 0;                       // of the part's sink, as `new_part` made it
  int64_t split = 0;                      // byte offset of the part's first row
  int64_t line_offset = 0;                // the part counts lines from 1 at `split`: add this
  std::vector<trace::StringId> name_map;  // its private name ids → ids in `names`

  // Puts a dispatch the part's sink received into the terms of `names` and of the whole file.
  void Rebase(trace::Dispatch& d) const;
};

struct CsvPartsImport {
  CsvImportStats stats;             // over the whole file
  std::vector<CsvLaterPart> later;  // in file order; empty when `first` holds everything
};

base::StatusOr<CsvPartsImport> ImportRocprofv3CsvInParts(const std::string& path,
                                                         trace::StringPool& names,
                                                         trace::DispatchSink& first,
                                                         const PartSinkFactory& new_part,
                                                         const CsvSplitOptions& options);

}  // namespace decodeprof::io
