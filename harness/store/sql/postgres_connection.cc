// The PostgreSQL engine of sql::Connection, on libpq. The URI goes to libpq
// as it is, so its environment variables (PGHOST, PGUSER, PGPASSWORD, ...),
// service files and ~/.pgpass apply as they do for psql.
//
// Parameters are sent typed (int8, float8, text; bytea in binary) so the
// server never guesses; results come back as text: integers and float8 in
// PostgreSQL's shortest exact text form (extra_float_digits = 1, the default
// since PostgreSQL 12), bytea as hex.
#include <libpq-fe.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "harness/store/sql/connection.h"

namespace harness::sql {
namespace {

// Type OIDs of the built-in types (pg_type.dat; fixed since PostgreSQL 7).
constexpr Oid kBytea = 17, kInt8 = 20, kText = 25, kFloat8 = 701;

// A statement's `?` placeholders become `$1`, `$2`, ...; a `?` inside a
// quoted literal or identifier stays.
std::string numbered_placeholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  char quote = 0;
  for (char ch : sql) {
    if (quote) {
      if (ch == quote) quote = 0;
      out += ch;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
      out += ch;
    } else if (ch == '?') {
      out += fmt::format("${}", ++n);
    } else {
      out += ch;
    }
  }
  return out;
}

std::string trimmed(const char* message) {
  std::string m = message ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

class PostgresRows final : public Rows {
 public:
  explicit PostgresRows(PGresult* r) : r_(r), count_(PQntuples(r)) {}
  ~PostgresRows() override { PQclear(r_); }
  bool next() override { return ++row_ < count_; }
  Status status() const override { return ok(); }  // the whole result arrived, or the query failed
  bool is_null(int col) const override { return PQgetisnull(r_, row_, col) != 0; }
  std::int64_t int64(int col) const override { return std::strtoll(PQgetvalue(r_, row_, col), nullptr, 10); }
  double real(int col) const override {
    // float8's text form, shortest round trip: from_chars reads it exactly
    // and several times faster than strtod, which takes what it leaves
    // ("NaN", "Infinity" and "-Infinity" in the server's spelling).
    const char* text = PQgetvalue(r_, row_, col);
    const char* end = text + PQgetlength(r_, row_, col);
    double v = 0;
    auto [ptr, ec] = std::from_chars(text, end, v);
    return ec == std::errc() && ptr == end ? v : std::strtod(text, nullptr);
  }
  std::optional<std::size_t> count() const override { return static_cast<std::size_t>(count_); }
  std::string_view text_view(int col) const override {
    return std::string_view(PQgetvalue(r_, row_, col), static_cast<std::size_t>(PQgetlength(r_, row_, col)));
  }
  std::string bytes(int col) const override {
    if (is_null(col)) return {};
    std::size_t n = 0;
    unsigned char* raw = PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(r_, row_, col)), &n);
    if (!raw) return {};
    std::string out(reinterpret_cast<const char*>(raw), n);
    PQfreemem(raw);
    return out;
  }

 private:
  PGresult* r_;
  int count_;
  int row_ = -1;
};

class PostgresConnection final : public Connection {
 public:
  PostgresConnection(PGconn* c, std::string name) : c_(c), name_(std::move(name)) {}
  ~PostgresConnection() override { PQfinish(c_); }
  Engine engine() const override { return Engine::postgres; }
  const std::string& name() const override { return name_; }

  Error failure(PGresult* r) const {
    std::string message = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(c_));
    if (message.empty()) message = trimmed(PQerrorMessage(c_));
    if (PQstatus(c_) == CONNECTION_BAD) {
      return Error::infra(fmt::format("store {}: the server closed the connection: {}", name_, message));
    }
    return Error::infra(fmt::format("store {}: {}", name_, message));
  }

  Status exec(const std::string& script) override {
    PGresult* r = PQexec(c_, script.c_str());
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      Error e = failure(r);
      PQclear(r);
      return e;
    }
    PQclear(r);
    return ok();
  }

  Result<PGresult*> execute(const std::string& sql, const Params& params) {
    const std::string text = numbered_placeholders(sql);
    std::vector<Oid> types;
    std::vector<std::string> storage;
    std::vector<const char*> values;
    std::vector<int> lengths, formats;
    types.reserve(params.size());
    storage.reserve(params.size());
    for (const Value& v : params) {
      std::visit(
          [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Null>) {
              types.push_back(0);
              storage.emplace_back();
              values.push_back(nullptr);
              lengths.push_back(0);
              formats.push_back(0);
            } else if constexpr (std::is_same_v<T, Bytes>) {
              types.push_back(kBytea);
              storage.emplace_back();
              values.push_back(x.data ? static_cast<const char*>(x.data) : "");
              lengths.push_back(static_cast<int>(x.size));
              formats.push_back(1);
            } else {
              if constexpr (std::is_same_v<T, std::int64_t>) {
                types.push_back(kInt8);
                storage.push_back(fmt::format("{}", x));
              } else if constexpr (std::is_same_v<T, double>) {
                types.push_back(kFloat8);
                // Shortest text that reads back as the same double.
                storage.push_back(fmt::format("{}", x));
              } else {
                types.push_back(kText);
                storage.push_back(x);
              }
              values.push_back(nullptr);  // set below, once storage stops moving
              lengths.push_back(0);
              formats.push_back(0);
            }
          },
          v.get());
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (types[i] != 0 && types[i] != kBytea) values[i] = storage[i].c_str();
    }
    PGresult* r = PQexecParams(c_, text.c_str(), static_cast<int>(params.size()), types.data(), values.data(),
                               lengths.data(), formats.data(), 0);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      Error e = failure(r);
      PQclear(r);
      return e;
    }
    return r;
  }

  Result<std::unique_ptr<Rows>> query(const std::string& sql, const Params& params) override {
    Result<PGresult*> r = execute(sql, params);
    if (!r) return r.error();
    return std::unique_ptr<Rows>(std::make_unique<PostgresRows>(*r));
  }

  Result<std::int64_t> run(const std::string& sql, const Params& params) override {
    Result<PGresult*> r = execute(sql, params);
    if (!r) return r.error();
    std::int64_t changed = std::strtoll(PQcmdTuples(*r), nullptr, 10);
    PQclear(*r);
    return changed;
  }

  Status begin() override { return exec("BEGIN"); }
  Status commit() override { return exec("COMMIT"); }
  Status rollback() override { return exec("ROLLBACK"); }

  // The version lives in a one-row table, harness_schema, in the schema the
  // connection's search_path names first; no table is version 0.
  Result<int> schema_version() override {
    Result<std::unique_ptr<Rows>> exists = query("SELECT to_regclass('harness_schema') IS NOT NULL", {});
    if (!exists) return exists.error();
    if (!(*exists)->next() || (*exists)->text(0) != "t") return 0;
    Result<std::unique_ptr<Rows>> v = query("SELECT max(version) FROM harness_schema", {});
    if (!v) return v.error();
    return (*v)->next() && !(*v)->is_null(0) ? static_cast<int>((*v)->int64(0)) : 0;
  }
  // One advisory lock serialises every harness migration on the server
  // (its key is "harness" in ASCII); it is released with the transaction.
  Status begin_migration() override {
    HARNESS_TRY(exec("BEGIN"));
    Status locked = exec("SELECT pg_advisory_xact_lock(29380541684216691)");
    if (!locked) {
      (void)exec("ROLLBACK");
      return locked;
    }
    return exec("CREATE TABLE IF NOT EXISTS harness_schema (version INTEGER NOT NULL)");
  }
  Status set_schema_version(int version) override {
    Result<std::int64_t> changed = run("UPDATE harness_schema SET version = ?", {version});
    if (!changed) return changed.error();
    if (*changed == 0) {
      Result<std::int64_t> added = run("INSERT INTO harness_schema (version) VALUES (?)", {version});
      if (!added) return added.error();
    }
    return ok();
  }

 private:
  PGconn* c_;
  std::string name_;
};

}  // namespace

Result<std::unique_ptr<Connection>> open_postgres(const std::string& uri) {
  const std::string name = display_name(uri);
  char* parse_error = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &parse_error);
  if (!options) {
    std::string message = parse_error ? trimmed(parse_error) : "out of memory";
    PQfreemem(parse_error);
    return Error::input(fmt::format("store {}: not a valid PostgreSQL URI: {}", name, message));
  }
  PQconninfoFree(options);
  PGconn* c = PQconnectdb(uri.c_str());
  if (!c) return Error::infra(fmt::format("store {}: cannot connect: out of memory", name));
  if (PQstatus(c) != CONNECTION_OK) {
    std::string message = trimmed(PQerrorMessage(c));
    PQfinish(c);
    return Error::infra(fmt::format("store {}: cannot connect to the PostgreSQL server: {}", name, message));
  }
  auto conn = std::make_unique<PostgresConnection>(c, name);
  // Notices (e.g. "relation already exists, skipping") are not for the user.
  PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
  HARNESS_TRY(conn->exec("SET client_min_messages = warning"));
  return std::unique_ptr<Connection>(std::move(conn));
}

}  // namespace harness::sql
