// A large Nsight Systems SQLite export for the nsys importer's benchmark
// (bench/sqlite_throughput.sh with FORMAT=nsys): KERNELS kernels back to back in decode steps
// of 500, each with its cudaLaunchKernel call, an NVTX decodeprof:decode range over the last
// WINDOW_STEPS steps (the 2025.6 schema, written by src/io/nsys_sqlite/testing/nsys_db_writer).
// With `ops`, each launch call lies inside an NVTX push/pop range of its own on the launching
// thread, named after a module or a PyTorch operator, as in a recording with a range per module
// call or per operator (torch.autograd.profiler.emit_nvtx): a range a dispatch.
//
//   decodeprof_gen_nsys_trace OUT.sqlite KERNELS WINDOW_STEPS [ops]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"

namespace nt = decodeprof::io::nsys_testing;

int main(int argc, char** argv) {
  const bool ops = argc == 5 && std::string(argv[4]) == "ops";
  if (argc != 4 && !ops) {
    std::fprintf(stderr, "usage: %s OUT.sqlite KERNELS WINDOW_STEPS [ops]\n", argv[0]);
    return 2;
  }
  const std::vector<std::string> op_names = {"model.layers.0.self_attn.q_proj",
                                             "model.layers.0.self_attn.k_proj",
                                             "model.layers.0.self_attn.v_proj",
                                             "model.layers.0.self_attn.o_proj",
                                             "model.layers.0.mlp.gate_proj",
                                             "model.layers.0.mlp.down_proj",
                                             "aten::mm",
                                             "aten::add",
                                             "aten::silu",
                                             "aten::rms_norm"};
  const long long kernels = std::atoll(argv[2]);
  const long long window_steps = std::atoll(argv[3]);
  constexpr long long kPerStep = 500;
  if (kernels < kPerStep || window_steps < 1 || window_steps * kPerStep > kernels) {
    std::fprintf(stderr, "need KERNELS >= %lld and 1 <= WINDOW_STEPS <= KERNELS / %lld\n", kPerStep,
                 kPerStep);
    return 2;
  }
  nt::NsysDb db;
  db.gpus.push_back({0, "NVIDIA H200"});
  const long long steps = kernels / kPerStep;
  const long long first_window_step = steps - window_steps;
  db.kernels.reserve(static_cast<size_t>(steps * kPerStep));
  db.api_calls.reserve(static_cast<size_t>(steps * kPerStep));
  long long t = 1'000'000'000;
  long long decode_start = 0;
  for (long long k = 0; k < steps * kPerStep; ++k) {
    if (k % kPerStep == 0) {
      t += 20'000;
      if (k / kPerStep == first_window_step) decode_start = t - 1'000;
    }
    const auto corr = static_cast<uint32_t>(k + 1);
    if (ops) {
      nt::NvtxEvent op;
      op.start = t - 450;
      op.end = t - 50;
      op.text = op_names[static_cast<size_t>(k) % op_names.size()];
      db.nvtx.push_back(op);
    }
    db.api_calls.push_back(
        {t - 400, t - 100, "cudaLaunchKernel_v7000", nt::GlobalTid(100, 100), corr, false});
    nt::Kernel kernel;
    kernel.start = t;
    kernel.end = t + 2'500;
    kernel.correlation = corr;
    kernel.demangled =
        "void synthetic_kernel_" + std::to_string(k % kPerStep % 24) + "<float>(float*, int)";
    kernel.grid[0] = 64;
    db.kernels.push_back(std::move(kernel));
    t += 3'000;
  }
  nt::NvtxEvent decode;
  decode.start = decode_start;
  decode.end = t + 1'000;
  decode.text = "decodeprof:decode";
  db.nvtx.push_back(decode);
  if (auto s = nt::WriteNsysDb(argv[1], db); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("%s: %lld kernels, %lld steps, %lld in the decode range\n", argv[1], steps * kPerStep,
              steps, window_steps);
  return 0;
}
