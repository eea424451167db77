#include "src/record/cupti/buffer_pool.h"

#include <cstdlib>

namespace decodeprof::record::cupti {

BufferPool::~BufferPool() {
  for (uint8_t* buffer : free_) std::free(buffer);
}

uint8_t* BufferPool::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!free_.empty()) {
    uint8_t* buffer = free_.back();
    free_.pop_back();
    ++outstanding_;
    return buffer;
  }
  if (allocated_ >= max_buffers_) {
    ++refusals_;
    return nullptr;
  }
  auto* buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, buffer_bytes_));
  if (buffer == nullptr) {
    ++refusals_;
    return nullptr;
  }
  ++allocated_;
  ++outstanding_;
  return buffer;
}

void BufferPool::Release(uint8_t* buffer) {
  if (buffer == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(buffer);
  if (outstanding_ > 0) --outstanding_;
}

int64_t BufferPool::refusals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refusals_;
}

size_t BufferPool::outstanding() const {
  std::lock_guard<std::mutex> lock(mu_);
  return outstanding_;
}

}  // namespace decodeprof::record::cupti
