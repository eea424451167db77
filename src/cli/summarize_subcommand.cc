// `decodeprof summarize`: options → pipeline::RunSummarize → one line on stdout.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/py_format.h"
#include "src/cli/option_checks.h"
#include "src/cli/subcommand.h"
#include "src/io/importer_registry.h"
#include "src/pipeline/summarize_ranks.h"
#include "src/pipeline/summarize_run.h"
#include "src/report/terminal_summary.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kSummarizeCommand = "summarize";

// --name's default: the trace's file name without its trace extension and compression suffix
// ("run.pt.trace.json.gz" → "run", "Llama-3.1-8B.sqlite" → "Llama-3.1-8B"); other dots stay.
// "trace" when nothing is left.
std::string DefaultRunName(const std::string& trace) {
  std::string stem = std::filesystem::path(trace).filename().string();
  const auto strip = [&stem](std::initializer_list<std::string_view> suffixes) {
    for (const std::string_view suffix : suffixes) {
      if (stem.size() > suffix.size() && stem.ends_with(suffix)) {
        stem.resize(stem.size() - suffix.size());
        return;
      }
    }
  };
  strip({".gz", ".zst", ".zstd", ".xz"});
  // Longest first: ".pt.trace.json" before ".json".
  strip({".pt.trace.json", ".trace.json", ".json", ".sqlite3", ".sqlite", ".nsys-rep", ".rocpd",
         ".db", ".csv", ".log"});
  return stem.empty() || stem == "." || stem == ".." ? "trace" : stem;
}

// --name's default for --ranks: the longest common prefix of the traces' default names, cut
// back to before its last '.', '_' or '-' when it ends inside a name ("tp.1001.sqlite",
// "tp.1002.sqlite" → "tp"); the first trace's default name when they share nothing.
std::string DefaultGroupName(const std::vector<std::string>& traces) {
  std::string prefix = DefaultRunName(traces.front());
  bool cut = false;
  for (const std::string& trace : traces) {
    const std::string stem = DefaultRunName(trace);
    size_t n = 0;
    while (n < prefix.size() && n < stem.size() && prefix[n] == stem[n]) ++n;
    if (n < prefix.size() || n < stem.size()) cut = true;
    prefix.resize(n);
  }
  if (cut) {
    const size_t sep = prefix.find_last_of("._-");
    if (sep != std::string::npos && sep > 0) prefix.resize(sep);
  }
  return prefix.empty() || prefix == "." || prefix == ".." ? DefaultRunName(traces.front())
                                                           : prefix;
}

// Python's str() of an optional float, as the seed's one-line report prints it.
std::string PyStr(const std::optional<double>& v) { return v ? base::PyRepr(*v) : "None"; }

// `--ranks`: one line per rank, then each rank's table unless quiet.
int SummarizeRanks(const pipeline::SummarizeRequest& base, std::vector<std::string> traces,
                   bool quiet) {
  pipeline::SummarizeRanksRequest req;
  req.base = base;
  req.traces = std::move(traces);
  auto result = pipeline::RunSummarizeRanks(req);
  if (!result.ok()) return ReportError(kSummarizeCommand, result.status());
  for (const std::string& note : result->notes) {
    std::fprintf(stderr, "decodeprof: %s: %s\n", kSummarizeCommand, note.c_str());
  }
  for (const pipeline::SummarizeResult& r : result->ranks) {
    PrintDiagnostics(kSummarizeCommand, r.summary.diagnostics);
  }
  for (const pipeline::SummarizeResult& r : result->ranks) {
    const analysis::Summary& s = r.summary;
    const analysis::CollectiveFields& c = *s.collectives;
    std::printf(
        "%s: %lld decode dispatches, %s GPU ms/token, %s host gap ms/token, %lld collectives, "
        "%s collective ms/token, %s wait ms/token\n",
        s.name.c_str(), static_cast<long long>(s.decode_dispatches),
        PyStr(s.gpu_ms_per_token).c_str(), PyStr(s.host_gap_ms_per_token).c_str(),
        static_cast<long long>(c.count), PyStr(c.total_ms_per_token).c_str(),
        PyStr(c.wait_ms_per_token).c_str());
  }
  if (!quiet) {
    for (const pipeline::SummarizeResult& r : result->ranks) {
      std::fputs(report::TerminalSummaryText(r.summary).c_str(), stdout);
      std::printf("  wrote:      %s\n", r.written.back().c_str());
    }
  }
  return 0;
}

}  // namespace

int SummarizeMain(int argc, char** argv) {
  pipeline::SummarizeRequest req;
  std::string format = "auto";
  int64_t generated_tokens = -1;
  int32_t device = -1;
  CLI::App app{
      "Cut the decode window of a kernel trace by its phase marks and attribute every\n"
      "dispatch and idle gap to kernels, classes, roles and work units. Writes\n"
      "<out-dir>/<name>_summary.json and <name>_decode_kernels.csv. Without marks (no\n"
      "log, no decodeprof:* ranges) the decode loop is found in the trace itself; the\n"
      "summary's window_source says how the window was found.",
      "decodeprof summarize"};
  app.footer(FormatTable());
  std::vector<std::string> ranks;
  CLI::Option* trace_option =
      app.add_option("--trace", req.trace,
                     "kernel trace, of any format below (recognized by content)")
          ->check(NonEmpty("a trace file"));
  CLI::Option* ranks_option =
      app.add_option("--ranks", ranks,
                     "instead of --trace: the per-rank traces of one multi-GPU run (decodeprof "
                     "record --follow-fork: FILE.<pid>.sqlite each); writes one summary per "
                     "rank, <name>_rank<R>_summary.json, with the collectives' wait on the "
                     "slowest rank (docs/multi-gpu.md); not with --log, --plain-log, --device")
          ->expected(1, -1)
          ->type_name("TRACE...")
          ->check(NonEmpty("a trace file"));
  trace_option->excludes(ranks_option);
  app.add_option("--format", format, "trace format: " + io::FormatChoices())
      ->check(TraceFormat())
      ->capture_default_str();
  app.add_option("--device", device,
                 "the device to summarize, for a trace of several GPUs (each gets its own "
                 "summary; without it such a trace is refused)")
      ->check(IntegerIn(0, INT16_MAX));
  app.add_option("--log", req.log, "profiled bench log ([phase] marks and results)")
      ->check(NonEmpty("a bench log file"));
  app.add_option("--plain-log", req.plain_logs,
                 "unprofiled bench log (profiler-cost figures); may repeat: the median run "
                 "by decode tok/s is used and the summary's plain_runs gives the spread")
      ->check(NonEmpty("a bench log file"));
  app.add_option("--model-dir", req.model_dir,
                 "model directory; its config.json gives model_type and rope_scaling")
      ->check(NonEmpty("a model directory"));
  app.add_option("--gguf", req.gguf,
                 "a GGUF model file (llama.cpp): its header gives the bytes a decode step reads "
                 "for the speed-of-light ledger")
      ->check(NonEmpty("a GGUF file"));
  app.add_option("--peak-bandwidth", req.peak_bandwidth,
                 "the GPU's peak memory bandwidth for the speed-of-light ledger: GB/s (1 to "
                 "100000), or the JSON `decodeprof bandwidth` wrote; default: the trace's "
                 "measured peak, else the device table")
      ->check(NumberInOrPath(1, 100000, "a bandwidth JSON file"));
  app.add_option("--context-tokens", req.context_tokens,
                 "mean context length of the decode steps (prompt + position) for the KV "
                 "cache read; default: the log's prompt tokens + the mean decode position")
      ->check(NumberIn(0, 1e8));
  app.add_option("--kv-dtype", req.kv_dtype,
                 "the KV cache's element type (default: the model's; llama.cpp's f16 for a GGUF)")
      ->check(OneOf({"bf16", "fp16", "f16", "fp8", "f32"}));
  app.add_flag("--synthetic", req.synthetic,
               "the traced program is a synthetic workload (a test program, random weights): "
               "the summary says \"workload\": \"synthetic\" and `report` never lets it head "
               "Do first");
  app.add_option("--pack", req.pack,
                 "rule pack: built-in name or .toml file (default: chosen from the kernel names, "
                 "else the format's, below)")
      ->check(NonEmpty("a pack name or file"));
  app.add_option("--units", req.units,
                 "units file: built-in name or .toml file (default: the pack's)")
      ->check(NonEmpty("a units name or file"));
  CLI::Option* name_option = app.add_option(
      "--name", req.name,
      "run name, the prefix of the output files: a plain file name (no '/' or "
      "control characters, not '.' or '..', at most 200 bytes); default: the "
      "trace's file name without its trace extension (.sqlite, .nsys-rep, .db, .json, "
      ".pt.trace.json, .csv, ...) and compression suffix (.gz, .zst, .xz); a "
      "summary of another trace there is never replaced");
  req.out_dir = ".";
  app.add_option("--out-dir", req.out_dir,
                 "output directory (created; not -); outputs replace only regular files")
      ->check(NonEmpty("a directory"))
      ->capture_default_str();
  bool quiet = false;
  app.add_flag("--quiet,-q", quiet, "print only the one-line result, not the short table after it");
  app.add_option("--temperature", req.temperature, "sampling temperature of the run, 0 to 100")
      ->check(NumberIn(0, 100))
      ->capture_default_str();
  app.add_option("--decode-range", req.decode_range,
                 "annotation range marking the decode loop, a glob (default decodeprof:decode)")
      ->check(NonEmpty("a range name or glob"));
  app.add_option("--step-range", req.step_range,
                 "annotation range marking one decode step, a glob such as 'ProfilerStep#*' "
                 "(default decodeprof:step); without a decode range the steps span the window")
      ->check(NonEmpty("a range name or glob"));
  std::string window = "decode";
  app.add_option("--window", window,
                 "decode: the decode loop, from the log's marks, the trace's ranges or, "
                 "without either, found in the dispatches (CUDA-graph launches or the "
                 "repeating kernel sequence); all: every dispatch; START_NS..END_NS: the "
                 "dispatches starting in that span of the trace's clock")
      ->capture_default_str();
  app.add_option("--generated-tokens", generated_tokens,
                 "generated tokens, when neither the log nor step ranges say: 1 to 1000000000")
      ->check(IntegerIn(1, 1000000000));
  app.add_flag("--emit-dispatches", req.emit_dispatches,
               "also write <name>_decode_dispatches.csv, one row per decode dispatch");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportError(kSummarizeCommand,
                       base::UsageError(e.what(), "see decodeprof summarize --help"));
  }
  if (trace_option->count() == 0 && ranks_option->count() == 0) {
    return ReportError(kSummarizeCommand, base::UsageError("--trace or --ranks is required",
                                                           "see decodeprof summarize --help"));
  }
  req.format = format;
  if (name_option->count() == 0) {
    req.name = ranks.empty() ? DefaultRunName(req.trace) : DefaultGroupName(ranks);
  }
  auto window_spec = pipeline::ParseWindowSpec(window);
  if (!window_spec.ok()) return ReportError(kSummarizeCommand, window_spec.status());
  req.window = *window_spec;
  if (generated_tokens >= 0) req.generated_tokens = generated_tokens;
  if (device >= 0) req.device = device;

  if (!ranks.empty()) return SummarizeRanks(req, std::move(ranks), quiet);
  auto result = pipeline::RunSummarize(req);
  if (!result.ok()) return ReportError(kSummarizeCommand, result.status());
  for (const std::string& note : result->notes) {
    std::fprintf(stderr, "decodeprof: %s: %s\n", kSummarizeCommand, note.c_str());
  }
  const auto& s = result->summary;
  // The summary's warnings are diagnostics too (recorder losses, role-rule doubts): the
  // table says each once.
  PrintDiagnostics(kSummarizeCommand, s.diagnostics);
  std::printf("%s: %lld decode dispatches, %s GPU ms/token, %s host gap ms/token\n",
              req.name.c_str(), static_cast<long long>(s.decode_dispatches),
              PyStr(s.gpu_ms_per_token).c_str(), PyStr(s.host_gap_ms_per_token).c_str());
  if (!quiet) {
    std::fputs(report::TerminalSummaryText(s).c_str(), stdout);
    std::printf("  wrote:      %s\n", result->written.back().c_str());
  }
  return 0;
}

}  // namespace decodeprof::cli
