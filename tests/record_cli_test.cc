// `decodeprof record` through the binary, without a GPU: a stand-in command writes the native
// trace the CUPTI recorder would have written (as tests/kernels_cli_test.cc does), and the
// record line and warnings of sampled recordings are checked.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "src/native_format/native_writer.h"
#include "tests/cli_runner.h"

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
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dp_record_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::unsetenv("DECODEPROF_CUPTI_INJECTION");
    fs::remove_all(dir_);
  }
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

}  // namespace
