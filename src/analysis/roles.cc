#include "src/analysis/roles.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <thread>
#include <utility>

#include "src/base/large_pages.h"
#include "src/base/parallel.h"
#include "src/base/spill.h"
#include "src/base/stage_times.h"

namespace decodeprof::analysis {
namespace {

bool ContainsAny(std::string_view text, const std::vector<std::string>& needles) {
  for (const std::string& needle : needles) {
    if (text.find(needle) != std::string_view::npos) return true;
  }
  return false;
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

ConditionEval::ConditionEval(const Condition& condition, const SequenceView& seq)
    : condition_(condition), seq_(seq), name_cache_(condition.any.size()) {
  // A byte a name for each matcher that tests names, and a table of answers by name only for
  // a condition of several matchers that tests names. A condition of classes alone answers
  // from the class (Evaluate), with no table a name: 102 of the 180 conditions the
  // pytorch-cuda pack evaluates over a window, whose tables took 78 MiB at 200 000 names. A
  // condition of one matcher answers from its class test and the matcher's byte (Evaluate):
  // a table would hold the same answer again, 4 bytes a name against 1 (every condition of
  // the shipped packs is one matcher).
  const size_t names = seq.names == nullptr ? 0 : seq.names->size();
  bool any_names = false;
  for (size_t i = 0; i < name_cache_.size(); ++i) {
    const Matcher& m = condition.any[i];
    if (m.names.empty() && m.not_names.empty()) continue;
    name_cache_[i].assign(names, 0);
    any_names = true;
  }
  if (any_names && condition.any.size() > 1) answers_.assign(names, Answer{});
}

bool ConditionEval::NamePartMatches(size_t matcher, trace::StringId name_id) {
  const Matcher& m = condition_.any[matcher];
  if (m.names.empty() && m.not_names.empty()) return true;
  std::vector<uint8_t>& cache = name_cache_[matcher];
  if (name_id < cache.size() && cache[name_id] != 0) return cache[name_id] == 2;
  std::string_view name;
  if (seq_.names != nullptr && name_id < seq_.names->size()) name = seq_.names->Get(name_id);
  std::string lowered;
  if (m.lowercase) {
    lowered = AsciiLower(name);
    name = lowered;
  }
  const bool match =
      (m.names.empty() || ContainsAny(name, m.names)) && !ContainsAny(name, m.not_names);
  if (name_id < cache.size()) cache[name_id] = match ? 2 : 1;
  return match;
}

bool ConditionEval::Matches(size_t index) {
  const trace::StringId name_id = NameAt(seq_, index);
  const ClassId class_id = seq_.classes[index];
  if (name_id >= answers_.size()) return Evaluate(name_id, class_id);  // or by class alone
  Answer& answer = answers_[name_id];
  if (answer.state == 0 || answer.class_id != class_id) {
    answer = Answer{class_id, static_cast<uint8_t>(Evaluate(name_id, class_id) ? 2 : 1)};
  }
  return answer.state == 2;
}

bool ConditionEval::Evaluate(trace::StringId name_id, ClassId class_id) {
  for (size_t i = 0; i < condition_.any.size(); ++i) {
    const Matcher& m = condition_.any[i];
    if (!m.classes.empty()) {
      bool in = false;
      for (ClassId c : m.classes) in = in || c == class_id;
      if (!in) continue;
    }
    if (NamePartMatches(i, name_id)) return true;
  }
  return false;
}

void RoleLane::WaitSlow(size_t index) const {
  if (upstream_ == nullptr) {
    Throttle(index);
    return;
  }
  size_t seen = upstream_->load(std::memory_order_acquire);
  if (seen <= index) {
    const auto from = std::chrono::steady_clock::now();
    while (seen <= index) {
      upstream_->wait(seen, std::memory_order_acquire);
      seen = upstream_->load(std::memory_order_acquire);
    }
    ++blocked_.times;
    blocked_.wall += std::chrono::steady_clock::now() - from;
  }
  ready_ = seen;
}

void RoleLane::Throttle(size_t index) const {
  // The lanes behind can reach only what this one has said it is done with: say all of it.
  if (own_ != nullptr) {
    const size_t done = std::min(commit_below_, roles_.size());
    if (done > own_->load(std::memory_order_relaxed)) {
      own_->store(done, std::memory_order_release);
      own_->notify_all();
    }
  }
  // A poll: the last lane tells its progress every kPublishEvery indices, and nobody wakes this
  // one. No progress for stuck_: the lanes between wait for this one (a look-ahead).
  constexpr auto kPoll = std::chrono::microseconds(20);
  size_t last = last_->load(std::memory_order_acquire);
  size_t seen = last;
  const auto from = std::chrono::steady_clock::now();
  auto since = from;
  if (last + lead_ <= index) ++blocked_.times;
  const auto count = [&] { blocked_.wall += std::chrono::steady_clock::now() - from; };
  while (last + lead_ <= index) {
    std::this_thread::sleep_for(kPoll);
    last = last_->load(std::memory_order_acquire);
    const auto now = std::chrono::steady_clock::now();
    if (last != seen) {
      seen = last;
      since = now;
    } else if (now - since >= stuck_) {
      ready_ = index + lead_;
      count();
      return;
    }
  }
  count();
  ready_ = last + lead_;
}

void RoleLane::Publish(size_t below) {
  below = std::min(below, roles_.size());
  if (upstream_ != nullptr) below = std::min(below, upstream_->load(std::memory_order_acquire));
  if (below > own_->load(std::memory_order_relaxed)) {
    own_->store(below, std::memory_order_release);
    own_->notify_all();
  }
  next_publish_ = below + kPublishEvery;
  if (let_go_ != nullptr && below > let_go_below_) {
    const size_t b = let_go_below_;
    const auto let_go = [b, below](auto span) {
      if (span.size() >= below) {
        base::spill::Release(span.data() + b, (below - b) * sizeof(span[0]));
      }
    };
    let_go(let_go_->dispatches);
    let_go(let_go_->classes);
    let_go(let_go_->launch_thread);
    let_go(let_go_->launch_time);
    let_go(let_go_->name_ids);
    let_go(let_go_->grids);
    let_go(std::span<const RoleId>(roles_));
    let_go_below_ = below;
  }
}

void RoleLane::Finish() {
  if (own_ == nullptr) return;
  if (upstream_ == nullptr) ready_ = kAll;  // the first lane: nothing left to throttle
  const size_t n = roles_.size();
  if (n > 0) WaitFor(n - 1);
  own_->store(n, std::memory_order_release);
  own_->notify_all();
}

void RoleRule::Diagnose(const SequenceView&, std::vector<trace::DiagMessage>*) const {}

RulePack::RulePack(PackInfo info, KernelClassifier classifier, std::vector<std::string> role_names,
                   std::vector<std::unique_ptr<RoleRule>> rules)
    : info_(std::move(info)),
      classifier_(std::move(classifier)),
      role_names_(std::move(role_names)),
      rules_(std::move(rules)) {}

SequenceView RulePack::Normalized(const SequenceView& seq, std::vector<ClassId>* storage) const {
  const size_t n = SizeOf(seq);
  if (seq.classes.size() == n) return seq;
  storage->assign(seq.classes.begin(), seq.classes.begin() + static_cast<std::ptrdiff_t>(
                                                                 std::min(seq.classes.size(), n)));
  storage->resize(n, other_class());
  SequenceView view = seq;
  view.classes = *storage;
  return view;
}

std::vector<RoleId> RulePack::AssignRoles(const SequenceView& seq, RuleSchedule schedule,
                                          std::optional<size_t> max_lead) const {
  const auto set_up_started = std::chrono::steady_clock::now();
  std::vector<ClassId> storage;
  SequenceView view = Normalized(seq, &storage);
  const size_t n = SizeOf(view);
  // Every rule scans every position: the names once, packed, for all of them.
  std::vector<trace::StringId> name_ids;
  if (view.name_ids.size() != n) {
    base::ResizeFaultedIn(name_ids, n);
    base::ForParts(n, base::kMinPassPart, [&](size_t, size_t b, size_t e) {
      base::spill::ReleaseBehind<trace::Dispatch> behind(view.dispatches.data(), b);
      base::spill::ReleaseBehind<trace::StringId> written(name_ids.data(), b);
      for (size_t i = b; i < e; ++i) {
        behind.Passed(i);
        written.Passed(i);
        name_ids[i] = view.dispatches[i].name;
      }
    });
    view.name_ids = name_ids;
  }
  std::vector<RoleId> roles;
  base::ResizeFaultedIn(roles, n, kNoRole);
  // One rule after another where a thread each is not worth it; else each rule on a thread
  // of its own, one behind the other (RoleLane): the same labels, at the pace of the slowest
  // rule rather than the sum of them.
  if (schedule == RuleSchedule::kAuto) {
    schedule = rules_.size() >= 2 && n >= base::kMinPassPart && base::UsableCpus() >= 2
                   ? RuleSchedule::kOneBehindAnother
                   : RuleSchedule::kOneAfterAnother;
  }
  if (schedule == RuleSchedule::kOneAfterAnother || rules_.empty()) {
    for (const auto& rule : rules_) rule->ApplyAlone(view, roles);
    return roles;
  }
  // How far each rule (and every rule before it) is done, a cache line (64 bytes) each.
  struct alignas(64) Progress {
    std::atomic<size_t> below{0};
  };
  std::vector<Progress> progress(rules_.size());
  max_lead = FirstLaneLead(view.dispatches.data(), roles.data(), max_lead);
  // DECODEPROF_STAGE_TIMES: when each lane was done, and how long it stood still.
  const bool timed = base::StageTimesOn();
  struct LaneTime {
    std::chrono::steady_clock::duration done{};
    RoleLane::Blocked blocked;
  };
  std::vector<LaneTime> lane_times(timed ? rules_.size() : 0);
  const auto started = std::chrono::steady_clock::now();
  const auto run = [&](size_t k) {
    RoleLane lane(roles, k == 0 ? nullptr : &progress[k - 1].below, &progress[k].below);
    if (k + 1 == rules_.size()) lane.LetGoBehind(&view);
    if (k == 0 && max_lead) lane.LeadAtMost(&progress.back().below, *max_lead);
    rules_[k]->Apply(view, lane);
    lane.Finish();
    if (timed) lane_times[k] = {std::chrono::steady_clock::now() - started, lane.blocked()};
  };
  base::RunParts(rules_.size(), run);  // rule 0 on this thread
  if (timed) {
    const auto seconds = [](auto d) { return std::chrono::duration<double>(d).count(); };
    std::fprintf(
        stderr,
        "decodeprof: role lanes: %zu rules over %zu kernels, names and roles set up in %.3f s\n",
        rules_.size(), n, seconds(started - set_up_started));
    for (size_t k = 0; k < lane_times.size(); ++k) {
      std::fprintf(stderr,
                   "decodeprof: role lane %2zu %-18.*s done at %.3f s, stood still %zu times for "
                   "%.3f s\n",
                   k, static_cast<int>(rules_[k]->kind().size()), rules_[k]->kind().data(),
                   seconds(lane_times[k].done), lane_times[k].blocked.times,
                   seconds(lane_times[k].blocked.wall));
    }
  }
  return roles;
}

std::optional<size_t> RulePack::FirstLaneLead(const void* dispatches, const void* roles,
                                              std::optional<size_t> asked) {
  if (asked) return asked;
  if (base::spill::InFile(dispatches) || base::spill::InFile(roles)) return kMaxLead;
  return std::nullopt;
}

bool RulePack::ReadsLaunchContext() const {
  return std::any_of(rules_.begin(), rules_.end(),
                     [](const std::unique_ptr<RoleRule>& r) { return r->ReadsLaunchContext(); });
}

std::vector<trace::DiagMessage> RulePack::RoleWarnings(const SequenceView& seq) const {
  std::vector<trace::DiagMessage> warnings;
  std::vector<ClassId> storage;
  const SequenceView view = Normalized(seq, &storage);
  for (const auto& rule : rules_) rule->Diagnose(view, &warnings);
  if (seq.classes.size() != SizeOf(seq)) {
    warnings.push_back(
        trace::Message<trace::Msg::kRoleRulesClassesMissing>(SizeOf(seq), seq.classes.size()));
  }
  return warnings;
}

}  // namespace decodeprof::analysis
