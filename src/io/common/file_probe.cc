#include "src/io/common/file_probe.h"

#include <algorithm>

#include "src/base/file_io.h"
#include "src/io/common/sqlite_db.h"

namespace decodeprof::io {

base::StatusOr<FileProbe> FileProbe::Open(const std::string& path) {
  DP_ASSIGN_OR_RETURN(std::string head, base::ReadFilePrefix(path, kHeadBytes));
  std::vector<std::string> tables;
  if (LooksLikeSqlite(head)) {
    auto db = SqliteDb::Open(path);
    if (db.ok()) {
      auto names = db->TableNames();
      if (names.ok()) tables = std::move(*names);
    }
  }
  return FileProbe(path, std::move(head), std::move(tables));
}

bool FileProbe::is_sqlite() const { return LooksLikeSqlite(head_); }

bool FileProbe::HasTable(std::string_view name) const {
  return std::find(tables_.begin(), tables_.end(), name) != tables_.end();
}

}  // namespace decodeprof::io
