// The store's one seam to a database: a connection that runs SQL with bound
// parameters and hands back rows, and transactions. Two engines implement it:
// SQLite (an embedded file, the default) and PostgreSQL (libpq, a lab's
// server). Store writes its queries once, with `?` placeholders, in the
// subset of SQL both engines share; schema.h keeps one migration text per
// engine where their DDL differs.
//
// Errors are values: a failed statement is an Error (exit 3) naming the store
// and the engine's own message. Nothing here throws.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/base/result.h"

namespace harness::sql {

enum class Engine { sqlite, postgres };

// Bytes bound as a BLOB (SQLite) or bytea (PostgreSQL).
struct Bytes {
  const void* data = nullptr;
  std::size_t size = 0;
};

struct Null {};

// One bound parameter.
class Value {
 public:
  using Variant = std::variant<Null, std::int64_t, double, std::string, Bytes>;
  Value(Null) : v_(Null{}) {}
  Value(int x) : v_(static_cast<std::int64_t>(x)) {}
  Value(std::int64_t x) : v_(x) {}
  Value(std::uint64_t x) : v_(static_cast<std::int64_t>(x)) {}
  Value(double x) : v_(x) {}
  Value(std::string x) : v_(std::move(x)) {}
  Value(std::string_view x) : v_(std::string(x)) {}
  Value(const char* x) : v_(std::string(x)) {}
  Value(Bytes x) : v_(x) {}
  Value(std::optional<double> x) : v_(x ? Variant(*x) : Variant(Null{})) {}
  const Variant& get() const { return v_; }

 private:
  Variant v_;
};

using Params = std::vector<Value>;

// The rows of one statement, read front to back: `while (rows->next())`,
// then `status()` says whether the statement ended well or failed. Column
// accessors read the current row; a NULL reads as 0 or "". A text_view is
// valid until the next call of next(): reading 100,000 rows of history, a
// std::string per column was a tenth of the time.
class Rows {
 public:
  virtual ~Rows() = default;
  virtual bool next() = 0;
  virtual Status status() const = 0;
  virtual bool is_null(int column) const = 0;
  virtual std::int64_t int64(int column) const = 0;
  virtual double real(int column) const = 0;
  virtual std::string_view text_view(int column) const = 0;
  // How many rows there are, when the engine knows before they are read
  // (PostgreSQL sends a whole result at once; SQLite steps).
  virtual std::optional<std::size_t> count() const { return std::nullopt; }
  std::string text(int column) const { return std::string(text_view(column)); }
  virtual std::string bytes(int column) const = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual Engine engine() const = 0;
  // How the store is named in messages (a URI without its password).
  virtual const std::string& name() const = 0;

  // A script of one or more statements without parameters (migrations).
  virtual Status exec(const std::string& script) = 0;
  // One statement with `?` placeholders bound in order.
  virtual Result<std::unique_ptr<Rows>> query(const std::string& sql, const Params& params = {}) = 0;
  // One statement run to completion: the number of rows it changed.
  virtual Result<std::int64_t> run(const std::string& sql, const Params& params = {}) = 0;

  // A transaction that writes: SQLite takes the write lock at once (BEGIN
  // IMMEDIATE: a reader cannot later fail to upgrade), PostgreSQL begins.
  virtual Status begin() = 0;
  virtual Status commit() = 0;
  virtual Status rollback() = 0;

  // The schema: its version, and a transaction that holds the one lock
  // under which migrations run (SQLite: BEGIN EXCLUSIVE; PostgreSQL: an
  // advisory transaction lock), so concurrent first opens migrate once.
  virtual Result<int> schema_version() = 0;
  virtual Status begin_migration() = 0;
  virtual Status set_schema_version(int version) = 0;
};

// A transaction that rolls back unless committed.
class Transaction {
 public:
  static Result<Transaction> begin(Connection& c);
  Transaction(Transaction&& o) noexcept : c_(o.c_) { o.c_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Status commit();

 private:
  explicit Transaction(Connection* c) : c_(c) {}
  Connection* c_;
};

// A store target names a PostgreSQL server when it is a postgresql:// or
// postgres:// URI; anything else is an SQLite file path.
bool is_postgres_uri(std::string_view target);
// The target as shown in messages: a URI's password is replaced by "***".
std::string display_name(const std::string& target);

// Opens the store's database: SQLite file (created when absent) or
// PostgreSQL server. A bad URI is bad input (exit 2); a server that cannot
// be reached is an infrastructure error (exit 3) with libpq's message.
Result<std::unique_ptr<Connection>> open(const std::string& target);
Result<std::unique_ptr<Connection>> open_sqlite(const std::string& path);
Result<std::unique_ptr<Connection>> open_postgres(const std::string& uri);

}  // namespace harness::sql
