#include "src/device/peak_bandwidth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace decodeprof::device {
namespace {

using ::testing::HasSubstr;

struct Expected {
  const char* device_name;
  double gbps;
};

// Device names as CUPTI / nsys / Kineto / rocpd spell them, and the names the real traces of
// ../shared/real-traces hold (deviceProperties, TARGET_INFO_GPU, agents).
TEST(PeakFromTableTest, EveryListedDeviceResolves) {
  const Expected cases[] = {
      {"NVIDIA H200", 4800},
      {"NVIDIA H200 NVL", 4800},
      {"NVIDIA GH200 480GB", 4000},
      {"NVIDIA GH200 144G HBM3e", 4900},
      {"NVIDIA H100 80GB HBM3", 3350},  // tracelens_hf_qwen1.5-0.5b-chat_h100
      {"NVIDIA H100 PCIe", 2000},
      {"NVIDIA H100 NVL", 3900},
      {"NVIDIA B200", 8000},  // tracelens_vllm_eager_tp8_rank0_b200
      {"NVIDIA GB200", 8000},
      {"NVIDIA B100", 8000},
      {"NVIDIA A100-SXM4-80GB", 2039},  // hta_negative_queue_rank0_a100
      {"NVIDIA A100-SXM4-40GB", 1555},
      {"NVIDIA A100-PCIE-40GB", 1555},
      {"NVIDIA A100 80GB PCIe", 1935},
      {"NVIDIA A100-PG509-200", 1555},  // hta_alexnet_a100 (an SXM4 40GB board)
      {"NVIDIA L4", 300},
      {"NVIDIA L40S", 864},
      {"NVIDIA L40", 864},
      {"NVIDIA A10G", 600},
      {"NVIDIA A10", 600},
      {"NVIDIA GeForce RTX 4090", 1008},
      {"NVIDIA GeForce RTX 4090 Laptop GPU", 576},
      {"NVIDIA RTX A2000 12GB", 288},  // dynamicvit_nsys_empty_profile (TARGET_INFO_GPU)
      {"AMD Instinct MI300X", 5300},   // tracelens_*_mi300x
      {"AMD Instinct MI300X VF", 5300},
      {"AMD Instinct MI300A", 5300},
      {"gfx942", 5300},
      {"AMD Instinct MI325X", 6000},
      {"AMD Instinct MI355X", 8000},
      {"gfx950", 8000},  // tracelens_rocprofv3_908_results (agents)
      {"AMD Instinct MI250X", 1638.4},
      {"AMD Instinct MI250X/MI250", 1638.4},
      {"AMD Instinct MI210", 1638.4},
      {"AMD Radeon 8060S", 256},
      {"AMD Radeon 8060S Graphics", 256},
      {"gfx1151", 256},
  };
  for (const Expected& c : cases) {
    const std::optional<PeakBandwidth> peak = PeakFromTable(c.device_name);
    ASSERT_TRUE(peak.has_value()) << c.device_name;
    EXPECT_DOUBLE_EQ(peak->gbps, c.gbps) << c.device_name << ": " << peak->detail;
    EXPECT_EQ(peak->source, "table");
    EXPECT_EQ(peak->device_name, c.device_name);
    EXPECT_THAT(peak->detail, HasSubstr("table: ")) << c.device_name;
  }
}

TEST(PeakFromTableTest, UnknownAndGenericNamesDoNotResolve) {
  for (const char* name : {"", "AMD Radeon Graphics", "NVIDIA RTX A1000", "NVIDIA A100X", "gfx9420",
                           "NVIDIA GeForce RTX 3090", "Apple M2"}) {
    EXPECT_FALSE(PeakFromTable(name).has_value()) << name;
  }
}

TEST(PeakFromTableTest, DetailNamesEntryFigureAndSource) {
  const std::optional<PeakBandwidth> peak = PeakFromTable("NVIDIA H200");
  ASSERT_TRUE(peak.has_value());
  EXPECT_THAT(peak->detail, HasSubstr("table: NVIDIA H200 SXM 141GB, 4800 GB/s (NVIDIA H200"));
}

class ResolvePeakTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  void SetUp() override { dir_ = temp_.path(); }
  decodeprof::testing::TempDir temp_{"peak_bandwidth_test_"};
  std::filesystem::path dir_;
};

const std::map<std::string, std::string> kMeasuredMeta = {
    {kMetaPeakGbps, "4123.5"},
    {kMetaPeakMethod,
     "device-to-device copy, 2 x 1024 MiB per copy counted (read + write), "
     "median of 20"},
    {kMetaPeakDevice, "NVIDIA H200"}};

TEST_F(ResolvePeakTest, OptionBeatsMetaBeatsTable) {
  auto peak = ResolvePeak("4000", kMeasuredMeta, {"NVIDIA H200"});
  ASSERT_TRUE(peak.ok()) << peak.status().ToString();
  ASSERT_TRUE(peak->has_value());
  EXPECT_DOUBLE_EQ((*peak)->gbps, 4000);
  EXPECT_EQ((*peak)->source, "option");
  EXPECT_EQ((*peak)->detail, "--peak-bandwidth 4000");

  peak = ResolvePeak("", kMeasuredMeta, {"NVIDIA H200"});
  ASSERT_TRUE(peak.ok()) << peak.status().ToString();
  ASSERT_TRUE(peak->has_value());
  EXPECT_DOUBLE_EQ((*peak)->gbps, 4123.5);
  EXPECT_EQ((*peak)->source, "measured");
  EXPECT_EQ((*peak)->device_name, "NVIDIA H200");
  EXPECT_THAT((*peak)->detail, HasSubstr("measured: device-to-device copy"));
  EXPECT_THAT((*peak)->detail, HasSubstr("on NVIDIA H200"));

  peak = ResolvePeak("", {{"other", "1"}}, {"NVIDIA H200"});
  ASSERT_TRUE(peak.ok()) << peak.status().ToString();
  ASSERT_TRUE(peak->has_value());
  EXPECT_DOUBLE_EQ((*peak)->gbps, 4800);
  EXPECT_EQ((*peak)->source, "table");

  peak = ResolvePeak("", {}, {"AMD Radeon Graphics"});
  ASSERT_TRUE(peak.ok());
  EXPECT_FALSE(peak->has_value());
  peak = ResolvePeak("", {}, {});
  ASSERT_TRUE(peak.ok());
  EXPECT_FALSE(peak->has_value());
}

TEST_F(ResolvePeakTest, FirstMatchingDeviceWinsAndOthersAreNoted) {
  auto peak = ResolvePeak(
      "", {},
      {"AMD Radeon Graphics", "NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA H100 80GB HBM3"});
  ASSERT_TRUE(peak.ok());
  ASSERT_TRUE(peak->has_value());
  EXPECT_DOUBLE_EQ((*peak)->gbps, 3350);
  EXPECT_EQ((*peak)->device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_THAT((*peak)->detail, HasSubstr("also names NVIDIA H200 (4800 GB/s)"));

  // The same device many times (8 GPUs of one kind): no note.
  peak = ResolvePeak("", {}, {"NVIDIA B200", "NVIDIA B200"});
  ASSERT_TRUE(peak.ok());
  ASSERT_TRUE(peak->has_value());
  EXPECT_THAT((*peak)->detail, ::testing::Not(HasSubstr("also names")));
}

TEST_F(ResolvePeakTest, BadNumbersAreUsageErrorsAndOtherWordsFiles) {
  for (const char* value : {"0", "-5", "0.5", "100001", "nan", "inf", "1e309", "0x10"}) {
    auto peak = ResolvePeak(value, {}, {"NVIDIA H200"});
    ASSERT_FALSE(peak.ok()) << value;
    EXPECT_EQ(peak.status().kind(), base::ErrorKind::kUsage) << value;
    EXPECT_THAT(peak.status().message(), HasSubstr("--peak-bandwidth")) << value;
    EXPECT_THAT(peak.status().message(), HasSubstr(value)) << value;
  }
  // Not a number: a file, which must exist (kIo naming it, as every missing input).
  for (const char* value : {"4000GB", "no/such/file.json"}) {
    auto peak = ResolvePeak(value, {}, {"NVIDIA H200"});
    ASSERT_FALSE(peak.ok()) << value;
    EXPECT_EQ(peak.status().kind(), base::ErrorKind::kIo) << value;
    EXPECT_EQ(peak.status().where(), value);
  }
  for (const char* value : {"1", "100000", "1638.4"}) {
    auto peak = ResolvePeak(value, {}, {});
    ASSERT_TRUE(peak.ok()) << value;
    ASSERT_TRUE(peak->has_value());
  }
}

TEST_F(ResolvePeakTest, JsonFileFromTheBandwidthCommand) {
  const std::string path = Write("bw.json", R"({
  "device_name": "NVIDIA H200",
  "peak_bandwidth_gbps": 4210.25,
  "max_gbps": 4300.0,
  "method": "device-to-device copy, 2 x 1024 MiB per copy counted (read + write), median of 20",
  "driver_version": "13.0"
})");
  auto peak = ResolvePeak(path, kMeasuredMeta, {"NVIDIA H100"});
  ASSERT_TRUE(peak.ok()) << peak.status().ToString();
  ASSERT_TRUE(peak->has_value());
  EXPECT_DOUBLE_EQ((*peak)->gbps, 4210.25);
  EXPECT_EQ((*peak)->source, "measured");
  EXPECT_EQ((*peak)->device_name, "NVIDIA H200");
  EXPECT_THAT((*peak)->detail, HasSubstr("median of 20 on NVIDIA H200 (" + path + ")"));
}

TEST_F(ResolvePeakTest, BadJsonFilesAreDataErrorsNamingTheFile) {
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"", "not JSON"},
      {"{\"peak_bandwidth_gbps\": 4000", "not JSON"},
      {"[4000]", "not a JSON object"},
      {"{\"device_name\": \"x\"}", "no \"peak_bandwidth_gbps\""},
      {"{\"peak_bandwidth_gbps\": \"4000\"}", "must be a number from 1 to 100000, got \"4000\""},
      {"{\"peak_bandwidth_gbps\": 0}", "must be a number from 1 to 100000, got 0"},
      {"{\"peak_bandwidth_gbps\": 1e6}", "must be a number"},
      {"{\"peak_bandwidth_gbps\": 4000, \"device_name\": 7}", "\"device_name\" must be a string"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string path = Write("bad" + std::to_string(i++) + ".json", c.text);
    auto peak = ResolvePeak(path, {}, {});
    ASSERT_FALSE(peak.ok()) << c.text;
    EXPECT_EQ(peak.status().kind(), base::ErrorKind::kData) << c.text;
    EXPECT_EQ(peak.status().where(), path) << c.text;
    EXPECT_THAT(peak.status().message(), HasSubstr(c.message)) << c.text;
  }
}

TEST_F(ResolvePeakTest, BadMetaValueIsADataErrorNamingTheKey) {
  for (const char* value : {"", "fast", "0", "-1", "nan", "1e9"}) {
    auto peak = ResolvePeak("", {{kMetaPeakGbps, value}}, {"NVIDIA H200"});
    ASSERT_FALSE(peak.ok()) << value;
    EXPECT_EQ(peak.status().kind(), base::ErrorKind::kData) << value;
    EXPECT_EQ(peak.status().where(), std::string("meta ") + kMetaPeakGbps);
  }
  // The option wins: a bad meta value is not read.
  auto peak = ResolvePeak("3000", {{kMetaPeakGbps, "fast"}}, {});
  ASSERT_TRUE(peak.ok());
  EXPECT_DOUBLE_EQ((*peak)->gbps, 3000);
}

}  // namespace
}  // namespace decodeprof::device
