// A rule pack: engine knowledge as data (ARCHITECTURE.md "Rule packs and units").
//
//   classes — ordered kernel-name patterns (RE2), first match wins, else "other";
//   roles   — rules that label each decode dispatch with the op that produced it.
//
// A Pack is built by src/packs from a TOML file and is immutable afterwards. This header is
// the contract the analysis uses; the rule kinds live in roles.h / classify.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/trace/diagnostics_list.h"
#include "src/trace/dispatch.h"
#include "src/trace/string_pool.h"

namespace decodeprof::analysis {

using ClassId = uint16_t;  // index into Pack::class_names()
using RoleId = int16_t;    // index into Pack::role_names()
inline constexpr RoleId kNoRole = -1;

class RangeIndex;  // range_index.h

// A launch time that is not known (the dispatch has no matching API call).
inline constexpr trace::TimestampNs kUnknownLaunch = INT64_MIN;

// A class's kernels in a sequence: how many, and the widest grid among them
// (SequenceView::class_grids).
struct ClassGrids {
  size_t kernels = 0;
  int64_t widest = INT64_MIN;
};

// The decode sequence as role rules see it: dispatches in start order (stable), their
// classes, and whether the trace carried grid sizes at all.
//
// Optional launch context, for the op_path rule (traces that record API calls and
// annotation ranges, e.g. decodeprof's native trace; empty / null otherwise):
//   launch_thread, launch_time — per dispatch (same length as `dispatches`, or empty): the
//     OS thread that launched it and the launch call's start (ns, the trace's host clock);
//     kUnknownLaunch when the launch was not recorded;
//   ranges — the trace's annotation ranges (names in `names`), indexed per thread.
struct SequenceView {
  std::span<const trace::Dispatch> dispatches;
  const trace::StringPool* names = nullptr;
  std::span<const ClassId> classes;
  bool has_grid = true;
  std::span<const uint64_t> launch_thread;
  std::span<const trace::TimestampNs> launch_time;
  const RangeIndex* ranges = nullptr;
  // The dispatches' names again, one per dispatch, packed: rules that look at every position
  // read these (a few MB) instead of the dispatches (48 bytes each). Empty: read the
  // dispatches (NameAt).
  std::span<const trace::StringId> name_ids;
  // A compact view (the kernels of a window that also holds memory operations, without a
  // copy of their dispatches): no `dispatches`, and per position its name in `name_ids` and
  // its grid here. Empty otherwise (GridAt reads the dispatches).
  std::span<const int64_t> grids;
  // Per class (by ClassId), where the caller counted them in a pass it made anyway: the rules
  // that need a class's widest grid before they scan (tail_after_widest) read it here instead
  // of making a pass of their own, which every rule after them waited for. Empty: they make it.
  std::span<const ClassGrids> class_grids;
};

// The positions of `seq`: its dispatches, or those of a compact view (its name_ids).
inline size_t SizeOf(const SequenceView& seq) {
  return seq.dispatches.empty() ? seq.name_ids.size() : seq.dispatches.size();
}
// The name of dispatch `i` of `seq`.
inline trace::StringId NameAt(const SequenceView& seq, size_t i) {
  return seq.name_ids.empty() ? seq.dispatches[i].name : seq.name_ids[i];
}
// The grid of dispatch `i` of `seq`.
inline int64_t GridAt(const SequenceView& seq, size_t i) {
  return seq.grids.empty() ? seq.dispatches[i].grid : seq.grids[i];
}

class Pack {
 public:
  virtual ~Pack() = default;

  virtual const std::string& name() const = 0;
  // Class names in rule order, with "other" last (it matches when nothing else does).
  virtual const std::vector<std::string>& class_names() const = 0;
  ClassId other_class() const { return static_cast<ClassId>(class_names().size() - 1); }
  // First matching class of a kernel name, or other_class(). Callers memoize per StringId.
  virtual ClassId Classify(std::string_view kernel_name) const = 0;

  // The class of a dispatch: by name for kernels, the memcpy / memset class for memory
  // operations (every pack has them, classify.h).
  ClassId ClassOf(const trace::Dispatch& d, std::string_view name) const {
    if (d.kind == trace::DispatchKind::kKernel) return Classify(name);
    const std::string_view wanted = d.kind == trace::DispatchKind::kMemcpy ? "memcpy" : "memset";
    const auto& names = class_names();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == wanted) return static_cast<ClassId>(i);
    }
    return other_class();
  }
  // Role names in declaration order.
  virtual const std::vector<std::string>& role_names() const = 0;
  std::optional<RoleId> FindRole(std::string_view role) const {
    const auto& names = role_names();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == role) return static_cast<RoleId>(i);
    }
    return std::nullopt;
  }
  // Per class (as class_names()): the byte kinds of the speed-of-light ledger its kernels
  // move (`moves` in the pack; speed_of_light.h). A pack without them moves nothing.
  virtual const std::vector<std::vector<std::string>>& class_moves() const {
    static const std::vector<std::vector<std::string>> kNone;
    return kNone;
  }
  // One role (or kNoRole) per dispatch of `seq`, by the pack's role rules in order.
  virtual std::vector<RoleId> AssignRoles(const SequenceView& seq) const = 0;
  // Whether AssignRoles reads SequenceView::launch_thread / launch_time (with ranges): a caller
  // without them for every dispatch need not join the launch calls per dispatch (millions of
  // 16-byte pairs in a whole-trace window).
  virtual bool ReadsLaunchContext() const { return true; }
  // Sentences for the user about properties of `seq` that make AssignRoles's labels doubtful,
  // e.g. a trace without grid sizes, where the sampler-tail rule takes every qmv for the
  // lm_head (seed spec 2.7 rule 1). Empty when all is well; AssignRoles is unaffected.
  // Each is a message of src/trace/diagnostics_list.h (code role_rule_warning).
  virtual std::vector<trace::DiagMessage> RoleWarnings(const SequenceView& seq) const {
    (void)seq;
    return {};
  }
};

}  // namespace decodeprof::analysis
