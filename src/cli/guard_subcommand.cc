#include "src/cli/subcommand.h"

namespace decodeprof::cli {

// Placeholder until the guard work lands.
int GuardMain(int, char**) {
  return ReportError("guard", base::InternalError("", "not built yet"));
}

}  // namespace decodeprof::cli
