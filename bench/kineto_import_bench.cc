// decodeprof_kineto_bench: one timed read of a Kineto (torch.profiler) trace, for
// bench/kineto_import.sh, which runs it in a child process per measurement (wall time and
// peak RSS from wait4).
//
//   decodeprof_kineto_bench import FILE [LO_NS HI_NS]
//       the importer plug-in (what `summarize` runs) into a sink that keeps only the
//       dispatches starting in [LO_NS, HI_NS] on the trace's clock (the decode window; all
//       of them without the bounds), as analysis::WindowCollector does.
//   decodeprof_kineto_bench ondemand FILE
//       the baseline: a plain simdjson On-Demand pass, the whole file loaded into a padded
//       string (simdjson's own padded_string::load), every traceEvents element visited and,
//       for kernel events, name, ts and dur read (the kernel list a user's script builds).
//
// Prints one line: the mode, the kernels counted, the dispatches kept, the launch calls the
// import returned (the model's table: 40 bytes each), the seconds spent and
// the peak RSS (VmHWM: of this program alone; a child's ru_maxrss also holds what its parent
// had resident when it forked).
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "src/io/kineto_json/kineto_json_importer.h"
#include "src/trace/trace.h"

namespace {

using namespace decodeprof;
namespace od = simdjson::ondemand;

class WindowSink : public trace::DispatchSink {
 public:
  WindowSink(int64_t lo, int64_t hi) : lo_(lo), hi_(hi) {}
  void Add(const trace::Dispatch& d) override {
    if (d.start >= lo_ && d.start <= hi_) kept_.push_back(d);
  }
  size_t kept() const { return kept_.size(); }

 private:
  int64_t lo_, hi_;
  trace::DispatchVector kept_;
};

int Import(const std::string& path, int64_t lo, int64_t hi, int64_t& kernels, size_t& kept,
           size_t& launches) {
  trace::StringPool names;
  WindowSink sink(lo, hi);
  trace::TraceBuilder builder(names, sink);
  if (const base::Status s = io::KinetoJsonImporter().Import(path, builder); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const trace::ImportedTrace imported = std::move(builder).Finish();
  kernels = imported.kernels;
  launches = imported.launches.size();
  kept = sink.kept();
  return 0;
}

int OnDemand(const std::string& path, int64_t& kernels) {
  simdjson::padded_string json;
  od::parser parser;
  od::document doc;
  od::array events;
  if (simdjson::padded_string::load(path).get(json) || parser.iterate(json).get(doc) ||
      doc["traceEvents"].get_array().get(events)) {
    std::fprintf(stderr, "%s: not a trace simdjson reads\n", path.c_str());
    return 1;
  }
  size_t name_bytes = 0;
  double dur_sum = 0;
  for (auto element : events) {
    od::object event;
    if (element.get_object().get(event)) return 1;
    std::string_view cat, name;
    double dur = 0;
    for (auto field : event) {
      std::string_view key;
      if (field.unescaped_key().get(key)) return 1;
      if (key == "cat") {
        if (field.value().get_string().get(cat)) return 1;
      } else if (key == "name") {
        if (field.value().get_string().get(name)) return 1;
      } else if (key == "ts" || key == "dur") {
        double v = 0;
        if (field.value().get_double().get(v)) return 1;
        if (key == "dur") dur = v;
      }
    }
    if (cat == "kernel") {
      ++kernels;
      name_bytes += name.size();
      dur_sum += dur;
    }
  }
  return name_bytes > 0 && dur_sum >= 0 ? 0 : 1;
}

// VmHWM of /proc/self/status, in KiB (0 when it cannot be read).
long PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc >= 3 ? argv[1] : "";
  if ((mode != "import" && mode != "ondemand") || (argc != 3 && argc != 5)) {
    std::fprintf(stderr, "usage: decodeprof_kineto_bench import|ondemand FILE [LO_NS HI_NS]\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  int64_t kernels = 0;
  size_t kept = 0, launches = 0;
  const int rc = mode == "import"
                     ? Import(argv[2], argc == 5 ? std::atoll(argv[3]) : INT64_MIN,
                              argc == 5 ? std::atoll(argv[4]) : INT64_MAX, kernels, kept, launches)
                     : OnDemand(argv[2], kernels);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s kernels %lld kept %zu launches %zu seconds %.4f peak_rss_kib %ld\n", mode.c_str(),
              static_cast<long long>(kernels), kept, launches, seconds, PeakRssKib());
  return rc;
}
