#include "src/cli/subcommand.h"

namespace decodeprof::cli {

// Placeholder until the classify work lands.
int ClassifyMain(int, char**) {
  return ReportError("classify", base::InternalError("", "not built yet"));
}

}  // namespace decodeprof::cli
