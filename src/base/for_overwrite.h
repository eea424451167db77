// Vectors whose new elements a caller may leave to be written later (C++23's
// resize_and_overwrite for vectors of plain records): growing a window of millions of
// dispatches by resize() writes every byte once on the calling thread before the threads
// that fill it write it again.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace decodeprof::base {

namespace for_overwrite_internal {
// Set by ResizeForOverwrite around its resize(): the elements it adds are not initialized.
inline thread_local bool t_skip = false;
}  // namespace for_overwrite_internal

// std::allocator, except that the elements ResizeForOverwrite adds are left as they are
// (debug builds fill them with 0xA5 bytes, so that a caller that reads one it did not write
// sees nonsense, not zeros). Every other way to make elements is std::allocator's.
template <typename T>
class ForOverwriteAllocator : public std::allocator<T> {
 public:
  // (std::allocator_traits rebinds it to ForOverwriteAllocator<U> by its first argument.)
  ForOverwriteAllocator() = default;
  template <typename U>
  ForOverwriteAllocator(const ForOverwriteAllocator<U>& /*other*/) noexcept {}  // NOLINT

  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) {
      static_assert(std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>);
      if (for_overwrite_internal::t_skip) {
#ifndef NDEBUG
        std::memset(static_cast<void*>(p), 0xA5, sizeof(U));
#endif
        return;
      }
    }
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using ForOverwriteVector = std::vector<T, ForOverwriteAllocator<T>>;

// v.resize(n), the elements added left for the caller to write (every one, before any is
// read). T: a plain record (trivially copyable and destructible).
template <typename T>
void ResizeForOverwrite(ForOverwriteVector<T>& v, size_t n) {
  for_overwrite_internal::t_skip = true;
  try {
    v.resize(n);
  } catch (...) {
    for_overwrite_internal::t_skip = false;
    throw;
  }
  for_overwrite_internal::t_skip = false;
}

}  // namespace decodeprof::base
