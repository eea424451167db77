#include "bench/synth_trace_sink.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace decodeprof::bench {
namespace {

constexpr size_t kFlushBytes = 4u << 20;

void AppendU64(std::string& out, uint64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

// rocprofiler-sdk's stats_formatter (lib/output/statistics.cpp): a double above 0.01 prints
// std::fixed with 6 digits, otherwise std::scientific with 8.
std::string StatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v > 1.0e-2 ? "%.6f" : "%.8e", v);
  return buf;
}

// ... and a percentage: 2 fixed digits from 1, 4 above 0.01, else scientific with 3.
std::string StatPercent(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v >= 1.0 ? "%.2f" : (v > 1.0e-2 ? "%.4f" : "%.3e"), v);
  return buf;
}

}  // namespace

std::string RowTail(const KernelDef& kernel, const Op& op) {
  std::string s;
  for (uint64_t v : {uint64_t{kernel.lds}, uint64_t{kernel.scratch}, uint64_t{kernel.vgpr},
                     uint64_t{kernel.accum_vgpr}, uint64_t{kernel.sgpr}, uint64_t{kernel.wg_x},
                     uint64_t{kernel.wg_y}, uint64_t{kernel.wg_z}, uint64_t{op.grid_x},
                     uint64_t{op.grid_y}, uint64_t{op.grid_z}}) {
    s += ',';
    AppendU64(s, v);
  }
  s += '\n';
  return s;
}

uint64_t KernelIdFor(uint32_t index) {
  // rocprofv3 numbers every kernel symbol of the loaded code objects; the ones a run uses
  // are a sparse, increasing subset.
  return 37 + 3 * uint64_t{index} + (uint64_t{index} * 7919u) % 3;
}

TraceSink::TraceSink(const KernelTable* table, uint64_t thread_id) : table_(table) {
  row_head_ = "\"KERNEL_DISPATCH\",\"Agent 1\",1,0,";
  AppendU64(row_head_, thread_id);
  row_head_ += ',';
  stats_.resize(table->size());
  kernel_mid_.reserve(table->size());
  for (uint32_t i = 0; i < table->size(); ++i) {
    std::string mid;
    AppendU64(mid, KernelIdFor(i));
    mid += ",\"";
    mid += table->at(i).name;
    mid += "\",";
    kernel_mid_.push_back(std::move(mid));
  }
  buffer_.reserve(kFlushBytes + 4096);
}

TraceSink::~TraceSink() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove(tmp_path_.c_str());
  }
}

base::Status TraceSink::Open(const std::string& path) {
  path_ = path;
  tmp_path_ = path + ".tmp";
  file_ = std::fopen(tmp_path_.c_str(), "wb");
  if (file_ == nullptr) {
    return base::IoError(tmp_path_, std::string("cannot create: ") + std::strerror(errno));
  }
  buffer_ += kKernelTraceHeader;
  return base::OkStatus();
}

void TraceSink::Write(const Op& op, const std::string& tail, uint64_t correlation_id,
                      uint64_t start, uint64_t end) {
  buffer_ += row_head_;
  AppendU64(buffer_, next_dispatch_id_++);
  buffer_ += ',';
  buffer_ += kernel_mid_[op.kernel];
  AppendU64(buffer_, correlation_id);
  buffer_ += ',';
  AppendU64(buffer_, start);
  buffer_ += ',';
  AppendU64(buffer_, end);
  buffer_ += tail;

  Stat& s = stats_[op.kernel];
  const uint64_t d = end - start;
  s.min = s.calls == 0 ? d : std::min(s.min, d);
  s.max = std::max(s.max, d);
  ++s.calls;
  s.total += d;
  s.sum_sq += static_cast<double>(d) * static_cast<double>(d);

  if (buffer_.size() >= kFlushBytes) Flush();
}

void TraceSink::Flush() {
  if (buffer_.empty()) return;
  if (!write_failed_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    write_failed_ = true;
  }
  bytes_ += buffer_.size();
  buffer_.clear();
}

base::Status TraceSink::Close() {
  Flush();
  const bool close_failed = std::fclose(file_) != 0;
  file_ = nullptr;
  if (write_failed_ || close_failed) {
    std::remove(tmp_path_.c_str());
    return base::IoError(tmp_path_, "write failed (disk full?)");
  }
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp_path_.c_str());
    return base::IoError(path_, "cannot rename the finished trace into place: " + why);
  }
  return base::OkStatus();
}

std::string TraceSink::KernelStatsCsv() const {
  std::vector<uint32_t> order;
  uint64_t grand_total = 0;
  for (uint32_t i = 0; i < stats_.size(); ++i) {
    if (stats_[i].calls == 0) continue;
    order.push_back(i);
    grand_total += stats_[i].total;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return stats_[a].total > stats_[b].total; });
  std::string out =
      "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\","
      "\"StdDev\"\n";
  for (uint32_t i : order) {
    const Stat& s = stats_[i];
    const double n = static_cast<double>(s.calls);
    const double sum = static_cast<double>(s.total);
    const double variance = s.calls < 2 ? 0.0 : (s.sum_sq - sum * sum / n) / (n - 1.0);
    out += '"';
    out += table_->at(i).name;
    out += "\",";
    AppendU64(out, s.calls);
    out += ',';
    AppendU64(out, s.total);
    out += ',';
    out += StatDouble(sum / n);
    out += ',';
    out += StatPercent(sum / static_cast<double>(grand_total) * 100.0);
    out += ',';
    AppendU64(out, s.min);
    out += ',';
    AppendU64(out, s.max);
    out += ',';
    out += StatDouble(std::sqrt(std::fabs(variance)));
    out += '\n';
  }
  return out;
}

}  // namespace decodeprof::bench
