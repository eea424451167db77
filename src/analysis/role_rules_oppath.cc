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
  std::vector<uint8_t> memo(seq.names->size(), 0);  // per range name: 0 unknown, 1 no, 2 yes
  // Each range's name is matched once; a dispatch then asks its chain of enclosing ranges at
  // once (linear in the ranges, whatever their depth).
  const std::vector<int32_t> nearest = seq.ranges->NearestMatching([&](trace::StringId name) {
    if (name >= memo.size()) return false;
    uint8_t& hit = memo[name];
    if (hit == 0) hit = RE2::PartialMatch(seq.names->Get(name), *regex_) ? 2 : 1;
    return hit == 2;
  });
  // No range name matches: no dispatch gets the role (the common case of a rule for ranges
  // the trace does not have), without a look-up per dispatch.
  if (std::all_of(nearest.begin(), nearest.end(), [](int32_t m) { return m < 0; })) return;
  for (size_t i = 0; i < SizeOf(seq); ++i) {
    writer.Commit(i);
    if (!writer.Writable(i) || seq.launch_time[i] == kUnknownLaunch) continue;
    if (seq.ranges->AnyEnclosing(seq.launch_thread[i], seq.launch_time[i], nearest)) {
      writer.Set(i, p_.role);
    }
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
