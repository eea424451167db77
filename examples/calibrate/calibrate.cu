// Calibration workload for `decodeprof record` (issue 4): kernels that run for known times
// (they spin on %globaltimer and write down when they started and stopped, on the GPU's
// clock), known host gaps between kernels, a captured CUDA graph replayed N times, launches
// from several threads at once, and NVTX phase marks through include/decodeprof/marks.h.
// It writes its own ground truth as JSON; tests/gpu/record_calibrate_check.py compares a
// recorded trace with it. Two measurements without CUPTI bound what a kernel costs the GPU
// beyond its instructions: CUDA events around an empty kernel (`event_fixed_cost`, which also
// holds the front end's command processing, so an upper bound), and a back-to-back chain of
// kernels that store %globaltimer at their first and last instruction (`chain`): the gap
// from one link's last instruction to the next one's first holds the drain of the one, the
// idle time between the two and the launch of the next, and the stamps referee the recorded
// timestamps themselves (record_calibrate_check.py).
//
//   calibrate truth OUT.json        the calibration run
//   calibrate launch-loop N [OUT]   N launches of an empty kernel, timed on the host
//
// Build: nvcc -O2 -std=c++17 -arch=sm_90 -I../../include calibrate.cu -o calibrate -ldl
#include <cuda_runtime.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "decodeprof/marks.h"

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "calibrate: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

namespace {

__device__ __forceinline__ unsigned long long GlobalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace

// Plain C names, so that the recorded (demangled) names are exactly these.
extern "C" __global__ void calib_spin(unsigned long long target_ns, unsigned long long* stamps,
                                      int slot) {
  const unsigned long long start = GlobalTimer();
  unsigned long long now = start;
  while (now - start < target_ns) now = GlobalTimer();
  if (slot >= 0) {
    stamps[2 * slot] = start;
    stamps[2 * slot + 1] = now;
  }
}

extern "C" __global__ void calib_graph_node(unsigned long long target_ns) {
  const unsigned long long start = GlobalTimer();
  while (GlobalTimer() - start < target_ns) {
  }
}

extern "C" __global__ void calib_thread_kernel(int* counter) {
  if (counter != nullptr) atomicAdd(counter, 1);
}

extern "C" __global__ void calib_step_kernel(unsigned long long target_ns) {
  const unsigned long long start = GlobalTimer();
  while (GlobalTimer() - start < target_ns) {
  }
}

extern "C" __global__ void calib_empty() {}

// One link of a back-to-back chain: spins like calib_spin and stores its first and last
// %globaltimer reading in slot `slot`.
extern "C" __global__ void calib_chain(unsigned long long target_ns, unsigned long long* stamps,
                                       int slot) {
  const unsigned long long start = GlobalTimer();
  unsigned long long now = start;
  while (now - start < target_ns) now = GlobalTimer();
  stamps[2 * slot] = start;
  stamps[2 * slot + 1] = now;
}

namespace {

long long NowNs() { return decodeprof_clock_ns(CLOCK_MONOTONIC); }

void BusyWaitNs(long long ns) {
  const long long end = NowNs() + ns;
  while (NowNs() < end) {
  }
}

struct Timed {
  long long target_ns;
  long long host_before_ns;
  long long host_after_ns;
  long long host_gap_before_ns;  // host busy-wait before this launch, -1 if not a gap probe
};

int Truth(const char* out_path) {
  CHECK(cudaFree(nullptr));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  constexpr int kSlots = 256;
  unsigned long long* stamps = nullptr;
  CHECK(cudaMalloc(&stamps, 2 * kSlots * sizeof(unsigned long long)));
  int* counter = nullptr;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  constexpr int kChain = 41;
  unsigned long long* chain_stamps = nullptr;
  CHECK(cudaMalloc(&chain_stamps, 2 * kChain * sizeof(unsigned long long)));

  long long count_spin = 0, count_graph = 0, count_thread = 0, count_step = 0, count_empty = 0,
            count_chain = 0;
  std::vector<Timed> timed;
  auto spin = [&](long long target_ns, long long gap_ns) {
    if (timed.size() >= kSlots) std::abort();
    if (gap_ns >= 0) BusyWaitNs(gap_ns);
    Timed t{target_ns, NowNs(), 0, gap_ns};
    calib_spin<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(target_ns), stamps,
                                    static_cast<int>(timed.size()));
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));
    t.host_after_ns = NowNs();
    timed.push_back(t);
    ++count_spin;
  };

  decodeprof_phase_begin(DECODEPROF_PHASE_WARMUP);
  // Loads every kernel once (module loading stays out of the timed part).
  calib_graph_node<<<1, 1, 0, stream>>>(1000);
  calib_thread_kernel<<<1, 1, 0, stream>>>(counter);
  calib_step_kernel<<<1, 1, 0, stream>>>(1000);
  calib_empty<<<1, 1, 0, stream>>>();
  calib_chain<<<1, 1, 0, stream>>>(1000, chain_stamps, 0);
  count_chain += 1;
  count_graph += 1;
  count_thread += 1;
  count_step += 1;
  count_empty += 1;
  spin(1000, -1);
  CHECK(cudaStreamSynchronize(stream));
  decodeprof_phase_end(DECODEPROF_PHASE_WARMUP);

  // Kernels of known duration, each alone on the GPU; first empty ones, whose recorded
  // duration is the fixed cost of any kernel (what the in-kernel timer cannot see).
  decodeprof_phase_begin(DECODEPROF_PHASE_PREFILL);
  for (int i = 0; i < 20; ++i) {
    calib_empty<<<1, 1, 0, stream>>>();
    CHECK(cudaStreamSynchronize(stream));
    ++count_empty;
  }
  for (long long us : {5LL, 20LL, 50LL, 100LL, 500LL, 1000LL, 5000LL}) {
    for (int rep = 0; rep < 3; ++rep) spin(us * 1000, -1);
  }
  // The same fixed cost measured without the recorder: CUDA events around an empty kernel
  // and around nothing, both queued behind a 200 us blocker so that the GPU meets the
  // event, the kernel and the event back to back (no host launch latency in between).
  // event_fixed_cost_ns = median(E0 empty E1) - median(E0 E1): the GPU time one kernel
  // costs beyond its own instructions, on the GPU's event clock.
  cudaEvent_t ev0, ev1;
  CHECK(cudaEventCreate(&ev0));
  CHECK(cudaEventCreate(&ev1));
  std::vector<float> with_kernel_ms, without_kernel_ms;
  constexpr int kEventReps = 41;
  for (int rep = 0; rep < kEventReps; ++rep) {
    for (int with_kernel = 0; with_kernel < 2; ++with_kernel) {
      calib_step_kernel<<<1, 1, 0, stream>>>(200000);
      ++count_step;
      CHECK(cudaEventRecord(ev0, stream));
      if (with_kernel) {
        calib_empty<<<1, 1, 0, stream>>>();
        ++count_empty;
      }
      CHECK(cudaEventRecord(ev1, stream));
      CHECK(cudaStreamSynchronize(stream));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
      (with_kernel ? with_kernel_ms : without_kernel_ms).push_back(ms);
    }
  }
  auto median_ns = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return static_cast<long long>(std::llround(static_cast<double>(v[v.size() / 2]) * 1e6));
  };
  const long long event_with_ns = median_ns(with_kernel_ms);
  const long long event_without_ns = median_ns(without_kernel_ms);
  CHECK(cudaEventDestroy(ev0));
  CHECK(cudaEventDestroy(ev1));
  // A back-to-back chain queued behind a blocker: the GPU runs the links with no host gap,
  // so the %globaltimer gap between one link's last instruction and the next link's first is
  // the drain of one, the idle time between them and the launch of the next, measured by the
  // kernels themselves (`fixed_cost_ns` in the JSON is the median of those gaps).
  calib_step_kernel<<<1, 1, 0, stream>>>(300000);
  ++count_step;
  for (int i = 0; i < kChain; ++i) calib_chain<<<1, 1, 0, stream>>>(5000, chain_stamps, i);
  count_chain += kChain;
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));
  std::vector<unsigned long long> chain(2 * kChain);
  CHECK(cudaMemcpy(chain.data(), chain_stamps, chain.size() * sizeof(unsigned long long),
                   cudaMemcpyDeviceToHost));
  std::vector<long long> chain_gaps;
  for (int i = 0; i + 1 < kChain; ++i) {
    chain_gaps.push_back(static_cast<long long>(chain[2 * (i + 1)] - chain[2 * i + 1]));
  }
  std::sort(chain_gaps.begin(), chain_gaps.end());
  const long long chain_fixed_ns = chain_gaps[chain_gaps.size() / 2];
  decodeprof_phase_end(DECODEPROF_PHASE_PREFILL);

  decodeprof_phase_begin(DECODEPROF_PHASE_DECODE);
  // Known host gaps: a 20 us kernel, a sync, a host busy-wait of G, the next kernel.
  for (long long gap_us : {10LL, 50LL, 200LL, 1000LL}) {
    for (int rep = 0; rep < 3; ++rep) {
      spin(20000, -1);
      spin(20000, gap_us * 1000);
    }
  }
  // Decode-like steps.
  constexpr int kSteps = 8;
  for (int s = 0; s < kSteps; ++s) {
    decodeprof_phase_begin(DECODEPROF_PHASE_STEP);
    for (int k = 0; k < 3; ++k) calib_step_kernel<<<1, 1, 0, stream>>>(2000);
    count_step += 3;
    CHECK(cudaStreamSynchronize(stream));
    decodeprof_phase_end(DECODEPROF_PHASE_STEP);
  }
  // A captured graph, replayed.
  constexpr int kGraphNodes = 5;
  constexpr int kGraphReplays = 50;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int n = 0; n < kGraphNodes; ++n) calib_graph_node<<<1, 1, 0, stream>>>(2000);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < kGraphReplays; ++r) CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  count_graph += kGraphNodes * kGraphReplays;
  // Launches from several threads at once, each on its own stream.
  constexpr int kThreads = 8;
  constexpr int kPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([counter] {
      cudaStream_t s;
      CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      for (int i = 0; i < kPerThread; ++i) calib_thread_kernel<<<1, 32, 0, s>>>(counter);
      CHECK(cudaStreamSynchronize(s));
      CHECK(cudaStreamDestroy(s));
    });
  }
  for (auto& t : threads) t.join();
  count_thread += kThreads * kPerThread;
  decodeprof_phase_end(DECODEPROF_PHASE_DECODE);

  int launched = 0;
  CHECK(cudaMemcpy(&launched, counter, sizeof launched, cudaMemcpyDeviceToHost));
  std::vector<unsigned long long> host_stamps(2 * timed.size());
  CHECK(cudaMemcpy(host_stamps.data(), stamps, host_stamps.size() * sizeof(unsigned long long),
                   cudaMemcpyDeviceToHost));

  FILE* out = std::fopen(out_path, "w");
  if (out == nullptr) {
    std::perror(out_path);
    return 1;
  }
  std::fprintf(out,
               "{\n  \"expected_counts\": {\"calib_spin\": %lld, \"calib_graph_node\": %lld, "
               "\"calib_thread_kernel\": %lld, \"calib_step_kernel\": %lld, "
               "\"calib_empty\": %lld, \"calib_chain\": %lld},\n",
               count_spin, count_graph, count_thread, count_step, count_empty, count_chain);
  std::fprintf(out, "  \"thread_kernel_increments\": %d,\n", launched);
  std::fprintf(out, "  \"graph\": {\"nodes\": %d, \"replays\": %d},\n", kGraphNodes, kGraphReplays);
  std::fprintf(out, "  \"threads\": {\"count\": %d, \"launches_per_thread\": %d},\n", kThreads,
               kPerThread);
  std::fprintf(out,
               "  \"event_fixed_cost\": {\"reps\": %d, \"median_with_empty_kernel_ns\": %lld, "
               "\"median_without_kernel_ns\": %lld, \"fixed_cost_ns\": %lld},\n",
               kEventReps, event_with_ns, event_without_ns, event_with_ns - event_without_ns);
  std::fprintf(out, "  \"chain\": {\"links\": %d, \"fixed_cost_ns\": %lld, \"stamps\": [", kChain,
               chain_fixed_ns);
  for (int i = 0; i < kChain; ++i) {
    std::fprintf(out, "%s[%llu, %llu]", i ? ", " : "", chain[2 * i], chain[2 * i + 1]);
  }
  std::fprintf(out, "]},\n");
  std::fprintf(out, "  \"steps\": %d,\n  \"timed\": [\n", kSteps);
  for (size_t i = 0; i < timed.size(); ++i) {
    const Timed& t = timed[i];
    std::fprintf(out,
                 "    {\"target_ns\": %lld, \"device_begin_ns\": %llu, \"device_end_ns\": %llu, "
                 "\"host_before_ns\": %lld, \"host_after_ns\": %lld, "
                 "\"host_gap_before_ns\": %lld}%s\n",
                 t.target_ns, host_stamps[2 * i], host_stamps[2 * i + 1], t.host_before_ns,
                 t.host_after_ns, t.host_gap_before_ns, i + 1 < timed.size() ? "," : "");
  }
  std::fprintf(out, "  ]\n}\n");
  std::fclose(out);
  CHECK(cudaFree(chain_stamps));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  // Exit without cudaDeviceReset: the recorder must flush on its own.
  return 0;
}

int LaunchLoop(long long n, const char* out_path) {
  CHECK(cudaFree(nullptr));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 0; i < 2000; ++i) calib_empty<<<1, 1, 0, stream>>>();  // warm-up
  CHECK(cudaStreamSynchronize(stream));
  const long long t0 = NowNs();
  for (long long i = 0; i < n; ++i) calib_empty<<<1, 1, 0, stream>>>();
  const long long t_launched = NowNs();
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));
  const long long t1 = NowNs();
  FILE* out = out_path != nullptr ? std::fopen(out_path, "w") : stdout;
  if (out == nullptr) return 1;
  std::fprintf(out,
               "{\"launches\": %lld, \"warmup_launches\": 2000, \"total_ns\": %lld, "
               "\"launch_ns\": %lld, \"us_per_launch\": %.4f, \"launch_us_per_launch\": %.4f}\n",
               n, t1 - t0, t_launched - t0, (t1 - t0) / 1000.0 / n, (t_launched - t0) / 1000.0 / n);
  if (out != stdout) std::fclose(out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "truth" && argc == 3) return Truth(argv[2]);
  if (mode == "launch-loop" && (argc == 3 || argc == 4)) {
    char* end = nullptr;
    const long long n = std::strtoll(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || n <= 0) {
      std::fprintf(stderr, "calibrate: bad launch count '%s'\n", argv[2]);
      return 2;
    }
    return LaunchLoop(n, argc == 4 ? argv[3] : nullptr);
  }
  std::fprintf(stderr, "usage: calibrate truth OUT.json | calibrate launch-loop N [OUT.json]\n");
  return 2;
}
