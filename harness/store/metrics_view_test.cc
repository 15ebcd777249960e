// harness_metrics_v: the rows a Grafana data source charts (time, value,
// metric with its run's labels), on both engines; on PostgreSQL with the
// query a Grafana time series panel sends.
#include <unistd.h>

#include <filesystem>
#include <optional>

#include <gtest/gtest.h>

#include "harness/store/store.h"
#include "tests/support/store_engine_test.h"
#include "tests/support/store_engines.h"

namespace harness {
namespace {

using testing_support::StoreEngine;

class MetricsView : public testing_support::StoreEngineTest {
 protected:
  MetricsView() : StoreEngineTest("harness-metrics-view") {}
  static RunRecord night(const std::string& rig, const std::string& started, RunStatus status, double p95) {
    RunRecord r;
    r.scenario_name = "host";
    r.scenario_path = "host.toml";
    r.scenario_text = "[scenario]\nname = \"host\"\n";
    r.scenario_hash = "abc";
    r.rig = rig;
    r.started_at = started;
    r.status = status;
    r.analysis.metrics = {Metric::known(Level::latency, "latency_p95", p95, "s", Provenance::measured, "builtin:gemm"),
                          Metric::missing(Level::latency, "power_mean", "W", "no power source")};
    return r;
  }
};

TEST_P(MetricsView, OneRowPerNumberOfAFinishedRunWithItsTime) {
  {
    Result<Store> s = Store::open(target_->target());
    ASSERT_TRUE(s) << s.error().message;
    ASSERT_TRUE(s->insert_run(night("lab-3", "2026-05-01T02:00:00.000Z", RunStatus::passed, 0.0012)));
    ASSERT_TRUE(s->insert_run(night("lab-3", "2026-05-02T02:00:00.000Z", RunStatus::failed, 0.0015)));
    ASSERT_TRUE(s->insert_run(night("lab-4", "2026-05-02T02:30:00.000Z", RunStatus::aborted, 0.0099)));
  }
  std::unique_ptr<sql::Connection> c = target_->connect();
  ASSERT_TRUE(c);
  const bool postgres = GetParam() == StoreEngine::postgres;
  // What a Grafana time series panel asks of a PostgreSQL data source
  // ($__timeFilter expanded as Grafana does); SQLite gets the same rows.
  const std::string sql =
      postgres ? "SELECT extract(epoch FROM time) AS time, value, rig || ' ' || metric AS metric FROM harness_metrics_v "
                 "WHERE metric = 'latency_p95' AND time BETWEEN '2026-04-30T00:00:00Z' AND '2026-05-03T00:00:00Z' "
                 "ORDER BY 1"
               : "SELECT time, value, rig || ' ' || metric AS metric FROM harness_metrics_v "
                 "WHERE metric = 'latency_p95' ORDER BY 1";
  Result<std::unique_ptr<sql::Rows>> rows = c->query(sql);
  ASSERT_TRUE(rows) << rows.error().message;
  std::vector<std::tuple<std::string, double, std::string>> got;
  while ((*rows)->next())
    got.emplace_back(postgres ? std::to_string(static_cast<long long>((*rows)->real(0))) : (*rows)->text(0),
                     (*rows)->real(1), (*rows)->text(2));
  ASSERT_TRUE((*rows)->status());
  const std::string first = postgres ? "1777600800" : "2026-05-01T02:00:00.000Z";
  const std::string second = postgres ? "1777687200" : "2026-05-02T02:00:00.000Z";
  ASSERT_EQ(got.size(), 2u);  // the aborted run and the unavailable power have no row
  EXPECT_EQ(got[0], std::make_tuple(first, 0.0012, std::string("lab-3 latency_p95")));
  EXPECT_EQ(got[1], std::make_tuple(second, 0.0015, std::string("lab-3 latency_p95")));
  Result<std::unique_ptr<sql::Rows>> labels =
      c->query("SELECT run_id, scenario, origin, status, level, unit, provenance FROM harness_metrics_v ORDER BY run_id");
  ASSERT_TRUE(labels && (*labels)->next());
  EXPECT_EQ((*labels)->int64(0), 1);
  EXPECT_EQ((*labels)->text(1), "host");
  EXPECT_EQ((*labels)->text(3), "passed");
  EXPECT_EQ((*labels)->text(4), "latency");
  EXPECT_EQ((*labels)->text(5), "s");
  EXPECT_EQ((*labels)->text(6), "measured");
}

INSTANTIATE_TEST_SUITE_P(Engines, MetricsView, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

}  // namespace
}  // namespace harness
