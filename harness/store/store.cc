#include "harness/store/store.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <cstring>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/files.h"
#include "harness/store/run_owner.h"
#include "harness/store/schema.h"

namespace harness {
namespace {

// SQLite errors become values here, and only here.
template <class F>
auto guarded(const std::string& path, const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const SQLite::Exception& e) {
    return Error::infra(fmt::format("store {}: {}: {}", path, what, e.what()));
  } catch (const nlohmann::json::exception& e) {
    return Error::infra(fmt::format("store {}: {}: corrupt JSON: {}", path, what, e.what()));
  }
}

std::string optional_text(const SQLite::Column& c) { return c.isNull() ? std::string() : c.getString(); }

// The owner columns, in this order, follow the status in the queries below.
constexpr const char* kOwnerColumns = "owner_pid, owner_pid_start, owner_boot_id, owner_host";

// A stored "running" run whose process is gone is abandoned: it never
// finished and never will. The reason says so when the run has none.
RunStatus effective_status(SQLite::Statement& q, int status_column, int owner_column, std::string& reason) {
  RunStatus status = run_status_from_name(q.getColumn(status_column).getString()).value_or(RunStatus::aborted);
  if (status != RunStatus::running) return status;
  RunOwner owner{q.getColumn(owner_column).getInt64(), q.getColumn(owner_column + 1).getString(),
                 q.getColumn(owner_column + 2).getString(), q.getColumn(owner_column + 3).getString()};
  if (!run_owner_gone(owner)) return status;
  if (reason.empty()) {
    reason = fmt::format("its process (pid {} on {}) ended before the run finished: killed or crashed", owner.pid,
                         owner.host);
  }
  return RunStatus::abandoned;
}

static_assert(kMigrations.size() == Store::kSchemaVersion, "one migration per schema version");

}  // namespace

std::string resolve_database_path(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("HARNESS_DB"); env && *env) return env;
  return kDefaultDatabase;
}

Store::Store(std::string path, std::unique_ptr<SQLite::Database> db)
    : path_(std::move(path)), db_(std::move(db)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Result<Store> Store::open(const std::string& path) {
  return guarded(path, "open", [&]() -> Result<Store> {
    auto db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 5000);
    db->exec("PRAGMA foreign_keys = ON");
    std::string mode = db->execAndGet("PRAGMA journal_mode = WAL").getString();
    (void)mode;  // a read-only or in-memory file may refuse WAL; that is fine
    db->exec("PRAGMA synchronous = NORMAL");
    auto too_new = [&](int version) {
      return Error::infra(fmt::format(
          "store {}: schema version {} is newer than this harness knows ({}); use a newer harness",
          path, version, kSchemaVersion));
    };
    int version = db->execAndGet("PRAGMA user_version").getInt();
    if (version > kSchemaVersion) return too_new(version);
    if (version < kSchemaVersion) {
      // Several processes may open a new store at once: the migrations run
      // under an exclusive lock, and the version is read again once it is
      // held, so each migration runs exactly once.
      db->exec("BEGIN EXCLUSIVE");
      try {
        version = db->execAndGet("PRAGMA user_version").getInt();
        if (version > kSchemaVersion) {
          db->exec("ROLLBACK");
          return too_new(version);
        }
        for (int v = version; v < kSchemaVersion; ++v) {
          db->exec(kMigrations[static_cast<std::size_t>(v)]);
          db->exec(fmt::format("PRAGMA user_version = {}", v + 1));
        }
        db->exec("COMMIT");
      } catch (...) {
        try {
          db->exec("ROLLBACK");
        } catch (const SQLite::Exception&) {
        }
        throw;
      }
    }
    return Store(path, std::move(db));
  });
}

int Store::schema_version() const { return db_->execAndGet("PRAGMA user_version").getInt(); }

Result<std::int64_t> Store::begin_run(const RunRecord& r) {
  return guarded(path_, "begin run", [&]() -> Result<std::int64_t> {
    SQLite::Statement q(*db_,
                        "INSERT INTO runs (scenario_name, scenario_path, scenario_hash, scenario_text, rig, "
                        "origin, status, reason, started_at, context, owner_pid, owner_pid_start, owner_boot_id, "
                        "owner_host) VALUES (?,?,?,?,?,?,'running','',?,?,?,?,?,?)");
    q.bind(1, r.scenario_name);
    q.bind(2, r.scenario_path);
    q.bind(3, r.scenario_hash);
    q.bind(4, r.scenario_text);
    q.bind(5, r.rig);
    q.bind(6, r.origin);
    q.bind(7, r.started_at);
    q.bind(8, nlohmann::json(r.context).dump());
    const RunOwner owner = current_run_owner();
    q.bind(9, owner.pid);
    q.bind(10, owner.pid_start);
    q.bind(11, owner.boot_id);
    q.bind(12, owner.host);
    q.exec();
    return db_->getLastInsertRowid();
  });
}

Status Store::write_body(const RunRecord& r) {
  SQLite::Statement run(*db_,
                        "UPDATE runs SET status = ?, reason = ?, ended_at = ?, context = ?, recording = ? "
                        "WHERE id = ?");
  run.bind(1, std::string(run_status_name(r.status)));
  run.bind(2, r.reason);
  run.bind(3, r.ended_at);
  run.bind(4, nlohmann::json(r.context).dump());
  run.bind(5, r.recording_json);
  run.bind(6, r.id);
  if (run.exec() != 1) return Error::infra(fmt::format("store {}: run {} does not exist", path_, r.id));

  SQLite::Statement metric(*db_,
                           "INSERT INTO metrics (run_id, level, name, value, text, unit, provenance, source, "
                           "unavailable, better) VALUES (?,?,?,?,?,?,?,?,?,?)");
  for (const Metric& m : r.analysis.metrics) {
    metric.bind(1, r.id);
    metric.bind(2, std::string(level_name(m.level)));
    metric.bind(3, m.name);
    if (m.value) metric.bind(4, *m.value); else metric.bind(4);
    metric.bind(5, m.text);
    metric.bind(6, m.unit);
    metric.bind(7, std::string(provenance_name(m.provenance)));
    metric.bind(8, m.source);
    metric.bind(9, m.unavailable);
    metric.bind(10, std::string(better_name(m.better)));
    metric.exec();
    metric.reset();
  }
  SQLite::Statement sample(*db_,
                           "INSERT INTO samples (run_id, level, name, unit, provenance, source, better, count, "
                           "vals) VALUES (?,?,?,?,?,?,?,?,?)");
  for (const SampleSet& s : r.analysis.samples) {
    sample.bind(1, r.id);
    sample.bind(2, std::string(level_name(s.level)));
    sample.bind(3, s.name);
    sample.bind(4, s.unit);
    sample.bind(5, std::string(provenance_name(s.provenance)));
    sample.bind(6, s.source);
    sample.bind(7, std::string(better_name(s.better)));
    sample.bind(8, static_cast<std::int64_t>(s.values.size()));
    sample.bind(9, s.values.data(), static_cast<int>(s.values.size() * sizeof(double)));
    sample.exec();
    sample.reset();
  }
  SQLite::Statement artifact(*db_,
                             "INSERT INTO artifacts (run_id, name, path, size, sha256, kind) VALUES (?,?,?,?,?,?)");
  for (const Artifact& a : r.artifacts) {
    artifact.bind(1, r.id);
    artifact.bind(2, a.name);
    artifact.bind(3, a.path);
    artifact.bind(4, static_cast<std::int64_t>(a.size));
    artifact.bind(5, a.sha256);
    artifact.bind(6, a.kind);
    artifact.exec();
    artifact.reset();
  }
  SQLite::Statement verdict(*db_,
                            "INSERT INTO verdicts (run_id, seq, level, check_id, expected, measured, status, detail) "
                            "VALUES (?,?,?,?,?,?,?,?)");
  int seq = 0;
  for (const Verdict& v : r.analysis.verdicts) {
    verdict.bind(1, r.id);
    verdict.bind(2, seq++);
    verdict.bind(3, std::string(level_name(v.level)));
    verdict.bind(4, v.check);
    verdict.bind(5, v.expected);
    verdict.bind(6, v.measured);
    verdict.bind(7, std::string(verdict_status_name(v.status)));
    verdict.bind(8, v.detail);
    verdict.exec();
    verdict.reset();
  }
  SQLite::Statement hint(*db_, "INSERT INTO hints (run_id, seq, text) VALUES (?,?,?)");
  seq = 0;
  for (const std::string& h : r.analysis.hints) {
    hint.bind(1, r.id);
    hint.bind(2, seq++);
    hint.bind(3, h);
    hint.exec();
    hint.reset();
  }
  return ok();
}

Status Store::finish_run(const RunRecord& r) {
  return guarded(path_, "store run", [&]() -> Status {
    SQLite::Transaction tx(*db_);
    HARNESS_TRY(write_body(r));
    tx.commit();
    return ok();
  });
}

Result<std::int64_t> Store::insert_run(const RunRecord& r) {
  return guarded(path_, "store run", [&]() -> Result<std::int64_t> {
    SQLite::Transaction tx(*db_);
    Result<std::int64_t> id = begin_run(r);
    if (!id) return id.error();
    RunRecord copy = r;
    copy.id = *id;
    HARNESS_TRY(write_body(copy));
    tx.commit();
    return *id;
  });
}

std::string Store::artifact_folder() const {
  return std::filesystem::absolute(std::filesystem::path(path_)).string() + ".artifacts";
}

Result<Artifact> Store::keep_artifact(const std::string& source, const std::string& name, const std::string& kind,
                                      bool move) const {
  Result<std::string> sha = sha256_regular_file(source);
  if (!sha) return sha.error().within("artifact " + name);
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(source, ec);
  if (ec) return Error::infra(fmt::format("artifact {}: {}: {}", name, source, ec.message()));
  const std::filesystem::path folder = artifact_folder();
  std::filesystem::create_directories(folder, ec);
  if (ec) return Error::infra(fmt::format("store {}: cannot create {}: {}", path_, folder.string(), ec.message()));
  const std::string target = (folder / *sha).string();
  Artifact kept{name, target, size, *sha, kind};
  if (std::filesystem::exists(std::filesystem::symlink_status(target, ec))) {
    // The same bytes are stored already (another run, or this one again).
    HARNESS_TRY(verify_artifact(kept));
    if (move) std::filesystem::remove(source, ec);
    return kept;
  }
  // Into a private temporary first, so that `target` appears whole or not
  // at all; rename where the source is ours and on this filesystem.
  const std::string tmp = (folder / fmt::format(".{}.{}.tmp", *sha, ::getpid())).string();
  std::filesystem::remove(tmp, ec);
  bool renamed = move && std::rename(source.c_str(), tmp.c_str()) == 0;
  if (!renamed) {
    Status copied = copy_file_private(source, tmp);
    if (!copied) return copied.error().within("artifact " + name);
  }
  std::filesystem::permissions(tmp, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                        std::filesystem::perms::others_read, ec);
  // What was read and what is kept are the same bytes.
  Result<std::string> again = sha256_regular_file(tmp);
  if (!again || *again != *sha) {
    std::filesystem::remove(tmp, ec);
    return Error::infra(fmt::format("artifact {}: {} changed while it was stored", name, source));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    int e = errno;
    std::filesystem::remove(tmp, ec);
    return Error::infra(fmt::format("artifact {}: cannot store {}: {}", name, target, std::strerror(e)));
  }
  if (move && !renamed) std::filesystem::remove(source, ec);
  return kept;
}

Status Store::verify_artifact(const Artifact& a) const {
  Result<std::string> sha = sha256_regular_file(a.path);
  if (!sha) return Error::infra(fmt::format("artifact {} of store {}: {}", a.name, path_, sha.error().message));
  if (*sha != a.sha256) {
    return Error::infra(fmt::format("artifact {} of store {}: {} has sha256 {}, but {} was stored (altered since it "
                                    "was stored)", a.name, path_, a.path, *sha, a.sha256));
  }
  return ok();
}

Status Store::mark_aborted(std::int64_t id, const std::string& reason) {
  return guarded(path_, "mark run aborted", [&]() -> Status {
    SQLite::Statement q(*db_, "UPDATE runs SET status = 'aborted', reason = ? WHERE id = ?");
    q.bind(1, reason);
    q.bind(2, id);
    if (q.exec() != 1) return Error::infra(fmt::format("store {}: run {} does not exist", path_, id));
    return ok();
  });
}

Result<std::vector<RunSummary>> Store::list_runs(int limit) const {
  return guarded(path_, "list runs", [&]() -> Result<std::vector<RunSummary>> {
    SQLite::Statement q(*db_,
                        "SELECT r.id, r.scenario_name, r.rig, r.origin, r.status, r.reason, r.started_at, "
                        "r.ended_at, (SELECT count(*) FROM metrics m WHERE m.run_id = r.id), "
                        "(SELECT count(*) FROM verdicts v WHERE v.run_id = r.id AND v.status = 'fail'), "
                        "r.owner_pid, r.owner_pid_start, r.owner_boot_id, r.owner_host "
                        "FROM runs r ORDER BY r.id DESC LIMIT ?");
    q.bind(1, limit);
    std::vector<RunSummary> out;
    while (q.executeStep()) {
      RunSummary s;
      s.id = q.getColumn(0).getInt64();
      s.scenario_name = q.getColumn(1).getString();
      s.rig = q.getColumn(2).getString();
      s.origin = q.getColumn(3).getString();
      s.reason = q.getColumn(5).getString();
      s.status = effective_status(q, 4, 10, s.reason);
      s.started_at = q.getColumn(6).getString();
      s.ended_at = q.getColumn(7).getString();
      s.metric_count = q.getColumn(8).getInt();
      s.verdicts_failed = q.getColumn(9).getInt();
      out.push_back(s);
    }
    return out;
  });
}

Result<RunRecord> Store::load_run(std::int64_t id) const {
  return guarded(path_, "load run", [&]() -> Result<RunRecord> {
    SQLite::Statement q(*db_,
                        "SELECT scenario_name, scenario_path, scenario_hash, scenario_text, rig, origin, status, "
                        "reason, started_at, ended_at, context, recording, owner_pid, owner_pid_start, owner_boot_id, "
                        "owner_host FROM runs WHERE id = ?");
    q.bind(1, id);
    if (!q.executeStep()) return Error::input(fmt::format("store {}: no run with id {}", path_, id));
    RunRecord r;
    r.id = id;
    r.scenario_name = q.getColumn(0).getString();
    r.scenario_path = q.getColumn(1).getString();
    r.scenario_hash = q.getColumn(2).getString();
    r.scenario_text = q.getColumn(3).getString();
    r.rig = q.getColumn(4).getString();
    r.origin = q.getColumn(5).getString();
    r.reason = q.getColumn(7).getString();
    r.status = effective_status(q, 6, 12, r.reason);
    r.started_at = q.getColumn(8).getString();
    r.ended_at = q.getColumn(9).getString();
    r.context = nlohmann::json::parse(q.getColumn(10).getString()).get<std::map<std::string, std::string>>();
    r.recording_json = q.getColumn(11).getString();

    SQLite::Statement m(*db_,
                        "SELECT level, name, value, text, unit, provenance, source, unavailable, better "
                        "FROM metrics WHERE run_id = ? ORDER BY rowid");
    m.bind(1, id);
    while (m.executeStep()) {
      Metric x;
      x.level = level_from_name(m.getColumn(0).getString()).value_or(Level::roofline);
      x.name = m.getColumn(1).getString();
      if (!m.getColumn(2).isNull()) x.value = m.getColumn(2).getDouble();
      x.text = m.getColumn(3).getString();
      x.unit = m.getColumn(4).getString();
      x.provenance = provenance_from_name(m.getColumn(5).getString()).value_or(Provenance::measured);
      x.source = m.getColumn(6).getString();
      x.unavailable = m.getColumn(7).getString();
      x.better = better_from_name(m.getColumn(8).getString()).value_or(Better::none);
      r.analysis.metrics.push_back(std::move(x));
    }
    SQLite::Statement s(*db_,
                        "SELECT level, name, unit, provenance, source, better, count, vals FROM samples "
                        "WHERE run_id = ? ORDER BY rowid");
    s.bind(1, id);
    while (s.executeStep()) {
      SampleSet x;
      x.level = level_from_name(s.getColumn(0).getString()).value_or(Level::latency);
      x.name = s.getColumn(1).getString();
      x.unit = s.getColumn(2).getString();
      x.provenance = provenance_from_name(s.getColumn(3).getString()).value_or(Provenance::measured);
      x.source = s.getColumn(4).getString();
      x.better = better_from_name(s.getColumn(5).getString()).value_or(Better::none);
      std::int64_t count = s.getColumn(6).getInt64();
      SQLite::Column blob = s.getColumn(7);
      if (blob.getBytes() != count * static_cast<std::int64_t>(sizeof(double))) {
        return Error::infra(fmt::format("store {}: run {} sample set {} is corrupt ({} bytes for {} values)",
                                        path_, id, x.name, blob.getBytes(), count));
      }
      x.values.resize(static_cast<std::size_t>(count));
      if (count > 0) std::memcpy(x.values.data(), blob.getBlob(), x.values.size() * sizeof(double));
      r.analysis.samples.push_back(std::move(x));
    }
    SQLite::Statement a(*db_, "SELECT name, path, size, sha256, kind FROM artifacts WHERE run_id = ? ORDER BY rowid");
    a.bind(1, id);
    while (a.executeStep()) {
      r.artifacts.push_back({a.getColumn(0).getString(), a.getColumn(1).getString(),
                             static_cast<std::uint64_t>(a.getColumn(2).getInt64()), a.getColumn(3).getString(),
                             a.getColumn(4).getString()});
    }
    SQLite::Statement v(*db_,
                        "SELECT level, check_id, expected, measured, status, detail FROM verdicts "
                        "WHERE run_id = ? ORDER BY seq");
    v.bind(1, id);
    while (v.executeStep()) {
      Verdict x;
      x.level = level_from_name(v.getColumn(0).getString()).value_or(Level::roofline);
      x.check = v.getColumn(1).getString();
      x.expected = v.getColumn(2).getString();
      x.measured = v.getColumn(3).getString();
      x.status = verdict_status_from_name(v.getColumn(4).getString()).value_or(VerdictStatus::unavailable);
      x.detail = optional_text(v.getColumn(5));
      r.analysis.verdicts.push_back(std::move(x));
    }
    SQLite::Statement h(*db_, "SELECT text FROM hints WHERE run_id = ? ORDER BY seq");
    h.bind(1, id);
    while (h.executeStep()) r.analysis.hints.push_back(h.getColumn(0).getString());
    return r;
  });
}

}  // namespace harness

namespace harness {

Result<std::optional<std::int64_t>> Store::set_baseline(const std::string& name, std::int64_t run_id,
                                                        const std::string& set_at) {
  return set_baseline(name, std::vector<std::int64_t>{run_id}, set_at);
}

Result<std::optional<std::int64_t>> Store::set_baseline(const std::string& name, const std::vector<std::int64_t>& runs,
                                                        const std::string& set_at) {
  if (runs.empty()) return Error::input("a baseline needs at least one run");
  return guarded(path_, "set baseline", [&]() -> Result<std::optional<std::int64_t>> {
    SQLite::Transaction tx(*db_);
    std::string scenario, rig;
    std::int64_t newest = 0;
    for (std::int64_t run_id : runs) {
      SQLite::Statement run(*db_, fmt::format("SELECT scenario_name, rig, status, {} FROM runs WHERE id = ?",
                                              kOwnerColumns));
      run.bind(1, run_id);
      if (!run.executeStep()) return Error::input(fmt::format("store {}: no run with id {}", path_, run_id));
      std::string run_scenario = run.getColumn(0).getString();
      std::string run_rig = run.getColumn(1).getString();
      std::string ignored_reason;
      std::string status(run_status_name(effective_status(run, 2, 3, ignored_reason)));
      if (status != "passed" && status != "failed") {
        return Error::input(fmt::format("run {} is {}: only a completed run (passed or failed) can be a baseline",
                                        run_id, status));
      }
      if (newest == 0) {
        scenario = run_scenario;
        rig = run_rig;
      } else if (run_scenario != scenario || run_rig != rig) {
        return Error::input(fmt::format(
            "run {} is scenario '{}' on rig '{}', run {} is scenario '{}' on rig '{}': the runs of a baseline "
            "share one scenario and one rig",
            run_id, run_scenario, run_rig, runs.front(), scenario, rig));
      }
      newest = std::max(newest, run_id);
    }
    std::optional<std::int64_t> previous;
    SQLite::Statement old(*db_, "SELECT run_id FROM baselines WHERE scenario_name = ? AND rig = ? AND name = ?");
    old.bind(1, scenario);
    old.bind(2, rig);
    old.bind(3, name);
    if (old.executeStep()) previous = old.getColumn(0).getInt64();
    SQLite::Statement put(*db_,
                          "INSERT INTO baselines (scenario_name, rig, name, run_id, set_at) VALUES (?,?,?,?,?) "
                          "ON CONFLICT (scenario_name, rig, name) DO UPDATE SET run_id = excluded.run_id, "
                          "set_at = excluded.set_at");
    put.bind(1, scenario);
    put.bind(2, rig);
    put.bind(3, name);
    put.bind(4, newest);
    put.bind(5, set_at);
    put.exec();
    SQLite::Statement clear(*db_, "DELETE FROM baseline_runs WHERE scenario_name = ? AND rig = ? AND name = ?");
    clear.bind(1, scenario);
    clear.bind(2, rig);
    clear.bind(3, name);
    clear.exec();
    for (std::int64_t run_id : runs) {
      SQLite::Statement member(*db_,
                               "INSERT OR IGNORE INTO baseline_runs (scenario_name, rig, name, run_id) "
                               "VALUES (?,?,?,?)");
      member.bind(1, scenario);
      member.bind(2, rig);
      member.bind(3, name);
      member.bind(4, run_id);
      member.exec();
    }
    tx.commit();
    return previous;
  });
}

Status Store::acknowledge(const Acknowledgement& a) {
  return guarded(path_, "acknowledge", [&]() -> Status {
    SQLite::Statement q(*db_,
                        "INSERT INTO baseline_acks (scenario_name, rig, name, metric, baseline_run, acked_by, acked_at, "
                        "reason) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (scenario_name, rig, name, metric, baseline_run) "
                        "DO UPDATE SET acked_by = excluded.acked_by, acked_at = excluded.acked_at, "
                        "reason = excluded.reason");
    q.bind(1, a.scenario_name);
    q.bind(2, a.rig);
    q.bind(3, a.baseline);
    q.bind(4, a.metric);
    q.bind(5, a.baseline_run);
    q.bind(6, a.by);
    q.bind(7, a.at);
    q.bind(8, a.reason);
    q.exec();
    return ok();
  });
}

Result<std::vector<Acknowledgement>> Store::acknowledgements(const std::string& baseline, const std::string& scenario,
                                                             const std::string& rig) const {
  return guarded(path_, "acknowledgements", [&]() -> Result<std::vector<Acknowledgement>> {
    SQLite::Statement q(*db_,
                        "SELECT a.metric, a.baseline_run, a.acked_by, a.acked_at, a.reason FROM baseline_acks a "
                        "JOIN baselines b ON b.scenario_name = a.scenario_name AND b.rig = a.rig AND b.name = a.name "
                        "AND b.run_id = a.baseline_run WHERE a.name = ? AND a.scenario_name = ? AND a.rig = ? "
                        "ORDER BY a.metric");
    q.bind(1, baseline);
    q.bind(2, scenario);
    q.bind(3, rig);
    std::vector<Acknowledgement> out;
    while (q.executeStep()) {
      out.push_back({baseline, scenario, rig, q.getColumn(0).getString(), q.getColumn(1).getInt64(),
                     q.getColumn(2).getString(), q.getColumn(3).getString(), q.getColumn(4).getString()});
    }
    return out;
  });
}

Result<std::vector<std::int64_t>> Store::recent_completed_runs(std::int64_t up_to, int count) const {
  return guarded(path_, "recent runs", [&]() -> Result<std::vector<std::int64_t>> {
    SQLite::Statement run(*db_, "SELECT scenario_name, rig FROM runs WHERE id = ?");
    run.bind(1, up_to);
    if (!run.executeStep()) return Error::input(fmt::format("store {}: no run with id {}", path_, up_to));
    SQLite::Statement q(*db_,
                        "SELECT id FROM runs WHERE scenario_name = ? AND rig = ? AND origin = 'live' "
                        "AND status IN ('passed', 'failed') AND id <= ? ORDER BY id DESC LIMIT ?");
    q.bind(1, run.getColumn(0).getString());
    q.bind(2, run.getColumn(1).getString());
    q.bind(3, up_to);
    q.bind(4, count);
    std::vector<std::int64_t> out;
    while (q.executeStep()) out.push_back(q.getColumn(0).getInt64());
    std::reverse(out.begin(), out.end());
    return out;
  });
}

Result<std::vector<Baseline>> Store::list_baselines(const std::string& name) const {
  return guarded(path_, "list baselines", [&]() -> Result<std::vector<Baseline>> {
    SQLite::Statement q(*db_,
                        "SELECT name, scenario_name, rig, run_id, set_at FROM baselines "
                        "WHERE ? = '' OR name = ? ORDER BY name, scenario_name, rig");
    q.bind(1, name);
    q.bind(2, name);
    std::vector<Baseline> out;
    while (q.executeStep()) {
      out.push_back({q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getString(),
                     q.getColumn(3).getInt64(), q.getColumn(4).getString(), {}});
    }
    for (Baseline& b : out) {
      SQLite::Statement m(*db_,
                          "SELECT run_id FROM baseline_runs WHERE scenario_name = ? AND rig = ? AND name = ? "
                          "ORDER BY run_id");
      m.bind(1, b.scenario_name);
      m.bind(2, b.rig);
      m.bind(3, b.name);
      while (m.executeStep()) b.runs.push_back(m.getColumn(0).getInt64());
      if (b.runs.empty()) b.runs.push_back(b.run_id);
    }
    return out;
  });
}

Result<std::vector<HistoryPoint>> Store::metric_history(const HistoryQuery& h) const {
  return guarded(path_, "metric history", [&]() -> Result<std::vector<HistoryPoint>> {
    // Optional filters are written as "? = '' OR column = ?" so that one
    // statement serves every combination; SQLite still walks the metric index.
    SQLite::Statement q(*db_,
                        "SELECT r.id, r.started_at, r.origin, r.scenario_name, r.rig, m.value, m.unit, "
                        "m.provenance, m.unavailable FROM metrics m JOIN runs r ON r.id = m.run_id "
                        "WHERE m.name = ? AND (? = '' OR r.scenario_name = ?) AND (? = '' OR r.rig = ?) "
                        "AND (? <= 0 OR r.id < ?) AND (? = 0 OR r.origin = 'live') "
                        "AND r.status IN ('passed', 'failed') ORDER BY m.run_id DESC LIMIT ?");
    q.bind(1, h.metric);
    q.bind(2, h.scenario);
    q.bind(3, h.scenario);
    q.bind(4, h.rig);
    q.bind(5, h.rig);
    q.bind(6, h.before_run);
    q.bind(7, h.before_run);
    q.bind(8, h.live_only ? 1 : 0);
    q.bind(9, h.limit > 0 ? h.limit : -1);
    std::vector<HistoryPoint> out;
    while (q.executeStep()) {
      HistoryPoint p;
      p.run_id = q.getColumn(0).getInt64();
      p.started_at = q.getColumn(1).getString();
      p.origin = q.getColumn(2).getString();
      p.scenario_name = q.getColumn(3).getString();
      p.rig = q.getColumn(4).getString();
      if (!q.getColumn(5).isNull()) p.value = q.getColumn(5).getDouble();
      p.unit = q.getColumn(6).getString();
      p.provenance = q.getColumn(7).getString();
      p.unavailable = q.getColumn(8).getString();
      out.push_back(std::move(p));
    }
    std::reverse(out.begin(), out.end());
    return out;
  });
}

Result<std::map<std::string, std::vector<double>>> Store::recent_values(const std::string& scenario,
                                                                         const std::string& rig,
                                                                         std::int64_t before_run, int runs) const {
  return guarded(path_, "recent values", [&]() -> Result<std::map<std::string, std::vector<double>>> {
    SQLite::Statement q(*db_,
                        "SELECT m.name, m.value FROM metrics m WHERE m.value IS NOT NULL AND m.run_id IN "
                        "(SELECT id FROM runs WHERE scenario_name = ? AND rig = ? AND origin = 'live' "
                        "AND status IN ('passed', 'failed') AND id < ? ORDER BY id DESC LIMIT ?) "
                        "ORDER BY m.run_id");
    q.bind(1, scenario);
    q.bind(2, rig);
    q.bind(3, before_run);
    q.bind(4, runs);
    std::map<std::string, std::vector<double>> out;
    while (q.executeStep()) out[q.getColumn(0).getString()].push_back(q.getColumn(1).getDouble());
    return out;
  });
}

Result<std::vector<HistoryMetric>> Store::history_metrics(const std::string& scenario, const std::string& rig) const {
  return guarded(path_, "history metrics", [&]() -> Result<std::vector<HistoryMetric>> {
    SQLite::Statement q(*db_,
                        "SELECT m.name, max(m.unit), count(*), count(m.value), max(r.id) "
                        "FROM metrics m JOIN runs r ON r.id = m.run_id "
                        "WHERE (? = '' OR r.scenario_name = ?) AND (? = '' OR r.rig = ?) "
                        "AND r.status IN ('passed', 'failed') GROUP BY m.name ORDER BY m.name");
    q.bind(1, scenario);
    q.bind(2, scenario);
    q.bind(3, rig);
    q.bind(4, rig);
    std::vector<HistoryMetric> out;
    while (q.executeStep()) {
      out.push_back({q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getInt(),
                     q.getColumn(3).getInt(), q.getColumn(4).getInt64()});
    }
    return out;
  });
}

Result<std::map<std::string, std::vector<HistoryPoint>>> Store::all_metric_history(const std::string& scenario,
                                                                                   const std::string& rig) const {
  return guarded(path_, "metric history", [&]() -> Result<std::map<std::string, std::vector<HistoryPoint>>> {
    SQLite::Statement q(*db_,
                        "SELECT m.name, r.id, r.started_at, r.origin, r.scenario_name, r.rig, m.value, m.unit, "
                        "m.provenance, m.unavailable FROM metrics m JOIN runs r ON r.id = m.run_id "
                        "WHERE (? = '' OR r.scenario_name = ?) AND (? = '' OR r.rig = ?) "
                        "AND r.status IN ('passed', 'failed') ORDER BY m.run_id");
    q.bind(1, scenario);
    q.bind(2, scenario);
    q.bind(3, rig);
    q.bind(4, rig);
    std::map<std::string, std::vector<HistoryPoint>> out;
    std::string name;
    std::vector<HistoryPoint>* points = nullptr;
    while (q.executeStep()) {
      const char* n = q.getColumn(0).getText();
      if (!points || name != n) {
        name = n;
        points = &out[name];
      }
      HistoryPoint p;
      p.run_id = q.getColumn(1).getInt64();
      p.started_at = q.getColumn(2).getString();
      p.origin = q.getColumn(3).getString();
      p.scenario_name = q.getColumn(4).getString();
      p.rig = q.getColumn(5).getString();
      if (!q.getColumn(6).isNull()) p.value = q.getColumn(6).getDouble();
      p.unit = q.getColumn(7).getString();
      p.provenance = q.getColumn(8).getString();
      p.unavailable = q.getColumn(9).getString();
      points->push_back(std::move(p));
    }
    return out;
  });
}

}  // namespace harness
