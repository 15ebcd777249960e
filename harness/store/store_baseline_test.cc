// Baselines and history queries of the store (schema migration 2).
#include <algorithm>
#include <bit>
#include <filesystem>
#include <limits>
#include <optional>
#include <regex>
#include <set>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/store/store.h"
#include "tests/support/store_engine_test.h"
#include "tests/support/store_engines.h"

namespace harness {
namespace {

using testing_support::StoreEngine;

// The runs of lab-a the history tests read.
struct LabHistory {
  std::int64_t r1, r3, r5;
};

class StoreBaselineTest : public testing_support::OpenStoreTest {
 protected:
  StoreBaselineTest() : OpenStoreTest("harness-store-baseline") {}

  // Of lab-a: r1, r3 (latency_p50 unavailable) and r5 (replayed); a run of
  // lab-b and an aborted one between.
  LabHistory lab_history() {
    LabHistory h;
    h.r1 = add("host", "lab-a", 1.0);
    add("host", "lab-b", 5.0);
    h.r3 = add("host", "lab-a", std::nullopt);
    add("host", "lab-a", 9.0, RunStatus::aborted);
    h.r5 = add("host", "lab-a", 1.2, RunStatus::passed, "replay");
    return h;
  }

  std::int64_t add(const std::string& scenario, const std::string& rig, std::optional<double> latency,
                   RunStatus status = RunStatus::passed, const std::string& origin = "live",
                   const std::string& started_at = "2026-11-29T00:00:00Z",
                   Provenance provenance = Provenance::measured) {
    RunRecord r;
    r.scenario_name = scenario;
    r.scenario_path = scenario + ".toml";
    r.scenario_text = "";
    r.scenario_hash = "h";
    r.rig = rig;
    r.origin = origin;
    r.status = status;
    r.started_at = started_at;
    Metric m;
    m.level = Level::latency;
    m.name = "latency_p50";
    m.unit = "s";
    m.value = latency;
    m.provenance = provenance;
    if (!latency) m.unavailable = "no samples";
    r.analysis.metrics.push_back(m);
    Result<std::int64_t> id = store_->insert_run(r);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }
};

TEST_P(StoreBaselineTest, SchemaIsMigratedToTheLatestVersion) { EXPECT_EQ(store_->schema_version(), Store::kSchemaVersion); }

TEST_P(StoreBaselineTest, ABaselineIsKeyedByScenarioAndRig) {
  std::int64_t a = add("host", "lab-a", 1.0);
  std::int64_t b = add("host", "lab-b", 2.0);
  std::int64_t a2 = add("host", "lab-a", 1.1);
  ASSERT_TRUE(store_->set_baseline("nightly", a, "t1").ok());
  ASSERT_TRUE(store_->set_baseline("nightly", b, "t2").ok());
  Result<std::optional<std::int64_t>> replaced = store_->set_baseline("nightly", a2, "t3");
  ASSERT_TRUE(replaced);
  EXPECT_EQ(*replaced, a);
  Result<std::vector<Baseline>> all = store_->list_baselines("nightly");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].rig, "lab-a");
  EXPECT_EQ((*all)[0].run_id, a2);
  EXPECT_EQ((*all)[0].set_at, "t3");
  EXPECT_EQ((*all)[1].rig, "lab-b");
  EXPECT_EQ((*all)[1].run_id, b);
  EXPECT_TRUE(store_->list_baselines("weekly")->empty());
}

TEST_P(StoreBaselineTest, ABaselineCanBeASetOfRunsOfOneScenarioAndRig) {
  std::int64_t a = add("host", "lab-a", 1.0), b = add("host", "lab-a", 1.1), other = add("host", "lab-b", 1.0);
  std::int64_t c = add("host", "lab-a", 1.2);
  ASSERT_TRUE(store_->set_baseline("nightly", std::vector<std::int64_t>{c, a, b}, "t1").ok());
  Result<std::vector<Baseline>> all = store_->list_baselines("nightly");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].run_id, c);  // the newest member
  EXPECT_EQ((*all)[0].runs, (std::vector<std::int64_t>{a, b, c}));
  Result<std::optional<std::int64_t>> mixed = store_->set_baseline("nightly", std::vector<std::int64_t>{a, other}, "t2");
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.error().message,
            "run 3 is scenario 'host' on rig 'lab-b', run 1 is scenario 'host' on rig 'lab-a': the runs of a baseline "
            "share one scenario and one rig");
  // Setting it again replaces the whole set.
  ASSERT_TRUE(store_->set_baseline("nightly", b, "t3").ok());
  EXPECT_EQ(store_->list_baselines("nightly")->front().runs, std::vector<std::int64_t>{b});
  Result<std::vector<std::int64_t>> recent = store_->recent_completed_runs(c, 2);
  ASSERT_TRUE(recent);
  EXPECT_EQ(*recent, (std::vector<std::int64_t>{b, c}));
}

TEST_P(StoreBaselineTest, OnlyCompletedRunsCanBeBaselines) {
  std::int64_t aborted = add("host", "lab-a", 1.0, RunStatus::aborted);
  Result<std::optional<std::int64_t>> r = store_->set_baseline("nightly", aborted, "t");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "run " + std::to_string(aborted) + " is aborted: only a completed run (passed or failed) can be a baseline");
  r = store_->set_baseline("nightly", 999, "t");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ExitCode::bad_input);
  EXPECT_NE(r.error().message.find("no run with id 999"), std::string::npos);
}

TEST_P(StoreBaselineTest, MetricHistoryFiltersAndOrdersOldestFirst) {
  const auto [r1, r3, r5] = lab_history();
  std::int64_t r6 = add("host", "lab-a", 1.3, RunStatus::failed);
  HistoryQuery q;
  q.metric = "latency_p50";
  q.rig = "lab-a";
  Result<std::vector<HistoryPoint>> h = store_->metric_history(q);
  ASSERT_TRUE(h);
  std::vector<std::int64_t> ids;
  for (const HistoryPoint& p : *h) ids.push_back(p.run_id);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{r1, r3, r5, r6}));
  EXPECT_FALSE((*h)[1].value);
  EXPECT_EQ((*h)[1].unavailable, "no samples");
  q.live_only = true;
  q.limit = 2;
  h = store_->metric_history(q);
  ids.clear();
  for (const HistoryPoint& p : *h) ids.push_back(p.run_id);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{r3, r6}));
}

// Every combination of the filters against what the inserted runs say: on
// SQLite the store merges two index walks itself (runs, then the metric's
// rows), on PostgreSQL the server joins; both must give the same points.
TEST_P(StoreBaselineTest, MetricHistoryHonoursEveryCombinationOfFilters) {
  struct Stored {
    std::int64_t id;
    std::string scenario, rig, origin;
    bool completed, has_metric;
  };
  std::vector<Stored> stored;
  const std::vector<std::string> scenarios = {"host", "npu"}, rigs = {"lab-a", "lab-b"};
  for (int i = 0; i < 40; ++i) {
    const std::string& scenario = scenarios[(i / 3) % 2];
    const std::string& rig = rigs[(i / 2) % 2];
    const RunStatus status = i % 7 == 3 ? RunStatus::aborted : i % 5 == 1 ? RunStatus::failed : RunStatus::passed;
    const std::string origin = i % 4 == 2 ? "replay" : "live";
    const bool has_metric = i % 6 != 5;
    std::int64_t id = 0;
    if (has_metric) {
      id = add(scenario, rig, i % 9 == 4 ? std::nullopt : std::optional<double>(i), status, origin);
    } else {  // a run that stored other metrics only
      RunRecord r;
      r.scenario_name = scenario;
      r.scenario_path = scenario + ".toml";
      r.scenario_hash = "h";
      r.rig = rig;
      r.origin = origin;
      r.status = status;
      r.started_at = "2026-11-29T00:00:00Z";
      r.analysis.metrics.push_back({});
      r.analysis.metrics.back().level = Level::latency;
      r.analysis.metrics.back().name = "latency_p99";
      Result<std::int64_t> inserted = store_->insert_run(r);
      ASSERT_TRUE(inserted) << inserted.error().message;
      id = *inserted;
    }
    stored.push_back({id, scenario, rig, origin, status != RunStatus::aborted, has_metric});
  }
  for (const std::string& scenario : {std::string(), scenarios[1]})
    for (const std::string& rig : {std::string(), rigs[0]})
      for (std::int64_t before : {std::int64_t{0}, stored[29].id})
        for (bool live_only : {false, true})
          for (int limit : {0, 4}) {
            HistoryQuery q;
            q.metric = "latency_p50";
            q.scenario = scenario;
            q.rig = rig;
            q.before_run = before;
            q.live_only = live_only;
            q.limit = limit;
            std::vector<std::int64_t> expected;
            for (const Stored& r : stored) {
              if (r.has_metric && r.completed && (scenario.empty() || r.scenario == scenario) &&
                  (rig.empty() || r.rig == rig) && (before == 0 || r.id < before) && (!live_only || r.origin == "live"))
                expected.push_back(r.id);
            }
            if (limit > 0 && expected.size() > static_cast<std::size_t>(limit))
              expected.erase(expected.begin(), expected.end() - limit);
            Result<std::vector<HistoryPoint>> h = store_->metric_history(q);
            ASSERT_TRUE(h) << h.error().message;
            std::vector<std::int64_t> ids;
            for (const HistoryPoint& p : *h) {
              ids.push_back(p.run_id);
              const Stored& r = *std::find_if(stored.begin(), stored.end(), [&](const Stored& s) { return s.id == p.run_id; });
              EXPECT_EQ(p.scenario_name, r.scenario);
              EXPECT_EQ(p.rig, r.rig);
              EXPECT_EQ(p.origin, r.origin);
              EXPECT_EQ(p.started_at, "2026-11-29T00:00:00Z");
              EXPECT_EQ(p.unit, "s");
              EXPECT_EQ(p.provenance, "measured");
              EXPECT_EQ(p.value.has_value(), p.unavailable.empty());
            }
            EXPECT_EQ(ids, expected) << "scenario '" << scenario << "' rig '" << rig << "' before " << before
                                     << " live_only " << live_only << " limit " << limit;
          }
}

// Values come back as the same doubles on both engines (PostgreSQL sends
// float8 as text: read by from_chars, by strtod for its infinities). Only
// the sign of a zero is the engine's: SQLite stores an integral REAL as an
// integer, so -0.0 reads back as 0.
TEST_P(StoreBaselineTest, HistoryValuesComeBackBitForBit) {
  const std::vector<double> values = {0.1, 1.0 / 3, -2.5e-7, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                                      123456789.123456789, std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity()};
  for (double v : values) add("host", "lab-a", v);
  HistoryQuery q;
  q.metric = "latency_p50";
  Result<std::vector<HistoryPoint>> h = store_->metric_history(q);
  ASSERT_TRUE(h) << h.error().message;
  ASSERT_EQ(h->size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_TRUE((*h)[i].value) << i;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(*(*h)[i].value), std::bit_cast<std::uint64_t>(values[i])) << values[i];
  }
  add("host", "lab-b", -0.0);
  q.rig = "lab-b";
  h = store_->metric_history(q);
  ASSERT_TRUE(h && h->size() == 1u && (*h)[0].value);
  EXPECT_EQ(*(*h)[0].value, 0.0);
}

TEST_P(StoreBaselineTest, AllMetricHistoryIsMetricHistoryOfEveryNameInOnePass) {
  const auto [r1, r3, r5] = lab_history();
  Result<std::map<std::string, std::vector<HistoryPoint>>> all = store_->all_metric_history("", "lab-a");
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 1u);
  const std::vector<HistoryPoint>& h = all->at("latency_p50");
  HistoryQuery q;
  q.metric = "latency_p50";
  q.rig = "lab-a";
  Result<std::vector<HistoryPoint>> one = store_->metric_history(q);
  ASSERT_TRUE(one);
  ASSERT_EQ(h.size(), one->size());
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < h.size(); ++i) {
    ids.push_back(h[i].run_id);
    EXPECT_EQ(h[i].value, (*one)[i].value);
    EXPECT_EQ(h[i].origin, (*one)[i].origin);
    EXPECT_EQ(h[i].unavailable, (*one)[i].unavailable);
  }
  EXPECT_EQ(ids, (std::vector<std::int64_t>{r1, r3, r5}));
  Result<std::map<std::string, std::vector<HistoryPoint>>> other = store_->all_metric_history("other", "");
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->empty());
}

TEST_P(StoreBaselineTest, AllMetricHistoryAfterARunReadsOnlyTheNewerRuns) {
  std::int64_t r1 = add("host", "lab-a", 1.0);
  add("host", "lab-b", 5.0);
  std::int64_t r3 = add("host", "lab-a", 1.1);
  add("host", "lab-a", 9.0, RunStatus::aborted);
  std::int64_t r5 = add("host", "lab-a", 1.2);
  Result<std::map<std::string, std::vector<HistoryPoint>>> after = store_->all_metric_history_after(r1, "", "lab-a");
  ASSERT_TRUE(after) << after.error().message;
  ASSERT_EQ(after->size(), 1u);
  std::vector<std::int64_t> ids;
  for (const HistoryPoint& p : after->at("latency_p50")) ids.push_back(p.run_id);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{r3, r5}));
  after = store_->all_metric_history_after(r5, "", "");
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->empty());
}

// The values of all_metric_history_after, row by row, without the run's columns.
TEST_P(StoreBaselineTest, VisitMetricValuesAfterHandsOverTheRowsOfAllMetricHistoryAfter) {
  std::int64_t r1 = add("host", "lab-a", 1.0);
  add("host", "lab-b", 5.0);
  add("host", "lab-a", std::nullopt);
  add("host", "lab-a", 9.0, RunStatus::aborted);
  add("host", "lab-a", 1.2, RunStatus::passed, "replay");
  struct Collect final : Store::MetricValueVisitor {
    std::vector<Store::MetricValueRow> rows;
    void value(const Store::MetricValueRow& row) override { rows.push_back(row); }
  } seen;
  ASSERT_TRUE(store_->visit_metric_values_after(r1, "", "lab-a", seen));
  Result<std::map<std::string, std::vector<HistoryPoint>>> want = store_->all_metric_history_after(r1, "", "lab-a");
  ASSERT_TRUE(want) << want.error().message;
  const std::vector<HistoryPoint>& h = want->at("latency_p50");
  ASSERT_EQ(want->size(), 1u);
  ASSERT_EQ(seen.rows.size(), h.size());
  ASSERT_EQ(h.size(), 2u);
  for (std::size_t i = 0; i < h.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(seen.rows[i].run_id, h[i].run_id);
    EXPECT_EQ(seen.rows[i].name, "latency_p50");
    EXPECT_EQ(seen.rows[i].value, h[i].value);
    EXPECT_EQ(seen.rows[i].unit, h[i].unit);
    EXPECT_EQ(seen.rows[i].provenance, h[i].provenance);
    EXPECT_EQ(seen.rows[i].unavailable, h[i].unavailable);
  }
  EXPECT_FALSE(seen.rows[0].value);
  seen.rows.clear();
  ASSERT_TRUE(store_->visit_metric_values_after(0, "other", "", seen));
  EXPECT_TRUE(seen.rows.empty());
}

TEST_P(StoreBaselineTest, RecentValuesAreTheNoiseBandInput) {
  add("host", "lab-a", 1.0);
  add("host", "lab-a", 1.1);
  add("host", "lab-a", 1.2, RunStatus::passed, "replay");  // repeats a recording: left out
  add("host", "lab-b", 7.0);
  add("host", "lab-a", 1.3);
  std::int64_t now = add("host", "lab-a", 1.4);
  Result<std::map<std::string, std::vector<double>>> v = store_->recent_values("host", "lab-a", now, 2);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->at("latency_p50"), (std::vector<double>{1.1, 1.3}));
  // An empty rig is every rig (compare --all-rigs).
  v = store_->recent_values("host", "", now, 2);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->at("latency_p50"), (std::vector<double>{7.0, 1.3}));
}

// Issue 15 part 5: imported and replayed runs take part when they carry
// measured evidence, and a replay of a night already stored counts once, as
// in history's change points.
TEST_P(StoreBaselineTest, RecentValuesTakeReplayedNightsWithMeasuredEvidenceOnce) {
  add("host", "lab-a", 1.0, RunStatus::passed, "live", "2026-11-01T00:00:00Z");
  // A night recorded on the rig and replayed into this store: evidence.
  add("host", "lab-a", 1.1, RunStatus::passed, "replay", "2026-11-02T00:00:00Z", Provenance::replayed);
  // That night replayed again, and a replay of the live night: repeats.
  add("host", "lab-a", 1.15, RunStatus::passed, "replay", "2026-11-02T00:00:00Z", Provenance::replayed);
  add("host", "lab-a", 1.05, RunStatus::passed, "replay", "2026-11-01T00:00:00Z", Provenance::replayed);
  // A declared figure is no run's noise; an aborted replay is no evidence.
  add("host", "lab-a", 9.0, RunStatus::passed, "live", "2026-11-03T00:00:00Z", Provenance::declared);
  add("host", "lab-a", 1.2, RunStatus::aborted, "replay", "2026-11-04T00:00:00Z", Provenance::replayed);
  // Another rig's replay repeats nothing on this rig.
  add("host", "lab-b", 7.0, RunStatus::passed, "replay", "2026-11-02T00:00:00Z", Provenance::replayed);
  add("host", "lab-a", 1.3, RunStatus::passed, "live", "2026-11-05T00:00:00Z");
  std::int64_t now = add("host", "lab-a", 1.4, RunStatus::passed, "live", "2026-11-06T00:00:00Z");
  Result<std::map<std::string, std::vector<double>>> v = store_->recent_values("host", "lab-a", now, 10);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(v->at("latency_p50"), (std::vector<double>{1.0, 1.1, 1.3}));
  // The window counts the runs that take part, so repeats take no place in
  // it: the newest 3 are the live night with a declared figure, the live
  // 1.3 and the replayed night 1.1.
  v = store_->recent_values("host", "lab-a", now, 3);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->at("latency_p50"), (std::vector<double>{1.1, 1.3}));
  v = store_->recent_values("host", "", now, 10);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->at("latency_p50"), (std::vector<double>{1.0, 1.1, 7.0, 1.3}));
}

TEST_P(StoreBaselineTest, HistoryMetricsCountsRuns) {
  add("host", "lab-a", 1.0);
  add("host", "lab-a", std::nullopt);
  Result<std::vector<HistoryMetric>> m = store_->history_metrics("host", "");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->size(), 1u);
  EXPECT_EQ((*m)[0].name, "latency_p50");
  EXPECT_EQ((*m)[0].runs, 2);
  EXPECT_EQ((*m)[0].with_value, 1);
}

}  // namespace
}  // namespace harness

#include "harness/store/schema.h"
#include "harness/store/sql/connection.h"

namespace harness {
namespace {

INSTANTIATE_TEST_SUITE_P(Engines, StoreBaselineTest, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

// A store left at `version` by an older harness, written with the
// migrations of that time, on either engine.
class StoreMigrationTest : public testing_support::StoreEngineTest {
 protected:
  StoreMigrationTest() : StoreEngineTest("harness-migrate") {}
  void old_store(int version, const std::vector<std::string>& then) {
    std::unique_ptr<sql::Connection> c = target_->connect();
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->begin_migration());
    for (int v = 0; v < version; ++v) {
      const Migration& m = kMigrations[static_cast<std::size_t>(v)];
      Status done = c->exec(GetParam() == StoreEngine::sqlite ? m.sqlite : m.postgres);
      ASSERT_TRUE(done) << done.error().message;
    }
    ASSERT_TRUE(c->set_schema_version(version));
    for (const std::string& statement : then) {
      Status done = c->exec(statement);
      ASSERT_TRUE(done) << done.error().message;
    }
    ASSERT_TRUE(c->commit());
  }
  // Run `id` as an older harness (schema 5 or later) wrote it: uuid u<id>,
  // started at t<id>.
  static std::string old_run(int id, const std::string& scenario, const std::string& rig,
                             const std::string& origin = "live", const std::string& status = "passed") {
    return fmt::format("INSERT INTO runs (uuid, scenario_name, scenario_path, scenario_hash, scenario_text, rig, "
                       "origin, status, started_at) VALUES ('u{}', '{}', 'h.toml', 'x', '', '{}', '{}', '{}', 't{}')",
                       id, scenario, rig, origin, status, id);
  }
  // The old store as the harness opens it: migrated to the current schema.
  Result<Store> migrated() const {
    Result<Store> s = Store::open(target_->target());
    if (s) {
      EXPECT_EQ(s->schema_version(), Store::kSchemaVersion);
    }
    return s;
  }
};

TEST_P(StoreMigrationTest, AVersion1StoreGainsBaselinesAndKeepsItsRuns) {
  old_store(1, {"INSERT INTO runs (scenario_name, scenario_path, scenario_hash, scenario_text, rig, origin, status, "
                "started_at) VALUES ('host', 'h.toml', 'x', '', 'lab', 'live', 'passed', 't')"});
  Result<Store> s = migrated();
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(s->set_baseline("nightly", 1, "t").ok());
  // A run stored before owners were recorded keeps its status.
  EXPECT_EQ(s->load_run(1)->status, RunStatus::passed);
  EXPECT_EQ(s->list_baselines()->size(), 1u);
}

TEST_P(StoreMigrationTest, AVersion2BaselineBecomesASetOfOneRun) {
  old_store(2, {"INSERT INTO runs (scenario_name, scenario_path, scenario_hash, scenario_text, rig, origin, status, "
                "started_at) VALUES ('host', 'h.toml', 'x', '', 'lab', 'live', 'passed', 't')",
                "INSERT INTO baselines VALUES ('host', 'lab', 'nightly', 1, 't0')"});
  Result<Store> s = migrated();
  ASSERT_TRUE(s) << s.error().message;
  Result<std::vector<Baseline>> b = s->list_baselines("nightly");
  ASSERT_TRUE(b) << b.error().message;
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].run_id, 1);
  EXPECT_EQ((*b)[0].runs, std::vector<std::int64_t>{1});
}

TEST_P(StoreMigrationTest, Version5GivesEveryEarlierRunItsOwnUuid) {
  const std::string insert = "INSERT INTO runs (scenario_name, scenario_path, scenario_hash, scenario_text, rig, "
                             "origin, status, started_at) VALUES ('host', 'h.toml', 'x', '', 'lab', 'live', "
                             "'passed', 't')";
  old_store(4, {insert, insert, insert});
  Result<Store> s = migrated();
  ASSERT_TRUE(s) << s.error().message;
  Result<std::vector<std::pair<std::int64_t, std::string>>> ids = s->run_uuids();
  ASSERT_TRUE(ids) << ids.error().message;
  ASSERT_EQ(ids->size(), 3u);
  std::set<std::string> distinct;
  for (const auto& [id, uuid] : *ids) {
    EXPECT_TRUE(std::regex_match(uuid, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
        << uuid;
    distinct.insert(uuid);
    EXPECT_EQ(*s->find_run(uuid), id);
  }
  EXPECT_EQ(distinct.size(), 3u);
  // A new run gets its own.
  RunRecord r;
  r.scenario_name = "host";
  r.rig = "lab";
  r.status = RunStatus::passed;
  Result<std::int64_t> id = s->insert_run(r);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(s->load_run(*id)->uuid.size(), 36u);
  EXPECT_EQ(distinct.count(s->load_run(*id)->uuid), 0u);
}

// Schema 6 only adds indexes: a version 5 store keeps its runs, and its
// history reads the same points through them.
TEST_P(StoreMigrationTest, Version6IndexesHistoryAndKeepsItsPoints) {
  old_store(5, {"INSERT INTO runs (uuid, scenario_name, scenario_path, scenario_hash, scenario_text, rig, origin, "
                "status, started_at) VALUES ('u1', 'host', 'h.toml', 'x', '', 'lab', 'live', 'passed', 't1')",
                "INSERT INTO runs (uuid, scenario_name, scenario_path, scenario_hash, scenario_text, rig, origin, "
                "status, started_at) VALUES ('u2', 'host', 'h.toml', 'x', '', 'lab', 'replay', 'passed', 't1')",
                "INSERT INTO metrics (run_id, level, name, value, unit, provenance, source, better) "
                "VALUES (1, 'latency', 'latency_p50', 0.5, 's', 'measured', 'x', 'lower')",
                "INSERT INTO metrics (run_id, level, name, value, unit, provenance, source, better) "
                "VALUES (2, 'latency', 'latency_p50', 0.7, 's', 'replayed', 'x', 'lower')"});
  Result<Store> s = migrated();
  ASSERT_TRUE(s) << s.error().message;
  HistoryQuery q;
  q.metric = "latency_p50";
  q.scenario = "host";
  q.rig = "lab";
  Result<std::vector<HistoryPoint>> h = s->metric_history(q);
  ASSERT_TRUE(h) << h.error().message;
  ASSERT_EQ(h->size(), 2u);
  EXPECT_EQ((*h)[0].value, 0.5);
  EXPECT_EQ((*h)[1].origin, "replay");
  EXPECT_EQ((*h)[1].provenance, "replayed");
  // The replay repeats night t1: the noise band has it once.
  Result<std::map<std::string, std::vector<double>>> v = s->recent_values("host", "lab", 3, 10);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(v->at("latency_p50"), std::vector<double>{0.5});
}

// Schema 7 copies each run's scenario and rig into its metric rows: the
// history of one rig, read through metrics_by_rig, keeps a version 6
// store's points, and new runs' rows carry theirs.
TEST_P(StoreMigrationTest, Version7GivesEachMetricRowItsRunsScenarioAndRig) {
  std::vector<std::string> then;
  for (int i = 1; i <= 6; ++i) {
    then.push_back(old_run(i, i % 3 == 0 ? "npu" : "host", i % 2 ? "lab-a" : "lab-b"));
    then.push_back(fmt::format("INSERT INTO metrics (run_id, level, name, value, unit, provenance, source, better) "
                               "VALUES ({}, 'latency', 'latency_p50', {}, 's', 'measured', 'x', 'lower')",
                               i, 0.1 * i));
  }
  old_store(6, then);
  Result<Store> s = migrated();
  ASSERT_TRUE(s) << s.error().message;
  RunRecord r;
  r.scenario_name = "host";
  r.rig = "lab-a";
  r.status = RunStatus::passed;
  r.analysis.metrics.push_back({});
  r.analysis.metrics.back().name = "latency_p50";
  r.analysis.metrics.back().value = 0.7;
  r.analysis.metrics.back().provenance = Provenance::measured;
  Result<std::int64_t> id = s->insert_run(r);
  ASSERT_TRUE(id) << id.error().message;
  HistoryQuery q;
  q.metric = "latency_p50";
  q.rig = "lab-a";
  auto ids = [&]() {
    Result<std::vector<HistoryPoint>> h = s->metric_history(q);
    std::vector<std::int64_t> out;
    if (h) for (const HistoryPoint& p : *h) out.push_back(p.run_id);
    return out;
  };
  EXPECT_EQ(ids(), (std::vector<std::int64_t>{1, 3, 5, *id}));
  q.scenario = "npu";
  EXPECT_EQ(ids(), (std::vector<std::int64_t>{3}));
  q.rig = "lab-b";
  EXPECT_EQ(ids(), (std::vector<std::int64_t>{6}));
  q.scenario = "";
  EXPECT_EQ(ids(), (std::vector<std::int64_t>{2, 4, 6}));
}

// Schema 10 copies each run's status, origin and start into its metric
// rows: one rig's history (on PostgreSQL metrics_by_rig alone) keeps a
// version 9 store's points and leaves out its aborted and running runs, a run
// marked aborted afterwards leaves it too, and new runs' rows carry theirs.
TEST_P(StoreMigrationTest, Version10GivesEachMetricRowItsRunsStatusOriginAndStart) {
  std::vector<std::string> then;
  const std::vector<std::string> statuses = {"passed", "failed", "aborted", "running", "passed"};
  for (int i = 1; i <= 5; ++i) then.push_back(old_run(i, "host", "lab-a", i == 5 ? "replay" : "live", statuses[i - 1]));
  then.push_back("INSERT INTO metrics (run_id, scenario_name, rig, level, name, value, unit, provenance, source, better) "
                 "SELECT id, scenario_name, rig, 'latency', 'latency_p50', 0.1 * id, 's', 'measured', 'x', 'lower' "
                 "FROM runs");
  old_store(9, then);
  Result<Store> s = migrated();
  ASSERT_TRUE(s) << s.error().message;
  HistoryQuery q{.metric = "latency_p50", .scenario = "host", .rig = "lab-a"};
  auto points = [&]() {
    Result<std::vector<HistoryPoint>> h = s->metric_history(q);
    std::vector<std::string> out;
    if (!h) ADD_FAILURE() << h.error().message;
    if (h) {
      for (const HistoryPoint& p : *h)
        out.push_back(fmt::format("{} {} {} {}", p.run_id, p.scenario_name, p.origin, p.started_at));
    }
    return out;
  };
  EXPECT_EQ(points(), (std::vector<std::string>{"1 host live t1", "2 host live t2", "5 host replay t5"}));
  q.live_only = true;
  EXPECT_EQ(points(), (std::vector<std::string>{"1 host live t1", "2 host live t2"}));
  q.live_only = false;
  ASSERT_TRUE(s->mark_aborted(2, "stopped by SIGTERM"));
  EXPECT_EQ(points(), (std::vector<std::string>{"1 host live t1", "5 host replay t5"}));
  RunRecord r;
  r.scenario_name = "npu";
  r.rig = "lab-a";
  r.origin = "replay";
  r.status = RunStatus::failed;
  r.started_at = "t6";
  Metric& p50 = r.analysis.metrics.emplace_back();
  p50.name = "latency_p50", p50.value = 0.7;
  Result<std::int64_t> id = s->insert_run(r);
  ASSERT_TRUE(id) << id.error().message;
  q.scenario = "";  // the rig's every scenario: the rows' own names
  EXPECT_EQ(points(), (std::vector<std::string>{"1 host live t1", "5 host replay t5", fmt::format("{} npu replay t6", *id)}));
  q.rig = "";  // across rigs: through the runs
  EXPECT_EQ(points(), (std::vector<std::string>{"1 host live t1", "5 host replay t5", fmt::format("{} npu replay t6", *id)}));
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreMigrationTest, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

}  // namespace
}  // namespace harness
