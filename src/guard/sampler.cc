#include "src/guard/sampler.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>

#include "src/base/parse.h"
#include "src/base/pattern.h"

namespace decodeprof::guard {
namespace {

bool DeviceBusy(const GpuReading& reading, int device) {
  if (device < 0 || static_cast<size_t>(device) >= reading.devices.size()) return false;
  const auto& util = reading.devices[static_cast<size_t>(device)].utilization_percent;
  return util.has_value() && *util > kBusyPercent;
}

std::string BusyLabel(const GpuDevice& device) {
  return fmt::format("nvidia{}:util={}%", device.index, device.utilization_percent.value_or(0));
}

std::optional<int64_t> PidOf(const std::string& id) {
  const std::optional<uint64_t> pid = base::ParseUnsigned(id);
  if (!pid || *pid > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(*pid);
}

}  // namespace

base::StatusOr<CompilerPattern> CompilerPattern::Compile(const std::string& pattern) {
  auto re = base::CompilePattern(pattern);
  if (!re.ok()) return base::ConfigError("", re.status().message());
  return CompilerPattern(std::shared_ptr<const re2::RE2>(std::move(*re)));
}

bool CompilerPattern::Matches(std::string_view comm) const {
  return RE2::PartialMatch(re2::StringPiece(comm.data(), comm.size()), *re_);
}

Sample Sampler::Take() {
  Sample sample;
  base::StatusOr<GpuReading> reading = gpu_->Read();
  sample.snapshot = proc_->Snapshot();
  if (!reading.ok()) {
    sample.read_error = "error(" + reading.status().ToString() + ")";
    sample.holders.push_back(*sample.read_error);
    busy_without_process_.clear();
  } else {
    sample.reading = std::move(reading).value();
    std::vector<std::string> seen;
    for (const GpuProcess& process : sample.reading.processes) {
      if (std::find(seen.begin(), seen.end(), process.id) != seen.end()) continue;
      seen.push_back(process.id);
      const std::optional<int64_t> pid = PidOf(process.id);
      sample.holders.push_back(process.id + ":" +
                               (pid ? sample.snapshot.CommOrUnknown(*pid) : std::string("?")));
    }
    std::vector<int> busy_now;
    for (const GpuDevice& device : sample.reading.devices) {
      if (device.process_count != 0 || !DeviceBusy(sample.reading, device.index)) continue;
      busy_now.push_back(device.index);
      sample.holders.push_back(BusyLabel(device));
      if (std::find(busy_without_process_.begin(), busy_without_process_.end(), device.index) !=
          busy_without_process_.end()) {
        sample.confirmed_busy.push_back(BusyLabel(device));
      }
    }
    busy_without_process_ = std::move(busy_now);
  }
  for (const auto& [pid, stat] : sample.snapshot.processes()) {
    if (compilers_.Matches(stat.comm))
      sample.compilers.push_back(fmt::format("{}:{}", pid, stat.comm));
  }
  return sample;
}

std::vector<std::string> Sampler::Foreign(const Sample& sample, int64_t root) {
  std::vector<std::string> foreign;
  if (sample.read_error) {
    foreign.push_back(*sample.read_error);
    return foreign;
  }
  std::vector<std::string> seen;
  for (const GpuProcess& process : sample.reading.processes) {
    if (std::find(seen.begin(), seen.end(), process.id) != seen.end()) continue;
    seen.push_back(process.id);
    const std::optional<int64_t> pid = PidOf(process.id);
    if (pid && sample.snapshot.Exists(*pid)) {
      if (!sample.snapshot.DescendsFrom(*pid, root)) {
        foreign.push_back(process.id + ":" + sample.snapshot.CommOrUnknown(*pid));
      }
    } else {
      // Not in our /proc: foreign only while a device it is on is busy (see sampler.h).
      const bool busy =
          std::any_of(sample.reading.processes.begin(), sample.reading.processes.end(),
                      [&](const GpuProcess& p) {
                        return p.id == process.id && DeviceBusy(sample.reading, p.device);
                      });
      if (busy) foreign.push_back(process.id + ":?");
    }
  }
  foreign.insert(foreign.end(), sample.confirmed_busy.begin(), sample.confirmed_busy.end());
  return foreign;
}

std::string JoinList(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += ',';
    text += item;
  }
  return text;
}

}  // namespace decodeprof::guard
