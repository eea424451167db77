// decodeprof::guard — the command line of `decodeprof guard` (seed spec 1.1, 1.2).
//
// Grammar (the `--` before COMMAND is mandatory; any other token is an unknown option):
//   [--idle-secs N] [--max-attempts N] [--max-wait S] [--log FILE] [--gpu auto|amd|nvidia]
//       -- COMMAND...
//   --hold [--max-wait S] -- COMMAND...
//   --status
//   -h | --help
// Numbers are plain non-negative decimal integers (^[0-9]+$, "08" is eight) inside the range
// of each option (kIdleSecsRange, kMaxWaitRange, kMaxAttemptsRange): a value beyond it, such
// as 18446744073709551615, is refused before anything starts, never wrapped or clamped, so
// the guard never notes an idle wait it did not make. --log takes a non-empty path. Errors
// are the texts of messages.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::guard {

enum class Mode { kGuard, kHold, kStatus, kHelp };
enum class GpuChoice { kAuto, kAmd, kNvidia };

// The range of a numeric option and the words of its message (kMsgOutOfRange).
struct NumberRange {
  const char* flag;
  const char* what;  // "a whole number of seconds"
  uint64_t min;
  uint64_t max;
  const char* min_text;  // "0 (no limit)"
  const char* max_text;  // "604800 (a week)"
};
inline constexpr NumberRange kIdleSecsRange = {
    "--idle-secs", "a whole number of seconds", 0, 86400, "0 (no idle wait)", "86400 (a day)"};
inline constexpr NumberRange kMaxWaitRange = {
    "--max-wait", "a whole number of seconds", 0, 604800, "0 (no limit)", "604800 (a week)"};
inline constexpr NumberRange kMaxAttemptsRange = {
    "--max-attempts", "an integer", 1, 1000, "1", "1000"};

// `text` as a value of `range`; otherwise the message to print (kMsgOutOfRange). `decodeprof
// profile` checks the values it forwards to the guard with this too.
struct NumberValue {
  std::optional<uint64_t> value;
  std::string error;
};
NumberValue ParseNumber(const NumberRange& range, const std::string& text);

struct Options {
  Mode mode = Mode::kGuard;
  uint64_t idle_secs = 90;
  uint64_t max_attempts = 5;
  uint64_t max_wait = 0;  // seconds; 0 = no limit
  std::optional<std::string> log_path;
  GpuChoice gpu = GpuChoice::kAuto;
  std::vector<std::string> command;
};

// Parses the arguments after the subcommand name. An error carries one of the texts of
// messages.h (the caller exits 2); `print_usage` tells whether the usage follows it, as
// the seed prints it after an unknown option and after a missing command.
struct ParseError {
  std::string message;
  bool print_usage = false;
};
struct ParseResult {
  std::optional<Options> options;
  std::optional<ParseError> error;
};
ParseResult ParseOptions(const std::vector<std::string>& args);

// Command words joined by single spaces (the text of `attempt N/M: start: ...`).
std::string JoinCommand(const std::vector<std::string>& command);

}  // namespace decodeprof::guard
