// `decodeprof record` through the binary, without a GPU: a stand-in command writes the native
// trace the CUPTI recorder would have written (as tests/kernels_cli_test.cc does), and the
// record line and warnings of sampled recordings are checked; `record --measure-bandwidth` and
// `decodeprof bandwidth` run over a stand-in CUDA driver (src/device/testing/fake_libcuda.c).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "src/native_format/native_writer.h"
#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::testing::Result;
using decodeprof::testing::RunBinary;

namespace {

namespace nf = decodeprof::native_format;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class RecordCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }
  void TearDown() override { ::unsetenv("DECODEPROF_CUPTI_INJECTION"); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The trace a time-sampled recording leaves: one kernel, meta sample_time, `periods`
  // periods and `detaches` CUPTI detaches (-1: none said).
  std::string WriteTimed(const std::string& name, int64_t periods, int detaches) {
    const std::string path = Path(name);
    auto writer = nf::NativeWriter::Create(path, "monotonic", "decodeprof-cupti test");
    EXPECT_TRUE(writer.ok());
    nf::NativeWriter& w = **writer;
    EXPECT_TRUE(w.SetMeta(nf::kMetaRecordingStatus, "ok").ok());
    EXPECT_TRUE(w.SetMeta("sample_time", "50/2000").ok());
    if (detaches >= 0) {
      EXPECT_TRUE(w.SetMeta("cupti_detach", "between periods (cuptiFinalize)").ok());
      EXPECT_TRUE(w.SetMeta("cupti_detaches", std::to_string(detaches)).ok());
    }
    EXPECT_TRUE(w.SetCounter("sample_periods", periods).ok());
    nf::KernelRow k;
    k.start_ns = 1000;
    k.end_ns = 2000;
    k.name = k.mangled = *w.Intern("gemm");
    k.correlation = 1;
    if (periods > 0) {
      EXPECT_TRUE(w.AddKernel(k).ok());
    }
    EXPECT_TRUE(w.Close().ok());
    return path;
  }

  // `record --sample-time 50/2000 -o OUT -- sh -c 'cp TRACE OUT'` (the stand-in recorder).
  Result Record(const std::string& trace) {
    ::setenv("DECODEPROF_CUPTI_INJECTION", trace.c_str(), 1);  // any file: never loaded
    const std::string copy = "cp '" + trace + "' \"$DECODEPROF_RECORD_OUTPUT\"";
    return RunBinary(
        {"record", "--sample-time", "50/2000", "-o", Path("out.sqlite"), "--", "sh", "-c", copy},
        {}, dir_);
  }

  decodeprof::testing::TempDir temp_{"dp_record_"};
  fs::path dir_;
};

TEST_F(RecordCliTest, ATimeSampledRecordingSaysItsPeriodsAndDetaches) {
  const Result r = Record(WriteTimed("timed.sqlite", 3, 4));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.err, "1 kernels, 0 memory operations")) << r.err;
  EXPECT_TRUE(Has(r.err, "; sampled 50/2000 ms: 3 periods, CUPTI detached 4 times between them"))
      << r.err;
  EXPECT_FALSE(Has(r.err, "no period was recorded")) << r.err;
}

TEST_F(RecordCliTest, ARunShorterThanItsFirstPeriodIsWarnedOf) {
  const Result r = Record(WriteTimed("short.sqlite", 0, 1));
  EXPECT_TRUE(Has(r.err, "; sampled 50/2000 ms: 0 periods")) << r.err;
  EXPECT_TRUE(Has(r.err,
                  "no period was recorded kernel by kernel: the program ended before the first "
                  "period of --sample-time 50/2000"))
      << r.err;
}

// The trace's meta value of `key` ("" when absent).
std::string MetaOf(const std::string& path, const std::string& key) {
  sqlite3* db = nullptr;
  std::string value;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &stmt, nullptr) ==
        SQLITE_OK) {
      sqlite3_bind_text(stmt, 1, key.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(stmt) == SQLITE_ROW) {
        value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      }
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return value;
}

class RecordBandwidthCliTest : public RecordCliTest {
 protected:
  void TearDown() override {
    ::unsetenv("DECODEPROF_LIBCUDA");
    RecordCliTest::TearDown();
  }
  // `record --measure-bandwidth -o OUT -- sh -c 'cp TRACE OUT'`.
  Result RecordMeasured(const std::string& trace) {
    ::setenv("DECODEPROF_CUPTI_INJECTION", trace.c_str(), 1);  // any file: never loaded
    const std::string copy = "cp '" + trace + "' \"$DECODEPROF_RECORD_OUTPUT\"";
    return RunBinary(
        {"record", "--measure-bandwidth", "-o", Path("out.sqlite"), "--", "sh", "-c", copy}, {},
        dir_);
  }
};

TEST_F(RecordBandwidthCliTest, TheMeasurementGoesIntoTheTracesMeta) {
  ::setenv("DECODEPROF_LIBCUDA", DECODEPROF_FAKE_LIBCUDA, 1);
  const Result r = RecordMeasured(WriteTimed("timed.sqlite", 3, -1));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.err,
                  "decodeprof: bandwidth: measuring the memory bandwidth of device 0 "
                  "(NVIDIA H200)"))
      << r.err;
  // The stand-in's copies take 1 ms each: 2 x 1024 MiB per ms.
  EXPECT_EQ(MetaOf(Path("out.sqlite"), "peak_bandwidth_gbps"), "2147.483648") << r.err;
  EXPECT_EQ(MetaOf(Path("out.sqlite"), "peak_bandwidth_device"), "NVIDIA H200");
  EXPECT_EQ(MetaOf(Path("out.sqlite"), "peak_bandwidth_method"),
            "device-to-device copy, 2 x 1024 MiB per copy counted (read + write), median of 20");
  EXPECT_EQ(MetaOf(Path("out.sqlite"), "sample_time"), "50/2000");  // the recorder's meta kept
  EXPECT_TRUE(Has(r.err, "1 kernels, 0 memory operations")) << r.err;
}

TEST_F(RecordBandwidthCliTest, NoDriverIsAWarningAndTheRecordingGoesOn) {
  ::setenv("DECODEPROF_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  const Result r = RecordMeasured(WriteTimed("timed.sqlite", 3, -1));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.err, "no CUDA driver (/nonexistent/libcuda.so.1")) << r.err;
  EXPECT_TRUE(Has(r.err,
                  "decodeprof: record: warning: the bandwidth was not measured "
                  "(decodeprof bandwidth exited 66); the trace goes without it"))
      << r.err;
  EXPECT_TRUE(Has(r.err, "1 kernels, 0 memory operations")) << r.err;
  EXPECT_EQ(MetaOf(Path("out.sqlite"), "peak_bandwidth_gbps"), "");
  EXPECT_EQ(MetaOf(Path("out.sqlite"), "sample_time"), "50/2000");
}

TEST_F(RecordBandwidthCliTest, WithoutTheFlagNothingIsMeasured) {
  ::setenv("DECODEPROF_LIBCUDA", DECODEPROF_FAKE_LIBCUDA, 1);
  const Result r = Record(WriteTimed("timed.sqlite", 3, -1));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Has(r.err, "bandwidth")) << r.err;
  EXPECT_EQ(MetaOf(Path("out.sqlite"), "peak_bandwidth_gbps"), "");
}

// `decodeprof bandwidth` itself.
TEST_F(RecordBandwidthCliTest, BandwidthWithoutADriverExits66AndSaysWhatToDo) {
  ::setenv("DECODEPROF_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  const Result r = RunBinary({"bandwidth", "-o", Path("bw.json")}, {}, dir_);
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_TRUE(Has(r.err, "decodeprof: bandwidth: no CUDA driver (/nonexistent/libcuda.so.1: "))
      << r.err;
  EXPECT_TRUE(Has(r.err, "cannot measure")) << r.err;
  EXPECT_TRUE(Has(r.err, "hint: give the peak with --peak-bandwidth GBPS")) << r.err;
  EXPECT_FALSE(fs::exists(Path("bw.json")));
}

TEST_F(RecordBandwidthCliTest, BandwidthWritesTheJsonThatPeakBandwidthReads) {
  ::setenv("DECODEPROF_LIBCUDA", DECODEPROF_FAKE_LIBCUDA, 1);
  const Result r = RunBinary(
      {"bandwidth", "--size-mib", "2", "--repeats", "3", "-o", Path("bw.json")}, {}, dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.err, "NVIDIA H200: 4.2 GB/s (median of 3; max 4.2 GB/s) -> ")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  std::ifstream in(Path("bw.json"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(Has(text, "\"peak_bandwidth_gbps\": 4.194304")) << text;
  EXPECT_TRUE(Has(text, "\"device_name\": \"NVIDIA H200\"")) << text;
  EXPECT_TRUE(Has(text, "\"driver_version\": \"13.0\"")) << text;

  // Without -o the JSON goes to stdout.
  const Result out = RunBinary({"bandwidth", "--size-mib", "1", "--repeats", "1"}, {}, dir_);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_TRUE(Has(out.out, "\"peak_bandwidth_gbps\": 2.097152")) << out.out;
}

TEST_F(RecordBandwidthCliTest, BandwidthRefusesADeviceTheDriverDoesNotShow) {
  ::setenv("DECODEPROF_LIBCUDA", DECODEPROF_FAKE_LIBCUDA, 1);
  const Result r = RunBinary({"bandwidth", "--device", "2"}, {}, dir_);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "--device 2: the CUDA driver shows 1 device")) << r.err;
}

}  // namespace
