// The engines a store test runs against: SQLite always, PostgreSQL when
// HARNESS_TEST_POSTGRES names a server (a URI; scripts/with-postgres starts a
// throwaway one and sets it). Each test gets a fresh, empty store: an SQLite
// file in its folder, or a schema of its own on the server (dropped at the
// end), named through the URI's search_path.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "harness/store/sql/connection.h"

namespace harness::testing_support {

enum class StoreEngine { sqlite, postgres };

// Both engines: the PostgreSQL instances skip with a reason when no server
// is given, so a test list shows what did not run.
std::vector<StoreEngine> store_engines();
std::string store_engine_name(StoreEngine e);
// So test lists (and CTest's names) say "sqlite" or "postgres".
void PrintTo(StoreEngine e, std::ostream* os);

class TestStore {
 public:
  // An empty store of `engine` for one test; `dir` holds its files (the
  // SQLite file, the artifacts). For PostgreSQL, HARNESS_ARTIFACTS is set to
  // dir/artifacts.
  TestStore(StoreEngine engine, const std::filesystem::path& dir, const std::string& file = "runs.sqlite");
  ~TestStore();
  TestStore(const TestStore&) = delete;
  TestStore& operator=(const TestStore&) = delete;

  // Empty when the store could be made; else why not (the test skips).
  const std::string& unavailable() const { return unavailable_; }
  // What --db / Store::open takes.
  const std::string& target() const { return target_; }
  StoreEngine engine() const { return engine_; }
  // A second connection to the same store, to look into it or alter it
  // behind the Store's back.
  std::unique_ptr<sql::Connection> connect() const;

 private:
  StoreEngine engine_;
  std::string target_;
  std::string base_;    // the server's URI, without our search_path
  std::string schema_;  // ours on the server
  std::string unavailable_;
};

}  // namespace harness::testing_support
