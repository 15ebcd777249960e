#include "tests/support/store_engines.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <random>

#include <fmt/format.h>

namespace harness::testing_support {

std::vector<StoreEngine> store_engines() { return {StoreEngine::sqlite, StoreEngine::postgres}; }

std::string store_engine_name(StoreEngine e) { return e == StoreEngine::sqlite ? "sqlite" : "postgres"; }

void PrintTo(StoreEngine e, std::ostream* os) { *os << store_engine_name(e); }

TestStore::TestStore(StoreEngine engine, const std::filesystem::path& dir, const std::string& file) : engine_(engine) {
  if (engine == StoreEngine::sqlite) {
    target_ = (dir / file).string();
    return;
  }
  const char* server = std::getenv("HARNESS_TEST_POSTGRES");
  if (!server || !*server) {
    unavailable_ = "no PostgreSQL server: HARNESS_TEST_POSTGRES is not set (scripts/with-postgres sets it)";
    return;
  }
  base_ = server;
  static std::atomic<int> counter{0};
  schema_ = fmt::format("harness_test_{}_{}_{}", ::getpid(), counter++, std::random_device{}() % 100000);
  Result<std::unique_ptr<sql::Connection>> c = sql::open_postgres(base_);
  if (!c) {
    unavailable_ = c.error().message;
    return;
  }
  Status made = (*c)->exec(fmt::format("CREATE SCHEMA {}", schema_));
  if (!made) {
    unavailable_ = made.error().message;
    return;
  }
  target_ = base_ + (base_.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema_;
  ::setenv("HARNESS_ARTIFACTS", (dir / (file + ".artifacts")).c_str(), 1);
}

TestStore::~TestStore() {
  if (schema_.empty() || !unavailable_.empty()) return;
  Result<std::unique_ptr<sql::Connection>> c = sql::open_postgres(base_);
  if (c) (void)(*c)->exec(fmt::format("DROP SCHEMA {} CASCADE", schema_));
  ::unsetenv("HARNESS_ARTIFACTS");
}

std::unique_ptr<sql::Connection> TestStore::connect() const {
  Result<std::unique_ptr<sql::Connection>> c = sql::open(target_);
  return c ? std::move(*c) : nullptr;
}

}  // namespace harness::testing_support
