#include "tests/support/tp_trace_writer.h"

#include <algorithm>

#include "src/native_format/native_writer.h"

namespace decodeprof::testing {

namespace nf = native_format;

int64_t TpLagNs(int32_t rank, int step, int block) {
  if (rank == 1 && block == 0 && (step == 1 || step == 3)) return 3'000;
  if (rank == 0 && block == 1 && step == 2) return 1'000;
  return 0;
}

base::Status WriteTpRankTrace(const std::string& path, const TpTraceOptions& o) {
  DP_ASSIGN_OR_RETURN(std::unique_ptr<nf::NativeWriter> writer,
                      nf::NativeWriter::Create(path, "monotonic", "decodeprof tp fixture"));
  nf::NativeWriter& w = *writer;
  if (o.write_rank) {
    DP_RETURN_IF_ERROR(
        w.SetMeta("rank", o.rank_text.empty() ? std::to_string(o.rank) : o.rank_text));
    if (o.world_size >= 1)
      DP_RETURN_IF_ERROR(w.SetMeta("world_size", std::to_string(o.world_size)));
    DP_RETURN_IF_ERROR(w.SetMeta("local_rank", std::to_string(o.rank)));
    DP_RETURN_IF_ERROR(w.SetMeta("rank_source", "RANK"));
    DP_RETURN_IF_ERROR(w.SetMeta("run_id", o.run_id));
    DP_RETURN_IF_ERROR(w.SetMeta("devices_used", std::to_string(o.rank)));
  }
  DP_ASSIGN_OR_RETURN(const nf::StringRef gemm, w.Intern("nvjet_tst_64x8_64x16_4x1_v_bz_TNT"));
  DP_ASSIGN_OR_RETURN(
      const nf::StringRef allreduce,
      w.Intern("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  DP_ASSIGN_OR_RETURN(
      const nf::StringRef add,
      w.Intern(
          "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>()"));
  DP_ASSIGN_OR_RETURN(const nf::StringRef domain, w.Intern(""));
  const auto range = [&](const char* name, int64_t start, int64_t end,
                         int32_t depth) -> base::Status {
    DP_ASSIGN_OR_RETURN(const nf::StringRef id, w.Intern(name));
    nf::RangeRow r;
    r.start_ns = start;
    r.end_ns = end;
    r.name = id;
    r.domain = domain;
    r.thread = 100 + static_cast<uint64_t>(o.rank);
    r.depth = depth;
    return w.AddRange(r);
  };
  uint32_t correlation = 0;
  const auto kernel = [&](nf::StringRef name, int64_t start, int64_t end) {
    nf::KernelRow k;
    k.start_ns = start;
    k.end_ns = end;
    k.name = k.mangled = name;
    k.device = static_cast<uint32_t>(std::max(o.rank, 0));
    k.stream = 7;
    k.correlation = ++correlation;
    k.grid[0] = 132;
    k.block[0] = 256;
    return w.AddKernel(k);
  };
  DP_RETURN_IF_ERROR(range("decodeprof:warmup", 100'000, 900'000, 0));
  DP_RETURN_IF_ERROR(kernel(gemm, 200'000, 210'000));
  constexpr int64_t kDecodeStart = 1'000'000;
  constexpr int64_t kStepNs = 100'000;
  DP_RETURN_IF_ERROR(range("decodeprof:decode", kDecodeStart, kDecodeStart + o.steps * kStepNs, 0));
  for (int step = 0; step < o.steps; ++step) {
    const int64_t t0 = kDecodeStart + step * kStepNs;
    DP_RETURN_IF_ERROR(range("decodeprof:step", t0, t0 + kStepNs, 1));
    for (int block = 0; block < o.blocks; ++block) {
      const int64_t tb = t0 + 1'000 + block * 40'000;
      DP_RETURN_IF_ERROR(kernel(gemm, tb, tb + 10'000));
      int64_t last_arrival = 0;
      for (int32_t r = 0; r < std::max(o.world_size, 2); ++r) {
        last_arrival = std::max(last_arrival, tb + 11'000 + TpLagNs(r, step, block));
      }
      const int64_t arrival = tb + 11'000 + TpLagNs(o.rank, step, block);
      const int64_t end = last_arrival + 5'000;
      const bool last = step == o.steps - 1 && block == o.blocks - 1;
      if (!(last && o.drop_last_collective)) DP_RETURN_IF_ERROR(kernel(allreduce, arrival, end));
      DP_RETURN_IF_ERROR(kernel(add, end + 1'000, end + 3'000));
    }
  }
  return w.Close();
}

}  // namespace decodeprof::testing
