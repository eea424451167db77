// The recorder's configuration, read once from the environment that `decodeprof record`
// sets (style.md 7.8 rule 2). Every value is parsed strictly; docs/recording.md lists them.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::record::cupti {

struct RecorderConfig {
  // Whether this process records at all: off when DECODEPROF_RECORD_OUTPUT is unset, and in
  // a child process (pid != DECODEPROF_RECORD_ROOT_PID) unless following children.
  bool enabled = false;
  std::string output;                // DECODEPROF_RECORD_OUTPUT; a followed child's gets ".<pid>"
  bool follow_fork = false;          // DECODEPROF_RECORD_FOLLOW_FORK = 0|1
  std::string cupti_lib;             // DECODEPROF_CUPTI_LIB: loaded unless a CUPTI already is
  uint64_t buffer_bytes = 4u << 20;  // DECODEPROF_RECORD_BUFFER_KB (4096): one CUPTI buffer
  uint64_t max_buffers = 64;         // DECODEPROF_RECORD_MAX_BUFFERS: buffers out at once
  uint64_t commit_ms = 200;          // DECODEPROF_RECORD_COMMIT_MS: longest time between commits
  uint64_t flush_ms = 1000;          // DECODEPROF_RECORD_FLUSH_MS: CUPTI flush period, 0 = at exit
  bool api_calls = true;             // DECODEPROF_RECORD_API = 0|1: launch API records
  bool memory_ops = true;            // DECODEPROF_RECORD_MEMORY = 0|1: memcpy/memset records
  bool quiet = false;                // DECODEPROF_RECORD_QUIET = 0|1: no warnings on stderr
  // DECODEPROF_RECORD_CLOCK = callback|offset: how CUPTI's times reach CLOCK_MONOTONIC —
  // CUPTI calls our clock for every timestamp (callback), or CUPTI keeps its own clock and
  // the offset measured once at start is added (offset; assumes that clock does not step).
  enum class Clock { kCallback, kOffset } clock = Clock::kCallback;
  // DECODEPROF_RECORD_DISCARD = 0|1: hand CUPTI's buffers back unread and write no activity
  // rows — for measuring what writing the file costs the program (docs/recording.md).
  bool discard = false;
  // DECODEPROF_RECORD_ONLY_RANGE = NAME: CUPTI's activity kinds (kernels, memcpy/memset,
  // launch API calls) are on only while an NVTX range of exactly this message is open, any
  // domain (range_gate.h); "" = always on. NVTX ranges and marks are recorded regardless.
  std::string only_range;
  // DECODEPROF_RECORD_SAMPLE_STEPS = N (1..1000000; 1 = off): CUPTI's activity kinds are on
  // only in one step in N — the gate (range_gate.h) on the ranges named
  // DECODEPROF_RECORD_STEP_RANGE (default decodeprof:step), never with only_range.
  uint64_t sample_steps = 1;
  std::string step_range = "decodeprof:step";
  // The gate's range name and sampling: only_range, or step_range when sampling.
  std::string gate_range() const { return sample_steps > 1 ? step_range : only_range; }
  // DECODEPROF_RECORD_SAMPLE_TIME = ON/PERIOD (milliseconds, 1 <= ON < PERIOD <= 3600000):
  // CUPTI's activity kinds are on for ON ms of every PERIOD ms, switched by a timer (for
  // programs without NVTX step ranges); 0/0 = off. Not with sample_steps or only_range.
  uint64_t sample_on_ms = 0;
  uint64_t sample_period_ms = 0;
  bool sampling() const { return sample_steps > 1 || sample_period_ms > 0; }
  // DECODEPROF_RECORD_API_GATE = time|switch|off: how a gated or sampled recording treats
  // the launch API records. time (default): always on, those outside the periods dropped by
  // host time (CUPTI 13.0 does not turn per-API records back on once switched off); switch:
  // the runtime and driver API kinds switched with the gate like the kernels (every call of
  // those APIs recorded in the periods, the non-launch ones dropped); off: none recorded.
  enum class ApiGate { kTime, kSwitch, kOff } api_gate = ApiGate::kTime;
  // DECODEPROF_RECORD_DETACH = 0|1: between the periods of a gated or sampled recording,
  // detach CUPTI from the process (cuptiFinalize) and attach it again when the next period
  // begins. A CUPTI that recorded kernels once keeps costing the program at every launch
  // after its kinds are disabled (H200, CUPTI 13.0: docs/results/h200-sampling-*.md);
  // detached, the program runs as if untraced. Default: off: detaching killed programs
  // (H200, CUPTI 13.0: a PyTorch CUDA-graph decode, where attaching again failed with
  // CUPTI_ERROR_NOT_INITIALIZED, and llama.cpp), and even when asked for, the recorder never
  // detaches once the program has captured, instantiated or launched a CUDA graph.
  bool detach = false;
  // DECODEPROF_RECORD_PERIOD_END = wait|switch: how a gated or sampled period ends when CUDA
  // graphs were launched in it. wait (default): recording stays on until the work of those
  // launches has finished on the GPU (an event recorded after each launch, polled by the
  // recorder); switch: off when the range closes (a later unrecorded replay of the graph may
  // overwrite the records of one still running: recorder.h).
  enum class PeriodEnd { kWait, kSwitch } period_end = PeriodEnd::kWait;
  // DECODEPROF_RECORD_GRAPH_STEPS = 0|1 (default 1): with sample_steps, CUDA graph launches
  // are the steps until a step range opens (range_gate.h, OpenGraph).
  bool graph_steps = true;
  // DECODEPROF_RECORD_SAMPLE_STRETCH = k (0..1000, default 3): with sample_steps, when a
  // sampled step's GPU work finished D steps after its range closed (the host ran ahead),
  // the next sampled step comes at least (k + 1)(D + 1) steps after it (range_gate.h); 0 =
  // never stretch.
  uint64_t sample_stretch = 3;
  // Measurement knobs of a gated or sampled recording (docs/recording.md):
  // DECODEPROF_RECORD_ENABLE_AT_ATTACH = 0|1 (default 1): enable the switched kinds when CUPTI
  // attaches (a refusal is found at start) or only at the first period;
  // DECODEPROF_RECORD_GRAPH_WATCH = 0|1 (default 1): subscribe to the graph launch and graph
  // making callbacks (0: no graph steps, no waiting for a period's graphs).
  bool enable_at_attach = true;
  bool graph_watch = true;
  // DECODEPROF_CUDA_DRIVER_LIB: the loaded library to find the driver's entry points in
  // ("" = libcuda.so.1; tests name their stand-in).
  std::string driver_lib;
};

using GetEnvFn = std::function<const char*(const char*)>;

// Reads the configuration of process `pid`. Errors (kConfig, where = the variable): a value
// that is not of its form (integers: plain decimal within their range; switches: 0 or 1;
// the range name: record::OnlyRangeNameProblem).
// `*output_if_known` (may be null) receives this process's output path as soon as it is
// known, so that after an error the caller can still say why in the file.
base::StatusOr<RecorderConfig> ReadRecorderConfig(const GetEnvFn& getenv, pid_t pid,
                                                  std::string* output_if_known);

// The meta keys a process of a multi-process job records about its place in the job (issue
// "Tensor-parallel decode on two GPUs"; docs/trace-format.md, docs/multi-gpu.md), in this
// order, each only when known:
//   rank, world_size, local_rank  decimal; from the first launcher's variables that set a
//                                 rank: torchrun's RANK / WORLD_SIZE / LOCAL_RANK, Open MPI's
//                                 OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK, Slurm's
//                                 SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID;
//   rank_source                   the variable the rank came from ("RANK", ...);
//   rank_problem                  why a variable was not used: a value that is not a plain
//                                 decimal integer, a rank not below world_size;
//   run_id                        "<DECODEPROF_RECORD_ROOT_PID>:<DECODEPROF_RECORD_OUTPUT>"
//                                 (the launcher's, before the child's .<pid>): the same in
//                                 every process of one `decodeprof record`;
//   cuda_visible_devices          CUDA_VISIBLE_DEVICES as set.
// Never fails: the recorder must not stop a job over a launcher's variables.
std::vector<std::pair<std::string, std::string>> JobMeta(const GetEnvFn& getenv);

// "<dir>/trace.sqlite" + pid 42 → "<dir>/trace.42.sqlite"; without ".sqlite": "<path>.42".
std::string ChildOutputPath(const std::string& output, pid_t pid);

}  // namespace decodeprof::record::cupti
