// The op_path rule kind: roles from the annotation ranges enclosing each launch.
#include <re2/re2.h>

#include <algorithm>
#include <utility>

#include "src/analysis/range_index.h"
#include "src/analysis/role_rules.h"
#include "src/base/pattern.h"

namespace decodeprof::analysis {

base::StatusOr<std::unique_ptr<OpPathRule>> OpPathRule::Build(OpPathParams params) {
  if (params.patterns.empty()) {
    return base::ConfigError(
        "", "op_path rule for role \"" + params.role_name + "\": needs at least one pattern");
  }
  const RE2::Options options = base::PatternOptions();
  std::string alternation;
  for (const ClassPattern& pattern : params.patterns) {
    auto alone = base::CompilePattern(pattern.regex);
    if (!alone.ok()) {
      return base::ConfigError(pattern.where,
                               "op_path rule for role \"" + params.role_name + "\": bad pattern '" +
                                   base::Excerpt(pattern.regex) + "': " + alone.status().message(),
                               alone.status().hint());
    }
    if (!alternation.empty()) alternation += '|';
    alternation += "(?:" + pattern.regex + ")";
  }
  auto regex = std::make_unique<RE2>(alternation, options);
  if (!regex->ok()) {
    return base::ConfigError(params.patterns.front().where,
                             "op_path rule for role \"" + params.role_name +
                                 "\": the patterns do not combine: " + regex->error());
  }
  std::unique_ptr<OpPathRule> rule(new OpPathRule(std::move(params)));
  rule->regex_ = std::move(regex);
  return rule;
}

OpPathRule::OpPathRule(OpPathParams params) : p_(std::move(params)) {}

OpPathRule::~OpPathRule() = default;

bool OpPathRule::Usable(const SequenceView& seq) {
  return seq.ranges != nullptr && !seq.ranges->empty() && seq.names != nullptr &&
         seq.launch_thread.size() == SizeOf(seq) && seq.launch_time.size() == SizeOf(seq);
}

void OpPathRule::Apply(const SequenceView& seq, RoleLane& lane) const {
  if (!Usable(seq)) return;
  RoleWriter writer(lane, p_.overwrite);
  // Each distinct range name is matched once (memory bounded by the names: the pack's op_path
  // rules all run at once, one behind the other, and a trace with a range per dispatch would
  // otherwise hold an array per rule the size of its ranges).
  std::vector<uint8_t> matching(seq.names->size(), 0);
  bool any = false;
  for (const trace::StringId name : seq.ranges->names()) {
    if (name < matching.size() && RE2::PartialMatch(seq.names->Get(name), *regex_)) {
      matching[name] = 1;
      any = true;
    }
  }
  // No range name matches: no dispatch gets the role (the common case of a rule for ranges
  // the trace does not have), without a look-up per dispatch.
  if (!any) return;
  // Ranges nested deeper than RangeIndex::kWalk: each range's nearest match, so that a
  // dispatch asks its chain at once (linear in the ranges, whatever their depth).
  std::vector<int32_t> nearest;
  if (seq.ranges->deep()) {
    nearest = seq.ranges->NearestMatching(
        [&](trace::StringId name) { return name < matching.size() && matching[name] != 0; });
  }
  size_t hint = 0;  // the range the last dispatch's launch found
  for (size_t i = 0; i < SizeOf(seq); ++i) {
    writer.Commit(i);
    if (!writer.Writable(i) || seq.launch_time[i] == kUnknownLaunch) continue;
    const bool inside =
        nearest.empty()
            ? seq.ranges->AnyEnclosingNamed(seq.launch_thread[i], seq.launch_time[i], matching,
                                            &hint)
            : seq.ranges->AnyEnclosing(seq.launch_thread[i], seq.launch_time[i], nearest);
    if (inside) writer.Set(i, p_.role);
  }
}

void OpPathRule::Diagnose(const SequenceView& seq,
                          std::vector<trace::DiagMessage>* warnings) const {
  if (Usable(seq)) return;
  trace::DiagMessage skipped = trace::Message<trace::Msg::kRoleRulesOpPathSkipped>();
  for (const trace::DiagMessage& w : *warnings) {
    if (w == skipped) return;  // one sentence for all op_path rules
  }
  warnings->push_back(std::move(skipped));
}

}  // namespace decodeprof::analysis
