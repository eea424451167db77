// Pieces of the structure-aware SQLite targets (native_fuzzer, nsys_sqlite_fuzzer): values
// drawn from the fuzz bytes, and "damage" applied to a valid database after it was written —
// tables dropped or renamed, columns dropped, cells set to NULL, text, reals, blobs or extreme
// integers, rows deleted. The schema is read back from the file, so the same damage works for
// both formats.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>
#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace decodeprof::fuzz {

// The fuzz input is a database file itself (the raw mode of the SQLite targets).
inline bool IsSqliteFile(const uint8_t* data, size_t size) {
  static constexpr std::string_view kMagic("SQLite format 3\0", 16);
  return size >= kMagic.size() &&
         std::string_view(reinterpret_cast<const char*>(data), kMagic.size()) == kMagic;
}

// A timestamp: mostly increasing in small steps from `clock` (so that rows look like a trace),
// sometimes anything, or an extreme.
inline int64_t FuzzTime(FuzzedDataProvider& fdp, int64_t& clock) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return fdp.ConsumeIntegral<int64_t>();
    case 1:
      return std::numeric_limits<int64_t>::max();
    case 2:
      return std::numeric_limits<int64_t>::min();
    case 3:
      return clock - fdp.ConsumeIntegralInRange<int64_t>(0, 1000);
    default:
      clock += fdp.ConsumeIntegralInRange<int64_t>(0, 1 << 20);
      if (clock > (int64_t{1} << 62)) clock = 0;
      return clock;
  }
}

// The end of something that started at `start`: usually start + a short duration.
inline int64_t FuzzEnd(FuzzedDataProvider& fdp, int64_t start, int64_t& clock) {
  if (fdp.ConsumeIntegralInRange<int>(0, 7) == 0) return FuzzTime(fdp, clock);
  const int64_t duration = fdp.ConsumeIntegralInRange<int64_t>(0, 100000);
  return start > std::numeric_limits<int64_t>::max() - duration
             ? std::numeric_limits<int64_t>::max()
             : start + duration;
}

// A small integer most of the time (ids, devices, grid sizes), sometimes anything.
template <typename T>
T FuzzSmall(FuzzedDataProvider& fdp, T low, T high) {
  if (fdp.ConsumeIntegralInRange<int>(0, 7) == 0) return fdp.ConsumeIntegral<T>();
  return fdp.ConsumeIntegralInRange<T>(low, high);
}

// A kernel or API name: one of a few realistic spellings (mangled ones included, which the
// importers demangle), or fuzz text.
inline std::string FuzzName(FuzzedDataProvider& fdp) {
  static const char* const kNames[] = {
      "void gemv_kernel<float>(float const*, float*, int)",
      "_Z11rms_norm_f32PKfPfi",
      "_ZN7cutlass6KernelINS_4gemm6kernel4GemmIiEEEEvNT_6ParamsE",
      "_Z",
      "_ZZZZZZZZ",
      "flash_fwd_kernel",
      "cudaLaunchKernel_v7000",
      "cuLaunchKernel",
      "cudaGraphLaunch_v10000",
      "cudaMemcpyAsync_v3020",
      "decode",
      "prefill",
      "",
  };
  if (fdp.ConsumeBool()) {
    return kNames[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kNames) - 1)];
  }
  return fdp.ConsumeRandomLengthString(48);
}

// Applies up to `max_ops` damage operations, chosen by `fdp`, to the database at `path` (none
// when the bytes say so). Optionally the NOT NULL constraints of every table are first removed
// from the schema (writable_schema), so that NULL cells can be written. Failed statements are
// ignored: the damage is best effort.
inline void DamageDatabase(const std::string& path, FuzzedDataProvider& fdp, int max_ops) {
  if (fdp.remaining_bytes() == 0 || !fdp.ConsumeBool()) return;
  const bool allow_nulls = fdp.ConsumeBool();
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return;
  }
  if (allow_nulls) {
    sqlite3_exec(db,
                 "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, "
                 "'NOT NULL', '') WHERE type = 'table'; PRAGMA writable_schema = OFF;",
                 nullptr, nullptr, nullptr);
    sqlite3_close(db);  // the changed schema is read when the file is opened again
    db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
      sqlite3_close(db);
      return;
    }
  }
  auto strings = [&](const std::string& sql) {
    std::vector<std::string> out;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        const unsigned char* text = sqlite3_column_text(stmt, 0);
        out.emplace_back(text == nullptr ? "" : reinterpret_cast<const char*>(text));
      }
    }
    sqlite3_finalize(stmt);
    return out;
  };
  auto quoted = [](const std::string& name) { return "\"" + name + "\""; };
  for (int op = 0; op < max_ops && fdp.remaining_bytes() > 0; ++op) {
    const std::vector<std::string> tables =
        strings("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    if (tables.empty()) break;
    const std::string table = tables[fdp.ConsumeIntegralInRange<size_t>(0, tables.size() - 1)];
    const std::vector<std::string> columns =
        strings("SELECT name FROM pragma_table_info(" + std::string("'") + table + "')");
    if (columns.empty()) continue;
    const std::string column = columns[fdp.ConsumeIntegralInRange<size_t>(0, columns.size() - 1)];
    const std::string key = quoted(columns.front());
    const std::string one_row = " WHERE " + key + " IN (SELECT " + key + " FROM " + quoted(table) +
                                " LIMIT 1 OFFSET " +
                                std::to_string(fdp.ConsumeIntegralInRange<int>(0, 8)) + ")";
    std::string sql;
    bool bind_value = false;
    switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
      case 0:
        sql = "DROP TABLE " + quoted(table);
        break;
      case 1:
        sql = "ALTER TABLE " + quoted(table) + " RENAME TO " + quoted(table + "_old");
        break;
      case 2:
        sql = "ALTER TABLE " + quoted(table) + " DROP COLUMN " + quoted(column);
        break;
      case 3:
        sql = "DELETE FROM " + quoted(table) + one_row;
        break;
      case 4:
        sql = "UPDATE " + quoted(table) + " SET " + quoted(column) + " = ?";
        bind_value = true;
        break;
      default:
        sql = "UPDATE " + quoted(table) + " SET " + quoted(column) + " = ?" + one_row;
        bind_value = true;
        break;
    }
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      sqlite3_finalize(stmt);
      continue;
    }
    if (bind_value) {
      switch (fdp.ConsumeIntegralInRange<int>(0, 8)) {
        case 0:
          sqlite3_bind_null(stmt, 1);
          break;
        case 1:
          sqlite3_bind_int64(stmt, 1, fdp.ConsumeIntegral<int64_t>());
          break;
        case 2:
          sqlite3_bind_int64(stmt, 1, std::numeric_limits<int64_t>::max());
          break;
        case 3:
          sqlite3_bind_int64(stmt, 1, std::numeric_limits<int64_t>::min());
          break;
        case 4:
          sqlite3_bind_double(stmt, 1, fdp.ConsumeFloatingPoint<double>());
          break;
        case 5: {
          const std::string blob = fdp.ConsumeRandomLengthString(8);
          sqlite3_bind_blob(stmt, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
          break;
        }
        case 6: {
          const std::string text = FuzzName(fdp);
          sqlite3_bind_text(stmt, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
          break;
        }
        default:
          sqlite3_bind_int64(stmt, 1, fdp.ConsumeIntegralInRange<int64_t>(-3, 3));
          break;
      }
    }
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
}

}  // namespace decodeprof::fuzz
