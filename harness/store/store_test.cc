#include "harness/store/store.h"

#include <filesystem>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("harness-store-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "runs.sqlite").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

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

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(StoreTest, MigratesAnEmptyFileToTheCurrentSchema) {
  Result<Store> s = Store::open(path_);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->schema_version(), Store::kSchemaVersion);
  SQLite::Database db(path_);
  EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_TRUE(db.tableExists("runs"));
  EXPECT_TRUE(db.tableExists("metrics"));
}

TEST_F(StoreTest, ReopeningKeepsRunsAndDoesNotMigrateTwice) {
  {
    Result<Store> s = Store::open(path_);
    ASSERT_TRUE(s);
    ASSERT_TRUE(s->insert_run(sample_run()));
  }
  Result<Store> s = Store::open(path_);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->list_runs()->size(), 1u);
}

TEST_F(StoreTest, RefusesADatabaseFromANewerHarness) {
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA user_version = 99");
  }
  Result<Store> s = Store::open(path_);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "store " + path_ + ": schema version 99 is newer than this harness knows (" +
                                   std::to_string(Store::kSchemaVersion) + "); use a newer harness");
  EXPECT_EQ(s.error().code, ExitCode::infrastructure);
}

TEST_F(StoreTest, RoundTripsEverythingOfARun) {
  Result<Store> s = Store::open(path_);
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

TEST_F(StoreTest, AFailedWriteLeavesTheRunAsRunningNotHalfWritten) {
  Result<Store> s = Store::open(path_);
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

TEST_F(StoreTest, UnknownRunIsABadInputError) {
  Result<Store> s = Store::open(path_);
  ASSERT_TRUE(s);
  Result<RunRecord> r = s->load_run(42);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "store " + path_ + ": no run with id 42");
  EXPECT_EQ(r.error().code, ExitCode::bad_input);
}

TEST(StorePath, FlagThenEnvironmentThenDefault) {
  ::unsetenv("HARNESS_DB");
  EXPECT_EQ(resolve_database_path(""), "harness-runs.sqlite");
  ::setenv("HARNESS_DB", "/tmp/env.sqlite", 1);
  EXPECT_EQ(resolve_database_path(""), "/tmp/env.sqlite");
  EXPECT_EQ(resolve_database_path("/tmp/flag.sqlite"), "/tmp/flag.sqlite");
  ::unsetenv("HARNESS_DB");
}

}  // namespace
}  // namespace harness
