// `summarize` over rocpd databases (issue 14 part 1): one seed-style decode run (MLX kernels
// on gfx1151, a bench log with [phase] marks on both clocks and a results block, a plain run's
// log) written as rocprofv3's kernel-trace CSV (rocprofv3 1.3.5's columns, as the seed
// recorded it) and as the rocpd database of the same recording must give the same outputs
// with the same --log: <name>_summary.json and <name>_decode_kernels.csv byte for byte, but
// for the two things that legitimately differ, the format that read the trace
// ("trace_format") and the trace's file name in the diagnostics' examples.
//
// The database holds what a rocpd recording holds besides the kernels: the HIP launch call of
// every kernel (same correlation ids) and roctx ranges (decodeprof:* phase ranges and the
// engine's own): on the boottime clock the log's marks win, so they change nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/io/rocpd/testing/rocpd_db_writer.h"
#include "src/pipeline/summarize_run.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::pipeline {
namespace {

namespace fs = std::filesystem;
namespace rt = io::rocpd_testing;

// CLOCK_BOOTTIME about 20 days after boot, and CLOCK_MONOTONIC 90 s behind it (the machine
// was suspended once): the log's boottime marks bracket the trace, its monotonic ones do not.
constexpr int64_t kBoot = 1'700'000'000'000'000;
constexpr int64_t kSuspended = 90'000'000'000;

struct Dispatch {
  std::string name;
  int64_t start = 0;  // ns after kBoot
  int64_t duration = 0;
  int64_t grid_x = 256;
  int64_t correlation = 0;
  int64_t launch = 0;  // ns after kBoot of its hipLaunchKernel
};

struct DecodeRun {
  std::vector<Dispatch> dispatches;
  std::vector<rt::Region> ranges;  // roctx, ns after kBoot
  int64_t warmup_start = 0, measured_start = 0, decode_start = 0, measured_end = 0;
  int64_t generated_tokens = 0;
};

std::string Mlx(const std::string& body) { return "void mlx::core::rocm::" + body; }

// One forward pass: two Llama layers, the final norm, the lm_head (the widest qmv) and the
// greedy sampler; `t` advances by each kernel and the host gap before it.
void ForwardPass(DecodeRun& run, int64_t& t, int64_t& correlation, int step) {
  const std::string qmv = Mlx(
      "qmv_wide_kernel<__half, 64, 4, false>(__half const*, unsigned int const*, __half const*, "
      "__half const*, __half*, int, int)");
  const std::string rms =
      Mlx("rms_norm_kernel<__half, 1024>(__half const*, __half const*, __half*, float, int)");
  const std::string rope = Mlx("rope_kernel<__half, true>(__half const*, __half*, int, float)");
  const std::string copy_gg = Mlx("copy_gg<__half, __half>(__half const*, __half*, int)");
  const std::string sdpa = Mlx("sdpa_vector_kernel<__half, 128>(__half const*, __half*, int)");
  const std::string add =
      Mlx("binary_ss<mlx::core::Add, __half, __half>(__half const*, __half const*, __half*, "
          "unsigned int)");
  const std::string swiglu =
      Mlx("CV2ISigmoidMultiply_fused_contiguous<__half>(__half const*, __half*, unsigned int)");
  const auto k = [&](const std::string& name, int64_t duration, int64_t gap, int64_t grid = 4096) {
    t += gap;
    Dispatch d;
    d.name = name;
    d.start = t;
    d.duration = duration + (correlation * 37) % 11;  // nanosecond parts, not all alike
    d.grid_x = grid;
    d.correlation = ++correlation;
    d.launch = t - 1'500 - (correlation % 5) * 100;
    run.dispatches.push_back(d);
    t += d.duration;
  };
  for (int layer = 0; layer < 2; ++layer) {
    k(rms, 2'100, 900, 1024);
    k(qmv, 6'400, 700);
    k(qmv, 3'200, 650);
    k(qmv, 3'150, 640);
    k(rope, 1'200, 800, 512);
    k(copy_gg, 700, 300, 512);
    k(rope, 1'100, 500, 512);
    k(copy_gg, 690, 310, 512);
    k(sdpa, 9'800 + step * 40, 900, 2048);
    k(qmv, 6'300, 700);
    k(add, 800, 600, 1024);
    k(rms, 2'000, 400, 1024);
    k(qmv, 12'800, 700);
    k(qmv, 12'750, 650);
    k(swiglu, 1'500, 500, 8192);
    k(qmv, 12'900, 600);
    k(add, 790, 550, 1024);
  }
  k(rms, 2'050, 800, 1024);
  k(qmv, 41'000, 700, 131072);  // lm_head
  k(Mlx("arg_reduce_general<__half, 1024>(__half const*, unsigned int*, int)"), 3'100, 900, 1);
  // The token's copy; its name holds a control character, which the summary repairs (and
  // counts as names_repaired, an example naming the trace file).
  k(Mlx("copy_v<unsigned int, int>\x01(unsigned int const*, int*, unsigned int)"), 600, 400, 1);
}

DecodeRun MakeRun() {
  DecodeRun run;
  int64_t t = 1'000'000;
  int64_t correlation = 0;
  run.warmup_start = t - 200'000;
  // Warmup: prefill and two decode passes.
  run.ranges.push_back(rt::ThreadRange(900'001, "decodeprof:warmup", t - 100'000, 0));
  for (int pass = 0; pass < 3; ++pass) ForwardPass(run, t, correlation, pass);
  run.ranges.back().end = t + 10'000;
  t += 2'000'000;
  run.measured_start = t - 500'000;
  // Prefill of the measured run.
  run.ranges.push_back(rt::ThreadRange(900'002, "decodeprof:prefill", t - 50'000, 0));
  ForwardPass(run, t, correlation, 0);
  run.ranges.back().end = t + 5'000;
  // Decode: 6 passes; the log's decode_start comes 40 µs after the prefill's last kernel.
  t += 40'000;
  run.decode_start = t;
  run.ranges.push_back(rt::ThreadRange(900'003, "decodeprof:decode", t + 1'000, 0));
  for (int step = 0; step < 6; ++step) {
    const int64_t begin = t;
    t += 30'000 + step * 1'000;  // the host's work between passes
    ForwardPass(run, t, correlation, step);
    run.ranges.push_back(rt::ThreadRange(900'010 + step, "decodeprof:step", begin + 2'000, t));
    run.ranges.push_back(rt::ThreadRange(900'020 + step, "mlx::eval", begin + 3'000, t - 500));
  }
  run.measured_end = t + 20'000;
  run.ranges[2].end = run.measured_end - 1'000;
  run.generated_tokens = 7;
  return run;
}

std::string CsvTrace(const DecodeRun& run) {
  std::string out =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
      "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
      "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
      "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
      "\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
  int64_t id = 0;
  for (const Dispatch& d : run.dispatches) {
    ++id;
    out += "\"KERNEL_DISPATCH\",\"Agent 1\",1,0," + std::to_string(rt::kPid) + "," +
           std::to_string(id) + "," + std::to_string(id % 40 + 1) + ",\"" + d.name + "\"," +
           std::to_string(d.correlation) + "," + std::to_string(kBoot + d.start) + "," +
           std::to_string(kBoot + d.start + d.duration) + ",0,0,32,0,16,256,1,1," +
           std::to_string(d.grid_x) + ",1,1\n";
  }
  return out;
}

rt::RocpdDb RocpdTrace(const DecodeRun& run) {
  rt::RocpdDb db;
  for (const Dispatch& d : run.dispatches) {
    rt::KernelDispatch k;
    k.display_name = d.name;
    k.kernel_name = "_ZN3mlx4core4rocm6kernelEv.kd";
    k.start = kBoot + d.start;
    k.end = kBoot + d.start + d.duration;
    k.grid[0] = d.grid_x;
    k.correlation = d.correlation;
    db.kernels.push_back(k);
    db.regions.push_back(
        rt::HipCall(d.correlation, "hipLaunchKernel", kBoot + d.launch, kBoot + d.launch + 900));
  }
  for (rt::Region r : run.ranges) {
    r.start += kBoot;
    r.end += kBoot;
    db.regions.push_back(r);
  }
  return db;
}

std::string Mark(const char* label, int64_t boottime) {
  return std::string("[phase] ") + label +
         " monotonic_ns=" + std::to_string(kBoot + boottime - kSuspended) +
         " boottime_ns=" + std::to_string(kBoot + boottime) + "\n";
}

std::string BenchLog(const DecodeRun& run) {
  const double decode_ms = static_cast<double>(run.measured_end - run.decode_start) / 1e6;
  std::ostringstream out;
  out << "[long-prompt] target=16 tokens -> using 16 tokens (fixture)\n"
      << Mark("warmup_start", run.warmup_start) << Mark("measured_start", run.measured_start)
      << Mark("decode_start", run.decode_start) << Mark("measured_end", run.measured_end)
      << "\n[Profile Results]\n  Prompt tokens:    16\n  Generated tokens: " << run.generated_tokens
      << "\n  Prefill:          0.4 ms (40000.0 tok/s)\n"
      << "  Decode:           " << decode_ms << " ms ("
      << static_cast<double>(run.generated_tokens) / decode_ms * 1e3 << " tok/s)\n"
      << "  MLX peak memory:  1.25 GB\n";
  return out.str();
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// `json` with exactly the two legitimate differences normalized: the trace_format line, and
// the trace's file name in the diagnostics' examples ("file": "<trace_file>"). `count`
// receives how many of each were replaced.
std::string Normalize(const std::string& json, const std::string& trace_file, int& formats,
                      int& files) {
  std::istringstream in(json);
  std::string out;
  formats = files = 0;
  const std::string file_key = "\"file\": \"" + trace_file + "\"";
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("  \"trace_file\": ")) continue;  // each format's own file name
    if (line.starts_with("  \"trace_format\": ")) {
      line = "  \"trace_format\": <format>,";
      ++formats;
    }
    if (const size_t at = line.find(file_key); at != std::string::npos) {
      line.replace(at, file_key.size(), "\"file\": <trace>");
      ++files;
    }
    out += line + "\n";
  }
  return out;
}

class RocpdSummarizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_.path();
    run_ = MakeRun();
    csv_ = (dir_ / "trace_kernel_trace.csv").string();
    db_ = (dir_ / "trace_results.db").string();
    std::ofstream(csv_, std::ios::binary) << CsvTrace(run_);
    const base::Status s = rt::WriteRocpdDb(db_, RocpdTrace(run_));
    ASSERT_TRUE(s.ok()) << s.ToString();
    log_ = (dir_ / "bench.log").string();
    std::ofstream(log_) << BenchLog(run_);
    plain_ = (dir_ / "plain_bench.log").string();
    std::ofstream(plain_) << "[Profile Results]\n  Prompt tokens:    16\n  Generated tokens: 7\n"
                             "  Prefill:          0.3 ms (53333.3 tok/s)\n"
                             "  Decode:           1.1 ms (6363.6 tok/s)\n";
  }

  base::StatusOr<SummarizeResult> Summarize(const std::string& trace, const std::string& out,
                                            bool with_log = true) const {
    SummarizeRequest req;
    req.trace = trace;
    if (with_log) {
      req.log = log_;
      req.plain_logs = {plain_};
    }
    req.name = "decode";
    req.out_dir = (dir_ / out).string();
    return RunSummarize(req);
  }

  decodeprof::testing::TempDir temp_{"dp_rocpd_sum_"};
  fs::path dir_;
  DecodeRun run_;
  std::string csv_, db_, log_, plain_;
};

TEST_F(RocpdSummarizeTest, SameRunAsRocprofv3CsvAndRocpdGivesTheSameSummary) {
  auto from_csv = Summarize(csv_, "csv");
  ASSERT_TRUE(from_csv.ok()) << from_csv.status().ToString();
  auto from_rocpd = Summarize(db_, "rocpd");
  ASSERT_TRUE(from_rocpd.ok()) << from_rocpd.status().ToString();
  EXPECT_EQ(from_csv->format, "rocprofv3-csv");
  EXPECT_EQ(from_rocpd->format, "rocpd");
  EXPECT_EQ(
      from_rocpd->notes,
      std::vector<std::string>{
          "pack mlx-rocm (chosen from the kernel names: 9 of 9 MLX kernels, 100.0 % of the GPU "
          "time: mlx::core::rocm::qmv_wide_kernel, mlx::core::rocm::sdpa_vector_kernel, "
          "mlx::core::rocm::rms_norm_kernel, mlx::core::rocm::rope_kernel, ...; --pack "
          "overrides)"});

  const std::string csv_kernels = Slurp(dir_ / "csv" / "decode_decode_kernels.csv");
  ASSERT_FALSE(csv_kernels.empty());
  EXPECT_EQ(csv_kernels, Slurp(dir_ / "rocpd" / "decode_decode_kernels.csv"));

  const std::string csv_json = Slurp(dir_ / "csv" / "decode_summary.json");
  const std::string rocpd_json = Slurp(dir_ / "rocpd" / "decode_summary.json");
  int csv_formats = 0, csv_files = 0, rocpd_formats = 0, rocpd_files = 0;
  EXPECT_EQ(Normalize(csv_json, "trace_kernel_trace.csv", csv_formats, csv_files),
            Normalize(rocpd_json, "trace_results.db", rocpd_formats, rocpd_files));
  EXPECT_EQ(csv_formats, 1);
  EXPECT_EQ(rocpd_formats, 1);
  EXPECT_EQ(csv_files, 1);  // names_repaired's example
  EXPECT_EQ(rocpd_files, 1);
  EXPECT_NE(rocpd_json.find("\"trace_format\": \"rocpd\","), std::string::npos);
  EXPECT_NE(csv_json.find("\"trace_format\": \"rocprofv3-csv\","), std::string::npos);

  // What the run is: the boottime marks cut 6 passes of 38 dispatches on device 1 (the CSV's
  // "Agent 1"), roles of the seed's rules found.
  EXPECT_NE(rocpd_json.find("\"clock\": \"boottime\","), std::string::npos);
  EXPECT_NE(rocpd_json.find("\"decode_dispatches\": 228,"), std::string::npos) << rocpd_json;
  EXPECT_NE(rocpd_json.find("\"generated_tokens\": 7,"), std::string::npos);
  EXPECT_NE(rocpd_json.find("\"device\": 1,"), std::string::npos);
  EXPECT_NE(rocpd_json.find("\"window_source\": \"log\","), std::string::npos);
  EXPECT_NE(rocpd_json.find("\"names_repaired\""), std::string::npos);
  EXPECT_EQ(rocpd_json.find("\"launch_not_found\""), std::string::npos);
  EXPECT_EQ(rocpd_json.find("\"log_marks_unused\""), std::string::npos);
  EXPECT_EQ(rocpd_json.find("\"rope_append\": 0.0,"), std::string::npos);  // found
  EXPECT_EQ(rocpd_json.find("\"sampler_tail\": 0.0,"), std::string::npos);
}

TEST_F(RocpdSummarizeTest, WithoutALogTheRoctxRangesCutTheWindow) {
  auto r = Summarize(db_, "ranges", /*with_log=*/false);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string json = Slurp(dir_ / "ranges" / "decode_summary.json");
  EXPECT_NE(json.find("\"window_source\": \"marks\","), std::string::npos) << json;
  EXPECT_NE(json.find("\"decode_dispatches\": 228,"), std::string::npos);
  EXPECT_NE(json.find("\"generated_tokens\": 7,"), std::string::npos);  // 6 steps + 1
  EXPECT_NE(json.find("\"clock\": \"boottime\","), std::string::npos);

  // The CSV has no ranges: without a log it has no marks (the decode loop is searched for).
  auto csv = Summarize(csv_, "csv_nolog", /*with_log=*/false);
  if (csv.ok()) {
    EXPECT_EQ(
        Slurp(dir_ / "csv_nolog" / "decode_summary.json").find("\"window_source\": \"marks\""),
        std::string::npos);
  }
}

TEST_F(RocpdSummarizeTest, TwoGpusNeedADevice) {
  rt::RocpdDb db = RocpdTrace(run_);
  rt::Agent second;
  second.id = 2;
  second.absolute_index = 2;
  second.logical_index = 2;
  db.agents.push_back(second);
  for (size_t i = 0; i < db.kernels.size(); i += 7) db.kernels[i].agent_id = 2;
  ASSERT_TRUE(rt::WriteRocpdDb(db_, db).ok());
  auto r = Summarize(db_, "two");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().exit_code(), 65);
  EXPECT_NE(r.status().ToString().find("device"), std::string::npos) << r.status().ToString();

  SummarizeRequest req;
  req.trace = db_;
  req.log = log_;
  req.name = "decode";
  req.out_dir = (dir_ / "one").string();
  req.device = 1;
  auto one = RunSummarize(req);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->summary.device, 1);
}

}  // namespace
}  // namespace decodeprof::pipeline
