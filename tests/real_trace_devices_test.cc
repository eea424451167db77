// The device names of the public traces in ../shared/real-traces/ (as their importers read
// them: Kineto deviceProperties, nsys TARGET_INFO_GPU) against the peak-bandwidth table
// (packs/devices.toml, src/device): each named GPU resolves to its datasheet figure, and the
// generic or missing names resolve to none. Skipped without the folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "src/device/peak_bandwidth.h"
#include "src/io/importer_registry.h"
#include "src/native_format/native_writer.h"
#include "src/trace/trace.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;

namespace {

const fs::path kTraces =
    (fs::path(DECODEPROF_SOURCE_DIR) / ".." / "shared" / "real-traces").lexically_normal();

class NullSink : public decodeprof::trace::DispatchSink {
 public:
  void Add(const decodeprof::trace::Dispatch&) override {}
};

struct Case {
  const char* file;
  const char* device_name;  // the first device's name as imported ("" = none)
  double gbps;              // 0: no table entry (generic or missing name)
};

TEST(RealTraceDevicesTest, EachNamedGpuResolvesToItsDatasheetFigure) {
  if (!fs::is_directory(kTraces)) GTEST_SKIP() << "no " << kTraces.string();
  const Case cases[] = {
      {"hta_alexnet_a100.json.gz", "NVIDIA A100-PG509-200", 1555},
      {"hta_negative_queue_rank0_a100.json.gz", "NVIDIA A100-SXM4-80GB", 2039},
      {"tracelens_hf_qwen1.5-0.5b-chat_h100.json.gz", "NVIDIA H100 80GB HBM3", 3350},
      {"tracelens_sglang_qwen3-8b_prefilldecode_mi300x.json.gz", "AMD Instinct MI300X", 5300},
      {"tracelens_torch_compile_triton_mi300x.json.gz", "AMD Instinct MI300X", 5300},
      {"tracelens_vllm_eager_tp8_rank0_b200.json.gz", "NVIDIA B200", 8000},
      {"hta_minitoy_train_mi250.json.gz", "AMD Radeon Graphics", 0},
  };
  for (const Case& c : cases) {
    const std::string path = (kTraces / c.file).string();
    if (!fs::exists(path)) {
      ADD_FAILURE() << "missing " << path;
      continue;
    }
    auto importer = decodeprof::io::ResolveImporter(path, "auto");
    ASSERT_TRUE(importer.ok()) << c.file << ": " << importer.status().ToString();
    decodeprof::trace::StringPool names;
    NullSink sink;
    decodeprof::trace::TraceBuilder builder(names, sink);
    const decodeprof::base::Status imported = (*importer)->Import(path, builder);
    ASSERT_TRUE(imported.ok()) << c.file << ": " << imported.ToString();
    std::vector<std::string> device_names;
    for (const auto& device : builder.trace().devices) device_names.push_back(device.name);
    ASSERT_FALSE(device_names.empty()) << c.file;
    EXPECT_EQ(device_names.front(), c.device_name) << c.file;
    auto peak = decodeprof::device::ResolvePeak("", {}, device_names);
    ASSERT_TRUE(peak.ok()) << c.file << ": " << peak.status().ToString();
    if (c.gbps == 0) {
      EXPECT_FALSE(peak->has_value()) << c.file << ": " << (*peak)->detail;
    } else {
      ASSERT_TRUE(peak->has_value()) << c.file;
      EXPECT_DOUBLE_EQ((*peak)->gbps, c.gbps) << c.file << ": " << (*peak)->detail;
    }
  }
}

// What `record --measure-bandwidth` stores comes back through the native importer's meta and
// wins over the table; the native devices table's names find the table's entry without it.
TEST(RealTraceDevicesTest, ANativeTracesMeasurementAndDevicesResolve) {
  namespace nf = decodeprof::native_format;
  const decodeprof::testing::TempDir temp("dp_peak_native_");
  const std::string path = temp.Path("peak_native.sqlite");
  for (const bool measured : {true, false}) {
    {
      auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
      ASSERT_TRUE(writer.ok()) << writer.status().ToString();
      nf::NativeWriter& w = **writer;
      nf::DeviceRow device;
      device.id = 0;
      device.name = "NVIDIA H200";
      ASSERT_TRUE(w.AddDevice(device).ok());
      nf::KernelRow k;
      k.start_ns = 1000;
      k.end_ns = 2000;
      k.name = k.mangled = *w.Intern("gemv");
      k.correlation = 1;
      ASSERT_TRUE(w.AddKernel(k).ok());
      ASSERT_TRUE(w.Close().ok());
    }
    if (measured) {
      ASSERT_TRUE(nf::SetMetaInFile(path, {{decodeprof::device::kMetaPeakGbps, "4012.5"},
                                           {decodeprof::device::kMetaPeakMethod, "copies"},
                                           {decodeprof::device::kMetaPeakDevice, "NVIDIA H200"}})
                      .ok());
    }
    auto importer = decodeprof::io::ResolveImporter(path, "auto");
    ASSERT_TRUE(importer.ok()) << importer.status().ToString();
    decodeprof::trace::StringPool names;
    NullSink sink;
    decodeprof::trace::TraceBuilder builder(names, sink);
    ASSERT_TRUE((*importer)->Import(path, builder).ok());
    const decodeprof::trace::ImportedTrace t = std::move(builder).Finish();
    std::vector<std::string> device_names;
    for (const auto& d : t.devices) device_names.push_back(d.name);
    auto peak = decodeprof::device::ResolvePeak("", t.meta, device_names);
    ASSERT_TRUE(peak.ok()) << peak.status().ToString();
    ASSERT_TRUE(peak->has_value());
    EXPECT_DOUBLE_EQ((*peak)->gbps, measured ? 4012.5 : 4800);
    EXPECT_EQ((*peak)->source, measured ? "measured" : "table");
  }
}

}  // namespace
