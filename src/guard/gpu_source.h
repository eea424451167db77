// decodeprof::guard — where the GPU holders come from.
//
// A GpuHolderSource answers "which processes hold a GPU right now, and how busy is each
// device": AMD through the KFD process directory (seed spec 1.3), NVIDIA through NVML
// (nvml_source.h). The Sampler (sampler.h) turns one reading plus one /proc snapshot into
// the holder, foreign and compiler lists of a sample.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::guard {

struct GpuProcess {
  std::string id;   // a decimal pid (KFD: the entry name as found, which may be anything)
  int device = -1;  // index into GpuReading::devices, or -1 (KFD: not tied to a device)
};

struct GpuDevice {
  int index = 0;                                // the backend's device index
  std::optional<unsigned> utilization_percent;  // unknown when the backend cannot tell
  int process_count = 0;                        // entries of `processes` on this device
};

struct GpuReading {
  std::vector<GpuProcess> processes;  // source order, no duplicates per device
  std::vector<GpuDevice> devices;     // NVML only
};

class GpuHolderSource {
 public:
  virtual ~GpuHolderSource() = default;
  // One reading. An error means the guard cannot tell whether the GPU is quiet: the sample
  // then counts as busy (idle wait) and as contended (monitor), naming the error.
  virtual base::StatusOr<GpuReading> Read() = 0;
  // "kfd proc empty" or the NVML counterpart: how an idle note says "no holder".
  virtual const char* EmptyPhrase() const = 0;
  // Short description for the note of `--gpu auto`, e.g. "KFD /sys/class/kfd/kfd/proc".
  virtual std::string Describe() const = 0;
};

// AMD: every entry of `dir` (dot-entries skipped, sorted) is a holder; devices are empty.
class KfdSource final : public GpuHolderSource {
 public:
  explicit KfdSource(std::string dir) : dir_(std::move(dir)) {}
  base::StatusOr<GpuReading> Read() override;
  const char* EmptyPhrase() const override;
  std::string Describe() const override { return "KFD " + dir_; }

 private:
  std::string dir_;
};

// Default KFD process directory, and whether a directory exists.
inline constexpr char kDefaultKfdDir[] = "/sys/class/kfd/kfd/proc";
bool IsDirectory(const std::string& path);

}  // namespace decodeprof::guard
