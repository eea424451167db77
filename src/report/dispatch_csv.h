// `<name>_decode_dispatches.csv` (`summarize --emit-dispatches`): one row per decode dispatch
// in start order — index, kernel, start, end (ns on the window's clock), class, role
// (empty when none) and the ids of the units whose fallback set holds that role or whose
// classes hold its class (sorted, ;-joined; empty when none). Same CSV
// dialect as the kernel table. Streamed: a window holds up to millions of dispatches.
#pragma once

#include <string>
#include <vector>

#include "src/analysis/summary.h"
#include "src/base/status.h"

namespace decodeprof::report {

// Written through base::AtomicFileWriter(path, inputs): complete or not at all, and only onto
// a regular file that is none of `inputs`. Errors: those of base::CheckOutputTarget; kIo.
base::Status WriteDispatchCsv(const std::string& path, const analysis::DecodeWindow& window,
                              const trace::StringPool& names,
                              const analysis::Attribution& attribution, const analysis::Pack& pack,
                              const analysis::UnitTable& units,
                              const std::vector<std::string>& inputs = {});

}  // namespace decodeprof::report
