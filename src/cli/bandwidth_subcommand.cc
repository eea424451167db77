// `decodeprof bandwidth [--device N] [--size-mib M] [--repeats R] [-o FILE.json]`: measures the
// GPU's memory bandwidth by timed device-to-device copies (src/device/bandwidth_probe.h) and
// writes the JSON that `--peak-bandwidth FILE` reads (stdout without -o). A progress line
// and the result go to stderr. Parsing and printing only.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "src/base/file_io.h"
#include "src/cli/option_checks.h"
#include "src/cli/subcommand.h"
#include "src/device/bandwidth_probe.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kBandwidthCommand = "bandwidth";
constexpr int kMaxDevice = 1023;

}  // namespace

int BandwidthMain(int argc, char** argv) {
  device::ProbeOptions options;
  std::string output = std::string(base::kStdout);
  CLI::App app{
      "Measure the GPU's memory bandwidth: timed device-to-device copies through the CUDA\n"
      "driver (each copy reads and writes every byte: 2 x the buffer counted), the median of\n"
      "the repeats. Writes the JSON that summarize --peak-bandwidth FILE reads. Needs the\n"
      "GPU to itself for about a second; without a CUDA driver it exits 66.",
      "decodeprof bandwidth [options]"};
  app.add_option("--device", options.device,
                 "CUDA device ordinal, as CUDA_VISIBLE_DEVICES shows them")
      ->check(IntegerIn(0, kMaxDevice))
      ->capture_default_str()
      ->type_name("N");
  app.add_option("--size-mib", options.size_mib, "size of each of the two buffers, in MiB")
      ->check(IntegerIn(1, device::kMaxProbeMib))
      ->capture_default_str()
      ->type_name("M");
  app.add_option("--repeats", options.repeats, "timed copies, after 3 warm-up copies")
      ->check(IntegerIn(1, device::kMaxProbeRepeats))
      ->capture_default_str()
      ->type_name("R");
  app.add_option("-o,--output", output, "JSON file to write ('-' = stdout)")
      ->check(NonEmpty("a file name or '-'"))
      ->capture_default_str()
      ->type_name("FILE");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return ReportError(kBandwidthCommand,
                       base::UsageError(e.what(), "run `decodeprof bandwidth --help`"));
  }
  // Where the result goes is checked before the GPU is used.
  if (base::Status target = base::CheckOutputTarget(output); !target.ok()) {
    return ReportError(kBandwidthCommand, target);
  }
  options.progress = [](const std::string& line) {
    std::fprintf(stderr, "decodeprof: %s: %s\n", kBandwidthCommand, line.c_str());
    std::fflush(stderr);
  };
  const base::StatusOr<device::ProbeResult> result = device::MeasureBandwidth(options);
  if (!result.ok()) return ReportError(kBandwidthCommand, result.status());
  if (base::Status written = base::WriteFileAtomic(output, device::ProbeResultJson(*result));
      !written.ok()) {
    return ReportError(kBandwidthCommand, written);
  }
  std::fprintf(stderr, "decodeprof: %s: %s: %.1f GB/s (median of %d; max %.1f GB/s)%s%s\n",
               kBandwidthCommand, result->device_name.c_str(), result->median_gbps, options.repeats,
               result->max_gbps, output == base::kStdout ? "" : " -> ",
               output == base::kStdout ? "" : output.c_str());
  return 0;
}

}  // namespace decodeprof::cli
