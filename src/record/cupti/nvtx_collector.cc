#include "src/record/cupti/nvtx_collector.h"

#include <utility>

namespace decodeprof::record::cupti {

NvtxDomain NvtxCollector::DefaultDomain() {
  static const std::string* const kDefault = new std::string();
  return kDefault;
}

NvtxDomain NvtxCollector::Domain(const std::string& name) {
  if (name.empty()) return DefaultDomain();
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = domains_.try_emplace(name, nullptr);
  if (inserted) it->second = std::make_unique<std::string>(name);
  return it->second.get();
}

const std::string* NvtxCollector::RegisterString(std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  registered_.push_back(std::move(text));
  return &registered_.back();
}

int NvtxCollector::Push(NvtxDomain domain, std::string name, int64_t now_ns, uint64_t thread) {
  if (disabled()) return -1;
  const bool gates = Gates(name);
  int depth = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Open>& stack = stacks_[thread];
    for (const Open& open : stack) depth += open.domain == domain ? 1 : 0;
    stack.push_back(Open{std::move(name), domain, now_ns, thread, gates});
  }
  if (gates) gate_->Open();  // outside mu_: the gate may call into CUPTI
  return depth;
}

int NvtxCollector::Pop(NvtxDomain domain, int64_t now_ns, uint64_t thread) {
  if (disabled()) return -1;
  int depth = -1;
  bool gates = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Open>& stack = stacks_[thread];
    for (size_t i = stack.size(); i-- > 0;) {
      if (stack[i].domain != domain) continue;
      depth = 0;
      for (size_t j = 0; j < i; ++j) depth += stack[j].domain == domain ? 1 : 0;
      Open open = std::move(stack[i]);
      stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
      gates = open.gates;
      if (Full()) {
        ++counts_.dropped;
      } else {
        ranges_.push_back(NvtxRangeEvent{std::move(open.name), domain, open.start_ns, now_ns,
                                         thread, depth, native_format::RangeKind::kPushPop});
      }
      break;
    }
    if (depth < 0) ++counts_.unmatched_pops;
  }
  if (gates) gate_->Close();
  return depth;
}

uint64_t NvtxCollector::Start(NvtxDomain domain, std::string name, int64_t now_ns,
                              uint64_t thread) {
  if (disabled()) return 0;
  const bool gates = Gates(name);
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
    started_.emplace(id, Open{std::move(name), domain, now_ns, thread, gates});
  }
  if (gates) gate_->Open();  // before the id is returned, so before it can be ended
  return id;
}

void NvtxCollector::End(uint64_t id, int64_t now_ns) {
  if (disabled()) return;
  bool gates = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = started_.find(id);
    if (it == started_.end()) {
      ++counts_.unmatched_pops;
      return;
    }
    Open& open = it->second;
    gates = open.gates;
    if (Full()) {
      ++counts_.dropped;
    } else {
      ranges_.push_back(NvtxRangeEvent{std::move(open.name), open.domain, open.start_ns, now_ns,
                                       open.thread, -1, native_format::RangeKind::kStartEnd});
    }
    started_.erase(it);
  }
  if (gates) gate_->Close();
}

void NvtxCollector::Mark(NvtxDomain domain, std::string name, int64_t now_ns, uint64_t thread) {
  if (disabled()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (Full()) {
    ++counts_.dropped;
    return;
  }
  marks_.push_back(NvtxMarkEvent{std::move(name), domain, now_ns, thread});
}

void NvtxCollector::Take(std::vector<NvtxRangeEvent>* ranges, std::vector<NvtxMarkEvent>* marks) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : ranges_) ranges->push_back(std::move(r));
  for (auto& m : marks_) marks->push_back(std::move(m));
  ranges_.clear();
  marks_.clear();
}

NvtxCounts NvtxCollector::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  NvtxCounts counts = counts_;
  counts.unended = static_cast<int64_t>(started_.size());
  for (const auto& [thread, stack] : stacks_) counts.unended += static_cast<int64_t>(stack.size());
  return counts;
}

}  // namespace decodeprof::record::cupti
