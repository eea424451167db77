// Kernel classification: an ordered list of classes, each a set of RE2 patterns searched
// anywhere in the kernel name; the first class with a matching pattern wins, and a name no
// class matches is "other" (seed spec 2.6). This is the data-driven half of a Pack; the
// patterns come from a pack file (src/packs), never from C++.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/pack.h"
#include "src/base/status.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace decodeprof::analysis {

inline constexpr std::string_view kOtherClass = "other";
// The classes of memory operations (trace::DispatchKind), present in every pack: declared by
// it, or added after its classes (matched by kind only, never by name).
inline constexpr std::string_view kMemcpyClass = "memcpy";
inline constexpr std::string_view kMemsetClass = "memset";

struct ClassPattern {
  std::string regex;  // RE2 syntax, searched (not anchored)
  std::string where;  // "file:line" for errors; may be empty
};

struct ClassSpec {
  std::string name;
  std::vector<ClassPattern> patterns;  // alternatives; at least one
  bool case_sensitive = false;         // patterns ignore case unless set
  std::string where;                   // "file:line" of the class entry
  // What the class's kernels read from memory for the speed-of-light ledger (`moves = [...]`:
  // names of kMovableBytes, speed_of_light.h); empty = nothing counted.
  std::vector<std::string> moves = {};
};

class KernelClassifier {
 public:
  // Compiles every class. Errors (kConfig, at the spec's or pattern's `where`): no pattern,
  // a bad pattern (with RE2's error text), a duplicate or empty class name, a class named
  // "other" (it is implicit and always last), more classes than a ClassId holds.
  static base::StatusOr<KernelClassifier> Build(std::vector<ClassSpec> specs);

  KernelClassifier(KernelClassifier&&) noexcept;
  KernelClassifier& operator=(KernelClassifier&&) noexcept;
  ~KernelClassifier();

  // Class names in rule order, then memcpy and memset unless declared, "other" last.
  const std::vector<std::string>& class_names() const { return names_; }
  ClassId other_class() const { return static_cast<ClassId>(names_.size() - 1); }
  // The first class one of whose patterns occurs in `kernel_name`, else other_class().
  // Thread-safe (RE2 matching is const).
  ClassId Classify(std::string_view kernel_name) const;
  std::optional<ClassId> Find(std::string_view class_name) const;
  // Per class (as class_names()): the byte kinds its kernels move; empty for memcpy, memset,
  // other and classes that declare none.
  const std::vector<std::vector<std::string>>& class_moves() const { return moves_; }

 private:
  KernelClassifier() = default;

  std::vector<std::string> names_;
  std::vector<std::vector<std::string>> moves_;
  std::vector<std::unique_ptr<re2::RE2>> regexes_;  // one alternation per class
};

}  // namespace decodeprof::analysis
