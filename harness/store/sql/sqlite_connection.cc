// The SQLite engine of sql::Connection, on SQLite's C API: WAL, a busy
// timeout, foreign keys on, statements prepared once per connection.
#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "harness/store/sql/connection.h"

namespace harness::sql {
namespace {

class SqliteConnection;

// A prepared statement kept for the life of the connection; `busy` while a
// Rows reads from it, so a nested query of the same text prepares its own.
struct Prepared {
  sqlite3_stmt* stmt = nullptr;
  bool busy = false;
};

class SqliteRows final : public Rows {
 public:
  SqliteRows(SqliteConnection& c, Prepared* cached, sqlite3_stmt* owned_or_cached, bool owned)
      : c_(c), cached_(cached), stmt_(owned_or_cached), owned_(owned) {}
  ~SqliteRows() override;
  bool next() override;
  Status status() const override { return status_; }
  bool is_null(int col) const override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::int64_t int64(int col) const override { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const override { return sqlite3_column_double(stmt_, col); }
  std::string_view text_view(int col) const override {
    const unsigned char* p = sqlite3_column_text(stmt_, col);
    return p ? std::string_view(reinterpret_cast<const char*>(p),
                                static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string_view();
  }
  std::string bytes(int col) const override {
    const void* p = sqlite3_column_blob(stmt_, col);
    return p ? std::string(static_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }

 private:
  SqliteConnection& c_;
  Prepared* cached_;
  sqlite3_stmt* stmt_;
  bool owned_;
  bool done_ = false;
  Status status_ = ok();
};

class SqliteConnection final : public Connection {
 public:
  SqliteConnection(sqlite3* db, std::string name) : db_(db), name_(std::move(name)) {}
  ~SqliteConnection() override {
    for (auto& [sql, p] : cache_) sqlite3_finalize(p.stmt);
    sqlite3_close_v2(db_);
  }
  Engine engine() const override { return Engine::sqlite; }
  const std::string& name() const override { return name_; }

  Error failure(const std::string& what) const {
    return Error::infra(fmt::format("store {}: {}: {}", name_, what, sqlite3_errmsg(db_)));
  }

  Status exec(const std::string& script) override {
    char* message = nullptr;
    if (sqlite3_exec(db_, script.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      return Error::infra(fmt::format("store {}: {}", name_, text));
    }
    return ok();
  }

  Result<std::unique_ptr<Rows>> query(const std::string& sql, const Params& params) override {
    Prepared* cached = &cache_[sql];
    sqlite3_stmt* stmt = cached->stmt;
    bool owned = false;
    if (!stmt || cached->busy) {
      sqlite3_stmt* fresh = nullptr;
      if (sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &fresh,
                             nullptr) != SQLITE_OK) {
        return failure(fmt::format("cannot prepare \"{}\"", sql));
      }
      if (!cached->stmt) {
        cached->stmt = fresh;
      } else {
        owned = true;
      }
      stmt = fresh;
    }
    if (!owned) cached->busy = true;
    auto rows = std::make_unique<SqliteRows>(*this, owned ? nullptr : cached, stmt, owned);
    int index = 1;
    for (const Value& v : params) {
      int rc = std::visit(
          [&](const auto& x) -> int {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Null>) return sqlite3_bind_null(stmt, index);
            if constexpr (std::is_same_v<T, std::int64_t>) return sqlite3_bind_int64(stmt, index, x);
            if constexpr (std::is_same_v<T, double>) return sqlite3_bind_double(stmt, index, x);
            if constexpr (std::is_same_v<T, std::string>) {
              return sqlite3_bind_text64(stmt, index, x.data(), x.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
            }
            if constexpr (std::is_same_v<T, Bytes>) {
              return sqlite3_bind_blob64(stmt, index, x.data ? x.data : "", x.size, SQLITE_TRANSIENT);
            }
          },
          v.get());
      if (rc != SQLITE_OK) return failure(fmt::format("cannot bind parameter {} of \"{}\"", index, sql));
      ++index;
    }
    return std::unique_ptr<Rows>(std::move(rows));
  }

  Result<std::int64_t> run(const std::string& sql, const Params& params) override {
    Result<std::unique_ptr<Rows>> rows = query(sql, params);
    if (!rows) return rows.error();
    while ((*rows)->next()) {
    }
    HARNESS_TRY((*rows)->status());
    return static_cast<std::int64_t>(sqlite3_changes64(db_));
  }

  Status begin() override { return exec("BEGIN IMMEDIATE"); }
  Status commit() override { return exec("COMMIT"); }
  Status rollback() override { return exec("ROLLBACK"); }

  Result<int> schema_version() override {
    Result<std::unique_ptr<Rows>> rows = query("PRAGMA user_version", {});
    if (!rows) return rows.error();
    if ((*rows)->next()) return static_cast<int>((*rows)->int64(0));
    HARNESS_TRY((*rows)->status());
    return 0;
  }
  Status begin_migration() override { return exec("BEGIN EXCLUSIVE"); }
  Status set_schema_version(int version) override { return exec(fmt::format("PRAGMA user_version = {}", version)); }

  sqlite3* db() { return db_; }

 private:
  sqlite3* db_;
  std::string name_;
  std::map<std::string, Prepared> cache_;
};

SqliteRows::~SqliteRows() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  if (owned_) sqlite3_finalize(stmt_);
  if (cached_) cached_->busy = false;
}

bool SqliteRows::next() {
  if (done_) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  done_ = true;
  if (rc != SQLITE_DONE) status_ = c_.failure(fmt::format("\"{}\"", sqlite3_sql(stmt_)));
  return false;
}

}  // namespace

Result<std::unique_ptr<Connection>> open_sqlite(const std::string& path) {
  // An SQLite store is a regular file, or a path where one is to be made: a
  // FIFO, device or folder is bad input, said before SQLite reads it.
  struct stat st {};
  const int found = ::stat(path.c_str(), &st);
  if (found != 0 && errno == ENOTDIR) {
    return Error::input(fmt::format("store {}: a part of the path is not a folder", path));
  }
  if (found != 0 && errno == ENOENT) {
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) {
      return Error::input(fmt::format("store {}: no such folder {}", path, folder.string()));
    }
  }
  if (found == 0 && !S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)                          ? "a folder"
                       : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                    : "not a regular file";
    return Error::input(fmt::format("store {}: is {}, not an SQLite file (a store is an SQLite file, or a "
                                    "postgresql:// URI)", path, kind));
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Error::infra(fmt::format("store {}: open: {}", path, message));
  }
  auto c = std::make_unique<SqliteConnection>(db, path);
  sqlite3_busy_timeout(db, 5000);
  sqlite3_extended_result_codes(db, 1);
  // The first statements read the file: one that is no database fails here.
  if (!c->exec("PRAGMA foreign_keys = ON") || !c->exec("PRAGMA synchronous = NORMAL")) {
    return Error::infra(fmt::format("store {}: open: {}", path, sqlite3_errmsg(db)));
  }
  // A read-only or in-memory file may refuse WAL; that is fine.
  (void)c->exec("PRAGMA journal_mode = WAL");
  return std::unique_ptr<Connection>(std::move(c));
}

}  // namespace harness::sql
