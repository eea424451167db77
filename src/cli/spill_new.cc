// decodeprof's own operator new and delete: blocks of base::spill::kMinBytes or more go to a
// file when the large blocks pass the memory budget (src/base/spill.h), the rest to
// malloc as usual. Only the decodeprof program links this file; the recorder's library, which
// runs inside the programs it records, never replaces their allocator.
#include <cstdlib>
#include <new>

#include "src/base/spill.h"

namespace {

// A block malloc gave: large ones count against the spill's budget (spill::NoteInMemory reads
// the size malloc gave, which Release reads again) in place of the `reserved` bytes
// spill::Allocate set aside for it (0 where it was not asked).
void* SpillNewNoted(void* p, std::size_t bytes, std::size_t reserved) {
  if (reserved > 0 || (p != nullptr && bytes >= decodeprof::base::spill::kMinBytes / 2)) {
    decodeprof::base::spill::NoteInMemory(p, reserved);
  }
  return p;
}

// operator new's way with a malloc that fails: the new handler until there is none, then
// std::bad_alloc.
template <typename Allocate>
void* SpillNewRetrying(std::size_t bytes, std::size_t reserved, Allocate allocate) {
  for (;;) {
    if (void* p = SpillNewNoted(allocate(), bytes, reserved)) return p;
    reserved = 0;  // a failed malloc gave the reservation back
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void* SpillNewAllocate(std::size_t bytes) {
  std::size_t reserved = 0;
  if (bytes >= decodeprof::base::spill::kMinBytes) {
    if (void* p = decodeprof::base::spill::Allocate(bytes)) return p;
    reserved = bytes;
  }
  return SpillNewRetrying(bytes, reserved, [bytes] { return std::malloc(bytes == 0 ? 1 : bytes); });
}

void* SpillNewAllocateAligned(std::size_t bytes, std::align_val_t align) {
  const auto alignment = static_cast<std::size_t>(align);
  // The spill's blocks are page-aligned.
  std::size_t reserved = 0;
  if (bytes >= decodeprof::base::spill::kMinBytes && alignment <= 4096) {
    if (void* p = decodeprof::base::spill::Allocate(bytes)) return p;
    reserved = bytes;
  }
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  return SpillNewRetrying(bytes, reserved, [alignment, rounded] {
    return std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  });
}

void SpillNewRelease(void* p) noexcept {
  if (decodeprof::base::spill::Owns(p)) {
    decodeprof::base::spill::Free(p);
  } else {
    decodeprof::base::spill::NoteFreed(p);
    std::free(p);
  }
}

}  // namespace

// NOLINTBEGIN(misc-new-delete-overloads,cert-dcl54-cpp,hicpp-new-delete-operators)
void* operator new(std::size_t bytes) { return SpillNewAllocate(bytes); }
void* operator new[](std::size_t bytes) { return SpillNewAllocate(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t& /*tag*/) noexcept {
  try {
    return SpillNewAllocate(bytes);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, const std::nothrow_t& /*tag*/) noexcept {
  try {
    return SpillNewAllocate(bytes);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t bytes, std::align_val_t align) {
  return SpillNewAllocateAligned(bytes, align);
}
void* operator new[](std::size_t bytes, std::align_val_t align) {
  return SpillNewAllocateAligned(bytes, align);
}
void* operator new(std::size_t bytes, std::align_val_t align,
                   const std::nothrow_t& /*tag*/) noexcept {
  try {
    return SpillNewAllocateAligned(bytes, align);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, std::align_val_t align,
                     const std::nothrow_t& /*tag*/) noexcept {
  try {
    return SpillNewAllocateAligned(bytes, align);
  } catch (...) {
    return nullptr;
  }
}

void operator delete(void* p) noexcept { SpillNewRelease(p); }
void operator delete[](void* p) noexcept { SpillNewRelease(p); }
void operator delete(void* p, std::size_t /*bytes*/) noexcept { SpillNewRelease(p); }
void operator delete[](void* p, std::size_t /*bytes*/) noexcept { SpillNewRelease(p); }
void operator delete(void* p, const std::nothrow_t& /*tag*/) noexcept { SpillNewRelease(p); }
void operator delete[](void* p, const std::nothrow_t& /*tag*/) noexcept { SpillNewRelease(p); }
void operator delete(void* p, std::align_val_t /*align*/) noexcept { SpillNewRelease(p); }
void operator delete[](void* p, std::align_val_t /*align*/) noexcept { SpillNewRelease(p); }
void operator delete(void* p, std::size_t /*bytes*/, std::align_val_t /*align*/) noexcept {
  SpillNewRelease(p);
}
void operator delete[](void* p, std::size_t /*bytes*/, std::align_val_t /*align*/) noexcept {
  SpillNewRelease(p);
}
void operator delete(void* p, std::align_val_t /*align*/, const std::nothrow_t& /*tag*/) noexcept {
  SpillNewRelease(p);
}
void operator delete[](void* p, std::align_val_t /*align*/,
                       const std::nothrow_t& /*tag*/) noexcept {
  SpillNewRelease(p);
}
// NOLINTEND(misc-new-delete-overloads,cert-dcl54-cpp,hicpp-new-delete-operators)
