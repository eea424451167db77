#include "bench/synth_run.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/synth_trace_sink.h"
#include "src/base/file_io.h"

namespace decodeprof::bench {
namespace {

// Boottime stamps start here (about 19.7 days of uptime), plus up to 4e13 ns.
constexpr uint64_t kBoottimeOrigin = 1700000000000000ull;

// splitmix64: tiny, fast and the same on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Unit(); }
  bool OneIn(uint64_t n) { return Next() % n == 0; }

 private:
  uint64_t state_;
};

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325u;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3u;
  return h;
}

uint64_t ToNs(double ns) { return ns <= 0 ? 0 : static_cast<uint64_t>(ns + 0.5); }

std::string Fixed2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// Host gaps between dispatches: uniform, with rare scheduler hiccups.
struct GapModel {
  double min_ns;
  double max_ns;
};

struct Marks {
  uint64_t warmup_start = 0;
  uint64_t measured_start = 0;
  uint64_t decode_start = 0;
  uint64_t measured_end = 0;
};

struct Timeline {
  uint64_t process_start = 0;
  uint64_t load_end = 0;
  uint64_t prefill_end = 0;
  double prefill_ms = 0;
  double decode_ms = 0;
  Marks marks;
};

// Walks the programs in time order, writing each dispatch to the sink.
class Emitter {
 public:
  Emitter(TraceSink* sink, Rng* rng) : sink_(sink), rng_(rng) {}

  uint64_t cursor() const { return cursor_; }
  void set_cursor(uint64_t t) { cursor_ = t; }
  void Advance(double ns) { cursor_ += ToNs(ns); }

  // Emits `ops`; the first dispatch starts `lead_ns` after the cursor, the others one host
  // gap after the previous end. `kv_len` is the attention length of a decode pass.
  void Pass(const std::vector<Op>& ops, const std::vector<std::string>& tails, double lead_ns,
            GapModel gaps, int64_t kv_len, double jitter) {
    for (size_t i = 0; i < ops.size(); ++i) {
      double gap = i == 0 ? lead_ns : rng_->Uniform(gaps.min_ns, gaps.max_ns);
      if (i != 0 && rng_->OneIn(512)) gap += rng_->Uniform(10000, 60000);
      if (ops[i].host_ns > 0) gap += ops[i].host_ns * rng_->Uniform(0.8, 1.2);
      const uint64_t start = cursor_ + ToNs(gap);
      const uint64_t end = start + Duration(ops[i], kv_len, jitter);
      correlation_ += 1 + (rng_->OneIn(4) ? rng_->Next() % 3 : 0);
      sink_->Write(ops[i], tails[i], correlation_, start, end);
      cursor_ = end;
    }
  }

 private:
  // mean × (1 + jitter × (Irwin–Hall(4) − 2)), rarely 15–45% slower; at least 400 ns.
  uint64_t Duration(const Op& op, int64_t kv_len, double jitter) {
    double ns = op.mean_ns + op.ns_per_position * static_cast<double>(kv_len);
    const double s = rng_->Unit() + rng_->Unit() + rng_->Unit() + rng_->Unit();
    ns *= 1.0 + jitter * (s - 2.0);
    if (rng_->OneIn(400)) ns *= 1.15 + 0.3 * rng_->Unit();
    return ToNs(ns < 400 ? 400 : ns);
  }

  TraceSink* sink_;
  Rng* rng_;
  uint64_t cursor_ = 0;
  uint64_t correlation_ = 0;
};

std::vector<std::string> Tails(const KernelTable& table, const std::vector<Op>& ops) {
  std::vector<std::string> tails;
  tails.reserve(ops.size());
  for (const Op& op : ops) tails.push_back(RowTail(table.at(op.kernel), op));
  return tails;
}

// Wall-clock stamps of the log lines: a KST evening on the day of the seed's campaign.
class WallClock {
 public:
  WallClock(uint64_t boottime_origin, uint64_t second_of_day, uint64_t micros)
      : origin_(boottime_origin), base_us_(second_of_day * 1000000 + micros) {}
  // "20260930 19:36:18.402113" for a boottime stamp.
  std::string At(uint64_t boottime) const {
    const uint64_t us = base_us_ + (boottime - origin_) / 1000;
    const uint64_t day_us = 86400ull * 1000000;
    const uint64_t days = us / day_us;  // past midnight: October
    char buf[64];
    std::snprintf(buf, sizeof buf, "2026%s%02llu %02llu:%02llu:%02llu.%06llu",
                  days == 0 ? "09" : "10", static_cast<unsigned long long>(days == 0 ? 30 : days),
                  static_cast<unsigned long long>(us % day_us / 3600000000ull),
                  static_cast<unsigned long long>(us / 60000000 % 60),
                  static_cast<unsigned long long>(us / 1000000 % 60),
                  static_cast<unsigned long long>(us % 1000000));
    return buf;
  }

 private:
  uint64_t origin_;
  uint64_t base_us_;
};

std::string ResultsBlock(int64_t prompt, int64_t generated, double prefill_ms, double decode_ms,
                         double peak_gb) {
  std::string s = "[Profile Results]\n";
  s += "  Prompt tokens:    " + std::to_string(prompt) + "\n";
  s += "  Generated tokens: " + std::to_string(generated) + "\n";
  s += "  Prefill:          " + Fixed2(prefill_ms) + " ms (" +
       Fixed2(static_cast<double>(prompt) / prefill_ms * 1000.0) + " tok/s)\n";
  s += "  Decode:           " + Fixed2(decode_ms) + " ms (" +
       Fixed2(static_cast<double>(generated) / decode_ms * 1000.0) + " tok/s)\n";
  s += "  MLX peak memory:  " + Fixed2(peak_gb) + " GB\n";
  return s;
}

std::string PhaseLine(std::string_view label, uint64_t boottime, uint64_t offset) {
  return "[phase] " + std::string(label) + " monotonic_ns=" + std::to_string(boottime - offset) +
         " boottime_ns=" + std::to_string(boottime) + "\n";
}

base::Status Validate(const GenOptions& o) {
  if (o.tokens < 2) return base::UsageError("--tokens must be at least 2");
  if (o.warmup_tokens < 1) return base::UsageError("--warmup-tokens must be at least 1");
  if (o.prompt_tokens < 1 || o.prompt_tokens > 131072) {
    return base::UsageError("--prompt-tokens must be between 1 and 131072");
  }
  if (!(o.temperature >= 0.0) || o.temperature > 100.0) {
    return base::UsageError("--temperature must be between 0 and 100");
  }
  if (!(o.top_p > 0.0) || o.top_p > 1.0) return base::UsageError("--top-p must be in (0, 1]");
  if (o.name.empty() || o.name.find('/') != std::string::npos) {
    return base::UsageError("--name must be a non-empty file name without '/'");
  }
  if (o.out_dir.empty()) return base::UsageError("--out-dir is required");
  if (o.monotonic_offset_ns >= kBoottimeOrigin) {
    return base::UsageError("--monotonic-offset-ns must be below 1.7e15");
  }
  return base::OkStatus();
}

}  // namespace

Sampler SamplerFor(double temperature, double top_p) {
  if (temperature <= 0.0) return Sampler::kGreedy;
  return top_p < 1.0 ? Sampler::kTopP : Sampler::kSampled;
}

base::StatusOr<GenSummary> GenerateRun(const GenOptions& o) {
  DP_RETURN_IF_ERROR(Validate(o));
  DP_RETURN_IF_ERROR(base::MakeDirs(o.out_dir));
  DP_RETURN_IF_ERROR(base::MakeDirs(o.out_dir + "/" + o.name + "_model"));

  const ModelInfo& info = Info(o.model);
  Rng rng(o.seed * 0x9e3779b97f4a7c15u ^ Fnv1a(info.cli_name));
  KernelTable table;
  const ModelProgram program =
      BuildProgram(o.model, SamplerFor(o.temperature, o.top_p), o.prompt_tokens, &table);
  const std::vector<std::string> load_tails = Tails(table, program.load);
  const std::vector<std::string> prefill_tails = Tails(table, program.prefill);
  const std::vector<std::string> step_tails = Tails(table, program.decode_step);

  const uint64_t pid = 30000 + rng.Next() % 30000;
  const uint64_t glog_tid = 139600000000000ull + (rng.Next() % 900000000000ull) / 64 * 64;
  const uint64_t offset = o.monotonic_offset_ns;
  const GapModel decode_gaps{info.gap_min_ns, info.gap_max_ns};
  const GapModel load_gaps{40000, 6000000};
  const int64_t prompt = o.prompt_tokens;

  GenSummary summary;
  summary.trace_path = o.out_dir + "/" + o.name + "_kernel_trace.csv";
  summary.decode_step_dispatches = program.decode_step.size();

  TraceSink sink(&table, pid);
  DP_RETURN_IF_ERROR(sink.Open(summary.trace_path));
  Emitter emit(&sink, &rng);
  Timeline tl;
  tl.process_start = kBoottimeOrigin + rng.Next() % 40000000000000ull;
  emit.set_cursor(tl.process_start);
  emit.Advance(rng.Uniform(0.7e9, 1.1e9));  // runtime start, tokenizer, safetensors mmap

  emit.Pass(program.load, load_tails, 0, load_gaps, 0, 0.2);
  tl.load_end = emit.cursor();

  emit.Advance(rng.Uniform(20e6, 60e6));
  tl.marks.warmup_start = emit.cursor();
  emit.Pass(program.prefill, prefill_tails, rng.Uniform(1e6, 3e6), decode_gaps, prompt, 0.05);
  for (int64_t step = 1; step < o.warmup_tokens; ++step) {
    emit.Pass(program.decode_step, step_tails, info.step_sync_ns * rng.Uniform(0.8, 1.2),
              decode_gaps, prompt + step, 0.05);
  }

  emit.Advance(rng.Uniform(3e6, 8e6));  // cache reset + synchronize
  tl.marks.measured_start = emit.cursor();
  emit.Pass(program.prefill, prefill_tails, rng.Uniform(1e6, 3e6), decode_gaps, prompt, 0.05);
  tl.prefill_end = emit.cursor();
  const uint64_t decode_timer_start = tl.prefill_end + ToNs(rng.Uniform(150e3, 350e3));
  tl.prefill_ms = static_cast<double>(decode_timer_start - tl.marks.measured_start) / 1e6;

  const uint64_t window_rows_before = sink.rows();
  int64_t steps = 0;
  while (steps < o.tokens - 1 || (o.target_bytes != 0 && sink.bytes() < o.target_bytes)) {
    ++steps;
    const double lead = steps == 1 ? info.idle_before_decode_ns * rng.Uniform(0.95, 1.05)
                                   : info.step_sync_ns * rng.Uniform(0.8, 1.2);
    emit.Pass(program.decode_step, step_tails, lead, decode_gaps, prompt + steps, 0.05);
  }
  summary.decode_dispatches = sink.rows() - window_rows_before;
  summary.generated_tokens = steps + 1;

  // The end stamp is read after the last token's wait (seed spec 2.3); decode_start is
  // derived from the generator's decode time exactly as the bench does.
  tl.marks.measured_end = emit.cursor() + ToNs(rng.Uniform(8e3, 25e3));
  tl.decode_ms = static_cast<double>(tl.marks.measured_end - decode_timer_start) / 1e6;
  tl.marks.decode_start = tl.marks.measured_end - static_cast<uint64_t>(tl.decode_ms * 1e6);

  summary.dispatches = sink.rows();
  DP_RETURN_IF_ERROR(sink.Close());
  summary.trace_bytes = sink.bytes();

  // ---- bench logs -------------------------------------------------------------------------
  const WallClock wall(tl.process_start, 19 * 3600 + 36 * 60 + 18 + rng.Next() % 300,
                       rng.Next() % 1000000);
  const std::string run_dir = "/tmp/rocm-decode-trace.Xq7dKm/" + o.name;
  auto glog = [&](char level, uint64_t t, std::string_view where, const std::string& msg) {
    return std::string(1, level) + wall.At(t) + " " + std::to_string(glog_tid) + " " +
           std::string(where) + "] " + msg + "\n";
  };
  const std::string tmp_prefix =
      run_dir + "/.rocprofv3/" + std::to_string(pid - 7) + "-" + std::to_string(pid) + "-";
  const uint64_t t0 = tl.process_start;
  const uint64_t tend = tl.marks.measured_end + ToNs(rng.Uniform(40e6, 90e6));
  const double peak_gb =
      info.peak_memory_gb + 0.004 * static_cast<double>(prompt + summary.generated_tokens) / 64;

  std::string log;
  log += glog('W', t0 + 1204331, "tool.cpp:2317",
              "rocprofv3 1.3.5 (6b0e43f3): kernel-trace, hip-graph-trace, stats; output "
              "format: csv");
  log += glog('I', t0 + 1311876, "tmp_file.cpp:123",
              "opening temporary file: '" + tmp_prefix + "kernel_trace.dat'...");
  log += glog('I', t0 + 1398102, "tmp_file.cpp:123",
              "opening temporary file: '" + tmp_prefix + "hip_graph_trace.dat'...");
  log += "Loading model from models/" + std::string(info.checkpoint) + "\n";
  log += "[long-prompt] target=" + std::to_string(prompt) + " tokens -> using " +
         std::to_string(prompt) + " tokens (synthesized from a repeated paragraph)\n";
  log += PhaseLine("warmup_start", tl.marks.warmup_start, offset);
  log += PhaseLine("measured_start", tl.marks.measured_start, offset);
  log += PhaseLine("decode_start", tl.marks.decode_start, offset);
  log += PhaseLine("measured_end", tl.marks.measured_end, offset);
  log += "\n";
  const std::string profiled_results =
      ResultsBlock(prompt, summary.generated_tokens, tl.prefill_ms, tl.decode_ms, peak_gb);
  log += profiled_results;
  const std::string files[] = {"kernel_trace", "kernel_stats", "agent_info", "domain_stats"};
  uint64_t t = tend;
  for (const std::string& f : files) {
    log += glog('E', t, "output_stream.cpp:105",
                "Opened result file: " + run_dir + "/" + o.name + "_" + f + ".csv");
    t += ToNs(rng.Uniform(0.2e6, 30e6));
    log += glog('I', t, "csv_output_file.cpp:40", "Closing result file: " + f);
    t += ToNs(rng.Uniform(0.05e6, 0.4e6));
  }
  summary.decode_tok_s = static_cast<double>(summary.generated_tokens) / tl.decode_ms * 1000.0;

  // The unprofiled run: no tracer cost per dispatch, so decode is 5–20% faster.
  const double plain_decode_ms = tl.decode_ms / (info.plain_speedup * rng.Uniform(0.99, 1.01));
  const double plain_prefill_ms = tl.prefill_ms / rng.Uniform(1.01, 1.04);
  const std::string plain =
      ResultsBlock(prompt, summary.generated_tokens, plain_prefill_ms, plain_decode_ms, peak_gb);

  const std::string base = o.out_dir + "/" + o.name;
  DP_RETURN_IF_ERROR(base::WriteFileAtomic(base + "_bench.log", log));
  DP_RETURN_IF_ERROR(base::WriteFileAtomic(base + "_plain_bench.log", plain));
  DP_RETURN_IF_ERROR(base::WriteFileAtomic(base + "_kernel_stats.csv", sink.KernelStatsCsv()));
  DP_RETURN_IF_ERROR(base::WriteFileAtomic(base + "_model/config.json", ConfigJson(o.model)));
  return summary;
}

}  // namespace decodeprof::bench
