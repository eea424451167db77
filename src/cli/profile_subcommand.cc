// `decodeprof profile [options] --model M [--model M...] -- BENCH [ARGS...]`: the seed
// harness generalized (docs/profile.md). Parsing and printing only; the work is in
// src/profile.
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <climits>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "src/base/parse.h"
#include "src/cli/option_checks.h"
#include "src/cli/subcommand.h"
#include "src/guard/options.h"
#include "src/profile/profile.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kProfileCommand = "profile";

class StdioReporter final : public profile::Reporter {
 public:
  void Line(const std::string& text) override { std::fprintf(stderr, "%s\n", text.c_str()); }
  void Note(const std::string& text) override {
    std::fprintf(stderr, "decodeprof: %s: %s\n", kProfileCommand, text.c_str());
  }
  void Result(const std::string& text) override {
    std::fprintf(stdout, "%s\n", text.c_str());
    std::fflush(stdout);
  }
  void Error(const base::Status& status) override { ReportError(kProfileCommand, status); }
};

std::string SelfExe() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

// The guard's own range of --idle-secs, --max-wait or --max-attempts (guard/options.h), so
// that a value the guard would refuse is refused before the first run.
CLI::Validator GuardNumber(const guard::NumberRange& range) {
  return CLI::Validator(
      [&range](std::string& value) -> std::string {
        const guard::NumberValue n = guard::ParseNumber(range, value);
        if (n.value) return {};
        return fmt::format("must be {} from {} to {}, got '{}'", range.what, range.min_text,
                           range.max_text, value);
      },
      "");
}

// --sampling T or T:P, each in its range (profile::ParseSampling).
CLI::Validator SamplingValue() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (profile::ParseSampling(value).ok()) return {};
        return "must be T or T:P, T a number from 0 to " + BoundText(profile::kMaxTemperature) +
               " and P from 0 to 1, got '" + value + "'";
      },
      "");
}

// A count option already checked by its validator.
int64_t CountOf(const std::string& text) { return base::ParseInt64(text).value_or(0); }

}  // namespace

int ProfileMain(int argc, char** argv) {
  // Everything after the first "--" is the bench command, untouched by option parsing.
  int split = 1;
  while (split < argc && std::string(argv[split]) != "--") ++split;
  profile::ProfileOptions options;
  for (int i = split + 1; i < argc; ++i) options.bench.emplace_back(argv[i]);

  std::vector<std::string> samplings;
  std::optional<std::string> temperature;
  std::optional<std::string> top_p;
  std::string idle_secs = "90";
  std::string tokens = "128";
  std::string warmup = "20";
  std::string prompt = "512";
  std::optional<std::string> max_wait;
  std::optional<std::string> max_attempts;
  std::string backend = "cupti";
  bool no_plain = false;
  CLI::App app{
      "Profile the decode of each model: under `decodeprof guard`, a plain run of BENCH (for\n"
      "the profiler's cost), a recorded run (`decodeprof record`), then `summarize` into\n"
      "OUT. Published logs are scrubbed of local paths. The bench's arguments come from\n"
      "--bench-args; the words after BENCH come first and may use the same placeholders.",
      "decodeprof profile [options] --model M [--model M...] -- BENCH [ARGS...]"};
  app.add_option("--model", options.models,
                 "model ({model} of the bench, --model-dir of summarize); repeatable")
      ->type_name("M")
      ->check(NonEmpty("a model name or directory"));
  app.add_option("--out", options.out_dir,
                 "results directory (default benchmarks/profiles/<commit8>)")
      ->type_name("DIR")
      ->check(NonEmpty("a directory"));
  app.add_option("--trace-dir", options.trace_dir,
                 "where the full traces and raw logs go (default a new "
                 "$TMPDIR/decodeprof-trace.XXXXXX)")
      ->type_name("DIR")
      ->check(NonEmpty("a directory"));
  app.add_option("--temperature", temperature,
                 "sampling temperature, 0 to 100 (default 0: greedy); passed as written")
      ->type_name("T")
      ->check(NumberIn(0, profile::kMaxTemperature));
  app.add_option("--top-p", top_p, "top-p, 0 to 1 (default 1.0: off); passed as written")
      ->type_name("P")
      ->check(NumberIn(0, 1));
  app.add_option("--sampling", samplings,
                 "a sampling setting T or T:P (ranges as theirs); repeatable, instead of "
                 "--temperature/--top-p")
      ->type_name("T[:P]")
      ->check(SamplingValue());
  app.add_option("--tag", options.tag,
                 "run-name suffix (default greedy, or t<T> plus -p<P> when P is not 1)")
      ->type_name("NAME")
      ->check(NonEmpty("a run-name suffix"));
  app.add_flag("--no-plain", no_plain, "skip the unprofiled run (no profiler-cost figure)");
  std::string plain_runs = "3";
  app.add_option("--plain-runs", plain_runs,
                 "unprofiled runs per model and setting, 1 to 100; the median one's figures are "
                 "used and the summary gives the spread (--no-plain for none)")
      ->type_name("N")
      ->check(IntegerIn(1, 100))
      ->capture_default_str();
  app.add_option("--idle-secs", idle_secs, "forwarded to the guard: 0 to 86400 (a day)")
      ->type_name("N")
      ->check(GuardNumber(guard::kIdleSecsRange))
      ->capture_default_str();
  app.add_option("--max-wait", max_wait, "forwarded to the guard: 0 (no limit) to 604800 (a week)")
      ->type_name("SECS")
      ->check(GuardNumber(guard::kMaxWaitRange));
  app.add_option("--max-attempts", max_attempts, "forwarded to the guard: 1 to 1000")
      ->type_name("N")
      ->check(GuardNumber(guard::kMaxAttemptsRange));
  app.add_option("--backend", backend, "recorder: cupti|rocprofv3")
      ->type_name("NAME")
      ->check(OneOf({"cupti", "rocprofv3"}))
      ->capture_default_str();
  app.add_option("--pack", options.pack, "summarize --pack")
      ->type_name("NAME|FILE")
      ->check(NonEmpty("a pack name or file"));
  app.add_option("--units", options.units, "summarize --units")
      ->type_name("NAME|FILE")
      ->check(NonEmpty("a units name or file"));
  app.add_flag("--emit-dispatches", options.emit_dispatches, "summarize --emit-dispatches");
  app.add_option("--tokens", tokens, "{tokens}: tokens to generate, 1 to 1000000")
      ->type_name("N")
      ->check(IntegerIn(1, 1000000))
      ->capture_default_str();
  app.add_option("--warmup-tokens", warmup, "{warmup}: warmup tokens, 0 to 1000000")
      ->type_name("N")
      ->check(IntegerIn(0, 1000000))
      ->capture_default_str();
  app.add_option("--prompt-tokens", prompt, "{prompt}: prompt tokens, 1 to 10000000")
      ->type_name("N")
      ->check(IntegerIn(1, 10000000))
      ->capture_default_str();
  app.add_option("--bench-args", options.bench_args,
                 "the bench's arguments with {model} {tokens} {warmup} {prompt} {temperature} "
                 "{top_p} ('' for none: only the words after BENCH)")
      ->type_name("TEMPLATE")
      ->capture_default_str();
  try {
    app.parse(split, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportError(kProfileCommand,
                       base::UsageError(e.what(), "see decodeprof profile --help"));
  }

  if (!samplings.empty()) {
    if (temperature || top_p) {
      return ReportError(kProfileCommand,
                         base::UsageError("--sampling replaces --temperature and --top-p",
                                          "use one or the other"));
    }
    options.samplings.clear();
    for (const std::string& text : samplings) {
      base::StatusOr<profile::Sampling> sampling = profile::ParseSampling(text);
      if (!sampling.ok()) return ReportError(kProfileCommand, sampling.status());
      options.samplings.push_back(*sampling);
    }
  } else {
    if (temperature) options.samplings.front().temperature = *temperature;
    if (top_p) options.samplings.front().top_p = *top_p;
  }
  // Every value below passed its validator while parsing.
  options.tokens = CountOf(tokens);
  options.warmup_tokens = CountOf(warmup);
  options.prompt_tokens = CountOf(prompt);
  options.idle_secs = static_cast<uint64_t>(CountOf(idle_secs));
  if (max_wait) options.max_wait = static_cast<uint64_t>(CountOf(*max_wait));
  if (max_attempts) options.max_attempts = static_cast<uint64_t>(CountOf(*max_attempts));
  options.plain = !no_plain;
  options.plain_runs = CountOf(plain_runs);
  options.backend = backend == "rocprofv3" ? record::Backend::kRocprofv3 : record::Backend::kCupti;
  options.decodeprof_exe = SelfExe();
  StdioReporter reporter;
  return profile::RunProfile(options, reporter);
}

}  // namespace decodeprof::cli
