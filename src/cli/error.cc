#include <cstdio>
#include <string>

#include "src/cli/subcommand.h"

namespace decodeprof::cli {

int ReportError(std::string_view subcommand, const base::Status& status) {
  std::fprintf(stderr, "decodeprof: %.*s: %s\n", static_cast<int>(subcommand.size()),
               subcommand.data(), status.ToString().c_str());
  if (!status.hint().empty()) std::fprintf(stderr, "hint: %s\n", status.hint().c_str());
  return status.exit_code();
}

}  // namespace decodeprof::cli
