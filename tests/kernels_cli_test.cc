// `decodeprof kernels` through the binary: the --expect gate on a fixture of every format the
// registry has, the device check, the window cut, determinism, and the `-- CMD` path without a
// GPU (a stand-in command writes the native trace the CUPTI recorder would have written, as in
// src/profile/profile_cli_test.cc). The exact outputs are golden cases in tests/golden/kernels.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "src/io/common/testing/compress.h"
#include "src/io/importer_registry.h"
#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"
#include "src/io/rocpd/testing/rocpd_db_writer.h"
#include "src/native_format/native_writer.h"
#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::testing::Result;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;

namespace {

using decodeprof::io::test_codecs::Gzip;

namespace nf = decodeprof::native_format;
namespace nsys = decodeprof::io::nsys_testing;
namespace rocpd = decodeprof::io::rocpd_testing;

const std::string kSource = DECODEPROF_SOURCE_DIR;
const std::string kLlama =
    kSource + "/examples/data/Llama-3.1-8B-Instruct_greedy/Llama-3.1-8B-Instruct_greedy.sqlite";

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A fixture trace of one format: a kernel it holds and one it does not.
struct Fixture {
  std::string path;
  std::string present;  // a regex matching a kernel of the trace
  std::string absent;   // a regex matching none
};

class KernelsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_.path();
    fs::create_directories(dir_ / "tmp");
  }
  void TearDown() override {
    ::unsetenv("DECODEPROF_CUPTI_INJECTION");
    ::unsetenv("TMPDIR");
  }

  Result Run(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"kernels"};
    all.insert(all.end(), args.begin(), args.end());
    return RunBinary(all, {}, dir_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // An nsys export (2025.6 schema) of two kernels and a copy, written by the nsys test writer.
  std::string WriteNsys() {
    nsys::NsysDb db;
    db.gpus.push_back({0, "NVIDIA H200"});
    for (int i = 0; i < 3; ++i) {
      nsys::Kernel k;
      k.start = 1000 + i * 1000;
      k.end = k.start + 400;
      k.demangled = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>(Flash_fwd_params)";
      db.kernels.push_back(k);
      k.start += 500;
      k.end = k.start + 100;
      k.demangled = "void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>>()";
      db.kernels.push_back(k);
    }
    nsys::MemoryOp copy;
    copy.start = 5000;
    copy.end = 5050;
    db.memory_ops.push_back(copy);
    const std::string path = Path("nsys.sqlite");
    EXPECT_TRUE(nsys::WriteNsysDb(path, db).ok());
    return path;
  }

  // A rocpd database: MLX kernels launched by HIP calls, on the GPU (device 1).
  std::string WriteRocpd() {
    rocpd::RocpdDb db;
    for (int i = 0; i < 3; ++i) {
      rocpd::KernelDispatch k;
      k.start = 1000 + i * 1000;
      k.end = k.start + 400;
      k.display_name =
          "void mlx::core::rocm::rms_norm_kernel<__half, 1024>(__half const*, __half*, int)";
      k.kernel_name = "_ZN3mlx4core4rocm15rms_norm_kernelEv.kd";
      k.correlation = 2 * i + 1;
      db.kernels.push_back(k);
      db.regions.push_back(
          rocpd::HipCall(2 * i + 1, "hipLaunchKernel", k.start - 300, k.start - 200));
    }
    const std::string path = Path("run_results.db");
    EXPECT_TRUE(rocpd::WriteRocpdDb(path, db).ok());
    return path;
  }

  // A native trace with the given kernels: {name, start, end, device}.
  struct K {
    std::string name;
    int64_t start;
    int64_t end;
    uint32_t device = 0;
  };
  std::string WriteNative(const std::string& file, const std::vector<K>& kernels) {
    const std::string path = Path(file);
    auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
    EXPECT_TRUE(writer.ok());
    nf::NativeWriter& w = **writer;
    for (const K& k : kernels) {
      nf::KernelRow row;
      row.name = row.mangled = *w.Intern(k.name);
      row.start_ns = k.start;
      row.end_ns = k.end;
      row.device = k.device;
      row.grid[0] = 1;
      EXPECT_TRUE(w.AddKernel(row).ok());
    }
    EXPECT_TRUE(w.Close().ok());
    return path;
  }

  std::map<std::string, Fixture> Fixtures() {
    return {
        {"kineto-json",
         {kSource + "/tests/golden/summarize/kineto_decode/trace.json", "gemv2T_kernel_val",
          "flash_fwd"}},
        {"native", {kLlama, "^nvjet_sm90_", "gemv2T"}},
        {"nsys-sqlite", {WriteNsys(), "flash_fwd_kernel", "nvjet"}},
        {"rocpd", {WriteRocpd(), "rms_norm", "qmv_wide"}},
        {"rocprofv3-csv",
         {kSource + "/src/io/testdata/rocprofv3_1.3.5_kernel_trace.csv", "rms_norm", "qmv_wide"}},
    };
  }

  decodeprof::testing::TempDir temp_{"dp_kernels_"};
  fs::path dir_;
};

TEST_F(KernelsCliTest, ExpectPassesAndFailsOnATraceOfEveryRegisteredFormat) {
  const std::map<std::string, Fixture> fixtures = Fixtures();
  for (const decodeprof::io::Importer* importer : decodeprof::io::Importers()) {
    const std::string format(importer->name());
    SCOPED_TRACE(format);
    const auto it = fixtures.find(format);
    ASSERT_NE(it, fixtures.end()) << "no kernels fixture for the format " << format;
    const Fixture& f = it->second;

    Result r = Run({f.path, "--expect", f.present});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(Has(r.out, " (" + format + ", device ")) << r.out;  // recognized as its format
    EXPECT_TRUE(Has(r.err, "decodeprof: kernels: --expect '" + f.present + "': ")) << r.err;
    EXPECT_TRUE(Has(r.err, " matched\n")) << r.err;
    EXPECT_FALSE(Has(r.err, "no kernel matched")) << r.err;

    r = Run({f.path, "--expect", f.present, "--expect", f.absent});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(Has(r.err, "decodeprof: kernels: --expect '" + f.absent + "': no kernel matched\n"))
        << r.err;
    EXPECT_TRUE(Has(r.out, "Time %")) << "the census is printed before the verdict\n" << r.out;
  }
}

TEST_F(KernelsCliTest, TheNsysExportsKernelsAndCopyAreCounted) {
  const Result r = Run({WriteNsys(), "--output-format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "kernel,class,calls,total_ns,avg_ns,min_ns,max_ns,share_pct\r\n"
            "\"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>(Flash_fwd_params)\","
            "attention,3,1200,400,400,400,77.419\r\n"  // 1200 of 1550 ns
            "\"void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>>()\","
            "elementwise,3,300,100,100,100,19.355\r\n"
            "[CUDA memcpy Device-to-Host],memcpy,1,50,50,50,50,3.226\r\n");
}

TEST_F(KernelsCliTest, AMultiDeviceTraceNeedsDevice) {
  const std::string trace = WriteNative(
      "two.sqlite", {{"gemm_a", 100, 200, 0}, {"gemm_b", 150, 190, 1}, {"gemm_b", 300, 390, 1}});
  Result r = Run({trace, "--expect", "gemm"});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(Has(r.err,
                  "the trace holds dispatches of 2 devices (device 0: 1 dispatches, "
                  "device 1: 2 dispatches)"))
      << r.err;
  EXPECT_TRUE(Has(r.err, "pick one with --device N")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(Has(r.err, "--expect")) << "no verdict without a census\n" << r.err;

  r = Run({trace, "--device", "1", "--output-format", "csv", "--expect", "gemm_b"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "kernel,class,calls,total_ns,avg_ns,min_ns,max_ns,share_pct\r\n"
            "gemm_b,gemm,2,130,65,40,90,100.000\r\n");
  // gemm_a ran on device 0 only.
  r = Run({trace, "--device", "1", "--expect", "gemm_a"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Has(r.out, "device 1")) << r.out;

  r = Run({trace, "--device", "3"});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(Has(r.err, "the trace has no dispatch on device 3")) << r.err;
}

TEST_F(KernelsCliTest, TheWindowCountsTheDispatchesStartingInsideIt) {
  const std::string trace = WriteNative(
      "w.sqlite",
      {{"gemm_a", 100, 150}, {"norm_b", 200, 260}, {"gemm_a", 300, 310}, {"late_c", 301, 500}});
  Result r = Run({trace, "--window", "200..300", "--output-format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "kernel,class,calls,total_ns,avg_ns,min_ns,max_ns,share_pct\r\n"
            "norm_b,other,1,60,60,60,60,85.714\r\n"
            "gemm_a,gemm,1,10,10,10,10,14.286\r\n");
  r = Run({trace, "--window", "200..300", "--pack", "pytorch-cuda"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out,
                  "window 200..300 ns (2 of the device's 4 dispatches start in it): 2 "
                  "dispatches of 2 names, 0.070 µs GPU time"))
      << r.out;
  // late_c ran, but not inside the window.
  EXPECT_EQ(Run({trace, "--expect", "late_c"}).exit_code, 0);
  r = Run({trace, "--window", "200..300", "--expect", "late_c"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Has(r.err, "--expect 'late_c': no kernel matched")) << r.err;
  // A window that holds nothing says where the dispatches are.
  r = Run({trace, "--window", "1000..2000"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.err,
                  "warning: no dispatch starts inside --window 1000..2000 (the device's 4 "
                  "dispatches start from 100 to 301 ns)"))
      << r.err;
}

TEST_F(KernelsCliTest, TwoRunsGiveTheSameBytes) {
  const std::string nsys_trace = WriteNsys();
  for (const std::string& trace : {kLlama, nsys_trace}) {
    for (const char* format : {"table", "csv", "json", "md"}) {
      for (const char* by : {"name", "class"}) {
        SCOPED_TRACE(trace + " " + format + " " + by);
        const std::vector<std::string> args = {trace, "--output-format", format, "--by",
                                               by,    "--top",           "0"};
        const Result first = Run(args);
        const Result second = Run(args);
        ASSERT_EQ(first.exit_code, 0) << first.err;
        EXPECT_FALSE(first.out.empty());
        EXPECT_EQ(first.out, second.out);
        EXPECT_EQ(first.err, second.err);
      }
    }
  }
}

TEST_F(KernelsCliTest, ACensusFileIsTheSameAsStdoutAndNeverAnInput) {
  const Result to_stdout = Run({kLlama, "--output-format", "json"});
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  const Result to_file = Run({kLlama, "--output-format", "json", "--output", Path("c.json")});
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_TRUE(to_file.out.empty()) << to_file.out;
  EXPECT_EQ(Slurp(Path("c.json")), to_stdout.out);
  // The totals of the JSON agree with its rows.
  EXPECT_TRUE(Has(to_stdout.out, "\"dispatches\": 42268,")) << to_stdout.out.substr(0, 400);
  EXPECT_TRUE(Has(to_stdout.out, "\"rows_omitted\": 0,"));

  fs::create_symlink(kLlama, Path("link.sqlite"));
  const Result onto_link = Run({kLlama, "--output", Path("link.sqlite")});
  EXPECT_EQ(onto_link.exit_code, 66) << onto_link.err;
  EXPECT_TRUE(Has(onto_link.err, "refusing to replace a symlink")) << onto_link.err;
}

TEST_F(KernelsCliTest, PatternsAndWindowsAreCheckedBeforeTheTraceIsRead) {
  // A missing trace would be 66: the usage errors come first.
  Result r = Run({Path("missing.sqlite"), "--expect", "ok", "--expect", "(unclosed"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "decodeprof: kernels: --expect '(unclosed': not a valid RE2 pattern"))
      << r.err;
  r = Run({Path("missing.sqlite"), "--window", "9..1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "--window 9..1: the start is after the end")) << r.err;
  r = Run({Path("missing.sqlite")});
  EXPECT_EQ(r.exit_code, 66) << r.err;
  r = Run({Path("missing.sqlite"), "-o", Path("t.sqlite")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "-o names the recording of -- CMD")) << r.err;
  r = Run({"--format", "native", "--", "true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "--format applies to a TRACE")) << r.err;
  r = Run({"--expect", "x", "--"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "no command after --")) << r.err;
}

// -- CMD without a GPU: the recorder's library is never loaded by these commands (they do not
// use CUDA), so any existing file stands in for it.
TEST_F(KernelsCliTest, ACommandIsRecordedAndItsTemporaryTraceRemoved) {
  ::setenv("DECODEPROF_CUPTI_INJECTION", kLlama.c_str(), 1);
  ::setenv("TMPDIR", Path("tmp").c_str(), 1);
  const std::string copy = "cp '" + kLlama + "' \"$DECODEPROF_RECORD_OUTPUT\"";
  Result r = Run({"--by", "class", "--expect", "nvjet_sm90", "--", "sh", "-c", copy});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out,
                  "trace.sqlite (native, device 0 NVIDIA H200, clock monotonic), window "
                  "all: 42268 dispatches of 58 names in 11 classes"))
      << r.out;
  EXPECT_TRUE(Has(r.err, "/trace.sqlite: 42112 kernels, 156 memory operations")) << r.err;
  EXPECT_TRUE(Has(r.err, "--expect 'nvjet_sm90': 6300 calls of 8 kernels matched")) << r.err;
  EXPECT_TRUE(fs::is_empty(Path("tmp"))) << "the temporary recording is removed";

  r = Run({"--expect", "flash_fwd", "--", "sh", "-c", copy});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Has(r.err, "--expect 'flash_fwd': no kernel matched")) << r.err;
  EXPECT_TRUE(fs::is_empty(Path("tmp")));

  // -o keeps it.
  r = Run({"-o", Path("kept.sqlite"), "--top", "1", "--", "sh", "-c", copy});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "kept.sqlite (native")) << r.out;
  EXPECT_EQ(fs::file_size(Path("kept.sqlite")), fs::file_size(kLlama));
  EXPECT_TRUE(fs::is_empty(Path("tmp")));
}

TEST_F(KernelsCliTest, ACommandThatFailsGivesItsStatusAndNoCensus) {
  ::setenv("DECODEPROF_CUPTI_INJECTION", kLlama.c_str(), 1);
  ::setenv("TMPDIR", Path("tmp").c_str(), 1);
  const std::string copy = "cp '" + kLlama + "' \"$DECODEPROF_RECORD_OUTPUT\"; exit 3";
  Result r = Run({"--expect", "nvjet", "--", "sh", "-c", copy});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(Has(r.err, "decodeprof: kernels: sh exited with status 3: no census")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(fs::is_empty(Path("tmp")));

  r = Run({"--", Path("no-such-program")});
  EXPECT_EQ(r.exit_code, 127) << r.err;
  EXPECT_TRUE(Has(r.err, "no-such-program: cannot run: No such file or directory")) << r.err;

  // A command that never starts CUDA leaves no trace: the recording's error, exit 66.
  r = Run({"--", "true"});
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_TRUE(Has(r.err, "/trace.sqlite: no trace was written")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(fs::is_empty(Path("tmp")));
}

TEST_F(KernelsCliTest, ARecorderThatCannotBeFoundIsAConfigurationError) {
  ::setenv("DECODEPROF_CUPTI_INJECTION", Path("missing.so").c_str(), 1);
  ::setenv("TMPDIR", Path("tmp").c_str(), 1);
  const Result r = Run({"--expect", "x", "--", "true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "decodeprof: kernels: DECODEPROF_CUPTI_INJECTION: no such file: " +
                             Path("missing.so")))
      << r.err;
  EXPECT_TRUE(fs::is_empty(Path("tmp")));
}

// A .pt.trace.json.gz is read as it is, to the census of the plain file; cut short, it is an
// error naming the file and the byte, with no census.
TEST_F(KernelsCliTest, AGzipTraceIsReadAsItIs) {
  std::string trace = "{\"schemaVersion\": 1, \"traceEvents\": [";
  for (int i = 0; i < 3000; ++i) {
    if (i > 0) trace += ",\n";
    trace += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_" + std::to_string(i % 5) +
             "\", \"ts\": " + std::to_string(10 * i) + ", \"dur\": 4, \"args\": {\"device\": 0}}";
  }
  trace += "]}";
  const std::string packed = Gzip(trace);
  std::ofstream(Path("run.pt.trace.json"), std::ios::binary) << trace;
  std::ofstream(Path("run.pt.trace.json.gz"), std::ios::binary) << packed;
  std::ofstream(Path("cut.pt.trace.json.gz"), std::ios::binary)
      << packed.substr(0, packed.size() - 100);
  const Result plain = Run({Path("run.pt.trace.json"), "--window", "all"});
  const Result gz = Run({Path("run.pt.trace.json.gz"), "--window", "all"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(gz.exit_code, 0) << gz.err;
  // The same census; only the first line's file name differs.
  EXPECT_EQ(gz.out.substr(gz.out.find(' ')), plain.out.substr(plain.out.find(' ')));
  EXPECT_EQ(gz.out.rfind("run.pt.trace.json.gz (kineto-json", 0), 0u);
  EXPECT_NE(gz.out.find("gemm_4"), std::string::npos);

  const Result cut = Run({Path("cut.pt.trace.json.gz"), "--window", "all"});
  EXPECT_EQ(cut.exit_code, 65) << cut.err;
  EXPECT_EQ(cut.out, "");
  const std::string where = Path("cut.pt.trace.json.gz") + ":byte " +
                            std::to_string(packed.size() - 100) + ": truncated gzip data";
  EXPECT_NE(cut.err.find(where), std::string::npos) << cut.err;
  EXPECT_LE(std::count(cut.err.begin(), cut.err.end(), '\n'), 3) << cut.err;
}

}  // namespace
