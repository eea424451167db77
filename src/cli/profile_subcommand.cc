// `decodeprof profile [options] --model M [--model M...] -- BENCH [ARGS...]`: the seed
// harness generalized (docs/profile.md). Parsing and printing only; the work is in
// src/profile.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "src/base/parse.h"
#include "src/cli/subcommand.h"
#include "src/profile/profile.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kName = "profile";

class StdioReporter final : public profile::Reporter {
 public:
  void Line(const std::string& text) override { std::fprintf(stderr, "%s\n", text.c_str()); }
  void Note(const std::string& text) override {
    std::fprintf(stderr, "decodeprof: %s: %s\n", kName, text.c_str());
  }
  void Result(const std::string& text) override {
    std::fprintf(stdout, "%s\n", text.c_str());
    std::fflush(stdout);
  }
  void Error(const base::Status& status) override { ReportError(kName, status); }
};

std::string SelfExe() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

// A plain non-negative decimal integer option (as the guard's, seed spec 1.2).
base::Status ParseCount(const std::string& flag, const std::string& text, uint64_t* value) {
  const std::optional<uint64_t> parsed = base::ParseUnsigned(text);
  if (!parsed || *parsed > static_cast<uint64_t>(INT64_MAX)) {
    return base::UsageError(flag + " needs a non-negative integer, got '" + text + "'");
  }
  *value = *parsed;
  return base::OkStatus();
}

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
      ->type_name("M");
  app.add_option("--out", options.out_dir,
                 "results directory (default benchmarks/profiles/<commit8>)")
      ->type_name("DIR");
  app.add_option("--trace-dir", options.trace_dir,
                 "where the full traces and raw logs go (default a new "
                 "$TMPDIR/decodeprof-trace.XXXXXX)")
      ->type_name("DIR");
  app.add_option("--temperature", temperature, "sampling temperature (default 0: greedy)")
      ->type_name("T");
  app.add_option("--top-p", top_p, "top-p (default 1.0: off)")->type_name("P");
  app.add_option("--sampling", samplings,
                 "a sampling setting T or T:P; repeatable, instead of --temperature/--top-p")
      ->type_name("T[:P]");
  app.add_option("--tag", options.tag,
                 "run-name suffix (default greedy, or t<T> plus -p<P> when P is not 1)")
      ->type_name("NAME");
  app.add_flag("--no-plain", no_plain, "skip the unprofiled run (no profiler-cost figure)");
  std::string plain_runs = "3";
  app.add_option("--plain-runs", plain_runs,
                 "unprofiled runs per model and setting; the median one's figures are used "
                 "and the summary gives the spread")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--idle-secs", idle_secs, "forwarded to the guard")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--max-wait", max_wait, "forwarded to the guard")->type_name("SECS");
  app.add_option("--max-attempts", max_attempts, "forwarded to the guard")->type_name("N");
  app.add_option("--backend", backend, "recorder: cupti|rocprofv3")
      ->type_name("NAME")
      ->check(CLI::IsMember({"cupti", "rocprofv3"}))
      ->capture_default_str();
  app.add_option("--pack", options.pack, "summarize --pack")->type_name("NAME|FILE");
  app.add_option("--units", options.units, "summarize --units")->type_name("NAME|FILE");
  app.add_flag("--emit-dispatches", options.emit_dispatches, "summarize --emit-dispatches");
  app.add_option("--tokens", tokens, "{tokens}: tokens to generate")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--warmup-tokens", warmup, "{warmup}: warmup tokens")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--prompt-tokens", prompt, "{prompt}: prompt tokens")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--bench-args", options.bench_args,
                 "the bench's arguments with {model} {tokens} {warmup} {prompt} {temperature} "
                 "{top_p}")
      ->type_name("TEMPLATE")
      ->capture_default_str();
  try {
    app.parse(split, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportError(kName, base::UsageError(e.what(), "see decodeprof profile --help"));
  }

  if (!samplings.empty()) {
    if (temperature || top_p) {
      return ReportError(kName, base::UsageError("--sampling replaces --temperature and --top-p",
                                                 "use one or the other"));
    }
    options.samplings.clear();
    for (const std::string& text : samplings) {
      base::StatusOr<profile::Sampling> sampling = profile::ParseSampling(text);
      if (!sampling.ok()) return ReportError(kName, sampling.status());
      options.samplings.push_back(*sampling);
    }
  } else {
    if (temperature) options.samplings.front().temperature = *temperature;
    if (top_p) options.samplings.front().top_p = *top_p;
  }
  uint64_t value = 0;
  for (const auto& [flag, text, target] :
       {std::tuple{"--tokens", &tokens, &options.tokens},
        std::tuple{"--warmup-tokens", &warmup, &options.warmup_tokens},
        std::tuple{"--prompt-tokens", &prompt, &options.prompt_tokens}}) {
    if (base::Status s = ParseCount(flag, *text, &value); !s.ok()) return ReportError(kName, s);
    *target = static_cast<int64_t>(value);
  }
  if (base::Status s = ParseCount("--idle-secs", idle_secs, &options.idle_secs); !s.ok()) {
    return ReportError(kName, s);
  }
  if (max_wait) {
    if (base::Status s = ParseCount("--max-wait", *max_wait, &value); !s.ok()) {
      return ReportError(kName, s);
    }
    options.max_wait = value;
  }
  if (max_attempts) {
    if (base::Status s = ParseCount("--max-attempts", *max_attempts, &value); !s.ok()) {
      return ReportError(kName, s);
    }
    options.max_attempts = value;
  }
  options.plain = !no_plain;
  if (base::Status s = ParseCount("--plain-runs", plain_runs, &value); !s.ok()) {
    return ReportError(kName, s);
  }
  if (value < 1) {
    return ReportError(kName, base::UsageError("--plain-runs must be at least 1",
                                               "use --no-plain for no plain run"));
  }
  options.plain_runs = static_cast<int64_t>(value);
  options.backend = backend == "rocprofv3" ? record::Backend::kRocprofv3 : record::Backend::kCupti;
  options.decodeprof_exe = SelfExe();
  StdioReporter reporter;
  return profile::RunProfile(options, reporter);
}

}  // namespace decodeprof::cli
