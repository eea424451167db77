#include "src/cli/subcommand.h"

namespace decodeprof::cli {

// Placeholder until the summarize work lands.
int SummarizeMain(int, char**) {
  return ReportError("summarize", base::InternalError("", "not built yet"));
}

}  // namespace decodeprof::cli
