// A bounded pool of CUPTI activity buffers (style.md 7.8 rule 3).
//
// CUPTI asks for buffers from any thread (bufferRequested) and hands them back full
// (bufferCompleted); the drain thread returns them after writing their records. At most
// `max_buffers` are out at once: past that Acquire() refuses, CUPTI drops records and counts
// them, and the refusal is counted here. Thread-safe; the lock is held only around the free
// list, never while calling anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace decodeprof::record::cupti {

class BufferPool {
 public:
  // CUPTI requires 8-byte aligned buffers.
  static constexpr size_t kAlignment = 8;

  BufferPool(size_t buffer_bytes, size_t max_buffers)
      : buffer_bytes_(buffer_bytes), max_buffers_(max_buffers) {}
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A buffer of buffer_bytes(), or nullptr when max_buffers are out (or memory is short).
  uint8_t* Acquire();
  // Returns a buffer from Acquire(); it is kept for reuse.
  void Release(uint8_t* buffer);

  size_t buffer_bytes() const { return buffer_bytes_; }
  int64_t refusals() const;
  size_t outstanding() const;

 private:
  const size_t buffer_bytes_;
  const size_t max_buffers_;
  mutable std::mutex mu_;  // guards the fields below; a leaf lock
  std::vector<uint8_t*> free_;
  size_t allocated_ = 0;
  size_t outstanding_ = 0;
  int64_t refusals_ = 0;
};

}  // namespace decodeprof::record::cupti
