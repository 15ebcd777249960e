#include "harness/store/store.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "harness/store/sql/connection.h"
#include "tests/support/store_engine_test.h"
#include "tests/support/store_engines.h"

namespace harness {
namespace {

using testing_support::StoreEngine;

// Every test runs on both engines (tests/support/store_engines.h).
class StoreTest : public testing_support::StoreEngineTest {
 protected:
  StoreTest() : StoreEngineTest("harness-store") {}
  bool sqlite() const { return GetParam() == StoreEngine::sqlite; }
  // Runs SQL on the store behind the Store's back.
  void alter(const std::string& sql) {
    std::unique_ptr<sql::Connection> c = target_->connect();
    ASSERT_TRUE(c);
    Status done = c->exec(sql);
    ASSERT_TRUE(done) << done.error().message;
  }

  static RunRecord sample_run() {
    RunRecord r;
    r.scenario_name = "host";
    r.scenario_path = "scenarios/host.toml";
    r.scenario_text = "[scenario]\nname = \"host\"\n";
    r.scenario_hash = "abc";
    r.rig = "localhost";
    r.started_at = "2026-11-29T10:00:00.000Z";
    r.context = {{"host", "box"}, {"kernel", "Linux 6.1"}};
    return r;
  }
};

TEST_P(StoreTest, MigratesAnEmptyStoreToTheCurrentSchema) {
  Result<Store> s = Store::open(db_);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->schema_version(), Store::kSchemaVersion);
  EXPECT_EQ(s->is_postgres(), !sqlite());
  std::unique_ptr<sql::Connection> c = target_->connect();
  ASSERT_TRUE(c);
  for (const char* table : {"runs", "metrics", "samples", "artifacts", "verdicts", "hints", "baselines",
                            "baseline_runs", "baseline_acks"}) {
    Result<std::unique_ptr<sql::Rows>> rows = c->query(std::string("SELECT count(*) FROM ") + table);
    ASSERT_TRUE(rows) << table << ": " << rows.error().message;
    ASSERT_TRUE((*rows)->next());
    EXPECT_EQ((*rows)->int64(0), 0) << table;
  }
  if (sqlite()) {
    Result<std::unique_ptr<sql::Rows>> mode = c->query("PRAGMA journal_mode");
    ASSERT_TRUE(mode && (*mode)->next());
    EXPECT_EQ((*mode)->text(0), "wal");
  }
}

TEST_P(StoreTest, ReopeningKeepsRunsAndDoesNotMigrateTwice) {
  {
    Result<Store> s = Store::open(db_);
    ASSERT_TRUE(s);
    ASSERT_TRUE(s->insert_run(sample_run()));
  }
  Result<Store> s = Store::open(db_);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->list_runs()->size(), 1u);
}

TEST_P(StoreTest, RefusesADatabaseFromANewerHarness) {
  {
    std::unique_ptr<sql::Connection> c = target_->connect();
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->begin_migration());
    ASSERT_TRUE(c->set_schema_version(99));
    ASSERT_TRUE(c->commit());
  }
  Result<Store> s = Store::open(db_);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "store " + db_ + ": schema version 99 is newer than this harness knows (" +
                                   std::to_string(Store::kSchemaVersion) + "); use a newer harness");
  EXPECT_EQ(s.error().code, ExitCode::bad_input);
}

TEST_P(StoreTest, RoundTripsEverythingOfARun) {
  Result<Store> s = Store::open(db_);
  ASSERT_TRUE(s);
  RunRecord r = sample_run();
  Result<std::int64_t> id = s->begin_run(r);
  ASSERT_TRUE(id);
  r.id = *id;
  r.status = RunStatus::failed;
  r.reason = "a verdict failed";
  r.ended_at = "2026-11-29T10:00:05.000Z";
  r.recording_json = R"({"format_version":1})";
  Metric bw;
  bw.level = Level::roofline;
  bw.name = "ceiling.memory.dram";
  bw.value = 31.5e9;
  bw.unit = "B/s";
  bw.provenance = Provenance::measured;
  bw.source = "membw:seq_read";
  bw.better = Better::higher;
  r.analysis.metrics.push_back(bw);
  r.analysis.metrics.push_back(Metric::missing(Level::latency, "power_mean", "W", "no power source", Better::lower));
  Metric bound;
  bound.name = "gemm.bound";
  bound.value = 1;
  bound.text = "compute";
  bound.provenance = Provenance::model;
  r.analysis.metrics.push_back(bound);
  r.analysis.samples.push_back({Level::latency, "latency", "s", Provenance::measured, "builtin:gemm",
                                Better::lower, {0.001, 0.002, 0.0015}});
  r.analysis.verdicts.push_back({Level::latency, "latency.expect.p95_over_p50_max", "<= 1.3", "1.5",
                                 VerdictStatus::fail, "too jittery"});
  r.analysis.hints.push_back("look at ALU stalls");
  r.artifacts.push_back({"capture", "captures/x.sr", 1234, "deadbeef", "sigrok-session"});
  ASSERT_TRUE(s->finish_run(r));

  Result<RunRecord> back = s->load_run(r.id);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->status, RunStatus::failed);
  EXPECT_EQ(back->reason, "a verdict failed");
  EXPECT_EQ(back->context, r.context);
  EXPECT_EQ(back->recording_json, r.recording_json);
  ASSERT_EQ(back->analysis.metrics.size(), 3u);
  EXPECT_EQ(*back->analysis.metrics[0].value, 31.5e9);
  EXPECT_EQ(back->analysis.metrics[0].provenance, Provenance::measured);
  EXPECT_EQ(back->analysis.metrics[0].better, Better::higher);
  EXPECT_FALSE(back->analysis.metrics[1].value);
  EXPECT_EQ(back->analysis.metrics[1].unavailable, "no power source");
  EXPECT_EQ(back->analysis.metrics[2].text, "compute");
  ASSERT_EQ(back->analysis.samples.size(), 1u);
  EXPECT_EQ(back->analysis.samples[0].values, (std::vector<double>{0.001, 0.002, 0.0015}));
  ASSERT_EQ(back->analysis.verdicts.size(), 1u);
  EXPECT_EQ(back->analysis.verdicts[0].status, VerdictStatus::fail);
  EXPECT_EQ(back->analysis.verdicts[0].detail, "too jittery");
  EXPECT_EQ(back->analysis.hints, r.analysis.hints);
  ASSERT_EQ(back->artifacts.size(), 1u);
  EXPECT_EQ(back->artifacts[0].sha256, "deadbeef");

  Result<std::vector<RunSummary>> list = s->list_runs();
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].metric_count, 3);
  EXPECT_EQ((*list)[0].verdicts_failed, 1);
}

TEST_P(StoreTest, AFailedWriteLeavesTheRunAsRunningNotHalfWritten) {
  Result<Store> s = Store::open(db_);
  ASSERT_TRUE(s);
  RunRecord r = sample_run();
  r.id = *s->begin_run(r);
  r.status = RunStatus::passed;
  Metric m;
  m.name = "dup";
  m.value = 1;
  r.analysis.metrics = {m, m};  // the second insert violates the primary key
  Status st = s->finish_run(r);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ExitCode::infrastructure);
  Result<RunRecord> back = s->load_run(r.id);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, RunStatus::running);
  EXPECT_TRUE(back->analysis.metrics.empty());
}

TEST_P(StoreTest, UnknownRunIsABadInputError) {
  Result<Store> s = Store::open(db_);
  ASSERT_TRUE(s);
  Result<RunRecord> r = s->load_run(42);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "store " + db_ + ": no run with id 42");
  EXPECT_EQ(r.error().code, ExitCode::bad_input);
}

// A pid that no process has any more: a child that has been reaped.
std::int64_t dead_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

TEST_P(StoreTest, ARunWhoseProcessDiedIsAbandonedAndNeverABaseline) {
  Result<Store> s = Store::open(db_);
  ASSERT_TRUE(s);
  RunRecord r = sample_run();
  std::int64_t alive = *s->begin_run(r);  // ours: still running
  std::int64_t killed = *s->begin_run(r);
  std::int64_t rebooted = *s->begin_run(r);
  std::int64_t elsewhere = *s->begin_run(r);
  std::int64_t pid = dead_pid();
  alter("UPDATE runs SET owner_pid = " + std::to_string(pid) + " WHERE id = " + std::to_string(killed));
  alter("UPDATE runs SET owner_boot_id = 'another-boot' WHERE id = " + std::to_string(rebooted));
  alter("UPDATE runs SET owner_host = 'another-host', owner_pid = " + std::to_string(pid) +
        " WHERE id = " + std::to_string(elsewhere));
  EXPECT_EQ(s->load_run(alive)->status, RunStatus::running);
  Result<RunRecord> k = s->load_run(killed);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->status, RunStatus::abandoned);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  EXPECT_EQ(k->reason, "its process (pid " + std::to_string(pid) + " on " + host +
                           ") ended before the run finished: killed or crashed");
  EXPECT_EQ(s->load_run(rebooted)->status, RunStatus::abandoned);
  EXPECT_EQ(s->load_run(elsewhere)->status, RunStatus::running);  // another host's: not ours to judge
  Result<std::vector<RunSummary>> list = s->list_runs();
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 4u);
  EXPECT_EQ((*list)[2].status, RunStatus::abandoned);  // newest first: elsewhere, rebooted, killed, alive
  EXPECT_EQ((*list)[2].id, killed);

  auto refused = s->set_baseline("nightly", killed, "2026-12-01T00:00:00Z");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "run " + std::to_string(killed) + " is abandoned: only a completed run (passed or failed) can be a baseline");
  EXPECT_EQ(refused.error().code, ExitCode::bad_input);
}

TEST_P(StoreTest, AStopAfterStoringMarksTheRunAborted) {
  Result<Store> s = Store::open(db_);
  ASSERT_TRUE(s);
  RunRecord r = sample_run();
  r.status = RunStatus::passed;
  std::int64_t id = *s->insert_run(r);
  ASSERT_TRUE(s->mark_aborted(id, "interrupted by SIGINT after storing"));
  Result<RunRecord> back = s->load_run(id);
  EXPECT_EQ(back->status, RunStatus::aborted);
  EXPECT_EQ(back->reason, "interrupted by SIGINT after storing");
}

TEST_P(StoreTest, ArtifactsAreCopiedContentAddressedAndVerified) {
  Result<Store> s = Store::open(db_);
  ASSERT_TRUE(s);
  std::filesystem::path user_file = dir_ / "capture.vcd";
  std::ofstream(user_file) << "raw truth";
  Result<Artifact> kept = s->keep_artifact(user_file.string(), "ddr/capture.vcd", "capture:vcd", false);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(kept->path, (std::filesystem::absolute(dir_) / "runs.sqlite.artifacts" / kept->sha256).string());
  EXPECT_EQ(kept->size, 9u);
  // A copy, not a link: the user's later writes do not reach the stored file.
  struct stat a {}, b {};
  ASSERT_EQ(::stat(user_file.c_str(), &a), 0);
  ASSERT_EQ(::stat(kept->path.c_str(), &b), 0);
  EXPECT_NE(a.st_ino, b.st_ino);
  EXPECT_EQ(b.st_nlink, 1u);
  std::ofstream(user_file) << "overwritten";
  EXPECT_TRUE(s->verify_artifact(*kept));
  std::ifstream in(kept->path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "raw truth");

  // A stored file altered behind the store's back is an error, naming both digests.
  std::filesystem::permissions(kept->path, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  std::ofstream(kept->path) << "RAW truth";
  Status v = s->verify_artifact(*kept);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("but " + kept->sha256 + " was stored (altered since it was stored)"),
            std::string::npos) << v.error().message;

  // Another store file in the same folder has its own artifact folder.
  if (sqlite()) {
    Result<Store> other = Store::open((dir_ / "other.sqlite").string());
    ASSERT_TRUE(other);
    EXPECT_NE(other->artifact_folder(), s->artifact_folder());
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreTest, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

TEST(StorePath, FlagThenEnvironmentThenDefault) {
  ::unsetenv("HARNESS_DB");
  EXPECT_EQ(resolve_database_path(""), "harness-runs.sqlite");
  ::setenv("HARNESS_DB", "/tmp/env.sqlite", 1);
  EXPECT_EQ(resolve_database_path(""), "/tmp/env.sqlite");
  EXPECT_EQ(resolve_database_path("/tmp/flag.sqlite"), "/tmp/flag.sqlite");
  ::unsetenv("HARNESS_DB");
}

TEST(StoreTarget, APostgresUriTellsTheEngineAndHidesItsPassword) {
  EXPECT_TRUE(sql::is_postgres_uri("postgresql://lab@db.lab:5432/runs"));
  EXPECT_TRUE(sql::is_postgres_uri("postgres:///runs"));
  EXPECT_FALSE(sql::is_postgres_uri("runs.sqlite"));
  EXPECT_FALSE(sql::is_postgres_uri("./postgresql:/x"));
  EXPECT_EQ(sql::display_name("postgresql://lab:s3cret@db.lab:5432/runs?sslmode=require"),
            "postgresql://lab:***@db.lab:5432/runs?sslmode=require");
  EXPECT_EQ(sql::display_name("postgresql://db.lab/runs?user=lab&password=s3cret&sslmode=require"),
            "postgresql://db.lab/runs?user=lab&password=***&sslmode=require");
  EXPECT_EQ(sql::display_name("postgresql://lab@db.lab/runs"), "postgresql://lab@db.lab/runs");
}

TEST(StoreTarget, ABadUriIsBadInputNamingTheStore) {
  Result<Store> s = Store::open("postgresql://lab:s3cret@db.lab:5432/runs?sslmode=sometimes&nosuchoption=1");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ExitCode::bad_input);
  EXPECT_EQ(s.error().message,
            "store postgresql://lab:***@db.lab:5432/runs?sslmode=sometimes&nosuchoption=1: not a valid PostgreSQL "
            "URI: invalid URI query parameter: \"nosuchoption\"");
}

TEST(StoreTarget, AnUnreachableServerIsAnInfrastructureErrorWithLibpqsMessage) {
  // A port on loopback where nothing listens: connecting is refused at once.
  Result<Store> s = Store::open("postgresql://nobody@127.0.0.1:1/runs?connect_timeout=2");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ExitCode::infrastructure);
  EXPECT_EQ(s.error().message.rfind("store postgresql://nobody@127.0.0.1:1/runs?connect_timeout=2: cannot connect to "
                                    "the PostgreSQL server: connection to server at \"127.0.0.1\", port 1 failed: "
                                    "Connection refused",
                                    0),
            0u)
      << s.error().message;
}

TEST(StoreTarget, AFileThatIsNoDatabaseSaysSoWhenOpened) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("harness-notdb-" + std::to_string(::getpid()) + ".sqlite")).string();
  std::ofstream(path) << "not a database, but long enough to be read as one...................................."
                         "................................................................................\n";
  Result<Store> s = Store::open(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ExitCode::infrastructure);
  EXPECT_EQ(s.error().message, "store " + path + ": open: file is not a database");
}

}  // namespace
}  // namespace harness
