#include "tests/support/temp_dir.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace decodeprof::testing {
namespace {

namespace fs = std::filesystem;

std::string MakeDir(std::string_view prefix) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp " + pattern + ": " + std::strerror(errno));
  }
  const fs::path canonical = fs::canonical(pattern, ec);
  return ec ? pattern : canonical.string();
}

// The ScratchDir directories, removed at exit (by TempDir's destructor).
std::vector<TempDir>& Scratch() {
  static auto* const dirs = new std::vector<TempDir>();
  static const struct Remover {
    ~Remover() { dirs->clear(); }
  } remover;
  return *dirs;
}

}  // namespace

TempDir::TempDir(std::string_view prefix) : path_(MakeDir(prefix)), owner_(::getpid()) {}

TempDir::~TempDir() {
  if (path_.empty() || owner_ != ::getpid()) return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

TempDir::TempDir(TempDir&& other) noexcept
    : path_(std::exchange(other.path_, {})), owner_(other.owner_) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    TempDir gone(std::move(*this));
    path_ = std::exchange(other.path_, {});
    owner_ = other.owner_;
  }
  return *this;
}

std::string TempDir::Path(std::string_view name) const { return path_ + "/" + std::string(name); }

std::string ScratchDir(std::string_view prefix) {
  std::vector<TempDir>& dirs = Scratch();
  dirs.emplace_back(prefix);
  return dirs.back().path();
}

}  // namespace decodeprof::testing
