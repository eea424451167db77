// A first-in first-out store of fixed-size records that keeps the first ones in memory and
// the rest in an unlinked temporary file: what lets a one-pass importer read a trace whose
// phase marks are known only at its end (Kineto, nsys, rocpd: the ranges come with the
// dispatches) while the process keeps a bounded amount of memory. Replayed in order, as often
// as needed (the window stage reads the dispatches once to project ranges, once to cut).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "src/base/status.h"
#include "src/trace/api_call.h"
#include "src/trace/dispatch.h"
#include "src/trace/dispatch_sink.h"

namespace decodeprof::trace {

// The temporary file under a spool: created on first write in $TMPDIR (else /tmp), removed
// from the directory at once, closed by the destructor. Errors are kept for Status().
class SpillFile {
 public:
  SpillFile() = default;
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  ~SpillFile();

  void Write(const void* data, size_t bytes);
  // Reads up to `bytes` from the current read position; returns the bytes read (0 at the end).
  size_t Read(void* data, size_t bytes);
  void Rewind();
  // Drops what was written (a later write starts a new file); an error is kept.
  void Clear();
  int64_t bytes_written() const { return written_; }
  // OK, or the first error of creating, writing or reading the file.
  const base::Status& status() const { return status_; }

 private:
  bool Open();
  int fd_ = -1;
  int64_t written_ = 0;
  base::Status status_ = base::OkStatus();
};

template <typename T>
class Spool {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // Records beyond `memory_records` go to the file, in blocks of `memory_records`.
  static constexpr size_t kDefaultMemoryRecords = size_t{1} << 18;
  explicit Spool(size_t memory_records = kDefaultMemoryRecords)
      : capacity_(memory_records > 0 ? memory_records : 1) {}

  void Add(const T& v) {
    if (buffer_.size() == capacity_) {
      file_.Write(buffer_.data(), buffer_.size() * sizeof(T));
      buffer_.clear();
    }
    buffer_.push_back(v);
    ++size_;
  }
  int64_t size() const { return size_; }
  int64_t spilled_bytes() const { return file_.bytes_written(); }

  // Calls fn(record) for every record, in the order added; the spool keeps them (Replay can
  // be called again).
  template <typename Fn>
  base::Status Replay(Fn&& fn) {
    DP_RETURN_IF_ERROR(ReplayFile([&](std::span<T> block) {
      for (const T& v : block) fn(v);
    }));
    for (const T& v : buffer_) fn(static_cast<const T&>(v));
    return base::OkStatus();
  }

  // Calls fn(record) for every record, in the order added; the spool is empty afterwards.
  template <typename Fn>
  base::Status Drain(Fn&& fn) {
    DP_RETURN_IF_ERROR(Replay(std::forward<Fn>(fn)));
    Clear();
    return base::OkStatus();
  }

  // Calls fn(block) with the records in the order added, a block (std::span<T>, which fn may
  // change) at a time; the spool is empty afterwards. For a consumer that hands records on in
  // blocks.
  template <typename Fn>
  base::Status DrainBlocks(Fn&& fn) {
    DP_RETURN_IF_ERROR(ReplayFile(fn));
    if (!buffer_.empty()) fn(std::span<T>(buffer_));
    Clear();
    return base::OkStatus();
  }

 private:
  void Clear() {
    buffer_ = {};
    size_ = 0;
    file_.Clear();
  }

  // fn(block) over the records in the file, in order, a block at a time.
  template <typename Fn>
  base::Status ReplayFile(Fn&& fn) {
    DP_RETURN_IF_ERROR(file_.status());  // a failed write lost records: never replay a part
    if (file_.bytes_written() == 0) return base::OkStatus();
    file_.Rewind();
    std::vector<T> block(std::min<size_t>(capacity_, size_t{1} << 16));
    int64_t from_file = 0;
    for (;;) {
      const size_t got = file_.Read(block.data(), block.size() * sizeof(T));
      if (got == 0) break;
      fn(std::span<T>(block.data(), got / sizeof(T)));
      from_file += static_cast<int64_t>(got);
    }
    DP_RETURN_IF_ERROR(file_.status());
    if (from_file != file_.bytes_written()) {
      return base::InternalError("spool", "the temporary file was cut short (" +
                                              std::to_string(from_file) + " of " +
                                              std::to_string(file_.bytes_written()) + " bytes)");
    }
    return base::OkStatus();
  }

  size_t capacity_;
  std::vector<T> buffer_;
  int64_t size_ = 0;
  SpillFile file_;
};

// The two spools of a one-pass import, as the builder's sinks.
class DispatchSpool final : public DispatchSink {
 public:
  explicit DispatchSpool(size_t memory_records = Spool<Dispatch>::kDefaultMemoryRecords)
      : spool_(memory_records) {}
  void Add(const Dispatch& d) override { spool_.Add(d); }
  Spool<Dispatch>& spool() { return spool_; }

 private:
  Spool<Dispatch> spool_;
};

class LaunchSpool final : public LaunchSink {
 public:
  explicit LaunchSpool(size_t memory_records = Spool<ApiCall>::kDefaultMemoryRecords)
      : spool_(memory_records) {}
  void Add(const ApiCall& call) override { spool_.Add(call); }
  Spool<ApiCall>& spool() { return spool_; }

 private:
  Spool<ApiCall> spool_;
};

}  // namespace decodeprof::trace
