#include "src/guard/nvml_source.h"

#include <map>

#include "gtest/gtest.h"

namespace decodeprof::guard {
namespace {

// A fake NVML: two devices whose process lists and utilization the tests set.
struct FakeNvml {
  unsigned count = 2;
  std::map<unsigned, std::vector<unsigned>> compute;
  std::map<unsigned, std::vector<unsigned>> graphics;
  std::map<unsigned, unsigned> util;
  bool graphics_supported = true;
  bool util_supported = true;
  int grow_once = 0;  // entries appended after the first size probe of compute lists
  int compute_calls = 0;
  nvml::Return count_rc = nvml::kSuccess;
};
FakeNvml* g_fake = nullptr;

nvml::Device Handle(unsigned i) { return reinterpret_cast<nvml::Device>(uintptr_t{i} + 1); }
unsigned Index(nvml::Device d) { return static_cast<unsigned>(reinterpret_cast<uintptr_t>(d) - 1); }

nvml::Return Count(unsigned* n) {
  *n = g_fake->count;
  return g_fake->count_rc;
}
nvml::Return GetHandle(unsigned i, nvml::Device* d) {
  if (i >= g_fake->count) return 2;
  *d = Handle(i);
  return nvml::kSuccess;
}
nvml::Return Fill(const std::vector<unsigned>& pids, unsigned* count, nvml::ProcessInfo* infos) {
  if (*count < pids.size()) {
    *count = static_cast<unsigned>(pids.size());
    return nvml::kErrorInsufficientSize;
  }
  for (size_t i = 0; i < pids.size(); ++i) infos[i] = nvml::ProcessInfo{pids[i], 1u << 20, 0, 0};
  *count = static_cast<unsigned>(pids.size());
  return nvml::kSuccess;
}
nvml::Return Compute(nvml::Device d, unsigned* count, nvml::ProcessInfo* infos) {
  ++g_fake->compute_calls;
  std::vector<unsigned>& pids = g_fake->compute[Index(d)];
  const nvml::Return rc = Fill(pids, count, infos);
  if (rc == nvml::kErrorInsufficientSize && g_fake->grow_once > 0) {
    for (int i = 0; i < g_fake->grow_once; ++i) pids.push_back(9000u + static_cast<unsigned>(i));
    g_fake->grow_once = 0;
  }
  return rc;
}
nvml::Return Graphics(nvml::Device d, unsigned* count, nvml::ProcessInfo* infos) {
  if (!g_fake->graphics_supported) return nvml::kErrorNotSupported;
  return Fill(g_fake->graphics[Index(d)], count, infos);
}
nvml::Return Util(nvml::Device d, nvml::Utilization* u) {
  if (!g_fake->util_supported) return nvml::kErrorNotSupported;
  u->gpu = g_fake->util[Index(d)];
  u->memory = 0;
  return nvml::kSuccess;
}
const char* ErrorString(nvml::Return) { return "Fake Error"; }

class NvmlSourceTest : public ::testing::Test {
 protected:
  NvmlSourceTest() {
    g_fake = &fake_;
    api_.init = [] { return nvml::kSuccess; };
    api_.device_get_count = Count;
    api_.device_get_handle_by_index = GetHandle;
    api_.compute_processes = Compute;
    api_.graphics_processes = Graphics;
    api_.utilization = Util;
    api_.error_string = ErrorString;
  }
  ~NvmlSourceTest() override { g_fake = nullptr; }

  FakeNvml fake_;
  NvmlApi api_;
};

TEST_F(NvmlSourceTest, ReadsProcessesAndUtilizationOfEveryDevice) {
  fake_.compute[0] = {300, 301};
  fake_.graphics[0] = {301, 302};  // 301 has both contexts: listed once
  fake_.compute[1] = {500};
  fake_.util = {{0, 97}, {1, 4}};
  auto source = NvmlSource::Create(api_);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ(source->device_count(), 2u);
  EXPECT_EQ(source->Describe(), "NVML, 2 devices");
  const auto reading = source->Read();
  ASSERT_TRUE(reading.ok());
  ASSERT_EQ(reading->processes.size(), 4u);
  EXPECT_EQ(reading->processes[0].id, "300");
  EXPECT_EQ(reading->processes[2].id, "302");
  EXPECT_EQ(reading->processes[2].device, 0);
  EXPECT_EQ(reading->processes[3].id, "500");
  EXPECT_EQ(reading->processes[3].device, 1);
  ASSERT_EQ(reading->devices.size(), 2u);
  EXPECT_EQ(reading->devices[0].process_count, 3);
  EXPECT_EQ(*reading->devices[0].utilization_percent, 97u);
  EXPECT_EQ(*reading->devices[1].utilization_percent, 4u);
}

TEST_F(NvmlSourceTest, AListLongerThanTheBufferIsReadAgain) {
  for (unsigned pid = 1000; pid < 1100; ++pid) fake_.compute[0].push_back(pid);
  fake_.grow_once = 3;  // and it grows between the probe and the read
  auto source = NvmlSource::Create(api_);
  ASSERT_TRUE(source.ok());
  const auto reading = source->Read();
  ASSERT_TRUE(reading.ok()) << reading.status().ToString();
  EXPECT_EQ(reading->devices[0].process_count, 103);
  EXPECT_GE(fake_.compute_calls, 3);
}

TEST_F(NvmlSourceTest, UnsupportedQueriesReadAsNothing) {
  fake_.graphics_supported = false;
  fake_.util_supported = false;
  fake_.compute[1] = {7};
  auto source = NvmlSource::Create(api_);
  ASSERT_TRUE(source.ok());
  const auto reading = source->Read();
  ASSERT_TRUE(reading.ok());
  EXPECT_EQ(reading->processes.size(), 1u);
  EXPECT_FALSE(reading->devices[1].utilization_percent);
}

TEST_F(NvmlSourceTest, NoDeviceIsAnError) {
  fake_.count = 0;
  const auto none = NvmlSource::Create(api_);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "NVML reports no device");
  fake_.count_rc = 9;
  const auto failing = NvmlSource::Create(api_);
  ASSERT_FALSE(failing.ok());
  EXPECT_EQ(failing.status().message(), "nvmlDeviceGetCount_v2 failed: Fake Error (9)");
}

TEST_F(NvmlSourceTest, MissingOptionalEntryPointsAreSkipped) {
  api_.graphics_processes = nullptr;
  api_.utilization = nullptr;
  fake_.compute[0] = {11};
  auto source = NvmlSource::Create(api_);
  ASSERT_TRUE(source.ok());
  const auto reading = source->Read();
  ASSERT_TRUE(reading.ok());
  EXPECT_EQ(reading->processes.size(), 1u);
  EXPECT_FALSE(reading->devices[0].utilization_percent);
}

TEST(LoadNvmlTest, AMissingLibraryIsAClearError) {
  const auto api = LoadNvml("libdecodeprof-no-such-nvml.so.1");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().kind(), base::ErrorKind::kConfig);
  EXPECT_NE(api.status().message().find("libdecodeprof-no-such-nvml.so.1"), std::string::npos);
}

}  // namespace
}  // namespace decodeprof::guard
