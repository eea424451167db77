#include "src/io/common/file_probe.h"

#include <algorithm>
#include <memory>

#include "src/base/file_io.h"
#include "src/io/common/input_stream.h"
#include "src/io/common/sqlite_db.h"

namespace decodeprof::io {

base::StatusOr<FileProbe> FileProbe::Open(const std::string& path) {
  DP_ASSIGN_OR_RETURN(std::string head, base::ReadFilePrefix(path, kHeadBytes));
  const Compression compression = DetectCompression(head);
  if (compression != Compression::kNone) {
    // The start of the content: recognizers look at what the importer will read.
    DP_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, InputStream::Open(path));
    head.resize(kHeadBytes);
    size_t got = 0;
    for (size_t n = 1; got < kHeadBytes && n > 0; got += n) {
      n = in->Read(head.data() + got, kHeadBytes - got);
    }
    head.resize(got);
    DP_RETURN_IF_ERROR(in->status());  // damaged within its first bytes
    FileProbe probe(path, std::move(head));
    probe.set_compression(compression);
    return probe;
  }
  std::vector<std::string> tables;
  if (LooksLikeSqlite(head)) {
    auto db = SqliteDb::Open(path);
    // A damaged SQLite file (cut short, corrupt) is no importer's: its error is the answer.
    if (!db.ok() && db.status().kind() == base::ErrorKind::kData) return db.status();
    if (db.ok()) {
      auto names = db->TableNames();
      if (!names.ok() && names.status().kind() == base::ErrorKind::kData) return names.status();
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
