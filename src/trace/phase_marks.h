// What a bench log says about a run: phase marks on both host clocks and the results block
// (seed spec 2.3–2.4).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "src/trace/dispatch.h"

namespace decodeprof::trace {

// One mark's timestamps; a clock the bench could not read ("na") is absent.
struct MarkStamp {
  std::optional<TimestampNs> monotonic;
  std::optional<TimestampNs> boottime;

  std::optional<TimestampNs> On(ClockDomain c) const {
    return c == ClockDomain::kBoottime ? boottime : monotonic;
  }
};

// label ("warmup_start", "measured_start", "decode_start", "measured_end") → stamp.
// A later line for a label replaces the whole stamp (the last attempt wins).
using PhaseMarks = std::map<std::string, MarkStamp>;

struct BenchResults {
  std::optional<int64_t> prompt_tokens;
  std::optional<int64_t> generated_tokens;
  std::optional<double> prefill_ms;
  std::optional<double> prefill_tok_s;
  std::optional<double> decode_ms;
  std::optional<double> decode_tok_s;
};

struct BenchLog {
  PhaseMarks marks;
  BenchResults results;
};

}  // namespace decodeprof::trace
