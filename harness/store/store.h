// The run store: every run, its context, metrics, raw samples, artifacts
// and verdicts, in an SQLite file (the default: WAL, a busy timeout) or on a
// PostgreSQL server (a lab's many rigs), behind one interface
// (sql/connection.h). A versioned schema migrated under a lock, one
// transaction per stored run, a UUID per run beside its number.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/model/calibration.h"
#include "harness/model/run.h"

namespace harness::sql {
class Connection;
}

namespace harness {

// A run named as the reference for later runs of the same scenario on the
// same rig.
struct Baseline {
  std::string name;
  std::string scenario_name;
  std::string rig;
  std::int64_t run_id = 0;  // the newest member: its samples meet the new run's in the within-run tests
  std::string set_at;       // ISO 8601 UTC
  std::vector<std::int64_t> runs;  // every member, oldest first (run_id among them)
};

// A regression accepted for now against a baseline (`harness baseline ack`).
// It holds while the baseline's newest run is `baseline_run`.
struct Acknowledgement {
  std::string baseline, scenario_name, rig, metric;
  std::int64_t baseline_run = 0;
  std::string by, at, reason;  // who, when (ISO 8601 UTC), why
};

// One run's value of one metric, for `harness history` and change points.
struct HistoryPoint {
  std::int64_t run_id = 0;
  std::string started_at;
  std::string origin;  // "live" or "replay"
  std::string scenario_name;
  std::string rig;
  std::optional<double> value;  // absent: unavailable, see `unavailable`
  std::string unit;
  std::string provenance;
  std::string unavailable;
};

struct HistoryQuery {
  std::string metric;            // required
  std::string scenario;          // empty: any
  std::string rig;               // empty: any
  std::int64_t before_run = 0;   // > 0: only runs with a smaller id
  bool live_only = false;        // leave out replays (they repeat a recording)
  int limit = 0;                 // > 0: only the newest `limit` runs
};

// A metric seen in the stored runs, for `harness history` without --metric.
struct HistoryMetric {
  std::string name;
  std::string unit;
  int runs = 0;         // runs that report the metric
  int with_value = 0;   // of those, runs where it was available
  std::int64_t last_run = 0;
};

// Where runs go when neither --db nor HARNESS_DB says otherwise.
constexpr const char* kDefaultDatabase = "harness-runs.sqlite";
// --db, else $HARNESS_DB, else kDefaultDatabase: an SQLite file path, or a
// postgresql:// (postgres://) URI of a PostgreSQL server.
std::string resolve_database_path(const std::string& flag);

// A fresh random UUID (version 4), as 36 lower-case characters.
std::string new_run_uuid();

class Store {
 public:
  static constexpr int kSchemaVersion = 10;

  // Opens (creating when absent) and migrates to kSchemaVersion. A database
  // written by a newer harness is refused (exit 2). `path` is an SQLite file
  // or a PostgreSQL URI; a bad URI exits 2, an unreachable server 3.
  static Result<Store> open(const std::string& path);
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  // The store as named in messages: the file, or the URI without password.
  const std::string& path() const { return path_; }
  bool is_postgres() const;
  int schema_version() const;

  // A live run is first visible as "running", so a crash leaves an honest
  // trace rather than a half-written run shown as complete. The run records
  // this process (run_owner.h): once it is gone, the run reads as abandoned.
  Result<std::int64_t> begin_run(const RunRecord& header);
  // Writes everything of the run and its final status in one transaction.
  Status finish_run(const RunRecord& run);
  // A whole run at once (replays, imports). A run without a uuid gets a new
  // one; a run with one keeps it (store push/pull).
  Result<std::int64_t> insert_run(const RunRecord& run);
  // The same for a run that carries its uuid, unless the store already has
  // that uuid: then nothing is written and the answer is empty. Two pushes of
  // one run racing into one store store it once, and neither fails.
  Result<std::optional<std::int64_t>> insert_run_if_absent(const RunRecord& run);
  // The id of the run with this uuid, if the store has it.
  Result<std::optional<std::int64_t>> find_run(const std::string& uuid) const;
  // Every stored run's id and uuid, oldest first (store push/pull).
  Result<std::vector<std::pair<std::int64_t, std::string>>> run_uuids() const;
  // A stored run becomes aborted: a stop request (SIGINT, SIGTERM) arrived
  // after its final status was written but before the command ended.
  Status mark_aborted(std::int64_t id, const std::string& reason);

  // Runs newest first; a running run whose process is gone is abandoned.
  Result<std::vector<RunSummary>> list_runs(int limit = 50) const;

  // The store's own folder for raw files: "<store file>.artifacts" beside
  // it, so two stores in one folder never share one. A PostgreSQL store
  // keeps only the artifacts' names, sizes and digests; the bytes live in
  // $HARNESS_ARTIFACTS (a folder the lab shares), else ./harness-artifacts,
  // content-addressed the same way (docs/parts/store.md).
  std::string artifact_folder() const;
  // Keeps `source` as an artifact: content-addressed, read-only, at
  // <artifact_folder>/<sha256>. A live run's own file is moved there
  // (`move`); anything else is reflinked or copied, never hard-linked, so a
  // later write to the source cannot change what was stored. An existing
  // file of that name is checked against its name first.
  Result<Artifact> keep_artifact(const std::string& source, const std::string& name, const std::string& kind,
                                 bool move) const;
  // An artifact's bytes are still those stored: the file is a regular file
  // with the stored size and sha256, else an error naming both digests.
  Status verify_artifact(const Artifact& artifact) const;
  // The run, or an error naming the id when there is none; abandoned as above.
  Result<RunRecord> load_run(std::int64_t id) const;

  // Names run `run_id` as baseline `name` of its scenario and rig, replacing
  // an earlier run of that name; returns the replaced run's id. Only a
  // completed (passed or failed) run can be a baseline.
  Result<std::optional<std::int64_t>> set_baseline(const std::string& name, std::int64_t run_id,
                                                   const std::string& set_at);
  // A baseline of several runs of one scenario on one rig (e.g. the last 5
  // good nights); returns the replaced baseline's newest run.
  Result<std::optional<std::int64_t>> set_baseline(const std::string& name, const std::vector<std::int64_t>& runs,
                                                   const std::string& set_at);
  // Records an acknowledgement against the baseline as it is now (replacing
  // an earlier one of the same metric).
  Status acknowledge(const Acknowledgement& ack);
  // The acknowledgements that hold for a baseline: those made against its
  // current newest run.
  Result<std::vector<Acknowledgement>> acknowledgements(const std::string& baseline, const std::string& scenario,
                                                        const std::string& rig) const;
  // The newest `count` completed live runs of run `up_to`'s scenario and rig,
  // up to and including it, oldest first: `baseline set --last N`.
  Result<std::vector<std::int64_t>> recent_completed_runs(std::int64_t up_to, int count) const;
  // A rig's calibration of a scenario (`harness calibrate`), in one
  // transaction; returns its id. The newest one of a scenario and rig, if any.
  Result<std::int64_t> insert_calibration(const Calibration& calibration);
  Result<std::optional<Calibration>> latest_calibration(const std::string& scenario, const std::string& rig) const;
  // Every baseline, or those called `name`, ordered by name, scenario, rig.
  Result<std::vector<Baseline>> list_baselines(const std::string& name = "") const;

  // Completed runs' values of one metric, oldest first. Read from the
  // indexes metrics_history and runs_history alone (schema 6): 100,000 runs
  // take tens of milliseconds on either engine.
  Result<std::vector<HistoryPoint>> metric_history(const HistoryQuery& query) const;
  // Numeric values with measured evidence (provenance measured or replayed)
  // of every metric in the newest `runs` completed runs of a scenario on a
  // rig (empty: on every rig) before run `before_run`, oldest first: the
  // noise band. Live runs, and replayed or imported runs that repeat no
  // earlier completed run's night (same scenario, rig and start time), as in
  // history's change points.
  Result<std::map<std::string, std::vector<double>>> recent_values(const std::string& scenario,
                                                                    const std::string& rig,
                                                                    std::int64_t before_run, int runs) const;
  // The metrics stored for completed runs matching the filters, by name.
  Result<std::vector<HistoryMetric>> history_metrics(const std::string& scenario, const std::string& rig) const;

  // Every metric of the completed runs matching the filters (empty: any), by
  // name, each oldest first, as metric_history gives them: one pass over the
  // metrics instead of one indexed query per name, which reads a table page
  // per run and name (`harness publish` reads a whole store: 1.46 M values
  // took 12 s by name, under 1 s in one pass).
  Result<std::map<std::string, std::vector<HistoryPoint>>> all_metric_history(const std::string& scenario,
                                                                              const std::string& rig) const;
  // The same, of the runs with an id above `after_run` only: a publish that
  // keeps the values of the runs it read before (reports/publish/series_cache.h)
  // reads the new nights' metrics alone.
  Result<std::map<std::string, std::vector<HistoryPoint>>> all_metric_history_after(std::int64_t after_run,
                                                                                    const std::string& scenario,
                                                                                    const std::string& rig) const;
  // The values of all_metric_history_after, without a HistoryPoint each: the
  // run's columns (start, origin, scenario, rig) are left out (a publish has
  // them from list_runs) and each row is handed to `visitor` as it is read,
  // in run order, so that 1.46 M values (a year of 20 rigs) are never held as
  // 1.46 M structs of strings.
  struct MetricValueRow {
    std::int64_t run_id = 0;
    std::string name;
    std::optional<double> value;  // absent: unavailable, see `unavailable`
    std::string unit, provenance, unavailable;
  };
  class MetricValueVisitor {
   public:
    virtual ~MetricValueVisitor() = default;
    virtual void value(const MetricValueRow& row) = 0;
  };
  Status visit_metric_values_after(std::int64_t after_run, const std::string& scenario, const std::string& rig,
                                   MetricValueVisitor& visitor) const;

 private:
  Store(std::string path, std::string artifacts, std::unique_ptr<sql::Connection> db);
  Status migrate();
  Result<std::int64_t> insert_header(const RunRecord& run, const std::string& uuid);
  // Empty when `run.uuid` is already stored (ON CONFLICT DO NOTHING).
  Result<std::optional<std::int64_t>> insert_header_if_absent(const RunRecord& run);
  Status write_body(const RunRecord& run);

  std::string path_;
  std::string artifacts_;
  std::unique_ptr<sql::Connection> db_;
};

}  // namespace harness
