// decodeprof::profile — what the harness does to a log before it is published: dropping
// lines that belong elsewhere (the guard's notes, rocprofv3's glog lines) and scrubbing
// local paths (seed spec 2.1). Published logs are evidence; they must name neither the
// user's checkout nor the temporary trace directory.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::profile {

// A line the guard wrote to stderr (it starts with "decodeprof: guard: "); the same notes
// are in guard.log already.
bool IsGuardLine(std::string_view line);

// A glog line of rocprofv3 (regex ^[WEI][0-9]{4} , e.g. "W20260930 12:00:01.000 ..."):
// they name local temporary paths.
bool IsGlogLine(std::string_view line);

using LinePredicate = bool (*)(std::string_view line);

// `text` without the lines for which any of `drop` is true. A line is its text up to and
// including '\n'; the predicates see it without the '\n' (and without a '\r' before it).
// The last line may lack its '\n'.
std::string DropLines(std::string_view text, const std::vector<LinePredicate>& drop);

// Every occurrence of `from` in `text` replaced by `to`, scanning left to right without
// overlaps; byte for byte, so '#', '\\', '&' or regex characters in either are plain text.
// An empty `from` changes nothing.
std::string ReplaceLiteral(std::string_view text, std::string_view from, std::string_view to);

// Replaces "<repo root>/" with "" and the trace directory with "<trace-dir>" (seed spec 2.1).
// Either may be empty (no git work tree): that replacement is skipped, as is a repo root of
// "/" (it would erase every slash). The longer needle is replaced first, so a trace
// directory inside the checkout still becomes <trace-dir>.
class PathScrubber {
 public:
  PathScrubber(const std::string& repo_root, const std::string& trace_dir);

  std::string Scrub(std::string_view text) const;

  // Scrubs the file in place (atomic rewrite when something changed). A missing file is
  // not an error (nothing was published there yet). Errors: kIo reading or writing.
  base::Status ScrubFile(const std::string& path) const;

 private:
  std::vector<std::pair<std::string, std::string>> replacements_;  // in order
};

// Reads `from`, drops the lines matching `drop`, scrubs it and writes it to `to`
// atomically. Errors: kIo reading or writing.
base::Status PublishLog(const std::string& from, const std::string& to,
                        const std::vector<LinePredicate>& drop, const PathScrubber& scrubber);

}  // namespace decodeprof::profile
