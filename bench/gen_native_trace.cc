// A large decodeprof native trace for the native importer's benchmark
// (bench/sqlite_throughput.sh): KERNELS kernels back to back in decode steps of 500, each with
// its cudaLaunchKernel record, the decodeprof:decode range over the last WINDOW_STEPS steps.
// With `memcpy`, each step ends with the token's read-back, a 4-byte device-to-host
// cudaMemcpyAsync, as a serving engine's steps do (the window then holds memory operations).
// With `graph`, each step's kernels are one cudaGraphLaunch's replay (all of them carry its
// correlation id), as in a CUDA-graph engine. With `ops`, each launch call lies inside an
// NVTX range of its own, named after a module (model.layers.0.self_attn.q_proj, ...: what the
// packs' op_path rules read) or a PyTorch operator (aten::mm, ...), as a recording with a range
// per module call or per operator (torch.autograd.profiler.emit_nvtx) has: a range a dispatch. With
// `names=N`, the kernels take N distinct names (default 24) in turn, as a Triton engine's many
// kernels do.
//
//   decodeprof_gen_native_trace OUT.sqlite KERNELS WINDOW_STEPS [memcpy] [graph] [ops]
//                               [names=N]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "src/native_format/native_writer.h"

namespace nf = decodeprof::native_format;

int main(int argc, char** argv) {
  bool memcpy_per_step = false;
  bool graph = false;
  bool ops = false;
  long long distinct_names = 24;
  for (int a = 4; a < argc; ++a) {
    const std::string option = argv[a];
    if (option == "memcpy") {
      memcpy_per_step = true;
    } else if (option == "graph") {
      graph = true;
    } else if (option == "ops") {
      ops = true;
    } else if (option.starts_with("names=") && std::atoll(option.c_str() + 6) > 0) {
      distinct_names = std::atoll(option.c_str() + 6);
    } else {
      argc = 0;  // usage
    }
  }
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s OUT.sqlite KERNELS WINDOW_STEPS [memcpy] [graph] [ops] [names=N]\n",
                 argc == 0 ? "decodeprof_gen_native_trace" : argv[0]);
    return 2;
  }
  const long long kernels = std::atoll(argv[2]);
  const long long window_steps = std::atoll(argv[3]);
  constexpr long long kPerStep = 500;
  if (kernels < kPerStep || window_steps < 1 || window_steps * kPerStep > kernels) {
    std::fprintf(stderr, "need KERNELS >= %lld and 1 <= WINDOW_STEPS <= KERNELS / %lld\n", kPerStep,
                 kPerStep);
    return 2;
  }
  auto created = nf::NativeWriter::Create(argv[1], "monotonic", "decodeprof_gen_native_trace");
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
    return 1;
  }
  nf::NativeWriter& w = **created;
  const auto check = [](const decodeprof::base::Status& s) {
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      std::exit(1);
    }
  };
  std::vector<nf::StringRef> names;
  for (long long i = 0; i < distinct_names; ++i) {
    auto id = w.Intern("void synthetic_kernel_" + std::to_string(i) + "<float>(float*, int)");
    check(id.status());
    names.push_back(*id);
  }
  auto launch = w.Intern("cudaLaunchKernel");
  auto graph_launch = w.Intern("cudaGraphLaunch");
  check(graph_launch.status());
  auto copy = w.Intern("cudaMemcpyAsync");
  check(copy.status());
  auto empty = w.Intern("");
  auto decode = w.Intern("decodeprof:decode");
  auto step = w.Intern("decodeprof:step");
  std::vector<nf::StringRef> op_names;
  for (const char* op : {"model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj",
                         "model.layers.0.self_attn.v_proj", "model.layers.0.self_attn.o_proj",
                         "model.layers.0.mlp.gate_proj", "model.layers.0.mlp.down_proj", "aten::mm",
                         "aten::add", "aten::silu", "aten::rms_norm"}) {
    auto id = w.Intern(op);
    check(id.status());
    op_names.push_back(*id);
  }
  check(launch.status());
  const long long steps = kernels / kPerStep;
  const long long first_window_step = steps - window_steps;
  long long t = 1'000'000'000;
  long long decode_start = 0;
  long long correlation = 0;  // in launch order, as CUPTI numbers the calls
  for (long long k = 0; k < steps * kPerStep; ++k) {
    const long long s = k / kPerStep;
    if (k % kPerStep == 0) {
      t += 20'000;  // the host's per-token gap
      if (s == first_window_step) decode_start = t - 1'000;
      if (s >= first_window_step) {
        nf::RangeRow r;
        r.start_ns = t - 500;
        r.end_ns = t + kPerStep * 3'000;
        r.name = *step;
        r.domain = *empty;
        r.depth = 1;
        check(w.AddRange(r));
      }
    }
    if (ops) {
      nf::RangeRow r;
      r.start_ns = t - 450;
      r.end_ns = t - 50;
      r.name = op_names[static_cast<size_t>(k % static_cast<long long>(op_names.size()))];
      r.domain = *empty;
      r.thread = 7;  // the launching thread's
      r.depth = 2;
      check(w.AddRange(r));
    }
    nf::ApiCallRow call;
    call.start_ns = t - 400;
    call.end_ns = t - 100;
    call.name = graph ? *graph_launch : *launch;
    call.thread = 7;
    if (!graph || k % kPerStep == 0) {
      call.correlation = static_cast<uint32_t>(++correlation);
      check(w.AddApiCall(call));
    } else {
      call.correlation = static_cast<uint32_t>(correlation);  // the step's graph launch
    }
    nf::KernelRow row;
    row.start_ns = t;
    row.end_ns = t + 2'500;
    // A step's kernels repeat from step to step; more names than a step holds go round the
    // whole trace.
    const long long name =
        distinct_names <= kPerStep ? k % kPerStep % distinct_names : k % distinct_names;
    row.name = row.mangled = names[static_cast<size_t>(name)];
    row.stream = 7;
    row.correlation = call.correlation;
    row.grid[0] = 64;
    if (graph) {
      row.graph_id = 1;
      row.graph_node_id = static_cast<uint64_t>(k % kPerStep + 1);
    }
    check(w.AddKernel(row));
    t += 3'000;
    if (memcpy_per_step && k % kPerStep == kPerStep - 1) {
      nf::ApiCallRow copy_call;
      copy_call.start_ns = t - 400;
      copy_call.end_ns = t + 1'500;
      copy_call.name = *copy;
      copy_call.thread = 7;
      copy_call.correlation = static_cast<uint32_t>(++correlation);
      check(w.AddApiCall(copy_call));
      nf::MemoryOpRow op;
      op.start_ns = t;
      op.end_ns = t + 1'000;
      op.bytes = 4;
      op.copy_kind = 2;  // device to host
      op.stream = 7;
      op.correlation = copy_call.correlation;
      check(w.AddMemoryOp(op));
      t += 1'500;
    }
  }
  nf::RangeRow r;
  r.start_ns = decode_start;
  r.end_ns = t + 1'000;
  r.name = *decode;
  r.domain = *empty;
  check(w.AddRange(r));
  check(w.Close());
  std::printf("%s: %lld kernels, %lld steps, %lld in the decode range\n", argv[1], steps * kPerStep,
              steps, window_steps);
  return 0;
}
