// A decode loop shaped like a CUDA-graph engine's, without NVTX (issue 12): nothing in the
// trace says where the decode is, so `decodeprof summarize` must find it from the kernels and
// the graph launches alone. The phases, in order:
//
//   warm-up   WARMUP eager decode steps (the engine's warm-up before capture): the step's
//             kernels launched one by one;
//   capture   the step's layer kernels captured into one CUDA graph and instantiated;
//   prefill   PREFILL_LAYERS eager "prefill" layers (other kernels, larger grids) and the
//             first token's pick;
//   decode    STEPS decode steps, each: the token's host-to-device copy, one graph launch
//             (LAYERS x 4 layer kernels + the lm_head), an eager sampling kernel, the
//             token's device-to-host copy and a host synchronization (the stop check).
//
// With --generates K the prefill and the decode run K times in a row (K generate calls of
// one server process; the warm-up and the capture happen once, before the first).
//
// Kernels spin on %globaltimer for fixed times, so the GPU time per step is known. The only
// marks are the seed's [phase] lines on stderr (decodeprof/marks.h's log lines; no NVTX
// range is opened), printed unless DECODEPROF_PHASE_MARKS=0; the ground truth (steps, kernels
// per step, the kernels' spin times) is written as JSON.
//
//   graph_loop [--steps N] [--layers L] [--warmup W] [--out TRUTH.json]
//              [--eager] [--nvtx] [--scale PCT] [--blocks FILE [--block-steps K]]
//              [--generates K]
//
// --eager launches the step's layer kernels one by one instead of replaying the graph (a
// C++ engine's eager CUDA backend: 4 L + 2 launches a step; --layers 124 makes about 500);
// --nvtx wraps the decode in decodeprof:decode and each step in decodeprof:step (NVTX);
// --scale PCT multiplies every spin time by PCT / 100 (default 100: shorter kernels make a
// host-bound step, where a tracer's per-launch cost shows); --blocks writes the wall time of
// every K decode steps (default 50) as lines "BEGIN_NS END_NS STEPS" on CLOCK_MONOTONIC, the
// recorder's clock: an in-process view of what a sampled recording costs between and
// inside its periods (tests/gpu/sampling_h200.sh, cppblocks). --generates K (default 1)
// repeats prefill + decode K times: every generate prints its own measured_start /
// decode_start / measured_end lines (and with --nvtx has its own decodeprof:decode range),
// the truth JSON gains "generates" and "decode_wall_ns_per_generate" (its "steps" and
// "decode_wall_ns" stay per generate and summed), and the last line says "K x N steps";
// not with --blocks (tests/gpu/finder_h200.sh).
//
// Build: nvcc -O2 -std=c++17 -arch=sm_90 -I../../include graph_loop.cu -o graph_loop -ldl
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "decodeprof/marks.h"

#define CHECK(call)                                                                         \
  do {                                                                                      \
    cudaError_t err_ = (call);                                                              \
    if (err_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "graph_loop: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

namespace {

__device__ __forceinline__ unsigned long long GlobalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ void Spin(unsigned long long ns) {
  const unsigned long long start = GlobalTimer();
  while (GlobalTimer() - start < ns) {
  }
}

}  // namespace

// Plain C names, so that the recorded names are exactly these.
extern "C" __global__ void gl_norm(unsigned long long ns) { Spin(ns); }
extern "C" __global__ void gl_qkv_gemm(unsigned long long ns) { Spin(ns); }
extern "C" __global__ void gl_attention_decode(unsigned long long ns) { Spin(ns); }
extern "C" __global__ void gl_mlp_gemm(unsigned long long ns) { Spin(ns); }
extern "C" __global__ void gl_lm_head(unsigned long long ns) { Spin(ns); }
extern "C" __global__ void gl_sample(int* token, unsigned long long ns) {
  Spin(ns);
  if (threadIdx.x == 0 && blockIdx.x == 0) *token += 1;
}
extern "C" __global__ void gl_prefill_attention(unsigned long long ns) { Spin(ns); }
extern "C" __global__ void gl_prefill_gemm(unsigned long long ns) { Spin(ns); }

namespace {

// Spin times of the step's kernels, in ns (times --scale / 100).
unsigned long long kNorm = 3000, kQkv = 9000, kAttn = 6000, kMlp = 14000, kLmHead = 20000,
                   kSample = 4000, kPrefillAttn = 40000, kPrefillGemm = 60000;

void Scale(int pct) {
  for (unsigned long long* t :
       {&kNorm, &kQkv, &kAttn, &kMlp, &kLmHead, &kSample, &kPrefillAttn, &kPrefillGemm}) {
    *t = *t * static_cast<unsigned long long>(pct) / 100;
  }
}

bool Flag(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return true;
  }
  return false;
}

void LayerKernels(cudaStream_t s, int layers) {
  for (int l = 0; l < layers; ++l) {
    gl_norm<<<1, 32, 0, s>>>(kNorm);
    gl_qkv_gemm<<<8, 128, 0, s>>>(kQkv);
    gl_attention_decode<<<4, 128, 0, s>>>(kAttn);
    gl_mlp_gemm<<<16, 128, 0, s>>>(kMlp);
  }
  gl_lm_head<<<32, 128, 0, s>>>(kLmHead);
}

int IntArg(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = IntArg(argc, argv, "--steps", 64);
  const int layers = IntArg(argc, argv, "--layers", 8);
  const int warmup = IntArg(argc, argv, "--warmup", 4);
  const int prefill_layers = layers;
  const bool eager = Flag(argc, argv, "--eager");
  const bool nvtx = Flag(argc, argv, "--nvtx");
  const int scale = IntArg(argc, argv, "--scale", 100);
  const char* out_path = nullptr;
  const char* blocks_path = nullptr;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--out") == 0) out_path = argv[i + 1];
    if (std::strcmp(argv[i], "--blocks") == 0) blocks_path = argv[i + 1];
  }
  const int block = IntArg(argc, argv, "--block-steps", 50);
  const int generates = IntArg(argc, argv, "--generates", 1);
  if (steps < 1 || layers < 1 || warmup < 0 || scale < 1 || scale > 10000 || block < 1 ||
      generates < 1 || (generates > 1 && blocks_path != nullptr)) {
    std::fprintf(stderr,
                 "usage: graph_loop [--steps N>=1] [--layers L>=1] [--warmup W>=0] "
                 "[--out TRUTH.json] [--eager] [--nvtx] [--scale 1..10000] "
                 "[--blocks FILE] [--block-steps K>=1] [--generates K>=1, not with "
                 "--blocks]\n");
    return 2;
  }
  Scale(scale);
  CHECK(cudaFree(nullptr));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int* token_dev = nullptr;
  int* token_host = nullptr;
  CHECK(cudaMalloc(&token_dev, sizeof(int)));
  CHECK(cudaMallocHost(&token_host, sizeof(int)));
  *token_host = 0;

  decodeprof_log_mark("warmup_start", decodeprof_clock_ns(CLOCK_MONOTONIC));
  for (int w = 0; w < warmup; ++w) {
    LayerKernels(stream, layers);
    gl_sample<<<1, 32, 0, stream>>>(token_dev, kSample);
    CHECK(cudaStreamSynchronize(stream));
  }
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  LayerKernels(stream, layers);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));

  // Each generate: the prefill, then the decode; the decode wall times kept for the truth.
  std::vector<long long> decode_wall_ns;
  long long t0 = 0;
  long long t1 = 0;
  // --blocks: the start of every block of --block-steps steps (CLOCK_MONOTONIC ns), kept in
  // memory and written after the decode (one line per block: begin end steps).
  std::vector<long long> block_starts;
  if (blocks_path != nullptr) block_starts.reserve(static_cast<size_t>(steps / block + 2));
  for (int g = 0; g < generates; ++g) {
    decodeprof_log_mark("measured_start", decodeprof_clock_ns(CLOCK_MONOTONIC));
    for (int l = 0; l < prefill_layers; ++l) {
      gl_norm<<<64, 32, 0, stream>>>(kNorm);
      gl_prefill_gemm<<<256, 128, 0, stream>>>(kPrefillGemm);
      gl_prefill_attention<<<128, 128, 0, stream>>>(kPrefillAttn);
      gl_prefill_gemm<<<512, 128, 0, stream>>>(kPrefillGemm);
    }
    gl_lm_head<<<32, 128, 0, stream>>>(kLmHead);
    gl_sample<<<1, 32, 0, stream>>>(token_dev, kSample);
    CHECK(cudaMemcpyAsync(token_host, token_dev, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));

    if (nvtx) {
      decodeprof_phase_begin(DECODEPROF_PHASE_DECODE);
    } else {
      decodeprof_log_mark("decode_start", decodeprof_clock_ns(CLOCK_MONOTONIC));
    }
    t0 = decodeprof_clock_ns(CLOCK_MONOTONIC);
    for (int s = 0; s < steps; ++s) {
      if (blocks_path != nullptr && s % block == 0) {
        block_starts.push_back(decodeprof_clock_ns(CLOCK_MONOTONIC));
      }
      if (nvtx) nvtxRangePushA("decodeprof:step");
      CHECK(cudaMemcpyAsync(token_dev, token_host, sizeof(int), cudaMemcpyHostToDevice, stream));
      if (eager) {
        LayerKernels(stream, layers);
      } else {
        CHECK(cudaGraphLaunch(exec, stream));
      }
      gl_sample<<<1, 32, 0, stream>>>(token_dev, kSample);
      CHECK(cudaMemcpyAsync(token_host, token_dev, sizeof(int), cudaMemcpyDeviceToHost, stream));
      CHECK(cudaStreamSynchronize(stream));
      if (nvtx) nvtxRangePop();
    }
    t1 = decodeprof_clock_ns(CLOCK_MONOTONIC);
    if (nvtx) nvtxRangePop();  // decodeprof:decode (the measured_end line follows)
    decodeprof_log_mark("measured_end", t1);
    decode_wall_ns.push_back(t1 - t0);
  }  // generates
  if (blocks_path != nullptr) {
    FILE* out = std::fopen(blocks_path, "w");
    if (out == nullptr) {
      std::perror(blocks_path);
      return 1;
    }
    for (size_t b = 0; b < block_starts.size(); ++b) {
      const long long end = b + 1 < block_starts.size() ? block_starts[b + 1] : t1;
      const int n = b + 1 < block_starts.size() ? block : steps - static_cast<int>(b) * block;
      std::fprintf(out, "%lld %lld %d\n", block_starts[b], end, n);
    }
    std::fclose(out);
  }

  const unsigned long long per_step_spin =
      static_cast<unsigned long long>(layers) * (kNorm + kQkv + kAttn + kMlp) + kLmHead + kSample;
  long long wall_ns = 0;  // all generates' decodes
  for (long long ns : decode_wall_ns) wall_ns += ns;
  if (out_path != nullptr) {
    FILE* out = std::fopen(out_path, "w");
    if (out == nullptr) {
      std::perror(out_path);
      return 1;
    }
    std::fprintf(out,
                 "{\"steps\": %d, \"layers\": %d, \"warmup_steps\": %d, "
                 "\"kernels_per_step\": %d, \"dispatches_per_step\": %d, "
                 "\"graph_nodes\": %d, \"spin_ns_per_step\": %llu, \"decode_wall_ns\": %lld, "
                 "\"final_token\": %d",
                 steps, layers, warmup, 4 * layers + 2, 4 * layers + 4, 4 * layers + 1,
                 per_step_spin, wall_ns, *token_host);
    if (generates > 1) {
      std::fprintf(out, ", \"generates\": %d, \"decode_wall_ns_per_generate\": [", generates);
      for (size_t g = 0; g < decode_wall_ns.size(); ++g) {
        std::fprintf(out, "%s%lld", g == 0 ? "" : ", ", decode_wall_ns[g]);
      }
      std::fprintf(out, "]");
    }
    std::fprintf(out, "}\n");
    std::fclose(out);
  }
  const double ms_per_step = static_cast<double>(wall_ns) / 1e6 / steps / generates;
  if (generates > 1) {
    std::printf("graph_loop: %d x %d steps, %.3f ms per step (%s, %d kernels a step)\n", generates,
                steps, ms_per_step, eager ? "eager" : "graph", 4 * layers + 2);
  } else {
    std::printf("graph_loop: %d steps, %.3f ms per step (%s, %d kernels a step)\n", steps,
                ms_per_step, eager ? "eager" : "graph", 4 * layers + 2);
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFreeHost(token_host));
  CHECK(cudaFree(token_dev));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
