#include "src/report/run_set.h"
#include "src/report/text_scan.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

std::string NameOf(const SummaryFile& summary) { return RunView(summary).name().Str(); }

// The directories of the summary's path, outermost first ("a/b/x_summary.json" → a, b).
std::vector<std::string> Directories(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t slash; (slash = path.find('/', start)) != std::string::npos; start = slash + 1) {
    if (slash > start && path.compare(start, slash - start, ".") != 0) {
      parts.push_back(path.substr(start, slash - start));
    }
  }
  return parts;
}

// The last `k` directories of `dirs` joined by '/', then '/' and `name`.
std::string Suffixed(const std::vector<std::string>& dirs, size_t k, const std::string& name) {
  std::string out;
  for (size_t i = dirs.size() - std::min(k, dirs.size()); i < dirs.size(); ++i) {
    out += dirs[i] + "/";
  }
  return out + name;
}

using text::IsDigit;

// The tag of a `<model>_<tag>` name: "greedy...", or "t" and a digit; "" otherwise.
std::string NameTag(const std::string& name) {
  const size_t underscore = name.rfind('_');
  if (underscore == std::string::npos || underscore == 0) return "";
  std::string tag = name.substr(underscore + 1);
  if (tag.starts_with("greedy")) return tag;
  if (tag.size() >= 2 && tag[0] == 't' && IsDigit(tag[1])) return tag;
  return "";
}

// The field is there, and null (a summary of an older version may lack it: no evidence).
bool StoredNull(const RunView& summary, const SummaryField& field) {
  return summary.Has(field) && summary.Get(field).is_null();
}

}  // namespace

void AssignRunLabels(std::vector<SummaryFile>& summaries) {
  std::map<std::string, std::vector<size_t>> by_name;
  for (size_t i = 0; i < summaries.size(); ++i) by_name[NameOf(summaries[i])].push_back(i);
  for (const auto& [name, runs] : by_name) {
    if (runs.size() == 1) {
      summaries[runs[0]].label = name;
      continue;
    }
    std::vector<std::vector<std::string>> dirs;
    for (const size_t r : runs) dirs.push_back(Directories(summaries[r].path));
    // Each run: the shortest suffix of its directory that no other run of the name shares
    // at that length; a run whose whole directory is another's gets its path.
    std::vector<std::string> labels(runs.size());
    for (size_t i = 0; i < runs.size(); ++i) {
      labels[i] = summaries[runs[i]].path;
      for (size_t k = 1; k <= dirs[i].size(); ++k) {
        const std::string mine = Suffixed(dirs[i], k, name);
        bool shared = false;
        for (size_t j = 0; j < runs.size() && !shared; ++j) {
          shared = j != i && Suffixed(dirs[j], k, name) == mine;
        }
        if (!shared) {
          labels[i] = mine;
          break;
        }
      }
    }
    for (size_t i = 0; i < runs.size(); ++i) summaries[runs[i]].label = labels[i];
  }
}

std::string LabelOf(const SummaryFile& summary) {
  return summary.label.empty() ? NameOf(summary) : summary.label;
}

std::string SettingOf(const SummaryFile& summary) {
  const RunView run(summary);
  if (const std::optional<std::string> name = run.name().get()) {
    if (std::string tag = NameTag(*name); !tag.empty()) return tag;
  }
  const std::optional<double> temperature = run.temperature().get();
  if (!temperature || *temperature == 0.0) return "greedy";
  return "t" + run.temperature().Str();
}

std::vector<RunGroup> GroupRuns(const std::vector<SummaryFile>& summaries) {
  std::vector<RunGroup> groups;
  for (size_t r = 0; r < summaries.size(); ++r) {
    const std::string model = RunView(summaries[r]).model_type().get().value_or("");
    const std::string setting = SettingOf(summaries[r]);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const RunGroup& g) {
      return g.model == model && g.setting == setting;
    });
    if (it == groups.end()) {
      groups.push_back({model, setting, {}});
      it = groups.end() - 1;
    }
    it->runs.push_back(r);
  }
  // A model's settings together, models by name, runs without a model last.
  std::stable_sort(groups.begin(), groups.end(), [](const RunGroup& a, const RunGroup& b) {
    if (a.model.empty() != b.model.empty()) return b.model.empty();
    return a.model < b.model;
  });
  return groups;
}

std::optional<std::string> SyntheticEvidence(const SummaryFile& summary) {
  const RunView s(summary);
  if (const std::optional<std::string> workload = s.workload().get()) {
    if (*workload == "synthetic") return "its summary says workload synthetic";
    return std::nullopt;
  }
  namespace run = summary_schema::run;
  if (StoredNull(s, run::model_type) && StoredNull(s, run::prompt_tokens) &&
      StoredNull(s, run::profiled_decode_tok_s)) {
    return "no model and no bench results: a test program or an engine run not named; "
           "`summarize --model-dir` names the model";
  }
  return std::nullopt;
}

}  // namespace decodeprof::report
