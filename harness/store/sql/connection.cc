#include "harness/store/sql/connection.h"

#include <algorithm>

namespace harness::sql {

Result<Transaction> Transaction::begin(Connection& c) {
  HARNESS_TRY(c.begin());
  return Transaction(&c);
}

Transaction::~Transaction() {
  if (c_) (void)c_->rollback();
}

Status Transaction::commit() {
  Connection* c = c_;
  c_ = nullptr;
  Status done = c->commit();
  if (!done) (void)c->rollback();
  return done;
}

bool is_postgres_uri(std::string_view target) {
  return target.starts_with("postgresql://") || target.starts_with("postgres://");
}

std::string display_name(const std::string& target) {
  if (!is_postgres_uri(target)) return target;
  std::string shown = target;
  // scheme://[user[:password]@]host...: the password never reaches a message.
  const std::size_t authority = shown.find("://") + 3;
  const std::size_t end = std::min(shown.find_first_of("/?", authority), shown.size());
  const std::size_t at = shown.rfind('@', end);
  if (at != std::string::npos && at >= authority) {
    const std::size_t colon = shown.find(':', authority);
    if (colon != std::string::npos && colon < at) shown.replace(colon + 1, at - colon - 1, "***");
  }
  // A password given as a query parameter is hidden too.
  for (std::string_view key : {"?password=", "&password="}) {
    const std::size_t p = shown.find(key);
    if (p == std::string::npos) continue;
    const std::size_t value = p + key.size();
    const std::size_t stop = std::min(shown.find('&', value), shown.size());
    shown.replace(value, stop - value, "***");
  }
  return shown;
}

Result<std::unique_ptr<Connection>> open(const std::string& target) {
  if (is_postgres_uri(target)) return open_postgres(target);
  return open_sqlite(target);
}

}  // namespace harness::sql
