// What the rocpd importer (rocpd_importer.h, the contract) and its table readers
// (rocpd_reader.h) share: the import's findings and the memory-copy names. The readers include
// this, not the importer, so that the importer depends on the readers and never the other way
// round.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace decodeprof::io {

// What an import found, besides what went into the builder.
struct RocpdImport {
  int64_t kernels = 0;         // rocpd_kernel_dispatch rows
  int64_t memory_copies = 0;   // rocpd_memory_copy rows
  int64_t api_calls = 0;       // regions read as calls (all, of any correlation)
  int64_t ranges = 0;          // push/pop and start/stop ranges returned
  int64_t marks = 0;           // marks returned (as ranges)
  int64_t events_skipped = 0;  // regions and samples of no use
  std::string schema_version;  // rocpd_metadata's, "" when absent
  // The schema variants adapted to ("no view rocpd_region: read table rocpd_region_<uuid>").
  std::vector<std::string> schema_variants;
  // Several processes: correlations were made per process (rocpd_importer.h).
  bool per_process_correlation = false;
};

// The trace-model name of a rocpd memory-copy operation ("MEMORY_COPY_HOST_TO_DEVICE" →
// "[HIP memcpy Host-to-Device]"; the "MEMORY_COPY_" prefix may be absent).
// How the importer reads (tests force what a large trace would get).
struct RocpdReadOptions {
  // Read the dispatches in parts on threads even when the caller does not keep every record
  // (TraceBuilder::keeps_everything) and whatever the CPUs (up to 8 parts).
  bool read_in_parts = false;
  // No part of fewer rows.
  int64_t rows_per_part = int64_t{1} << 19;
  // Read the regions on the calling thread after the dispatches (the one pass the tests compare
  // with); otherwise a caller that does not keep every record gets them read on a thread of
  // their own while the dispatches are read, into a bounded spool.
  bool regions_on_calling_thread = false;
  // A caller that keeps a window, not every record, still gets the dispatches read in
  // start-time parts on threads, each into a spool of its own (64 Ki rows in memory, the rest in
  // a temporary file) handed on in order. false: one pass (the tests' reference).
  bool spool_parts = true;
  // Cut kForcedReadParts parts whatever the CPUs (as read_in_parts does): for tests.
  bool force_part_count = false;
};

std::string_view RocpdMemcpyName(std::string_view operation);

}  // namespace decodeprof::io
