// `<name>_decode_kernels.csv` (seed spec 2.10, 2.14): one row per kernel name by total time,
// Python csv dialect (minimal quoting, CRLF), share with exactly 3 decimals of the unrounded
// percentage.
#pragma once

#include <string>

#include "src/analysis/summary.h"

namespace decodeprof::report {

std::string KernelCsvText(const analysis::Summary& summary);

}  // namespace decodeprof::report
