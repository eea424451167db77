#include "src/io/kineto_json/kineto_json_importer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

class Collect : public trace::DispatchSink {
 public:
  void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
  trace::DispatchVector dispatches;
};

struct Imported {
  base::StatusOr<KinetoImport> result;
  trace::DispatchVector dispatches;
};

Imported Import(const std::string& text, trace::StringPool& names,
                const KinetoImportOptions& options = {}) {
  Collect sink;
  auto result = ImportKinetoJsonText(text, "t.json", names, sink, options);
  return {std::move(result), std::move(sink.dispatches)};
}

// In libkineto's layout (output_json.cpp): header, then one event per block.
constexpr const char* kTrace = R"JSON(
  {
    "schemaVersion": 1,
    "deviceProperties": [
    {
      "id": 0, "name": "NVIDIA H100", "totalGlobalMem": 102085492736,
      "computeMajor": 9, "computeMinor": 0, "numSms": 132
    }
    ],
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1775078550000000000,
  "traceEvents": [
  {
    "name": "process_name", "ph": "M", "ts": 88511388202.755, "pid": 514683, "tid": 0,
    "args": {
      "name": "python"
    }
  },
  {
    "ph": "X", "cat": "user_annotation", "name": "decodeprof:decode", "pid": 514683, "tid": 514683,
    "ts": 88511388202.700, "dur": 1.000,
    "args": {
      "External id": 1, "Record function id": 0, "Ev Idx": 0
    }
  },
  {
    "ph": "X", "cat": "user_annotation", "name": "decodeprof:step", "pid": 514683, "tid": 514683,
    "ts": 88511388202.700, "dur": 0.500,
    "args": {
      "External id": 2, "Record function id": 0, "Ev Idx": 1
    }
  },
  {
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 514683, "tid": 514683,
    "ts": 88511388202.765, "dur": 0.040,
    "args": {
      "External id": 3, "Input Dims": [[1, 2048], [2048, 6144]]
    }
  },
  {
    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 514683, "tid": 514683,
    "ts": 88511388202.765, "dur": 0.010,
    "args": {
            "cbid": 211, "correlation": 1
    }
  },
  {
    "ph": "s", "id": 1, "pid": 514683, "tid": 514683, "ts": 88511388202.765,
    "cat": "ac2g", "name": "ac2g"
  },
  {
    "ph": "X", "cat": "kernel", "name": "void gemv2T_kernel_val<int>(params)", "pid": 0, "tid": 7,
    "ts": 88511388202.785, "dur": 0.020,
    "args": {
            "queued": 0, "device": 0, "context": 1,      "stream": 7, "correlation": 1,      "registers per thread": 32,      "shared memory": 0,      "blocks per SM": 0.007576,      "warps per SM": 0.000237,      "grid": [64, 2, 0],      "block": [128, 1, 1],      "est. achieved occupancy %": 0,      "graph id": 0, "graph node id": 0
    }
  },
  {
    "ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 88511388202.785,
    "cat": "ac2g", "name": "ac2g", "bp": "e"
  },
  {
    "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7,
    "ts": 88511388202.810, "dur": 0.004,
    "args": {
      "device": 0, "context": 1,
      "stream": 7, "correlation": 2,
      "bytes": 4, "memory bandwidth (GB/s)": 1.0
    }
  },
  {
    "ph": "X", "cat": "gpu_user_annotation", "name": "decodeprof:step", "pid": 0, "tid": 7,
    "ts": 88511388202.784, "dur": 0.032,
    "args": {
      "External id": 2
    }
  },
  {
    "name": "Record Window End", "ph": "i", "s": "g",
    "pid": "", "tid": "", "ts": 88511388203.055
  }
  ],
  "traceName": "/tmp/trace.json"
}
)JSON";

constexpr int64_t kBase = 1775078550000000000;
constexpr int64_t kT0 = kBase + 88511388202000;  // ts 88511388202.000 us

TEST(KinetoJsonImporter, KernelsRangesAndLaunchesFromALibkinetoTrace) {
  trace::StringPool names;
  Imported in = Import(kTrace, names);
  ASSERT_TRUE(in.result.ok()) << in.result.status().ToString();
  const KinetoImport& k = *in.result;
  EXPECT_EQ(k.base_time_ns, kBase);
  EXPECT_TRUE(k.base_time_applied);
  EXPECT_EQ(k.events, 11);
  EXPECT_EQ(k.kernels, 1);
  EXPECT_EQ(k.memory_ops, 1);
  EXPECT_EQ(k.launch_calls, 1);
  EXPECT_EQ(k.skipped.at(""), 2);  // process_name, Record Window End: no cat
  EXPECT_EQ(k.skipped.at("ac2g"), 2);
  EXPECT_EQ(k.skipped.at("cpu_op"), 1);
  EXPECT_EQ(k.skipped.at("gpu_user_annotation"), 1);

  ASSERT_EQ(in.dispatches.size(), 1u);  // the memcpy is not streamed by default
  const trace::Dispatch& d = in.dispatches[0];
  EXPECT_EQ(names.Get(d.name), "void gemv2T_kernel_val<int>(params)");
  EXPECT_EQ(d.start, kT0 + 785);
  EXPECT_EQ(d.end, kT0 + 805);
  EXPECT_EQ(d.grid, 128);  // 64 * 2 * max(0, 1)
  EXPECT_EQ(d.line, 1u);

  EXPECT_EQ(d.correlation, 1u);
  EXPECT_EQ(d.stream, 7u);
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(d.kind, trace::DispatchKind::kKernel);

  ASSERT_EQ(k.ranges.size(), 2u);
  EXPECT_EQ(names.Get(k.ranges[0].name), "decodeprof:decode");  // same start: outer first
  EXPECT_EQ(k.ranges[0].depth, 0);
  EXPECT_EQ(k.ranges[0].start, kT0 + 700);
  EXPECT_EQ(k.ranges[0].end, kT0 + 1700);
  EXPECT_EQ(k.ranges[0].thread, 514683u);
  EXPECT_EQ(names.Get(k.ranges[1].name), "decodeprof:step");
  EXPECT_EQ(k.ranges[1].depth, 1);
  EXPECT_EQ(k.ranges[1].end, kT0 + 1200);
}

TEST(KinetoJsonImporter, MemoryOperationsAsDispatchesWhenAsked) {
  trace::StringPool names;
  KinetoImportOptions options;
  options.memory_ops_as_dispatches = true;
  Imported in = Import(kTrace, names, options);
  ASSERT_TRUE(in.result.ok()) << in.result.status().ToString();
  ASSERT_EQ(in.dispatches.size(), 2u);
  EXPECT_EQ(names.Get(in.dispatches[1].name), "[CUDA memcpy Device-to-Host]");
  EXPECT_EQ(in.dispatches[1].grid, 0);
  EXPECT_EQ(in.dispatches[1].line, 2u);
  EXPECT_EQ(in.dispatches[1].end - in.dispatches[1].start, 4);
  EXPECT_EQ(in.dispatches[1].kind, trace::DispatchKind::kMemcpy);
  EXPECT_EQ(in.dispatches[1].correlation, 2u);
}

// PyTorch on ROCm: roctracer's keys before the events (or a hip* launch call before the copy)
// name the copies for the HIP runtime.
TEST(KinetoJsonImporter, CopiesOfAHipTraceAreHipCopies) {
  const std::string copy =
      R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 2,
          "tid": 1, "ts": 10.0, "dur": 2.5,
          "args": {"device": 2, "stream": 1, "correlation": 7}})J";
  const std::string set =
      R"J({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 2, "tid": 1,
          "ts": 20.0, "dur": 1.0, "args": {"correlation": 8}})J";
  const std::string launch =
      R"J({"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyAsync", "pid": 1, "tid": 1,
          "ts": 9.0, "dur": 1.0, "args": {"correlation": 7}})J";
  KinetoImportOptions options;
  options.memory_ops_as_dispatches = true;
  const auto names_of = [&](const std::string& text) {
    trace::StringPool names;
    Imported in = Import(text, names, options);
    EXPECT_TRUE(in.result.ok()) << in.result.status().ToString();
    std::vector<std::string> out;
    for (const trace::Dispatch& d : in.dispatches) out.emplace_back(names.Get(d.name));
    return out;
  };
  EXPECT_EQ(names_of(R"({"roctracer_version": 4.1, "hip_runtime_version": 70051831, )"
                     R"("traceEvents": [)" +
                     copy + ", " + set + "]}"),
            (std::vector<std::string>{"[HIP memcpy Device-to-Device]", "[HIP memset]"}));
  EXPECT_EQ(names_of(R"({"traceEvents": [)" + launch + ", " + copy + "]}"),
            (std::vector<std::string>{"[HIP memcpy Device-to-Device]"}));
  EXPECT_EQ(names_of(R"({"traceEvents": [)" + copy + "]}"),
            (std::vector<std::string>{"[CUDA memcpy Device-to-Device]"}));
}

// Through the plug-in: memory operations stream, launches are the model's table (the join is
// the model's: trace::LaunchIndex), skipped events are a diagnostic, the clock is realtime.
TEST(KinetoJsonImporter, ThePlugInFillsTheModel) {
  const decodeprof::testing::TempDir temp("dp_kineto_");
  const std::string path = temp.Path("kineto_plugin.json");
  {
    std::ofstream out(path, std::ios::binary);
    out << kTrace;
  }
  trace::StringPool names;
  Collect sink;
  trace::TraceBuilder builder(names, sink);
  ASSERT_TRUE(KinetoJsonImporter().Import(path, builder).ok());
  const trace::ImportedTrace t = std::move(builder).Finish();
  ASSERT_EQ(sink.dispatches.size(), 2u);
  EXPECT_EQ(t.kernels, 1);
  EXPECT_EQ(t.memory_ops, 1);
  EXPECT_EQ(t.clock, trace::ClockDomain::kRealtime);
  ASSERT_EQ(t.launches.size(), 1u);
  const trace::LaunchIndex index(t.launches);
  const trace::ApiCall* launch = index.Find(sink.dispatches[0].correlation);
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->thread, 514683u);
  EXPECT_EQ(launch->start, kT0 + 765);
  EXPECT_EQ(index.Find(sink.dispatches[1].correlation), nullptr);  // no call has 2
  EXPECT_EQ(t.ranges.size(), 2u);
  EXPECT_EQ(t.diagnostics.count(trace::Diag::kEventsSkipped), 6);
  const auto entries = t.diagnostics.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first.detail, "(no cat) 2, ac2g 2, cpu_op 1, gpu_user_annotation 1");
  // deviceProperties: the GPUs by id and name.
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].id, 0);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100");
}

TEST(KinetoJsonImporter, DevicePropertiesSkipWhatCannotBeADevice) {
  const decodeprof::testing::TempDir temp("dp_kineto_");
  const std::string path = temp.Path("kineto_devices.json");
  {
    std::ofstream out(path, std::ios::binary);
    out << R"JSON({"deviceProperties": [
      {"id": 1, "name": "AMD Instinct MI300X", "gcnArchName": "gfx942"},
      {"id": 1, "name": "again"}, {"id": -1, "name": "negative"}, {"id": 1.5, "name": "x"},
      {"name": "no id"}, 7, {"id": 2, "name": 3}, {"id": 4294967296, "name": "big"}
    ], "traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "pid": 1, "tid": 1,
       "args": {"device": 1, "stream": 7, "correlation": 1}}
    ]})JSON";
  }
  trace::StringPool names;
  Collect sink;
  trace::TraceBuilder builder(names, sink);
  ASSERT_TRUE(KinetoJsonImporter().Import(path, builder).ok());
  const trace::ImportedTrace t = std::move(builder).Finish();
  ASSERT_EQ(t.devices.size(), 2u);
  EXPECT_EQ(t.devices[0].id, 1);
  EXPECT_EQ(t.devices[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(t.devices[1].id, 2);
  EXPECT_EQ(t.devices[1].name, "");
}

TEST(KinetoJsonImporter, WithoutBaseTimeTimesStayRelative) {
  trace::StringPool names;
  Imported in = Import(R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 10.5, "dur": 2, "args": {}}]})",
                       names);
  ASSERT_TRUE(in.result.ok()) << in.result.status().ToString();
  EXPECT_FALSE(in.result->base_time_ns.has_value());
  ASSERT_EQ(in.dispatches.size(), 1u);
  EXPECT_EQ(in.dispatches[0].start, 10500);
  EXPECT_EQ(in.dispatches[0].end, 12500);
  EXPECT_EQ(in.dispatches[0].grid, 0);  // no grid in args
  EXPECT_EQ(in.result->launch_calls, 0);
}

TEST(KinetoJsonImporter, BaseTimeAfterTheEventsIsNotApplied) {
  trace::StringPool names;
  Imported in = Import(R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1}],
    "baseTimeNanoseconds": 5000})",
                       names);
  ASSERT_TRUE(in.result.ok()) << in.result.status().ToString();
  EXPECT_EQ(in.result->base_time_ns, 5000);
  EXPECT_FALSE(in.result->base_time_applied);
  EXPECT_EQ(in.dispatches[0].start, 1000);
}

TEST(KinetoJsonImporter, ArrayFormatAndLegacyCategoriesAndMangledNames) {
  trace::StringPool names;
  Imported in = Import(R"([
    {"ph": "X", "cat": "Kernel", "name": "_Z6gemv2TPf", "ts": 1, "dur": 1, "tid": "stream 7"},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "ts": 0.5, "dur": 0.1, "tid": -12,
     "args": {"correlation": 0}}
  ])",
                       names);
  ASSERT_TRUE(in.result.ok()) << in.result.status().ToString();
  ASSERT_EQ(in.dispatches.size(), 1u);
  EXPECT_EQ(names.Get(in.dispatches[0].name), "gemv2T(float*)");
  EXPECT_EQ(in.result->launch_calls, 0);  // correlation 0 links nothing
}

TEST(KinetoJsonImporter, MicrosecondsConvertExactly) {
  EXPECT_EQ(MicrosecondsTextToNs("88511388202.765"), 88511388202765);
  EXPECT_EQ(MicrosecondsTextToNs("0.001"), 1);
  EXPECT_EQ(MicrosecondsTextToNs("-0.001"), -1);
  EXPECT_EQ(MicrosecondsTextToNs("12"), 12000);
  EXPECT_EQ(MicrosecondsTextToNs("0.0015"), 2);  // half away from zero
  EXPECT_EQ(MicrosecondsTextToNs("0.00149"), 1);
  EXPECT_EQ(MicrosecondsTextToNs("-0.0015"), -2);
  EXPECT_EQ(MicrosecondsTextToNs("1.5e-3"), 2);
  EXPECT_EQ(MicrosecondsTextToNs("2E2"), 200000);
  EXPECT_EQ(MicrosecondsTextToNs("0.0004"), 0);
  EXPECT_EQ(MicrosecondsTextToNs("0"), 0);
  // A double would lose the last digits here: 1775078550123456.789 us.
  EXPECT_EQ(MicrosecondsTextToNs("1775078550123456.789"), 1775078550123456789);
  EXPECT_EQ(MicrosecondsTextToNs("9223372036854775.807"), INT64_MAX);
  EXPECT_EQ(MicrosecondsTextToNs("9223372036854775.808"), std::nullopt);
  EXPECT_EQ(MicrosecondsTextToNs("1e400"), std::nullopt);
  EXPECT_EQ(MicrosecondsTextToNs("abc"), std::nullopt);
  EXPECT_EQ(MicrosecondsTextToNs("1e"), std::nullopt);
  // Around the plain "%.3f" fast path's edges: the same as the general reading.
  EXPECT_EQ(MicrosecondsTextToNs("-12.25"), -12250);
  EXPECT_EQ(MicrosecondsTextToNs("0001.5"), 1500);
  EXPECT_EQ(MicrosecondsTextToNs("1."), 1000);
  EXPECT_EQ(MicrosecondsTextToNs("9999999999999999.999"), std::nullopt);
  EXPECT_EQ(MicrosecondsTextToNs("99999999999999999"), std::nullopt);
  EXPECT_EQ(MicrosecondsTextToNs("1234567890123.4567"), 1234567890123457);
  EXPECT_EQ(MicrosecondsTextToNs("-"), std::nullopt);
  EXPECT_EQ(MicrosecondsTextToNs(""), std::nullopt);
  EXPECT_EQ(MicrosecondsTextToNs("1.5x"), std::nullopt);
}

TEST(KinetoJsonImporter, TimestampsKeepNanosecondPrecisionBeyondADouble) {
  trace::StringPool names;
  Imported in = Import(R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 1775078550123456.789, "dur": 0.001}]})",
                       names);
  ASSERT_TRUE(in.result.ok()) << in.result.status().ToString();
  EXPECT_EQ(in.dispatches[0].start, 1775078550123456789);
  EXPECT_EQ(in.dispatches[0].end, 1775078550123456790);
}

base::Status ErrorOf(const std::string& text) {
  trace::StringPool names;
  return Import(text, names).result.status();
}

TEST(KinetoJsonImporter, TruncatedJsonNamesTheByteOffset) {
  const std::string text = std::string(kTrace).substr(0, 900);
  const base::Status s = ErrorOf(text);
  EXPECT_EQ(s.kind(), base::ErrorKind::kData);
  EXPECT_EQ(s.where(), "t.json:byte 900");  // the end of the input
  EXPECT_NE(s.message().find("malformed JSON"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("unexpected end of input"), std::string::npos) << s.message();
}

TEST(KinetoJsonImporter, NotJson) {
  const base::Status s = ErrorOf("Kernel_Name,Start_Timestamp\nk,1\n");
  EXPECT_EQ(s.kind(), base::ErrorKind::kData);
  EXPECT_EQ(s.where(), "t.json:byte 0");
  EXPECT_NE(s.message().find("line 1, column 1"), std::string::npos) << s.message();
}

TEST(KinetoJsonImporter, NegativeDurationIsAnErrorAtTheEvent) {
  const std::string text =
      "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\"},\n"
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 5, "
      "\"dur\": -1}]}";
  trace::StringPool names;
  const base::Status s = Import(text, names).result.status();
  // The first kernel has no name: that is the first error.
  EXPECT_EQ(s.where(), "t.json:byte 18");
  EXPECT_EQ(s.message(), "kernel event without a name (line 2)");
  const std::string negative =
      "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 5, "
      "\"dur\": -1}]}";
  const base::Status n = ErrorOf(negative);
  EXPECT_EQ(n.kind(), base::ErrorKind::kData);
  EXPECT_EQ(n.where(), "t.json:byte 18");
  EXPECT_EQ(n.message(), "end before start (dur -1000 ns) (line 2)");
}

TEST(KinetoJsonImporter, ATimeBeyondInt64IsAnError) {
  // (1e309 does not even parse: "malformed JSON: number overflow parsing '1e309'".)
  EXPECT_EQ(ErrorOf("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1e309}]}").kind(),
            base::ErrorKind::kData);
  for (const char* ts : {"9223372036854775.808", "99999999999999999999999999999"}) {
    const base::Status s = ErrorOf(
        std::string("{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                    "\"ts\": ") +
        ts + ", \"dur\": 1}]}");
    EXPECT_EQ(s.kind(), base::ErrorKind::kData) << ts;
    EXPECT_EQ(s.message(), "time does not fit in 64-bit nanoseconds (line 2)") << ts;
  }
}

TEST(KinetoJsonImporter, WrongTypesOfUsedFields) {
  EXPECT_EQ(ErrorOf(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "5",
                       "dur": 1}]})")
                .message(),
            "kernel event whose ts is not a number (line 1)");
  EXPECT_EQ(ErrorOf(R"({"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": 3,
                       "ts": 5, "dur": 1}]})")
                .message(),
            "user_annotation event whose name is not a string (line 1)");
  EXPECT_EQ(
      ErrorOf(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 5}]})").message(),
      "kernel event without dur (line 1)");
  // The same fields of a skipped event are not checked.
  EXPECT_TRUE(ErrorOf(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "ts": "x"}]})").ok());
  const base::Status element = ErrorOf(R"({"traceEvents": [1]})");
  EXPECT_EQ(element.kind(), base::ErrorKind::kData);
  EXPECT_NE(element.message().find("not an event object"), std::string::npos);
}

TEST(KinetoJsonImporter, NotATrace) {
  const base::Status no_events = ErrorOf(R"({"schemaVersion": 1})");
  EXPECT_EQ(no_events.where(), "t.json");
  EXPECT_EQ(no_events.message(), "no traceEvents array: not a Chrome/Kineto trace");
  EXPECT_EQ(ErrorOf("42").message(), "the top level is not a JSON object or array");
  // A gzip header and nothing after it: read as gzip, which ends early.
  const base::Status gz = ErrorOf(std::string("\x1f\x8b\x08\x00", 4));
  EXPECT_EQ(gz.where(), "t.json:byte 4");
  EXPECT_EQ(gz.message(), "truncated gzip data: the file ends after 0 decompressed bytes");
}

TEST(KinetoJsonImporter, FileErrors) {
  trace::StringPool names;
  Collect sink;
  const auto missing = ImportKinetoJson("/nonexistent/trace.json", names, sink);
  EXPECT_EQ(missing.status().kind(), base::ErrorKind::kIo);
  EXPECT_EQ(missing.status().where(), "/nonexistent/trace.json");

  // The file reader agrees with the in-memory one, across its buffer boundary too.
  const decodeprof::testing::TempDir temp("dp_kineto_");
  const std::filesystem::path path = temp.Path("trace.json");
  std::string big = "{\"traceEvents\": [";
  for (int i = 0; i < 20000; ++i) {
    if (i > 0) big += ",\n";
    big += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel_" + std::to_string(i % 7) +
           "\", \"ts\": " + std::to_string(i) + ".125, \"dur\": 0.5, \"args\": {\"grid\": [2, " +
           "3, 1], \"Input Dims\": [[1, 2], [3]]}}";
  }
  big += ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 1}]}";
  {
    std::ofstream out(path, std::ios::binary);
    out << big;
  }
  const auto from_file = ImportKinetoJson(path.string(), names, sink);
  ASSERT_FALSE(from_file.ok());
  EXPECT_EQ(sink.dispatches.size(), 20000u);
  EXPECT_EQ(sink.dispatches.back().start, 19999125);
  EXPECT_EQ(sink.dispatches.back().grid, 6);
  const size_t last = big.rfind('{');
  EXPECT_EQ(from_file.status().where(), path.string() + ":byte " + std::to_string(last));
  EXPECT_EQ(from_file.status().message(), "kernel event without a name (line 20001)");
}

// The read window (io::JsonStream) cuts the events into runs anywhere: a few bytes give the
// same import, and the same error, as the default.
TEST(KinetoJsonImporter, AnyReadWindowGivesTheSameImport) {
  trace::StringPool names;
  KinetoImportOptions options;
  options.memory_ops_as_dispatches = true;
  const Imported whole = Import(kTrace, names, options);
  ASSERT_TRUE(whole.result.ok()) << whole.result.status().ToString();
  const std::string truncated = std::string(kTrace).substr(0, 2000);
  const base::Status error = ErrorOf(truncated);
  for (const size_t window : {size_t{1}, size_t{2}, size_t{5}, size_t{16}, size_t{100}}) {
    options.window_bytes = window;
    const Imported in = Import(kTrace, names, options);
    ASSERT_TRUE(in.result.ok()) << window << ": " << in.result.status().ToString();
    EXPECT_EQ(in.result->events, whole.result->events) << window;
    EXPECT_EQ(in.result->skipped, whole.result->skipped) << window;
    ASSERT_EQ(in.dispatches.size(), whole.dispatches.size()) << window;
    for (size_t i = 0; i < in.dispatches.size(); ++i) {
      EXPECT_EQ(in.dispatches[i].name, whole.dispatches[i].name) << window;
      EXPECT_EQ(in.dispatches[i].start, whole.dispatches[i].start) << window;
      EXPECT_EQ(in.dispatches[i].grid, whole.dispatches[i].grid) << window;
    }
    ASSERT_EQ(in.result->ranges.size(), whole.result->ranges.size()) << window;
    Collect sink;
    const auto bad = ImportKinetoJsonText(truncated, "t.json", names, sink, options);
    EXPECT_EQ(bad.status().ToString(), error.ToString()) << window;
  }
}

TEST(KinetoJsonImporter, Sniffing) {
  EXPECT_TRUE(LooksLikeKinetoJson("\n  {\n    \"schemaVersion\": 1,"));
  EXPECT_TRUE(LooksLikeKinetoJson("{\"traceEvents\": []}"));
  EXPECT_TRUE(LooksLikeKinetoJson(" [ {\"ph\": \"X\"}"));
  // A compressed file's probe is its decompressed start (FileProbe): raw gzip bytes are no trace.
  EXPECT_FALSE(LooksLikeKinetoJson(std::string("\x1f\x8b", 2)));
  EXPECT_FALSE(LooksLikeKinetoJson("{\"model_type\": \"llama\"}"));
  EXPECT_FALSE(LooksLikeKinetoJson("Kind,Agent_Id,Kernel_Name\n"));
  EXPECT_FALSE(LooksLikeKinetoJson(std::string("SQLite format 3\0", 16)));
  EXPECT_FALSE(LooksLikeKinetoJson("   "));
}

}  // namespace
}  // namespace decodeprof::io

namespace decodeprof::io {
namespace {

// torch.profiler writes distributedInfo for a process of a torch.distributed job.
TEST(KinetoJsonImporter, DistributedInfoGivesTheRank) {
  trace::StringPool names;
  Imported in = Import(R"({"distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2,
      "pg_count": 1, "pg_config": [{"pg_name": "0", "ranks": [0, 1]}], "nccl_version": "2.27.3"},
    "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {}}]})",
                       names);
  ASSERT_TRUE(in.result.ok()) << in.result.status().ToString();
  ASSERT_TRUE(in.result->rank.has_value());
  EXPECT_EQ(in.result->rank->rank, 1);
  EXPECT_EQ(in.result->rank->world_size, 2);
  EXPECT_EQ(in.dispatches.size(), 1u);

  Imported single = Import(R"({"traceEvents": []})", names);
  ASSERT_TRUE(single.result.ok());
  EXPECT_FALSE(single.result->rank.has_value());
}

TEST(KinetoJsonImporter, ARankOutsideItsWorldIsAnError) {
  trace::StringPool names;
  Imported in =
      Import(R"({"distributedInfo": {"rank": 2, "world_size": 2}, "traceEvents": []})", names);
  ASSERT_FALSE(in.result.ok());
  EXPECT_EQ(in.result.status().kind(), base::ErrorKind::kData);
  EXPECT_NE(in.result.status().message().find("distributedInfo: rank 2 of world_size 2"),
            std::string::npos)
      << in.result.status().ToString();
}

}  // namespace
}  // namespace decodeprof::io
