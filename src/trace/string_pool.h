// Interned strings: kernel names repeat millions of times in a trace but only a few hundred
// are distinct, so dispatches carry a 32-bit StringId instead of a string.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace decodeprof::trace {

using StringId = uint32_t;

class StringPool {
 public:
  // Returns the id of `text`, adding it on first sight. Ids are dense, starting at 0, in
  // first-seen order.
  StringId Intern(std::string_view text);
  std::string_view Get(StringId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::deque<std::string> strings_;  // deque: stable addresses for the map's views
  std::unordered_map<std::string_view, StringId, Hash, std::equal_to<>> index_;
};

}  // namespace decodeprof::trace
