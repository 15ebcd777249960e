// Runs: written in three steps (header, body, finish), listed, loaded, aborted.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/store/run_owner.h"
#include "harness/store/store.h"
#include "harness/store/store_internal.h"

namespace harness {

using sql::Params;
using sql::Rows;

RunStatus store_internal::effective_status(const Rows& q, int status_column, int owner_column, std::string& reason) {
  RunStatus status = run_status_from_name(q.text(status_column)).value_or(RunStatus::aborted);
  if (status != RunStatus::running) return status;
  RunOwner owner{q.int64(owner_column), q.text(owner_column + 1), q.text(owner_column + 2), q.text(owner_column + 3)};
  if (!run_owner_gone(owner)) return status;
  if (reason.empty()) {
    reason = fmt::format("its process (pid {} on {}) ended before the run finished: killed or crashed", owner.pid,
                         owner.host);
  }
  return RunStatus::abandoned;
}

using namespace store_internal;

namespace {

constexpr const char* kInsertHeader =
    "INSERT INTO runs (uuid, scenario_name, scenario_path, scenario_hash, scenario_text, rig, origin, status, reason, "
    "started_at, context, owner_pid, owner_pid_start, owner_boot_id, owner_host) "
    "VALUES (?,?,?,?,?,?,?,'running','',?,?,?,?,?,?)";

}  // namespace

Result<std::optional<std::int64_t>> Store::insert_header_if_absent(const RunRecord& r) {
  const RunOwner owner = current_run_owner();
  // Both engines: a row already holding the uuid (unique index) makes the
  // insert a no-op with no row returned; a concurrent inserter of the same
  // uuid waits for the first one's transaction and then finds it there.
  HARNESS_STORE_LET(q, db_->query(std::string(kInsertHeader) + " ON CONFLICT (uuid) DO NOTHING RETURNING id",
                                  {r.uuid.empty() ? new_run_uuid() : r.uuid, r.scenario_name, r.scenario_path,
                                   r.scenario_hash, r.scenario_text, r.rig, r.origin, r.started_at,
                                   nlohmann::json(r.context).dump(), owner.pid, owner.pid_start, owner.boot_id,
                                   owner.host}));
  std::optional<std::int64_t> id;
  while (q->next()) id = q->int64(0);
  HARNESS_TRY(q->status());
  return id;
}

Result<std::int64_t> Store::insert_header(const RunRecord& r, const std::string& uuid) {
  const RunOwner owner = current_run_owner();
  HARNESS_STORE_LET(q, db_->query(std::string(kInsertHeader) + " RETURNING id",
                                  {uuid, r.scenario_name, r.scenario_path, r.scenario_hash, r.scenario_text, r.rig,
                                   r.origin, r.started_at, nlohmann::json(r.context).dump(), owner.pid,
                                   owner.pid_start, owner.boot_id, owner.host}));
  if (!q->next()) {
    HARNESS_TRY(q->status());
    return Error::infra(fmt::format("store {}: a new run got no id", path_));
  }
  const std::int64_t id = q->int64(0);
  while (q->next()) {
  }
  HARNESS_TRY(q->status());
  return id;
}

Result<std::int64_t> Store::begin_run(const RunRecord& r) {
  return insert_header(r, r.uuid.empty() ? new_run_uuid() : r.uuid);
}

Status Store::write_body(const RunRecord& r) {
  HARNESS_STORE_LET(changed, db_->run("UPDATE runs SET status = ?, reason = ?, ended_at = ?, context = ?, "
                                      "recording = ? WHERE id = ?",
                                      {run_status_name(r.status), r.reason, r.ended_at,
                                       nlohmann::json(r.context).dump(), r.recording_json, r.id}));
  if (changed != 1) return Error::infra(fmt::format("store {}: run {} does not exist", path_, r.id));

  // Each metric row repeats its run's scenario and rig as stored (schema 7:
  // the history of one rig reads that rig's rows only), and its status,
  // origin and start (schema 10: that history needs no join with runs).
  std::string scenario, rig, origin, started_at;
  {
    HARNESS_STORE_LET(q, db_->query("SELECT scenario_name, rig, origin, started_at FROM runs WHERE id = ?", {r.id}));
    if (q->next()) scenario = q->text(0), rig = q->text(1), origin = q->text(2), started_at = q->text(3);
    HARNESS_TRY(q->status());
  }
  const std::string status(run_status_name(r.status));
  for (const Metric& m : r.analysis.metrics) {
    HARNESS_TRY(db_->run("INSERT INTO metrics (run_id, scenario_name, rig, status, origin, started_at, level, name, "
                         "value, text, unit, provenance, source, unavailable, better) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         {r.id, scenario, rig, status, origin, started_at, level_name(m.level), m.name, m.value,
                          m.text, m.unit, provenance_name(m.provenance), m.source, m.unavailable,
                          better_name(m.better)}));
  }
  for (const SampleSet& s : r.analysis.samples) {
    // count little-endian IEEE 754 doubles (this host's layout: x86_64, aarch64)
    HARNESS_TRY(db_->run("INSERT INTO samples (run_id, level, name, unit, provenance, source, better, count, vals) "
                         "VALUES (?,?,?,?,?,?,?,?,?)",
                         {r.id, level_name(s.level), s.name, s.unit, provenance_name(s.provenance), s.source,
                          better_name(s.better), static_cast<std::int64_t>(s.values.size()),
                          sql::Bytes{s.values.data(), s.values.size() * sizeof(double)}}));
  }
  for (const Artifact& a : r.artifacts) {
    HARNESS_TRY(db_->run("INSERT INTO artifacts (run_id, name, path, size, sha256, kind) VALUES (?,?,?,?,?,?)",
                         {r.id, a.name, a.path, a.size, a.sha256, a.kind}));
  }
  int seq = 0;
  for (const Verdict& v : r.analysis.verdicts) {
    HARNESS_TRY(db_->run("INSERT INTO verdicts (run_id, seq, level, check_id, expected, measured, status, detail) "
                         "VALUES (?,?,?,?,?,?,?,?)",
                         {r.id, seq++, level_name(v.level), v.check, v.expected, v.measured,
                          verdict_status_name(v.status), v.detail}));
  }
  seq = 0;
  for (const std::string& h : r.analysis.hints) {
    HARNESS_TRY(db_->run("INSERT INTO hints (run_id, seq, text) VALUES (?,?,?)", {r.id, seq++, h}));
  }
  return ok();
}

Status Store::finish_run(const RunRecord& r) {
  HARNESS_STORE_LET(tx, sql::Transaction::begin(*db_));
  HARNESS_TRY(write_body(r));
  return tx.commit();
}

Result<std::int64_t> Store::insert_run(const RunRecord& r) {
  HARNESS_STORE_LET(tx, sql::Transaction::begin(*db_));
  HARNESS_STORE_LET(id, insert_header(r, r.uuid.empty() ? new_run_uuid() : r.uuid));
  RunRecord copy = r;
  copy.id = id;
  HARNESS_TRY(write_body(copy));
  HARNESS_TRY(tx.commit());
  return id;
}

Result<std::optional<std::int64_t>> Store::insert_run_if_absent(const RunRecord& r) {
  HARNESS_STORE_LET(tx, sql::Transaction::begin(*db_));
  HARNESS_STORE_LET(id, insert_header_if_absent(r));
  if (!id) return id;  // the transaction rolls back: nothing was written
  RunRecord copy = r;
  copy.id = *id;
  HARNESS_TRY(write_body(copy));
  HARNESS_TRY(tx.commit());
  return id;
}

Result<std::optional<std::int64_t>> Store::find_run(const std::string& uuid) const {
  HARNESS_STORE_LET(q, db_->query("SELECT id FROM runs WHERE uuid = ?", {uuid}));
  std::optional<std::int64_t> id;
  if (q->next()) id = q->int64(0);
  HARNESS_TRY(q->status());
  return id;
}

Result<std::vector<std::pair<std::int64_t, std::string>>> Store::run_uuids() const {
  HARNESS_STORE_LET(q, db_->query("SELECT id, uuid FROM runs ORDER BY id"));
  std::vector<std::pair<std::int64_t, std::string>> out;
  while (q->next()) out.emplace_back(q->int64(0), q->text(1));
  HARNESS_TRY(q->status());
  return out;
}

Status Store::mark_aborted(std::int64_t id, const std::string& reason) {
  HARNESS_STORE_LET(tx, sql::Transaction::begin(*db_));
  HARNESS_STORE_LET(changed, db_->run("UPDATE runs SET status = 'aborted', reason = ? WHERE id = ?", {reason, id}));
  if (changed != 1) return Error::infra(fmt::format("store {}: run {} does not exist", path_, id));
  // Its metric rows' copy of the status (schema 10) follows.
  HARNESS_TRY(db_->run("UPDATE metrics SET status = 'aborted' WHERE run_id = ?", {id}));
  return tx.commit();
}

Result<std::vector<RunSummary>> Store::list_runs(int limit) const {
  HARNESS_STORE_LET(q, db_->query("SELECT r.id, r.scenario_name, r.rig, r.origin, r.status, r.reason, r.started_at, "
                                  "r.ended_at, (SELECT count(*) FROM metrics m WHERE m.run_id = r.id), "
                                  "(SELECT count(*) FROM verdicts v WHERE v.run_id = r.id AND v.status = 'fail'), "
                                  "r.owner_pid, r.owner_pid_start, r.owner_boot_id, r.owner_host, r.uuid "
                                  "FROM runs r ORDER BY r.id DESC LIMIT ?",
                                  {limit}));
  std::vector<RunSummary> out;
  while (q->next()) {
    RunSummary s;
    s.id = q->int64(0);
    s.scenario_name = q->text(1);
    s.rig = q->text(2);
    s.origin = q->text(3);
    s.reason = q->text(5);
    s.status = effective_status(*q, 4, 10, s.reason);
    s.started_at = q->text(6);
    s.ended_at = q->text(7);
    s.metric_count = static_cast<int>(q->int64(8));
    s.verdicts_failed = static_cast<int>(q->int64(9));
    s.uuid = q->text(14);
    out.push_back(s);
  }
  HARNESS_TRY(q->status());
  return out;
}

Result<RunRecord> Store::load_run(std::int64_t id) const {
  HARNESS_STORE_LET(q, db_->query("SELECT scenario_name, scenario_path, scenario_hash, scenario_text, rig, origin, "
                                  "status, reason, started_at, ended_at, context, recording, owner_pid, "
                                  "owner_pid_start, owner_boot_id, owner_host, uuid FROM runs WHERE id = ?",
                                  {id}));
  if (!q->next()) {
    HARNESS_TRY(q->status());
    return Error::input(fmt::format("store {}: no run with id {}", path_, id));
  }
  RunRecord r;
  r.id = id;
  r.scenario_name = q->text(0);
  r.scenario_path = q->text(1);
  r.scenario_hash = q->text(2);
  r.scenario_text = q->text(3);
  r.rig = q->text(4);
  r.origin = q->text(5);
  r.reason = q->text(7);
  r.status = effective_status(*q, 6, 12, r.reason);
  r.started_at = q->text(8);
  r.ended_at = q->text(9);
  Result<nlohmann::json> context = parse_bounded_json(q->text(10), fmt::format("store {}: run {}'s context", path_, id));
  if (!context) return Error::infra(context.error().message);
  try {
    r.context = context->get<std::map<std::string, std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return Error::infra(fmt::format("store {}: load run {}: corrupt JSON: {}", path_, id, e.what()));
  }
  r.recording_json = q->text(11);
  r.uuid = q->text(16);

  HARNESS_STORE_LET(m, db_->query("SELECT level, name, value, text, unit, provenance, source, unavailable, better "
                                  "FROM metrics WHERE run_id = ? ORDER BY rowid",
                                  {id}));
  while (m->next()) {
    Metric x;
    x.level = level_from_name(m->text(0)).value_or(Level::roofline);
    x.name = m->text(1);
    if (!m->is_null(2)) x.value = m->real(2);
    x.text = m->text(3);
    x.unit = m->text(4);
    x.provenance = provenance_from_name(m->text(5)).value_or(Provenance::measured);
    x.source = m->text(6);
    x.unavailable = m->text(7);
    x.better = better_from_name(m->text(8)).value_or(Better::none);
    r.analysis.metrics.push_back(std::move(x));
  }
  HARNESS_TRY(m->status());
  HARNESS_STORE_LET(s, db_->query("SELECT level, name, unit, provenance, source, better, count, vals FROM samples "
                                  "WHERE run_id = ? ORDER BY rowid",
                                  {id}));
  while (s->next()) {
    SampleSet x;
    x.level = level_from_name(s->text(0)).value_or(Level::latency);
    x.name = s->text(1);
    x.unit = s->text(2);
    x.provenance = provenance_from_name(s->text(3)).value_or(Provenance::measured);
    x.source = s->text(4);
    x.better = better_from_name(s->text(5)).value_or(Better::none);
    const std::int64_t count = s->int64(6);
    const std::string blob = s->bytes(7);
    if (count < 0 || blob.size() != static_cast<std::uint64_t>(count) * sizeof(double)) {
      return Error::infra(fmt::format("store {}: run {} sample set {} is corrupt ({} bytes for {} values)", path_,
                                      id, x.name, blob.size(), count));
    }
    x.values.resize(static_cast<std::size_t>(count));
    if (count > 0) std::memcpy(x.values.data(), blob.data(), blob.size());
    r.analysis.samples.push_back(std::move(x));
  }
  HARNESS_TRY(s->status());
  HARNESS_STORE_LET(a, db_->query("SELECT name, path, size, sha256, kind FROM artifacts WHERE run_id = ? "
                                  "ORDER BY rowid",
                                  {id}));
  while (a->next()) {
    Artifact x{a->text(0), a->text(1), static_cast<std::uint64_t>(a->int64(2)), a->text(3), a->text(4)};
    // A server's rows are shared by every machine of the lab: the bytes are
    // wherever this machine's artifact folder is.
    if (is_postgres()) x.path = (std::filesystem::path(artifacts_) / x.sha256).string();
    r.artifacts.push_back(std::move(x));
  }
  HARNESS_TRY(a->status());
  HARNESS_STORE_LET(v, db_->query("SELECT level, check_id, expected, measured, status, detail FROM verdicts "
                                  "WHERE run_id = ? ORDER BY seq",
                                  {id}));
  while (v->next()) {
    Verdict x;
    x.level = level_from_name(v->text(0)).value_or(Level::roofline);
    x.check = v->text(1);
    x.expected = v->text(2);
    x.measured = v->text(3);
    x.status = verdict_status_from_name(v->text(4)).value_or(VerdictStatus::unavailable);
    x.detail = v->text(5);
    r.analysis.verdicts.push_back(std::move(x));
  }
  HARNESS_TRY(v->status());
  HARNESS_STORE_LET(h, db_->query("SELECT text FROM hints WHERE run_id = ? ORDER BY seq", {id}));
  while (h->next()) r.analysis.hints.push_back(h->text(0));
  HARNESS_TRY(h->status());
  return r;
}

Result<std::vector<std::int64_t>> Store::recent_completed_runs(std::int64_t up_to, int count) const {
  std::string scenario, rig;
  {
    HARNESS_STORE_LET(run, db_->query("SELECT scenario_name, rig FROM runs WHERE id = ?", {up_to}));
    if (!run->next()) {
      HARNESS_TRY(run->status());
      return Error::input(fmt::format("store {}: no run with id {}", path_, up_to));
    }
    scenario = run->text(0);
    rig = run->text(1);
  }
  HARNESS_STORE_LET(q, db_->query("SELECT id FROM runs WHERE scenario_name = ? AND rig = ? AND origin = 'live' "
                                  "AND status IN ('passed', 'failed') AND id <= ? ORDER BY id DESC LIMIT ?",
                                  {scenario, rig, up_to, count}));
  std::vector<std::int64_t> out;
  while (q->next()) out.push_back(q->int64(0));
  HARNESS_TRY(q->status());
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace harness
