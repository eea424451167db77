#include "src/analysis/decode_finder.h"

#include "src/trace/trace.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace decodeprof::analysis {
namespace {

constexpr trace::TimestampNs kNoLaunch = INT64_MIN;

// One element of the sequence: a dispatch, or all dispatches of one graph launch.
struct Token {
  uint32_t id = 0;     // name id, or names.size() + graph signature index
  uint32_t first = 0;  // index of its first dispatch
  trace::TimestampNs start = 0;
  trace::TimestampNs max_end = 0;
  trace::DurationNs idle_before = 0;        // GPU idle time before it (0 when overlapping)
  trace::TimestampNs launched = kNoLaunch;  // its first dispatch's launch call's start
  int32_t dispatches = 0;
  int32_t kernels = 0;
  bool graph = false;
  bool sampling = false;  // holds a sampling kernel
  bool readback = false;  // holds a device-to-host copy
  bool heavy = false;     // holds a GEMM, GEMV or attention kernel (by name)
  uint64_t hash = 0;      // graph tokens: their dispatches' names (a multiset hash)
};

std::string Lower(std::string_view name) {
  std::string lower(name.substr(0, 512));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

bool ContainsAny(const std::string& lower, std::initializer_list<const char*> words) {
  for (const char* word : words) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

// The work of a forward pass, by the names engines' libraries give it: cuBLAS(Lt) / CUTLASS /
// nvjet / hipBLASLt / Tensile (Cijk_) GEMMs, GEMV kernels (ggml's mul_mat_vec, vLLM's
// wvSplitK, LLGemm), Triton matmuls, and attention (flash, FMHA, SDPA, paged attention).
bool IsForwardWork(const std::string& lower) {
  return ContainsAny(lower, {"gemm", "gemv", "matmul", "mul_mat", "cutlass", "cublas", "nvjet",
                             "xmma", "cijk_", "splitk", "llgemm", "triton_mm", "bmm", "attn",
                             "attention", "flash", "fmha", "sdpa", "mha"});
}

bool IsSamplingKernel(const std::string& lower) {
  // Not top-k alone: MoE layers route with top-k kernels (topk_softmax, torch.topk) in every
  // layer; a sampler's top-k comes with a multinomial or a sampling kernel.
  return ContainsAny(lower, {"argmax", "arg_max", "multinomial", "sampl", "gumbel"});
}

// Kernels only training runs: the backward pass and the optimizer.
bool IsBackwardKernel(const std::string& lower) {
  return ContainsAny(lower, {"backward", "bwd", "wgrad", "dgrad"});
}
bool IsOptimizerKernel(const std::string& lower) {
  return ContainsAny(lower, {"adam", "sgd", "optimizer", "lamb_", "adagrad", "rmsprop"});
}

// splitmix64's finalizer: a graph's signature is the sum of its dispatches' mixed names.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Length tolerance of a period: 2 %, at least one token from 8 on (a dispatch of another
// stream may start on either side of a step's first one), none below.
int64_t Tol(int64_t g) { return g >= 8 ? std::max<int64_t>(1, g / 50) : 0; }

struct Run {
  size_t first_seg = 0;  // index into the anchor's occurrences
  int64_t segments = 0;  // accepted segments
  int64_t deviated = 0;
  bool tail = false;  // one more step after the last segment
  int64_t steps() const { return segments + (tail ? 1 : 0); }
};

struct Group {
  int64_t g = 0;
  uint32_t anchor = 0;
  int64_t support = 0;
  trace::DurationNs idle = 0;  // median GPU idle time before the anchor
  std::vector<Run> runs;       // runs of at least 2 segments
  std::optional<Run> best;
  double sampling_fraction = 0;
  double readback_fraction = 0;
  // The best run's evidence (Evaluate).
  int64_t kernels = 0;       // in its first step
  int64_t layer_repeat = 0;  // the most calls of one kernel name in its first step
  bool heavy = false;        // a step holds forward-pass work by name
  bool sync = false;         // the GPU idles before every step, far longer than inside
  bool graph = false;        // its first step replays a graph
  std::string boundary;      // what ends a token ("" when nothing does)
  // A step: forward-pass work, a token boundary, and a unit that repeats (most steps alike).
  bool is_step() const {
    return kernels >= kMinKernelsPerStep && !boundary.empty() && best &&
           best->deviated * 2 <= best->steps();
  }
};

class Finder {
 public:
  Finder(std::span<const trace::Dispatch> ds, std::span<const trace::ApiCall> launches,
         const trace::StringPool& names)
      : ds_(ds), names_(names) {
    BuildTokens(launches);
  }

  size_t graph_launches() const { return graph_launches_; }
  size_t tokens() const { return tokens_.size(); }

  std::optional<FoundLoop> Find(std::string& seen) {
    const auto plural = [](int64_t n, const char* one, const char* many) {
      return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    seen = "in " + plural(static_cast<int64_t>(ds_.size()), "dispatch", "dispatches") + " (" +
           (graph_launches_ == 0 ? std::string("no CUDA-graph launch")
                                 : plural(static_cast<int64_t>(graph_launches_),
                                          "CUDA-graph launch", "CUDA-graph launches")) +
           ")";
    // Training iterations repeat too, with a read-back (the loss) per iteration.
    if (optimizer_ >= 3 || (backward_ >= 3 && backward_ * 50 >= kernels_)) {
      seen += ": they are training iterations, not a decode (" +
              plural(backward_, "backward-pass kernel", "backward-pass kernels") + " and " +
              plural(optimizer_, "optimizer kernel", "optimizer kernels") + " of " +
              plural(kernels_, "kernel", "kernels") + ")";
      return std::nullopt;
    }
    int64_t sampling = 0, readback = 0;
    for (const Token& t : tokens_) {
      sampling += t.sampling ? 1 : 0;
      readback += t.readback ? 1 : 0;
    }
    const int64_t sampled = std::max(sampling, readback);  // tokens generated, at most
    std::vector<Group> groups = Candidates();
    std::vector<Group*> valid;
    const Group* longest = nullptr;
    for (Group& gr : groups) {
      Evaluate(gr);
      if (gr.best && (longest == nullptr || gr.best->steps() > longest->best->steps())) {
        longest = &gr;
      }
      // Graph replays alone, in a trace that samples or reads back at most one token: the
      // graphs are pieces of one engine step (piecewise graphs, one per layer).
      const bool pieces = gr.boundary == "graph replay" && sampled <= 1;
      if (gr.best && gr.best->steps() >= kMinSteps && gr.is_step() && !pieces) {
        valid.push_back(&gr);
      }
    }
    if (!valid.empty()) return Result(*Choose(valid));
    // What was seen instead.
    const bool one_step = sampled <= 1 && kernels_ >= kMinKernelsPerStep;
    if (one_step) {
      seen += ": one engine step of " +
              plural(static_cast<int64_t>(ds_.size()), "dispatch", "dispatches") +
              ", not a decode loop";
    }
    if (longest == nullptr) {
      seen += one_step ? " (no dispatch sequence repeats)" : ": no dispatch sequence repeats";
    } else {
      const std::string unit = std::to_string(longest->best->steps()) + " units of " +
                               plural(longest->g, "dispatch", "dispatches");
      std::string why;
      if (longest->best->steps() < kMinSteps) {
        why = "too few to be a loop";
      } else if (longest->best->deviated * 2 > longest->best->steps()) {
        why = std::to_string(longest->best->deviated) + " of them unlike the one before";
      } else if (longest->kernels < kMinKernelsPerStep) {
        why = plural(longest->kernels, "kernel", "kernels") +
              " each: a forward pass holds at least " + std::to_string(kMinKernelsPerStep);
      } else if (longest->boundary == "graph replay") {
        why =
            "graph replays with no token sampled or read back between them: pieces of one "
            "forward pass (a graph per layer), not decode steps";
      } else {
        why =
            "no token boundary between them (no sampling kernel, token read-back, host "
            "synchronization or graph replay): layers of a forward pass, not decode steps";
      }
      seen += (one_step ? " (the longest repeat is " : ": the longest repeat is ") + unit + ", " +
              why + (one_step ? ")" : "");
    }
    seen += "; --window all gives its census";
    return std::nullopt;
  }

 private:
  void BuildTokens(std::span<const trace::ApiCall> launches) {
    const trace::LaunchIndex index(launches);
    std::unordered_set<uint64_t> graph_corr;
    for (const trace::ApiCall& call : launches) {
      if (trace::IsGraphLaunch(names_.Get(call.name))) {
        graph_corr.insert(call.correlation);
      }
    }
    if (launches.empty()) {
      // No launch calls: a correlation id shared by several kernels is a graph launch.
      std::unordered_map<uint64_t, int> per;
      for (const trace::Dispatch& d : ds_) {
        if (d.correlation != 0 && d.kind == trace::DispatchKind::kKernel) ++per[d.correlation];
      }
      for (const auto& [corr, n] : per) {
        if (n >= 2) graph_corr.insert(corr);
      }
    }
    std::unordered_map<uint64_t, uint32_t> open;  // correlation → token of that launch
    // Per name: bit 0 sampling, 1 forward work, 2 backward pass, 3 optimizer; 0xFF unread.
    std::vector<uint8_t> kind_of(names_.size(), 0xFF);
    trace::TimestampNs busy_until = INT64_MIN;
    tokens_.reserve(ds_.size());
    for (size_t i = 0; i < ds_.size(); ++i) {
      const trace::Dispatch& d = ds_[i];
      const bool in_graph = d.correlation != 0 && graph_corr.count(d.correlation) > 0;
      Token* t = nullptr;
      if (in_graph) {
        auto [it, fresh] = open.try_emplace(d.correlation, static_cast<uint32_t>(tokens_.size()));
        if (!fresh) t = &tokens_[it->second];
      }
      if (t == nullptr) {
        Token& nt = tokens_.emplace_back();
        if (const trace::ApiCall* call = index.Find(d.correlation)) nt.launched = call->start;
        nt.id = d.name;
        nt.first = static_cast<uint32_t>(i);
        nt.start = d.start;
        nt.max_end = d.end;
        nt.idle_before =
            busy_until == INT64_MIN ? 0 : std::max<trace::DurationNs>(0, d.start - busy_until);
        const std::string_view name = names_.Get(d.name);
        nt.graph = in_graph || name.rfind("[CUDA graph", 0) == 0;
        if (nt.graph) ++graph_launches_;
        t = &nt;
      }
      ++t->dispatches;
      if (d.kind == trace::DispatchKind::kKernel) ++t->kernels;
      t->max_end = std::max(t->max_end, d.end);
      t->hash += Mix(d.name);  // order-free: a graph's branches may start in any order
      if (d.kind == trace::DispatchKind::kKernel) {
        uint8_t& k = kind_of[d.name];
        if (k == 0xFF) {
          const std::string lower = Lower(names_.Get(d.name));
          k = static_cast<uint8_t>(
              (IsSamplingKernel(lower) ? 1 : 0) | (IsForwardWork(lower) ? 2 : 0) |
              (IsBackwardKernel(lower) ? 4 : 0) | (IsOptimizerKernel(lower) ? 8 : 0));
        }
        if (k & 1) t->sampling = true;
        if (k & 2) t->heavy = true;
        ++kernels_;
        if (k & 4) ++backward_;
        if (k & 8) ++optimizer_;
      } else if (d.kind == trace::DispatchKind::kMemcpy &&
                 trace::MemcpyKindOf(names_.Get(d.name)) == 2) {
        t->readback = true;
      }
      busy_until = std::max(busy_until, d.end);
    }
    // Graph launches of the same kernel sequence are one token.
    std::map<std::pair<uint64_t, int32_t>, uint32_t> signatures;
    id_space_ = static_cast<uint32_t>(names_.size());
    for (Token& t : tokens_) {
      if (!t.graph || open.empty()) continue;
      if (t.dispatches == 1 && names_.Get(t.id).rfind("[CUDA graph", 0) == 0) continue;
      auto [it, fresh] = signatures.try_emplace({t.hash, t.dispatches}, 0);
      if (fresh) {
        it->second = id_space_++;
        graph_first_name_.push_back(names_.Get(t.id));
        graph_size_.push_back(t.dispatches);
      }
      t.id = it->second;
    }
    prefix_sampling_.assign(tokens_.size() + 1, 0);
    prefix_readback_.assign(tokens_.size() + 1, 0);
    for (size_t i = 0; i < tokens_.size(); ++i) {
      prefix_sampling_[i + 1] = prefix_sampling_[i] + (tokens_[i].sampling ? 1 : 0);
      prefix_readback_[i + 1] = prefix_readback_[i] + (tokens_[i].readback ? 1 : 0);
    }
    positions_.assign(id_space_, {});
    for (size_t i = 0; i < tokens_.size(); ++i) {
      positions_[tokens_[i].id].push_back(static_cast<uint32_t>(i));
    }
  }

  // One candidate per recurring token: its most common gap (the period) and how many gaps
  // are about that long. The 64 that cover the most tokens with such gaps are checked.
  std::vector<Group> Candidates() const {
    std::vector<Group> groups;
    std::vector<int64_t> gaps;
    for (uint32_t id = 0; id < positions_.size(); ++id) {
      const std::vector<uint32_t>& p = positions_[id];
      if (p.size() < 3) continue;
      gaps.clear();
      for (size_t k = 1; k < p.size(); ++k) gaps.push_back(int64_t{p[k]} - int64_t{p[k - 1]});
      std::sort(gaps.begin(), gaps.end());
      int64_t mode = gaps[0], best = 0;
      for (size_t a = 0; a < gaps.size();) {
        size_t b = a;
        while (b < gaps.size() && gaps[b] == gaps[a]) ++b;
        if (static_cast<int64_t>(b - a) > best) {
          best = static_cast<int64_t>(b - a);
          mode = gaps[a];
        }
        a = b;
      }
      const int64_t tol = Tol(mode);
      int64_t support = 0;
      for (int64_t x : gaps) support += (x >= mode - tol && x <= mode + tol) ? 1 : 0;
      if (support < kMinSteps - 1) continue;
      std::vector<trace::DurationNs> idle;
      idle.reserve(p.size());
      for (uint32_t pos : p) idle.push_back(tokens_[pos].idle_before);
      std::nth_element(idle.begin(), idle.begin() + static_cast<std::ptrdiff_t>(idle.size() / 2),
                       idle.end());
      Group gr;
      gr.g = mode;
      gr.anchor = id;
      gr.support = support;
      gr.idle = idle[idle.size() / 2];
      groups.push_back(gr);
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
      return a.support * a.g > b.support * b.g;
    });
    if (groups.size() > 64) groups.resize(64);
    return groups;
  }

  // Token-count difference of two segments [a, a + la) and [b, b + lb).
  int64_t Diff(size_t a, size_t la, size_t b, size_t lb) {
    if (counts_.size() < id_space_) counts_.assign(id_space_, 0);
    for (size_t i = a; i < a + la; ++i) ++counts_[tokens_[i].id];
    for (size_t i = b; i < b + lb; ++i) --counts_[tokens_[i].id];
    int64_t diff = 0;
    for (size_t i = a; i < a + la; ++i) {
      diff += std::abs(counts_[tokens_[i].id]);
      counts_[tokens_[i].id] = 0;
    }
    for (size_t i = b; i < b + lb; ++i) {
      diff += std::abs(counts_[tokens_[i].id]);
      counts_[tokens_[i].id] = 0;
    }
    return diff;
  }

  void Evaluate(Group& gr) {
    const std::vector<uint32_t>& occ = positions_[gr.anchor];
    const int64_t tol = Tol(gr.g);
    std::optional<Run> cur;
    const auto close = [&](size_t next_seg) {
      if (cur && cur->segments >= 1) {
        // The step after the last segment, when the tokens there make one more.
        const size_t last = cur->first_seg + static_cast<size_t>(cur->segments) - 1;
        const size_t len = occ[last + 1] - occ[last];
        const size_t start = occ[last + 1];
        bool tail = start + len <= tokens_.size();
        if (tail && last + 2 < occ.size() &&
            static_cast<int64_t>(occ[last + 2]) < static_cast<int64_t>(start + len) - tol) {
          tail = false;  // an anchor inside: not one step
        }
        if (tail) {
          const int64_t d = Diff(occ[last], len, start, len);
          tail = d <= 2 * tol;
          if (tail && d > 0) ++cur->deviated;
        }
        cur->tail = tail;
        if (cur->steps() >= 2) gr.runs.push_back(*cur);
      }
      cur.reset();
      (void)next_seg;
    };
    for (size_t k = 0; k + 1 < occ.size(); ++k) {
      const int64_t len = int64_t{occ[k + 1]} - int64_t{occ[k]};
      const bool len_ok = len >= gr.g - tol && len <= gr.g + tol;
      if (!len_ok) {
        close(k);
        continue;
      }
      if (!cur) {
        cur = Run{k, 1, 0, false};
        continue;
      }
      const size_t prev = cur->first_seg + static_cast<size_t>(cur->segments) - 1;
      const size_t prev_len = occ[prev + 1] - occ[prev];
      const int64_t d = Diff(occ[prev], prev_len, occ[k], static_cast<size_t>(len));
      if (d > 2 * tol) {
        close(k);
        cur = Run{k, 1, 0, false};
        continue;
      }
      ++cur->segments;
      if (d > 0 || static_cast<size_t>(len) != prev_len) ++cur->deviated;
    }
    close(occ.size());
    // The longest run; runs within a step or 2 % of it count as ties, and the later one wins
    // (repeated generate calls of one length differ by a step at their edges: the first step
    // run eagerly before a graph is captured, a tail step; the last call is the one the marks
    // would pick).
    int64_t longest = 0;
    for (const Run& r : gr.runs) longest = std::max(longest, r.steps());
    const int64_t slack = std::max<int64_t>(1, longest / 50);
    for (const Run& r : gr.runs) {
      if (r.steps() >= longest - slack) gr.best = r;
    }
    if (gr.best) {
      const auto [lo, hi] = Span(gr, *gr.best);
      int64_t with_sampling = 0, with_readback = 0;
      for (int64_t s = 0; s < gr.best->steps(); ++s) {
        const size_t a = occ[gr.best->first_seg + static_cast<size_t>(s)];
        const size_t b =
            s + 1 < gr.best->steps() ? occ[gr.best->first_seg + static_cast<size_t>(s) + 1] : hi;
        with_sampling += prefix_sampling_[b] > prefix_sampling_[a] ? 1 : 0;
        with_readback += prefix_readback_[b] > prefix_readback_[a] ? 1 : 0;
      }
      (void)lo;
      const double steps = static_cast<double>(gr.best->steps());
      gr.sampling_fraction = static_cast<double>(with_sampling) / steps;
      gr.readback_fraction = static_cast<double>(with_readback) / steps;
      StepEvidence(gr);
    }
  }

  // What the best run's steps hold: kernels, the layer pattern, forward-pass work by name,
  // and what ends each token.
  void StepEvidence(Group& gr) {
    const std::vector<uint32_t>& occ = positions_[gr.anchor];
    const Run& r = *gr.best;
    const size_t a = occ[r.first_seg];
    const size_t b = occ[r.first_seg + 1];
    std::unordered_map<uint32_t, int64_t> calls;
    for (size_t i = a; i < b; ++i) {
      const Token& t = tokens_[i];
      gr.kernels += t.kernels;
      gr.heavy = gr.heavy || t.heavy;
      gr.graph = gr.graph || t.graph;
    }
    // The step's dispatches in start order: from its first token's first dispatch to the next
    // step's (graph kernels of the step lie in between).
    const size_t d_end = b < tokens_.size() ? tokens_[b].first : ds_.size();
    for (size_t i = tokens_[a].first; i < d_end; ++i) {
      if (ds_[i].kind != trace::DispatchKind::kKernel) continue;
      gr.layer_repeat = std::max(gr.layer_repeat, ++calls[ds_[i].name]);
    }
    // A host synchronization: the host waited for each step's GPU work before it launched the
    // next step — where the launch calls are known, the next step's first launch starts after
    // the step's last dispatch ended (in nine steps of ten) while inside a step most launches
    // find the GPU busy; else the GPU idles before every step far longer than between the
    // step's own tokens (the medians).
    const auto [lo, hi] = Span(gr, r);
    int64_t waited = 0, known = 0, inner_waited = 0, inner_known = 0;
    trace::TimestampNs step_end = INT64_MIN;
    std::vector<trace::DurationNs> before, inside;
    size_t next = r.first_seg;
    for (size_t i = lo; i < hi; ++i) {
      const bool starts_step = next < occ.size() && occ[next] == i;
      if (starts_step) {
        if (i != lo) {  // the first step's idle time is the prefill's end, not a boundary
          before.push_back(tokens_[i].idle_before);
          if (tokens_[i].launched != kNoLaunch) {
            ++known;
            waited += tokens_[i].launched >= step_end ? 1 : 0;
          }
        }
        ++next;
        step_end = INT64_MIN;
      } else {
        inside.push_back(tokens_[i].idle_before);
        if (tokens_[i].launched != kNoLaunch) {
          ++inner_known;
          inner_waited += tokens_[i].launched >= step_end ? 1 : 0;
        }
      }
      step_end = std::max(step_end, tokens_[i].max_end);
    }
    const auto median = [](std::vector<trace::DurationNs>& v) -> trace::DurationNs {
      if (v.empty()) return 0;
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    const trace::DurationNs idle_before = median(before);
    const trace::DurationNs idle_inside = median(inside);
    if (known * 2 > static_cast<int64_t>(before.size())) {
      // ... and not as a launch-bound host does before every kernel: inside a step, the GPU
      // has work queued when most launches come.
      gr.sync = waited * 10 >= known * 9 && inner_waited * 2 <= inner_known;
    } else {
      gr.sync = !before.empty() && idle_before >= kSyncIdleNs &&
                idle_before >= 3 * std::max<trace::DurationNs>(idle_inside, 1'000);
    }
    if (gr.sampling_fraction >= 0.9) {
      gr.boundary = "sampling kernel";
    } else if (gr.readback_fraction >= 0.9) {
      gr.boundary = "token read-back";
    } else if (gr.sync) {
      gr.boundary = "host synchronization";
    } else if (gr.graph) {
      gr.boundary = "graph replay";
    }
  }

  // The GPU idle time before a step that a host synchronization leaves at the least: the
  // host's return from the wait, its stop check and the next step's first launch.
  static constexpr trace::DurationNs kSyncIdleNs = 10'000;

  // Token range [lo, hi) of a run's steps.
  std::pair<size_t, size_t> Span(const Group& gr, const Run& r) const {
    const std::vector<uint32_t>& occ = positions_[gr.anchor];
    const size_t lo = occ[r.first_seg];
    const size_t last_anchor = occ[r.first_seg + static_cast<size_t>(r.segments)];
    if (!r.tail) return {lo, last_anchor};
    const size_t len = last_anchor - occ[r.first_seg + static_cast<size_t>(r.segments) - 1];
    return {lo, last_anchor + len};
  }

  const Group* Choose(const std::vector<Group*>& valid) const {
    const auto smallest = [&](auto&& pred) -> const Group* {
      const Group* pick = nullptr;
      for (const Group* gr : valid) {
        if (!pred(*gr)) continue;
        if (pick == nullptr || gr->g < pick->g ||
            (gr->g == pick->g &&
             (gr->best->steps() > pick->best->steps() ||
              (gr->best->steps() == pick->best->steps() && gr->idle > pick->idle)))) {
          pick = gr;
        }
      }
      return pick;
    };
    if (const Group* g = smallest([](const Group& x) { return x.sampling_fraction >= 0.9; })) {
      return g;
    }
    if (const Group* g = smallest([](const Group& x) { return x.readback_fraction >= 0.9; })) {
      return g;
    }
    // No step markers: the largest period that is not a multiple of a smaller valid one.
    std::vector<const Group*> sorted(valid.begin(), valid.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const Group* a, const Group* b) { return a->g > b->g; });
    for (const Group* big : sorted) {
      bool multiple = false;
      for (const Group* small : sorted) {
        if (small->g >= big->g || small->g == 0) continue;
        const int64_t m = (big->g + small->g / 2) / small->g;
        if (m >= 2 && std::abs(big->g - m * small->g) <= Tol(big->g) + m * Tol(small->g)) {
          multiple = true;
          break;
        }
      }
      if (!multiple) return big;
    }
    return sorted.back();
  }

  FoundLoop Result(const Group& gr) const {
    const Run& r = *gr.best;
    const auto [lo, hi] = Span(gr, r);
    const std::vector<uint32_t>& occ = positions_[gr.anchor];
    FoundLoop out;
    out.steps = r.steps();
    out.deviated_steps = r.deviated;
    out.lo = tokens_[lo].start;
    out.hi = tokens_[lo].max_end;
    for (size_t i = lo; i < hi; ++i) out.hi = std::max(out.hi, tokens_[i].max_end);
    const size_t first_end = occ[r.first_seg + 1];
    for (size_t i = lo; i < first_end; ++i) {
      out.dispatches_per_step += tokens_[i].dispatches;
      out.kernels_per_step += tokens_[i].kernels;
      out.graph_launches_per_step += tokens_[i].graph ? 1 : 0;
    }
    out.source = out.graph_launches_per_step > 0 ? "graph-launches" : "periodic";
    for (const Run& x : gr.runs) {
      if (x.steps() < kMinSteps) continue;
      ++out.runs;
      if (x.first_seg <= r.first_seg) ++out.run;  // runs are in time order
    }
    out.boundary = gr.boundary;
    const auto reason = [&](std::string text) {
      out.confidence = "low";
      out.reasons.push_back(std::move(text));
    };
    if (out.steps < kConfidentSteps) {
      reason("only " + std::to_string(out.steps) + " steps (" + std::to_string(kConfidentSteps) +
             " or more make a loop certain)");
    }
    if (gr.boundary == "graph replay") {
      reason(
          "no token boundary but the graph replay (no sampling kernel, token read-back or "
          "host synchronization in a step): the unit may be a layer of piecewise graphs");
    }
    if (gr.layer_repeat < 2) reason("a step's kernels do not repeat a layer pattern");
    if (!gr.heavy) reason("no GEMM, GEMV or attention kernel by name in a step");
    if (out.deviated_steps * 4 > out.steps) {
      reason(std::to_string(out.deviated_steps) + " of " + std::to_string(out.steps) +
             " steps differ from the step before");
    }
    out.dispatches_before = tokens_[lo].first;
    const Token& a = tokens_[lo];
    if (a.id >= names_.size()) {
      const size_t sig = a.id - names_.size();
      out.anchor = "CUDA graph of " + std::to_string(graph_size_[sig]) + " dispatches, from " +
                   std::string(graph_first_name_[sig]);
    } else {
      out.anchor = std::string(names_.Get(a.id));
    }
    if (out.anchor.size() > 120) out.anchor = out.anchor.substr(0, 117) + "...";
    return out;
  }

  std::span<const trace::Dispatch> ds_;
  const trace::StringPool& names_;
  std::vector<Token> tokens_;
  size_t graph_launches_ = 0;
  uint32_t id_space_ = 0;
  std::vector<std::string_view> graph_first_name_;
  std::vector<int32_t> graph_size_;
  std::vector<std::vector<uint32_t>> positions_;
  std::vector<int32_t> prefix_sampling_, prefix_readback_;
  std::vector<int32_t> counts_;
  int64_t kernels_ = 0, backward_ = 0, optimizer_ = 0;
};

}  // namespace

base::StatusOr<FoundLoop> FindDecodeLoop(std::span<const trace::Dispatch> dispatches,
                                         std::span<const trace::ApiCall> launches,
                                         const trace::StringPool& names,
                                         const std::string& trace_path) {
  Finder finder(dispatches, launches, names);
  std::string seen;
  if (auto found = finder.Find(seen)) return *found;
  return base::DataError(trace_path, "found no decode loop " + seen);
}

}  // namespace decodeprof::analysis
