// Google Benchmark of the loops every import runs once per record, each beside a baseline in
// the same binary (the ratio between the two is what to read; absolute figures depend on the
// machine):
//   StringPool::Intern of repeated kernel names     vs std::unordered_map<std::string, int>
//                                                       insert-or-find (a std::string per row)
//   CsvReader records of a rocprofv3 kernel trace    vs std::getline + std::stringstream split
//   ImportRocprofv3Csv (records → Dispatch)             (the same text; the naive split does
//                                                       not honour quotes, so it is a floor)
//   analysis::WindowCollector::Add                   vs a sink that keeps the window's
//                                                       dispatches in a vector (same calls)
//   trace::Spool<Dispatch> Add + Drain               vs std::vector push_back + iterate
//     (in memory, and 4x the in-memory part: spilled to a temporary file in TMPDIR)
//   analysis::BusyUnion                              vs one pass summing the clipped
//                                                       durations (the floor: no merging)
// items/s is records (names, rows, dispatches) per second. Run with a release build:
//   build/release/bench/decodeprof_hot_loops_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/analysis/intervals.h"
#include "src/analysis/window.h"
#include "src/io/common/csv_reader.h"
#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"
#include "src/trace/dispatch.h"
#include "src/trace/dispatch_sink.h"
#include "src/trace/spool.h"
#include "src/trace/string_pool.h"

namespace {

namespace io = decodeprof::io;
namespace trace = decodeprof::trace;
namespace analysis = decodeprof::analysis;

constexpr int kDistinctNames = 200;  // a decode step's kernels, as in a MoE model's trace
constexpr size_t kRows = size_t{1} << 16;

// Demangled kernel names of realistic length (154–195 bytes), `kDistinctNames` of them.
std::vector<std::string> DistinctNames() {
  std::vector<std::string> names;
  for (int i = 0; i < kDistinctNames; ++i) {
    names.push_back("void at::native::elementwise_kernel_" + std::to_string(i) +
                    "<128, 4, at::native::gpu_kernel_impl<at::native::BinaryFunctor<float, "
                    "float, float>>(at::TensorIteratorBase&)>(int, " +
                    std::string(static_cast<size_t>(i % 40), 'x') + ")");
  }
  return names;
}

// `kRows` names in the order a trace repeats them (a step's sequence over and over).
std::vector<std::string_view> NameStream(const std::vector<std::string>& names) {
  std::vector<std::string_view> stream;
  stream.reserve(kRows);
  for (size_t i = 0; i < kRows; ++i) stream.push_back(names[(i * 7) % names.size()]);
  return stream;
}

int64_t Bytes(const std::vector<std::string_view>& stream) {
  int64_t bytes = 0;
  for (std::string_view s : stream) bytes += static_cast<int64_t>(s.size());
  return bytes;
}

void BM_StringPoolIntern(benchmark::State& state) {
  const std::vector<std::string> names = DistinctNames();
  const std::vector<std::string_view> stream = NameStream(names);
  trace::StringPool pool;
  for (auto _ : state) {
    for (std::string_view s : stream) benchmark::DoNotOptimize(pool.Intern(s));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRows));
  state.SetBytesProcessed(state.iterations() * Bytes(stream));
}
BENCHMARK(BM_StringPoolIntern);

void BM_BaselineUnorderedMapStringInt(benchmark::State& state) {
  const std::vector<std::string> names = DistinctNames();
  const std::vector<std::string_view> stream = NameStream(names);
  std::unordered_map<std::string, int> ids;
  for (auto _ : state) {
    for (std::string_view s : stream) {
      auto [it, added] = ids.try_emplace(std::string(s), static_cast<int>(ids.size()));
      benchmark::DoNotOptimize(it->second);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRows));
  state.SetBytesProcessed(state.iterations() * Bytes(stream));
}
BENCHMARK(BM_BaselineUnorderedMapStringInt);

// A rocprofv3 1.3.5 kernel trace of `kRows` dispatches (the columns the seed recorded), kernel
// names quoted (they hold commas).
const std::string& CsvText() {
  static const std::string text = [] {
    const std::vector<std::string> names = DistinctNames();
    std::string out =
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
        "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
        "\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
        "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\","
        "\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
    int64_t t = 1'700'000'000'000'000'000;
    for (size_t i = 0; i < kRows; ++i) {
      const std::string id = std::to_string(i + 1);
      out += "\"KERNEL_DISPATCH\",\"Agent 1\",1,0,4242," + id + "," +
             std::to_string(i % kDistinctNames + 1) + ",\"" + names[(i * 7) % names.size()] +
             "\"," + id + "," + std::to_string(t) + "," + std::to_string(t + 2'500) +
             ",0,0,32,0,16,256,1,1,4096,1,1\n";
      t += 3'000;
    }
    return out;
  }();
  return text;
}

void BM_CsvReaderRecords(benchmark::State& state) {
  const std::string& text = CsvText();
  for (auto _ : state) {
    auto reader = io::CsvReader::FromString(text, "bench.csv");
    size_t fields = 0;
    while (reader->Next()) fields += reader->size();
    if (!reader->status().ok()) state.SkipWithError(reader->status().ToString().c_str());
    benchmark::DoNotOptimize(fields);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRows));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_CsvReaderRecords);

void BM_Rocprofv3CsvImport(benchmark::State& state) {
  const std::string& text = CsvText();
  trace::NullSink sink;
  for (auto _ : state) {
    trace::StringPool names;
    auto reader = io::CsvReader::FromString(text, "bench.csv");
    auto stats = io::ImportRocprofv3Csv(*reader, names, sink);
    if (!stats.ok()) state.SkipWithError(stats.status().ToString().c_str());
    benchmark::DoNotOptimize(names.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRows));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_Rocprofv3CsvImport);

void BM_BaselineGetlineStringstreamSplit(benchmark::State& state) {
  const std::string& text = CsvText();
  for (auto _ : state) {
    std::istringstream in(text);
    std::string line;
    std::string field;
    std::vector<std::string> fields;
    size_t count = 0;
    while (std::getline(in, line)) {
      fields.clear();
      std::stringstream split(line);
      while (std::getline(split, field, ',')) fields.push_back(field);
      count += fields.size();
    }
    benchmark::DoNotOptimize(count);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRows));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_BaselineGetlineStringstreamSplit);

// `kRows` dispatches back to back in steps of 500 on two streams (every other kernel overlaps
// its predecessor by 500 ns), start order.
trace::DispatchVector Dispatches(size_t n) {
  trace::DispatchVector out;
  out.reserve(n);
  int64_t t = 1'000'000'000;
  for (size_t i = 0; i < n; ++i) {
    if (i % 500 == 0) t += 20'000;
    trace::Dispatch d;
    d.start = t;
    d.end = t + 2'500;
    d.grid = 4096;
    d.correlation = i + 1;
    d.name = static_cast<trace::StringId>(i % kDistinctNames);
    d.line = static_cast<uint32_t>(i + 2);
    d.stream = static_cast<uint32_t>(i % 2);
    out.push_back(d);
    t += i % 2 == 0 ? 2'000 : 3'000;
  }
  return out;
}

// Marks on both clocks, as a bench log prints them: on boottime the run covers the stream and
// the decode window its last eighth; the monotonic marks lie 90 s earlier (a suspended
// machine), bracketing nothing.
trace::PhaseMarks Marks(const trace::DispatchVector& ds) {
  const int64_t first = ds.front().start;
  const int64_t last = ds.back().end;
  const int64_t decode = ds[ds.size() - ds.size() / 8].start - 100;
  constexpr int64_t kSuspended = 90'000'000'000;
  const auto stamp = [](int64_t boottime) {
    return trace::MarkStamp{boottime - kSuspended, boottime};
  };
  return {{"warmup_start", stamp(first - 1'000)},
          {"measured_start", stamp(first + 1'000)},
          {"decode_start", stamp(decode)},
          {"measured_end", stamp(last + 1'000)}};
}

void BM_WindowCollectorAdd(benchmark::State& state) {
  const trace::DispatchVector ds = Dispatches(kRows);
  const trace::PhaseMarks marks = Marks(ds);
  for (auto _ : state) {
    analysis::WindowCollector collector(marks);
    trace::DispatchSink& sink = collector;
    for (const trace::Dispatch& d : ds) sink.Add(d);
    benchmark::DoNotOptimize(collector.bracketed(trace::ClockDomain::kBoottime));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRows));
}
BENCHMARK(BM_WindowCollectorAdd);

// The least a window cut does: one comparison per dispatch, a copy of those inside.
class KeepWindow final : public trace::DispatchSink {
 public:
  KeepWindow(int64_t lo, int64_t hi) : lo_(lo), hi_(hi) {}
  void Add(const trace::Dispatch& d) override {
    if (d.start >= lo_ && d.start <= hi_) kept_.push_back(d);
  }
  size_t size() const { return kept_.size(); }

 private:
  int64_t lo_;
  int64_t hi_;
  trace::DispatchVector kept_;
};

void BM_BaselineVectorKeepWindow(benchmark::State& state) {
  const trace::DispatchVector ds = Dispatches(kRows);
  const trace::PhaseMarks marks = Marks(ds);
  const int64_t lo = *marks.at("decode_start").boottime;
  const int64_t hi = *marks.at("measured_end").boottime;
  for (auto _ : state) {
    KeepWindow keep(lo, hi);
    trace::DispatchSink& sink = keep;
    for (const trace::Dispatch& d : ds) sink.Add(d);
    benchmark::DoNotOptimize(keep.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRows));
}
BENCHMARK(BM_BaselineVectorKeepWindow);

// Arg: dispatches per run; Spool's in-memory part is kDefaultMemoryRecords (256 K), so 1 M
// spills three quarters to the temporary file.
constexpr int64_t kInMemory = int64_t{1} << 18;
constexpr int64_t kSpilled = int64_t{1} << 20;

void BM_SpoolAddDrain(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const trace::DispatchVector ds = Dispatches(n);
  for (auto _ : state) {
    trace::Spool<trace::Dispatch> spool;
    for (const trace::Dispatch& d : ds) spool.Add(d);
    int64_t sum = 0;
    const auto drained = spool.Drain([&](const trace::Dispatch& d) { sum += d.start; });
    if (!drained.ok()) state.SkipWithError(drained.ToString().c_str());
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * state.range(0) *
                          static_cast<int64_t>(sizeof(trace::Dispatch)));
}
BENCHMARK(BM_SpoolAddDrain)->Arg(kInMemory)->Arg(kSpilled);

void BM_BaselineVectorPushIterate(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const trace::DispatchVector ds = Dispatches(n);
  for (auto _ : state) {
    trace::DispatchVector all;
    for (const trace::Dispatch& d : ds) all.push_back(d);
    int64_t sum = 0;
    for (const trace::Dispatch& d : all) sum += d.start;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * state.range(0) *
                          static_cast<int64_t>(sizeof(trace::Dispatch)));
}
BENCHMARK(BM_BaselineVectorPushIterate)->Arg(kInMemory)->Arg(kSpilled);

void BM_BusyUnion(benchmark::State& state) {
  const trace::DispatchVector ds = Dispatches(kRows);
  const int64_t lo = ds.front().start;
  const int64_t hi = ds.back().end;
  for (auto _ : state) benchmark::DoNotOptimize(analysis::BusyUnion(ds, lo, hi));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRows));
}
BENCHMARK(BM_BusyUnion);

void BM_BaselineSumClippedDurations(benchmark::State& state) {
  const trace::DispatchVector ds = Dispatches(kRows);
  const int64_t lo = ds.front().start;
  const int64_t hi = ds.back().end;
  for (auto _ : state) {
    int64_t sum = 0;
    for (const trace::Dispatch& d : ds) {
      sum += std::max<int64_t>(0, std::min(d.end, hi) - std::max(d.start, lo));
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRows));
}
BENCHMARK(BM_BaselineSumClippedDurations);

}  // namespace

BENCHMARK_MAIN();
