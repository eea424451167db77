// decodeprof::guard — one sample: GPU holders, foreign holders and compilers (seed spec 1.3).
//
// A sample is one GPU reading followed by one /proc snapshot; every list of the sample is
// computed from those two, so a sample never contradicts itself.
//
// Holders (what `gpu=[...]` prints and what must be empty for the GPU to be idle):
//   * every GPU process as `pid:comm` (comm "?" when the pid is not in our /proc), in the
//     source's order, each pid once;
//   * NVML only: `nvidia<i>:util=<u>%` for a device busier than kBusyPercent on which NVML
//     lists no process at all (a process in another container or VM);
//   * `error(<what>)` when the GPU could not be read (never idle, always contended).
// Foreign holders, relative to the monitored command `root`:
//   * a pid in our /proc that does not descend from `root` (parent links, seed 1.3);
//   * a pid NOT in our /proc: on AMD a stale KFD entry of a reaped process (#2065), never
//     foreign; on NVIDIA a process of another PID namespace, foreign when its device is
//     busier than kBusyPercent (NVML lists only live contexts; an idle context elsewhere
//     does not disturb a measurement);
//   * `nvidia<i>:util=<u>%` when the same device was busy with no listed process in the
//     previous sample too: NVML averages utilization over up to one second, so the
//     command's own process can leave one such reading right after it exits;
//   * `error(<what>)`.
// Compilers: every process of the snapshot whose comm matches the compiler pattern,
// anywhere on the host, the command's own children included.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"
#include "src/guard/gpu_source.h"
#include "src/guard/proc_fs.h"

namespace re2 {
class RE2;
}

namespace decodeprof::guard {

// A device busier than this (percent) with no visible process counts as used by others.
inline constexpr unsigned kBusyPercent = 10;

// The seed's compiler regex (seed spec 1.3): whole comm, drivers (make, ninja) excluded.
inline constexpr char kDefaultCompilerRe[] =
    "^(cargo|rustc|clang|clang\\+\\+|clang-[0-9]+|hipcc|nvcc|cc1|cc1plus|ld|ld\\.lld|ld\\.gold|"
    "ld\\.bfd|lld|collect2)$";

// A compiled compiler pattern (RE2 syntax; unanchored search, as bash's =~).
class CompilerPattern {
 public:
  // kConfig error naming the pattern when it does not compile.
  static base::StatusOr<CompilerPattern> Compile(const std::string& pattern);
  bool Matches(std::string_view comm) const;

 private:
  explicit CompilerPattern(std::shared_ptr<const re2::RE2> re) : re_(std::move(re)) {}
  std::shared_ptr<const re2::RE2> re_;
};

struct Sample {
  std::vector<std::string> holders;
  std::vector<std::string> compilers;
  bool quiet() const { return holders.empty() && compilers.empty(); }

  // What the lists were computed from (used by Sampler::Foreign).
  ProcSnapshot snapshot;
  GpuReading reading;
  std::optional<std::string> read_error;    // set when the GPU reading failed
  std::vector<std::string> confirmed_busy;  // `nvidia<i>:util=<u>%`, two samples in a row
};

class Sampler {
 public:
  Sampler(ProcFs* proc, GpuHolderSource* gpu, CompilerPattern compilers)
      : proc_(proc), gpu_(gpu), compilers_(std::move(compilers)) {}

  // Takes one sample (GPU first, then /proc, so every live holder is in the snapshot).
  Sample Take();

  // The foreign holders of `sample` for the command whose pid is `root`.
  static std::vector<std::string> Foreign(const Sample& sample, int64_t root);

  GpuHolderSource* gpu() const { return gpu_; }

 private:
  ProcFs* proc_;
  GpuHolderSource* gpu_;
  CompilerPattern compilers_;
  std::vector<int> busy_without_process_;  // device indexes so in the previous sample
};

// Comma-joined list, as the seed prints `gpu=[a,b]`.
std::string JoinList(const std::vector<std::string>& items);

}  // namespace decodeprof::guard
