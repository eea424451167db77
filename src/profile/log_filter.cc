#include "src/profile/log_filter.h"

#include <unistd.h>

#include <algorithm>

#include "src/base/file_io.h"
#include "src/guard/messages.h"

namespace decodeprof::profile {

bool IsGuardLine(std::string_view line) { return line.starts_with(guard::kStderrPrefix); }

bool IsGlogLine(std::string_view line) {
  if (line.size() < 6) return false;
  if (line[0] != 'W' && line[0] != 'E' && line[0] != 'I') return false;
  for (size_t i = 1; i <= 4; ++i) {
    if (line[i] < '0' || line[i] > '9') return false;
  }
  return line[5] == ' ';
}

std::string DropLines(std::string_view text, const std::vector<LinePredicate>& drop) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(pos, (nl == std::string_view::npos ? end : nl) - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const bool dropped =
        std::any_of(drop.begin(), drop.end(), [line](LinePredicate p) { return p(line); });
    if (!dropped) out.append(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

std::string ReplaceLiteral(std::string_view text, std::string_view from, std::string_view to) {
  if (from.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  for (size_t hit = text.find(from); hit != std::string_view::npos; hit = text.find(from, pos)) {
    out.append(text.substr(pos, hit - pos));
    out.append(to);
    pos = hit + from.size();
  }
  out.append(text.substr(pos));
  return out;
}

PathScrubber::PathScrubber(const std::string& repo_root, const std::string& trace_dir) {
  if (!repo_root.empty() && repo_root != "/") {
    const std::string root = repo_root.back() == '/' ? repo_root : repo_root + "/";
    replacements_.emplace_back(root, "");
  }
  if (!trace_dir.empty()) replacements_.emplace_back(trace_dir, "<trace-dir>");
  std::stable_sort(replacements_.begin(), replacements_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string PathScrubber::Scrub(std::string_view text) const {
  std::string out(text);
  for (const auto& [from, to] : replacements_) out = ReplaceLiteral(out, from, to);
  return out;
}

base::Status PathScrubber::ScrubFile(const std::string& path) const {
  base::StatusOr<std::string> text = base::ReadFile(path, base::kMaxRunLogBytes, "a run log");
  if (!text.ok()) {
    if (::access(path.c_str(), F_OK) != 0) return base::OkStatus();  // nothing published
    return text.status();
  }
  const std::string scrubbed = Scrub(*text);
  if (scrubbed == *text) return base::OkStatus();
  return base::WriteFileAtomic(path, scrubbed);
}

base::Status PublishLog(const std::string& from, const std::string& to,
                        const std::vector<LinePredicate>& drop, const PathScrubber& scrubber) {
  DP_ASSIGN_OR_RETURN(const std::string text,
                      base::ReadFile(from, base::kMaxRunLogBytes, "a run log"));
  return base::WriteFileAtomic(to, scrubber.Scrub(DropLines(text, drop)), {from});
}

}  // namespace decodeprof::profile
