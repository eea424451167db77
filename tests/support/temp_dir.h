// Temporary directories for tests: one mkdtemp and one recursive removal for every test
// that needs a private folder.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

namespace decodeprof::testing {

// A private directory made with mkdtemp under $TMPDIR (else /tmp), named <prefix>XXXXXX,
// removed with everything in it when the object goes — by the process that made it only (a
// forked child's copy leaves it). Throws std::runtime_error when it cannot be made (a test
// then fails with the reason).
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "decodeprof_");
  ~TempDir();
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The directory, canonical (no symlink in it), so it is what a program run in it prints.
  const std::string& path() const { return path_; }
  // path()/name.
  std::string Path(std::string_view name) const;

 private:
  std::string path_;
  pid_t owner_ = 0;
};

// A fresh private directory (as TempDir) that lives until the test program ends, for
// helpers that hand out paths: all of them are removed at exit.
std::string ScratchDir(std::string_view prefix);

}  // namespace decodeprof::testing
