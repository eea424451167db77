// The bench log of a decode run (seed spec 2.3–2.4): `[phase]` mark lines with both host
// clocks and the `[Profile Results]` block.
//
// Line by line, anchored at the line start (leading whitespace allowed for result lines):
//   [phase] <word> monotonic_ns=<n|na> boottime_ns=<n|na>
//   Generated tokens: <int>   Prompt tokens: <int>
//   Decode: <ms> ms (<tok/s> tok/s)   Prefill: <ms> ms (<tok/s> tok/s)
// Later matches overwrite earlier ones (a rerun attempt's values win); a later [phase] line
// for a label replaces that label's whole stamp. Invalid UTF-8 bytes are tolerated. Lines
// that match nothing are ignored (rocprofv3 and engine output are interleaved).
#pragma once

#include <string>
#include <string_view>

#include "src/base/status.h"
#include "src/trace/phase_marks.h"

namespace decodeprof::io {

trace::BenchLog ParseBenchLogText(std::string_view text);

// Reads and parses a log file (read whole; a gzip, zstd or xz-compressed log is decompressed,
// src/io/common/input_stream.h); missing/unreadable → kIo; corrupt compressed data → kData.
base::StatusOr<trace::BenchLog> ParseBenchLog(const std::string& path);

}  // namespace decodeprof::io
