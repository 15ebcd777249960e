// The SQLite run store: every run, its context, metrics, raw samples,
// artifacts and verdicts. WAL, a busy timeout, a versioned schema migrated
// with PRAGMA user_version, one transaction per stored run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/model/run.h"

namespace SQLite {
class Database;
}

namespace harness {

// Where runs go when neither --db nor HARNESS_DB says otherwise.
constexpr const char* kDefaultDatabase = "harness-runs.sqlite";
// --db, else $HARNESS_DB, else kDefaultDatabase.
std::string resolve_database_path(const std::string& flag);

class Store {
 public:
  static constexpr int kSchemaVersion = 1;

  // Opens (creating when absent) and migrates to kSchemaVersion. A database
  // written by a newer harness is refused.
  static Result<Store> open(const std::string& path);
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::string& path() const { return path_; }
  int schema_version() const;

  // A live run is first visible as "running", so a crash leaves an honest
  // trace rather than a half-written run shown as complete.
  Result<std::int64_t> begin_run(const RunRecord& header);
  // Writes everything of the run and its final status in one transaction.
  Status finish_run(const RunRecord& run);
  // A whole run at once (replays, imports).
  Result<std::int64_t> insert_run(const RunRecord& run);

  Result<std::vector<RunSummary>> list_runs(int limit = 50) const;
  // The run, or an error naming the id when there is none.
  Result<RunRecord> load_run(std::int64_t id) const;

 private:
  explicit Store(std::string path, std::unique_ptr<SQLite::Database> db);
  Status write_body(const RunRecord& run);

  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace harness
