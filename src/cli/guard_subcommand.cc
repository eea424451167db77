// `decodeprof guard`: the arguments go to the guard module unchanged, because the seed's
// option grammar and messages (seed spec 1.2) matter more than CLI11's conventions.
#include <string>
#include <vector>

#include "src/cli/subcommand.h"
#include "src/guard/guard.h"

namespace decodeprof::cli {

int GuardMain(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return guard::GuardMain(args, guard::GuardEnvironment::FromProcess());
}

}  // namespace decodeprof::cli
