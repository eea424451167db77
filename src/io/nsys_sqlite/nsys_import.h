// What the nsys-sqlite importer (nsys_sqlite_importer.h, the contract) and its table readers
// (nsys_reader.h) share: the import's findings and the API name rule. The readers include this,
// not the importer, so that the importer depends on the readers and never the other way round.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace decodeprof::io {

// What an import found, besides what went into the builder.
struct NsysImport {
  int64_t kernels = 0;         // CUPTI_ACTIVITY_KIND_KERNEL rows
  int64_t memcpys = 0;         // CUPTI_ACTIVITY_KIND_MEMCPY rows
  int64_t memsets = 0;         // CUPTI_ACTIVITY_KIND_MEMSET rows
  int64_t graph_launches = 0;  // CUPTI_ACTIVITY_KIND_GRAPH_TRACE rows
  int64_t api_calls = 0;       // rows of the runtime/driver tables (all, of any correlation)
  int64_t ranges = 0;          // ranges returned
  int64_t unended_ranges = 0;  // push/pop and start/end ranges with a NULL end
  // systemClockNs, when the export has it (then every time was shifted by it).
  std::optional<int64_t> system_clock_ns;
  // The schema variants adapted to ("NVTX_EVENTS has no textId column (text only)", ...).
  std::vector<std::string> schema_variants;
  // Several processes made calls: correlations were made per process
  // (nsys_sqlite_importer.h, A10).
  bool per_process_correlation = false;
};

// How the importer reads (tests force what a large trace would get).
struct NsysReadOptions {
  // Read the dispatches and launch calls in parts on threads even when the caller does not
  // keep every record (TraceBuilder::keeps_everything) and whatever the CPUs (up to 8 parts).
  bool read_in_parts = false;
  // No part of fewer rows.
  int64_t rows_per_part = int64_t{1} << 19;
  // Read the launch calls on the calling thread after the dispatches (the one pass the tests
  // compare with); otherwise a caller that does not keep every record gets each table of them
  // read on a thread of its own while the dispatches are read, into a bounded spool.
  bool launches_on_calling_thread = false;
  // A caller that keeps a window, not every record, still gets the dispatches read in
  // start-time parts on threads, each into a spool of its own (64 Ki rows in memory, the rest in
  // a temporary file) handed on in order. false: one pass (the tests' reference).
  bool spool_parts = true;
  // Cut kForcedReadParts parts whatever the CPUs (as read_in_parts does): for tests.
  bool force_part_count = false;
};

// An API name without nsys's version suffix: "_v" and four or more digits
// ("cudaLaunchKernel_v7000" → "cudaLaunchKernel", "cudaGraphLaunch_v10000" →
// "cudaGraphLaunch"; nsys stats strips the four-digit ones). Other names are returned
// unchanged ("cuGetProcAddress_v2").
std::string_view StripApiVersion(std::string_view name);

}  // namespace decodeprof::io
