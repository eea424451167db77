// `<name>_summary.json`: the seed's keys in the seed's order (seed spec 2.10, 2.14), Python
// json.dumps(indent=2) layout and number spelling, then decodeprof's own fields.
#pragma once

#include <string>

#include "src/analysis/summary.h"
#include "src/base/json_writer.h"

namespace decodeprof::report {

base::JsonValue SummaryToJson(const analysis::Summary& summary);

// The file's whole text, with the trailing newline.
std::string SummaryJsonText(const analysis::Summary& summary);

}  // namespace decodeprof::report
