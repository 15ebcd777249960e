#include "harness/store/store.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/files.h"
#include "harness/store/run_owner.h"
#include "harness/store/schema.h"
#include "harness/store/sql/connection.h"

// Binds the value of a Result expression to `name`, or returns its error
// from the enclosing function.
#define HARNESS_STORE_LET(name, expr)                 \
  auto name##_result_ = (expr);                       \
  if (!name##_result_) return name##_result_.error(); \
  auto& name = *name##_result_

namespace harness {
namespace {

using sql::Params;
using sql::Rows;

// No limit, in a form both engines take for LIMIT ?.
constexpr std::int64_t kNoLimit = std::numeric_limits<std::int64_t>::max();

// The owner columns, in this order, follow the status in the queries below.
constexpr const char* kOwnerColumns = "owner_pid, owner_pid_start, owner_boot_id, owner_host";

// A stored "running" run whose process is gone is abandoned: it never
// finished and never will. The reason says so when the run has none.
RunStatus effective_status(const Rows& q, int status_column, int owner_column, std::string& reason) {
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

static_assert(kMigrations.size() == Store::kSchemaVersion, "one migration per schema version");

// Where a PostgreSQL store keeps artifact bytes: docs/parts/store.md.
std::string postgres_artifact_folder() {
  const char* env = std::getenv("HARNESS_ARTIFACTS");
  std::filesystem::path folder = env && *env ? std::filesystem::path(env) : std::filesystem::path("harness-artifacts");
  return std::filesystem::absolute(folder).lexically_normal().string();
}

}  // namespace

std::string resolve_database_path(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("HARNESS_DB"); env && *env) return env;
  return kDefaultDatabase;
}

std::string new_run_uuid() {
  std::random_device device;  // getrandom(2) on Linux
  std::array<unsigned char, 16> b{};
  for (std::size_t i = 0; i < b.size(); i += 4) {
    const unsigned int word = device();
    for (std::size_t j = 0; j < 4; ++j) b[i + j] = static_cast<unsigned char>(word >> (8 * j));
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string out;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", b[i]);
  }
  return out;
}

Store::Store(std::string path, std::string artifacts, std::unique_ptr<sql::Connection> db)
    : path_(std::move(path)), artifacts_(std::move(artifacts)), db_(std::move(db)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

bool Store::is_postgres() const { return db_->engine() == sql::Engine::postgres; }

Result<Store> Store::open(const std::string& path) {
  HARNESS_STORE_LET(db, sql::open(path));
  const bool postgres = db->engine() == sql::Engine::postgres;
  std::string artifacts =
      postgres ? postgres_artifact_folder()
               : std::filesystem::absolute(std::filesystem::path(path)).string() + ".artifacts";
  Store store(sql::display_name(path), std::move(artifacts), std::move(db));
  HARNESS_TRY(store.migrate());
  return store;
}

Status Store::migrate() {
  auto too_new = [&](int version) {
    return Error::input(fmt::format(
        "store {}: schema version {} is newer than this harness knows ({}); use a newer harness", path_, version,
        kSchemaVersion));
  };
  HARNESS_STORE_LET(version, db_->schema_version());
  if (version > kSchemaVersion) return too_new(version);
  if (version == kSchemaVersion) return ok();
  // Several processes may open a new store at once: the migrations run
  // under one lock, and the version is read again once it is held, so each
  // migration runs exactly once.
  HARNESS_TRY(db_->begin_migration());
  auto fail = [&](Error e) {
    (void)db_->rollback();
    return e;
  };
  Result<int> now = db_->schema_version();
  if (!now) return fail(now.error());
  if (*now > kSchemaVersion) return fail(too_new(*now));
  const bool postgres = is_postgres();
  for (int v = *now; v < kSchemaVersion; ++v) {
    const Migration& m = kMigrations[static_cast<std::size_t>(v)];
    Status applied = db_->exec(postgres ? m.postgres : m.sqlite);
    if (!applied) return fail(applied.error().within(fmt::format("migration to schema {}", v + 1)));
    Status noted = db_->set_schema_version(v + 1);
    if (!noted) return fail(noted.error());
  }
  return db_->commit();
}

int Store::schema_version() const {
  Result<int> v = db_->schema_version();
  return v ? *v : -1;
}

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
  // the history of one rig reads that rig's rows only).
  std::string scenario, rig;
  {
    HARNESS_STORE_LET(q, db_->query("SELECT scenario_name, rig FROM runs WHERE id = ?", {r.id}));
    if (q->next()) scenario = q->text(0), rig = q->text(1);
    HARNESS_TRY(q->status());
  }
  for (const Metric& m : r.analysis.metrics) {
    HARNESS_TRY(db_->run("INSERT INTO metrics (run_id, scenario_name, rig, level, name, value, text, unit, "
                         "provenance, source, unavailable, better) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                         {r.id, scenario, rig, level_name(m.level), m.name, m.value, m.text, m.unit,
                          provenance_name(m.provenance), m.source, m.unavailable, better_name(m.better)}));
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

std::string Store::artifact_folder() const { return artifacts_; }

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
  HARNESS_STORE_LET(changed, db_->run("UPDATE runs SET status = 'aborted', reason = ? WHERE id = ?", {reason, id}));
  if (changed != 1) return Error::infra(fmt::format("store {}: run {} does not exist", path_, id));
  return ok();
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

Result<std::optional<std::int64_t>> Store::set_baseline(const std::string& name, std::int64_t run_id,
                                                        const std::string& set_at) {
  return set_baseline(name, std::vector<std::int64_t>{run_id}, set_at);
}

Result<std::optional<std::int64_t>> Store::set_baseline(const std::string& name, const std::vector<std::int64_t>& runs,
                                                        const std::string& set_at) {
  if (runs.empty()) return Error::input("a baseline needs at least one run");
  HARNESS_STORE_LET(tx, sql::Transaction::begin(*db_));
  std::string scenario, rig;
  std::int64_t newest = 0;
  for (std::int64_t run_id : runs) {
    HARNESS_STORE_LET(run, db_->query(fmt::format("SELECT scenario_name, rig, status, {} FROM runs WHERE id = ?",
                                                  kOwnerColumns),
                                      {run_id}));
    if (!run->next()) {
      HARNESS_TRY(run->status());
      return Error::input(fmt::format("store {}: no run with id {}", path_, run_id));
    }
    std::string run_scenario = run->text(0);
    std::string run_rig = run->text(1);
    std::string ignored_reason;
    std::string status(run_status_name(effective_status(*run, 2, 3, ignored_reason)));
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
  {
    HARNESS_STORE_LET(old, db_->query("SELECT run_id FROM baselines WHERE scenario_name = ? AND rig = ? AND name = ?",
                                      {scenario, rig, name}));
    if (old->next()) previous = old->int64(0);
    HARNESS_TRY(old->status());
  }
  HARNESS_TRY(db_->run("INSERT INTO baselines (scenario_name, rig, name, run_id, set_at) VALUES (?,?,?,?,?) "
                       "ON CONFLICT (scenario_name, rig, name) DO UPDATE SET run_id = excluded.run_id, "
                       "set_at = excluded.set_at",
                       {scenario, rig, name, newest, set_at}));
  HARNESS_TRY(db_->run("DELETE FROM baseline_runs WHERE scenario_name = ? AND rig = ? AND name = ?",
                       {scenario, rig, name}));
  for (std::int64_t run_id : runs) {
    HARNESS_TRY(db_->run("INSERT INTO baseline_runs (scenario_name, rig, name, run_id) VALUES (?,?,?,?) "
                         "ON CONFLICT DO NOTHING",
                         {scenario, rig, name, run_id}));
  }
  HARNESS_TRY(tx.commit());
  return previous;
}

Status Store::acknowledge(const Acknowledgement& a) {
  HARNESS_TRY(db_->run("INSERT INTO baseline_acks (scenario_name, rig, name, metric, baseline_run, acked_by, acked_at, "
                       "reason) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (scenario_name, rig, name, metric, baseline_run) "
                       "DO UPDATE SET acked_by = excluded.acked_by, acked_at = excluded.acked_at, "
                       "reason = excluded.reason",
                       {a.scenario_name, a.rig, a.baseline, a.metric, a.baseline_run, a.by, a.at, a.reason}));
  return ok();
}

Result<std::vector<Acknowledgement>> Store::acknowledgements(const std::string& baseline, const std::string& scenario,
                                                             const std::string& rig) const {
  HARNESS_STORE_LET(q, db_->query("SELECT a.metric, a.baseline_run, a.acked_by, a.acked_at, a.reason FROM "
                                  "baseline_acks a JOIN baselines b ON b.scenario_name = a.scenario_name AND "
                                  "b.rig = a.rig AND b.name = a.name AND b.run_id = a.baseline_run WHERE a.name = ? "
                                  "AND a.scenario_name = ? AND a.rig = ? ORDER BY a.metric",
                                  {baseline, scenario, rig}));
  std::vector<Acknowledgement> out;
  while (q->next()) {
    out.push_back({baseline, scenario, rig, q->text(0), q->int64(1), q->text(2), q->text(3), q->text(4)});
  }
  HARNESS_TRY(q->status());
  return out;
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

Result<std::vector<Baseline>> Store::list_baselines(const std::string& name) const {
  std::vector<Baseline> out;
  {
    HARNESS_STORE_LET(q, db_->query("SELECT name, scenario_name, rig, run_id, set_at FROM baselines "
                                    "WHERE ? = '' OR name = ? ORDER BY name, scenario_name, rig",
                                    {name, name}));
    while (q->next()) out.push_back({q->text(0), q->text(1), q->text(2), q->int64(3), q->text(4), {}});
    HARNESS_TRY(q->status());
  }
  for (Baseline& b : out) {
    HARNESS_STORE_LET(m, db_->query("SELECT run_id FROM baseline_runs WHERE scenario_name = ? AND rig = ? "
                                    "AND name = ? ORDER BY run_id",
                                    {b.scenario_name, b.rig, b.name}));
    while (m->next()) b.runs.push_back(m->int64(0));
    HARNESS_TRY(m->status());
    if (b.runs.empty()) b.runs.push_back(b.run_id);
  }
  return out;
}

Result<std::vector<HistoryPoint>> Store::metric_history(const HistoryQuery& h) const {
  // Read oldest first, as handed out; newest first when a limit keeps the
  // newest, then reversed. Only the filters given are in the statements, so
  // that an index serves them: the metric's rows of one rig come from
  // metrics_by_rig (rig, then scenario, then run: schema 7), those across
  // rigs from metrics_history; the runs from runs_history. The texts are
  // copied from the rows' views.
  const bool newest_first = h.limit > 0;
  const std::string order = newest_first ? " DESC" : "";
  const std::int64_t limit = newest_first ? static_cast<std::int64_t>(h.limit) : kNoLimit;
  std::string metric_where = "m.name = ?";
  Params metric_params = {h.metric};
  if (!h.rig.empty()) {
    metric_where += " AND m.rig = ?", metric_params.push_back(h.rig);
    if (!h.scenario.empty()) metric_where += " AND m.scenario_name = ?", metric_params.push_back(h.scenario);
  }
  if (h.before_run > 0) metric_where += " AND m.run_id < ?", metric_params.push_back(h.before_run);
  std::string run_where = "r.status IN ('passed', 'failed')";
  Params run_params;
  if (!h.scenario.empty()) run_where += " AND r.scenario_name = ?", run_params.push_back(h.scenario);
  if (!h.rig.empty()) run_where += " AND r.rig = ?", run_params.push_back(h.rig);
  if (h.before_run > 0) run_where += " AND r.id < ?", run_params.push_back(h.before_run);
  if (h.live_only) run_where += " AND r.origin = 'live'";

  // A filtered scenario or rig is the filter's text (equality on text is
  // byte for byte on both engines), not a column read 100,000 times.
  std::string run_columns = "r.id, r.started_at, r.origin";
  if (h.scenario.empty()) run_columns += ", r.scenario_name";
  if (h.rig.empty()) run_columns += ", r.rig";
  auto read_run = [&](HistoryPoint& p, const sql::Rows& row, int id_column) {
    int c = id_column;
    p.run_id = row.int64(c++);
    p.started_at = row.text_view(c++);
    p.origin = row.text_view(c++);
    p.scenario_name = h.scenario.empty() ? row.text_view(c++) : std::string_view(h.scenario);
    p.rig = h.rig.empty() ? row.text_view(c++) : std::string_view(h.rig);
  };
  auto read_metric = [](HistoryPoint& p, const sql::Rows& row, int value_column) {
    if (!row.is_null(value_column)) p.value = row.real(value_column);
    p.unit = row.text_view(value_column + 1);
    p.provenance = row.text_view(value_column + 2);
    p.unavailable = row.text_view(value_column + 3);
  };

  std::vector<HistoryPoint> out;
  if (!is_postgres()) {
    // SQLite has no merge join: joined in SQL it looks each metric row's run
    // up in the runs table, whose rows hold the scenario text (wide). The
    // store merges the two index walks itself instead, as PostgreSQL does,
    // stepping both statements in run order. Counting the runs first sizes
    // the points once (100,000 of them grown by doubling were a sixth of the
    // time).
    {
      HARNESS_STORE_LET(c, db_->query("SELECT count(*) FROM runs r WHERE " + run_where, run_params));
      if (c->next()) out.reserve(static_cast<std::size_t>(std::min(c->int64(0), limit)));
      HARNESS_TRY(c->status());
    }
    // The indexes are named: without statistics SQLite scans the runs table
    // (wide rows) for a rig without a scenario, and takes metrics_history
    // for "name = ? AND rig = ?", reading a table row per point.
    HARNESS_STORE_LET(r, db_->query("SELECT " + run_columns + " FROM runs r INDEXED BY runs_history WHERE " +
                                        run_where + " ORDER BY r.id" + order,
                                    run_params));
    HARNESS_STORE_LET(q, db_->query("SELECT m.run_id, m.value, m.unit, m.provenance, m.unavailable FROM metrics m "
                                    "INDEXED BY " + std::string(h.rig.empty() ? "metrics_history" : "metrics_by_rig") +
                                        " WHERE " + metric_where + " ORDER BY m.run_id" + order,
                                    metric_params));
    auto before = [&](std::int64_t run, std::int64_t metric_run) {  // the run comes before the metric's in the walk
      return newest_first ? run > metric_run : run < metric_run;
    };
    bool more_runs = r->next();
    std::int64_t run_id = more_runs ? r->int64(0) : 0;
    while (more_runs && static_cast<std::int64_t>(out.size()) < limit && q->next()) {
      const std::int64_t id = q->int64(0);
      while (more_runs && before(run_id, id)) {
        more_runs = r->next();
        if (more_runs) run_id = r->int64(0);
      }
      if (!more_runs || run_id != id) continue;  // a run the filters leave out
      HistoryPoint& p = out.emplace_back();
      read_run(p, *r, 0);
      read_metric(p, *q, 1);
    }
    HARNESS_TRY(r->status());
    HARNESS_TRY(q->status());
  } else {
    Params params = metric_params;
    params.insert(params.end(), run_params.begin(), run_params.end());
    std::string sql = "SELECT m.value, m.unit, m.provenance, m.unavailable, " + run_columns +
                      " FROM metrics m JOIN runs r ON r.id = m.run_id WHERE " + metric_where + " AND " + run_where +
                      " ORDER BY m.run_id" + order;
    if (newest_first) sql += " LIMIT ?", params.push_back(limit);
    HARNESS_STORE_LET(q, db_->query(sql, params));
    if (std::optional<std::size_t> n = q->count()) out.reserve(*n);
    while (q->next()) {
      HistoryPoint& p = out.emplace_back();
      read_metric(p, *q, 0);
      read_run(p, *q, 4);
    }
    HARNESS_TRY(q->status());
  }
  if (newest_first) std::reverse(out.begin(), out.end());
  return out;
}

Result<std::map<std::string, std::vector<double>>> Store::recent_values(const std::string& scenario,
                                                                         const std::string& rig,
                                                                         std::int64_t before_run, int runs) const {
  // The runs history's change points count (cmd_history.cc): live runs, and
  // replays and imports unless an earlier completed run of the same scenario
  // and rig has their start time (a replay of a night already stored repeats
  // it; runs_by_start finds that run). Of those, the values with measured
  // evidence: provenance measured, or replayed (a rig's figures analysed
  // again); declared and model figures are not a run's noise.
  HARNESS_STORE_LET(q, db_->query("SELECT m.name, m.value FROM metrics m WHERE m.value IS NOT NULL "
                                  "AND m.provenance IN ('measured', 'replayed') AND m.run_id IN "
                                  "(SELECT r.id FROM runs r WHERE r.scenario_name = ? AND (? = '' OR r.rig = ?) "
                                  "AND r.status IN ('passed', 'failed') AND r.id < ? AND (r.origin = 'live' OR "
                                  "NOT EXISTS (SELECT 1 FROM runs e WHERE e.scenario_name = r.scenario_name "
                                  "AND e.rig = r.rig AND e.started_at = r.started_at AND e.id < r.id "
                                  "AND e.status IN ('passed', 'failed'))) "
                                  "ORDER BY r.id DESC LIMIT ?) ORDER BY m.run_id",
                                  {scenario, rig, rig, before_run, runs}));
  std::map<std::string, std::vector<double>> out;
  while (q->next()) out[q->text(0)].push_back(q->real(1));
  HARNESS_TRY(q->status());
  return out;
}

Result<std::vector<HistoryMetric>> Store::history_metrics(const std::string& scenario, const std::string& rig) const {
  HARNESS_STORE_LET(q, db_->query("SELECT m.name, max(m.unit), count(*), count(m.value), max(r.id) "
                                  "FROM metrics m JOIN runs r ON r.id = m.run_id "
                                  "WHERE (? = '' OR r.scenario_name = ?) AND (? = '' OR r.rig = ?) "
                                  "AND r.status IN ('passed', 'failed') GROUP BY m.name ORDER BY m.name",
                                  {scenario, scenario, rig, rig}));
  std::vector<HistoryMetric> out;
  while (q->next()) {
    out.push_back({q->text(0), q->text(1), static_cast<int>(q->int64(2)), static_cast<int>(q->int64(3)),
                   q->int64(4)});
  }
  HARNESS_TRY(q->status());
  return out;
}

Result<std::map<std::string, std::vector<HistoryPoint>>> Store::all_metric_history(const std::string& scenario,
                                                                                   const std::string& rig) const {
  return all_metric_history_after(0, scenario, rig);
}

Result<std::map<std::string, std::vector<HistoryPoint>>> Store::all_metric_history_after(
    std::int64_t after_run, const std::string& scenario, const std::string& rig) const {
  HARNESS_STORE_LET(q, db_->query("SELECT m.name, r.id, r.started_at, r.origin, r.scenario_name, r.rig, m.value, m.unit, "
                                  "m.provenance, m.unavailable FROM metrics m JOIN runs r ON r.id = m.run_id "
                                  "WHERE m.run_id > ? AND (? = '' OR r.scenario_name = ?) AND (? = '' OR r.rig = ?) "
                                  "AND r.status IN ('passed', 'failed') ORDER BY m.run_id",
                                  {after_run, scenario, scenario, rig, rig}));
  std::map<std::string, std::vector<HistoryPoint>> out;
  std::string name;
  std::vector<HistoryPoint>* points = nullptr;
  while (q->next()) {
    std::string n = q->text(0);
    if (!points || name != n) {
      name = std::move(n);
      points = &out[name];
    }
    HistoryPoint p;
    p.run_id = q->int64(1);
    p.started_at = q->text(2);
    p.origin = q->text(3);
    p.scenario_name = q->text(4);
    p.rig = q->text(5);
    if (!q->is_null(6)) p.value = q->real(6);
    p.unit = q->text(7);
    p.provenance = q->text(8);
    p.unavailable = q->text(9);
    points->push_back(std::move(p));
  }
  HARNESS_TRY(q->status());
  return out;
}

Status Store::visit_metric_values_after(std::int64_t after_run, const std::string& scenario, const std::string& rig,
                                        MetricValueVisitor& visitor) const {
  HARNESS_STORE_LET(q, db_->query("SELECT m.run_id, m.name, m.value, m.unit, m.provenance, m.unavailable "
                                  "FROM metrics m JOIN runs r ON r.id = m.run_id "
                                  "WHERE m.run_id > ? AND (? = '' OR r.scenario_name = ?) AND (? = '' OR r.rig = ?) "
                                  "AND r.status IN ('passed', 'failed') ORDER BY m.run_id",
                                  {after_run, scenario, scenario, rig, rig}));
  MetricValueRow row;
  while (q->next()) {
    row.run_id = q->int64(0);
    row.name = q->text(1);
    row.value.reset();
    if (!q->is_null(2)) row.value = q->real(2);
    row.unit = q->text(3);
    row.provenance = q->text(4);
    row.unavailable = q->text(5);
    visitor.value(row);
  }
  return q->status();
}

}  // namespace harness
