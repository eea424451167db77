#include "src/device/bandwidth_probe.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

namespace decodeprof::device {
namespace {

using ::testing::HasSubstr;

int FakeLive() {
  void* handle = ::dlopen(DECODEPROF_FAKE_LIBCUDA, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto live = reinterpret_cast<int (*)()>(::dlsym(handle, "fake_cuda_live"));
  const int n = live != nullptr ? live() : -1;
  ::dlclose(handle);
  return n;
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

TEST(BandwidthProbeTest, NoDriverIsAnIoErrorThatSaysSo) {
  ProbeOptions options;
  options.library = "/nonexistent/libcuda.so.1";
  auto result = MeasureBandwidth(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), base::ErrorKind::kIo);
  EXPECT_EQ(result.status().exit_code(), 66);
  EXPECT_THAT(result.status().message(), HasSubstr("no CUDA driver (/nonexistent/libcuda.so.1: "));
  EXPECT_THAT(result.status().message(), HasSubstr("cannot measure"));
  EXPECT_THAT(result.status().hint(), HasSubstr("--peak-bandwidth"));
}

TEST(BandwidthProbeTest, ALibraryWithoutTheEntryPointsIsNoDriver) {
  ProbeOptions options;
  options.library = "libm.so.6";
  auto result = MeasureBandwidth(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), base::ErrorKind::kIo);
  EXPECT_THAT(result.status().message(), HasSubstr("libm.so.6: it lacks cuInit"));
}

TEST(BandwidthProbeTest, MeasuresThroughTheFakeDriver) {
  ProbeOptions options;
  options.library = DECODEPROF_FAKE_LIBCUDA;
  options.size_mib = 2;
  options.repeats = 5;
  std::string progress;
  options.progress = [&](const std::string& line) { progress = line; };
  auto result = MeasureBandwidth(options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->device_name, "NVIDIA H200");
  EXPECT_EQ(result->driver_version, "13.0");
  // Each copy takes 1 ms of the fake clock: 2 x 2 MiB per ms.
  const double expected = 2.0 * 2 * 1048576 / 1e-3 / 1e9;
  EXPECT_NEAR(result->median_gbps, expected, expected * 1e-6);
  EXPECT_NEAR(result->max_gbps, expected, expected * 1e-6);
  EXPECT_EQ(result->method,
            "device-to-device copy, 2 x 2 MiB per copy counted (read + write), median of 5");
  EXPECT_THAT(progress, HasSubstr("device 0 (NVIDIA H200)"));
  EXPECT_EQ(FakeLive(), 0);

  const nlohmann::json json = nlohmann::json::parse(ProbeResultJson(*result));
  EXPECT_EQ(json["device_name"], "NVIDIA H200");
  EXPECT_NEAR(json[kMetaPeakGbps].get<double>(), expected, expected * 1e-6);
  EXPECT_EQ(json["method"], result->method);
  EXPECT_EQ(json["driver_version"], "13.0");
  EXPECT_TRUE(json.contains("max_gbps"));

  const PeakBandwidth peak = PeakFromProbe(*result);
  EXPECT_EQ(peak.source, "measured");
  EXPECT_THAT(peak.detail, HasSubstr("median of 5 on NVIDIA H200"));
}

TEST(BandwidthProbeTest, TheEnvironmentNamesTheLibrary) {
  ScopedEnv env("DECODEPROF_LIBCUDA", DECODEPROF_FAKE_LIBCUDA);
  ProbeOptions options;
  options.size_mib = 1;
  options.repeats = 1;
  auto result = MeasureBandwidth(options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->device_name, "NVIDIA H200");
}

TEST(BandwidthProbeTest, AFailingCallIsNamedAndEverythingIsReleased) {
  for (const char* call : {"cuInit", "cuDevicePrimaryCtxRetain", "cuMemAlloc_v2", "cuEventCreate",
                           "cuMemcpyDtoDAsync_v2", "cuEventSynchronize"}) {
    ScopedEnv env("DECODEPROF_FAKE_CUDA_FAIL", call);
    ProbeOptions options;
    options.library = DECODEPROF_FAKE_LIBCUDA;
    options.size_mib = 1;
    options.repeats = 2;
    auto result = MeasureBandwidth(options);
    ASSERT_FALSE(result.ok()) << call;
    EXPECT_EQ(result.status().kind(), base::ErrorKind::kIo) << call;
    EXPECT_THAT(result.status().message(), HasSubstr(std::string(call)));
    EXPECT_THAT(result.status().message(), HasSubstr("failed: CUDA_ERROR_OUT_OF_MEMORY (2)"));
    EXPECT_EQ(FakeLive(), 0) << call;
  }
}

TEST(BandwidthProbeTest, DeviceOutOfRangeIsAUsageError) {
  ProbeOptions options;
  options.library = DECODEPROF_FAKE_LIBCUDA;
  options.device = 3;
  auto result = MeasureBandwidth(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), base::ErrorKind::kUsage);
  EXPECT_THAT(result.status().message(), HasSubstr("--device 3: the CUDA driver shows 1 device"));
}

TEST(BandwidthProbeTest, ZeroTimeIsRefusedNotDividedBy) {
  ScopedEnv env("DECODEPROF_FAKE_CUDA_COPY_MS", "0");
  ProbeOptions options;
  options.library = DECODEPROF_FAKE_LIBCUDA;
  options.size_mib = 1;
  options.repeats = 1;
  auto result = MeasureBandwidth(options);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("cuEventElapsedTime gave 0 ms"));
  EXPECT_EQ(FakeLive(), 0);
}

TEST(BandwidthProbeTest, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(Median({}), 0);
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace decodeprof::device
