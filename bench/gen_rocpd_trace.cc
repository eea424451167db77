// A large rocpd database (rocprofv3's SQLite output) for the rocpd importer's benchmark
// (bench/sqlite_throughput.sh with FORMAT=rocpd): KERNELS kernels back to back in decode steps
// of 500, each with its hipLaunchKernel call (same internal correlation id), a roctx
// decodeprof:decode range over the last WINDOW_STEPS steps (schema 3, written by
// src/io/rocpd/testing/rocpd_db_writer).
//
//   decodeprof_gen_rocpd_trace OUT.sqlite KERNELS WINDOW_STEPS
#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/io/rocpd/testing/rocpd_db_writer.h"

namespace rt = decodeprof::io::rocpd_testing;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s OUT.sqlite KERNELS WINDOW_STEPS\n", argv[0]);
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
  rt::RocpdDb db;
  const long long steps = kernels / kPerStep;
  const long long first_window_step = steps - window_steps;
  db.kernels.reserve(static_cast<size_t>(steps * kPerStep));
  db.regions.reserve(static_cast<size_t>(steps * kPerStep) + 1);
  // On CLOCK_BOOTTIME, as rocprofv3 records by default.
  int64_t t = 1'000'000'000;
  int64_t decode_start = 0;
  for (long long k = 0; k < steps * kPerStep; ++k) {
    if (k % kPerStep == 0) {
      t += 20'000;
      if (k / kPerStep == first_window_step) decode_start = t - 1'000;
    }
    const int64_t corr = k + 1;
    db.regions.push_back(rt::HipCall(corr, "hipLaunchKernel", t - 400, t - 100));
    rt::KernelDispatch kernel;
    kernel.display_name =
        "void synthetic_kernel_" + std::to_string(k % kPerStep % 24) + "<float>(float*, int)";
    kernel.kernel_name = "synthetic_kernel_" + std::to_string(k % kPerStep % 24) + ".kd";
    kernel.start = t;
    kernel.end = t + 2'500;
    kernel.grid[0] = 64 * 256;
    kernel.correlation = corr;
    db.kernels.push_back(std::move(kernel));
    t += 3'000;
  }
  // The range's id must not collide with a launch call's (rocpd_region.id).
  db.regions.push_back(
      rt::ThreadRange(steps * kPerStep + 1, "decodeprof:decode", decode_start, t + 1'000));
  if (auto s = rt::WriteRocpdDb(argv[1], db); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("%s: %lld kernels, %lld steps, %lld in the decode range\n", argv[1], steps * kPerStep,
              steps, window_steps);
  return 0;
}
