#include "src/guard/options.h"

#include <fmt/format.h>

#include <string_view>

#include "src/base/parse.h"
#include "src/guard/messages.h"

namespace decodeprof::guard {
namespace {

ParseResult FailParse(std::string message, bool print_usage = false) {
  return ParseResult{std::nullopt, ParseError{std::move(message), print_usage}};
}

}  // namespace

NumberValue ParseNumber(const NumberRange& range, const std::string& text) {
  const std::optional<uint64_t> n = base::ParseUnsigned(text);
  if (!n || *n < range.min || *n > range.max) {
    return NumberValue{std::nullopt, fmt::format(kMsgOutOfRange, range.flag, range.what,
                                                 range.min_text, range.max_text, text)};
  }
  return NumberValue{n, {}};
}

ParseResult ParseOptions(const std::vector<std::string>& args) {
  Options options;
  bool hold = false;
  bool status = false;
  bool saw_idle_option = false;  // --idle-secs, --max-attempts, --log or --gpu
  bool saw_max_wait = false;
  bool saw_separator = false;
  size_t i = 0;
  while (i < args.size()) {
    const std::string& arg = args[i];
    if (arg == "--") {
      saw_separator = true;
      options.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (arg == "-h" || arg == "--help") {
      options.mode = Mode::kHelp;
      return ParseResult{options, std::nullopt};
    }
    if (arg == "--hold") {
      hold = true;
      ++i;
      continue;
    }
    if (arg == "--status") {
      status = true;
      ++i;
      continue;
    }
    const bool numeric = arg == "--idle-secs" || arg == "--max-attempts" || arg == "--max-wait";
    if (numeric || arg == "--log" || arg == "--gpu") {
      if (i + 1 >= args.size()) return FailParse(fmt::format(kMsgNeedsValue, arg));
      const std::string& value = args[i + 1];
      if (numeric) {
        const NumberRange& range = arg == "--idle-secs"      ? kIdleSecsRange
                                   : arg == "--max-attempts" ? kMaxAttemptsRange
                                                             : kMaxWaitRange;
        const NumberValue n = ParseNumber(range, value);
        if (!n.value) return FailParse(n.error);
        if (arg == "--idle-secs") {
          options.idle_secs = *n.value;
          saw_idle_option = true;
        } else if (arg == "--max-attempts") {
          options.max_attempts = *n.value;
          saw_idle_option = true;
        } else {
          options.max_wait = *n.value;
          saw_max_wait = true;
        }
      } else if (arg == "--log") {
        if (value.empty()) return FailParse(fmt::format(kMsgEmptyPath, arg));
        options.log_path = value;
        saw_idle_option = true;
      } else {
        if (value == "auto") {
          options.gpu = GpuChoice::kAuto;
        } else if (value == "amd") {
          options.gpu = GpuChoice::kAmd;
        } else if (value == "nvidia") {
          options.gpu = GpuChoice::kNvidia;
        } else {
          return FailParse(fmt::format(kMsgBadGpu, value));
        }
        saw_idle_option = true;
      }
      i += 2;
      continue;
    }
    return FailParse(fmt::format(kMsgUnknownOption, arg), /*print_usage=*/true);
  }

  if (status) {
    if (hold || saw_max_wait || saw_idle_option || saw_separator) {
      return FailParse(kMsgStatusTakesNothing);
    }
    options.mode = Mode::kStatus;
    return ParseResult{options, std::nullopt};
  }
  if (hold) {
    if (saw_idle_option) return FailParse(kMsgHoldTakesOnlyMaxWait);
    options.mode = Mode::kHold;
  }
  if (options.command.empty()) return FailParse(kMsgNoCommand, /*print_usage=*/true);
  return ParseResult{options, std::nullopt};
}

std::string JoinCommand(const std::vector<std::string>& command) {
  std::string text;
  for (const std::string& word : command) {
    if (!text.empty()) text += ' ';
    text += word;
  }
  return text;
}

}  // namespace decodeprof::guard
