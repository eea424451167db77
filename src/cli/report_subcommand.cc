#include "src/cli/subcommand.h"

namespace decodeprof::cli {

// Placeholder until the report work lands.
int ReportMain(int, char**) {
  return ReportError("report", base::InternalError("", "not built yet"));
}

}  // namespace decodeprof::cli
