// For the writers of SQLite traces that tests and the benchmark generators use (nsys, rocpd):
// one prepared statement per SQL text, kept until the writer closes the database. A statement
// prepared and finalized for every row was most of the time of writing millions of rows.
#pragma once

#include <sqlite3.h>

#include <string>
#include <unordered_map>

namespace decodeprof::io::sqlite_testing {

class PreparedStatements {
 public:
  PreparedStatements() = default;
  PreparedStatements(const PreparedStatements&) = delete;
  PreparedStatements& operator=(const PreparedStatements&) = delete;
  ~PreparedStatements() { Finalize(); }

  // The statement for `sql` on `db`, reset and with no bindings; nullptr where SQLite cannot
  // prepare it (sqlite3_errmsg(db) says why). Reset it after its last step.
  sqlite3_stmt* Get(sqlite3* db, const std::string& sql) {
    auto it = statements_.find(sql);
    if (it == statements_.end()) {
      sqlite3_stmt* stmt = nullptr;
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) return nullptr;
      it = statements_.emplace(sql, stmt).first;
    }
    sqlite3_reset(it->second);
    sqlite3_clear_bindings(it->second);
    return it->second;
  }

  // Finalizes every statement: before the database is closed.
  void Finalize() {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    statements_.clear();
  }

 private:
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace decodeprof::io::sqlite_testing
