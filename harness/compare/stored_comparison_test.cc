// The noise band of a stored comparison ends at the baseline, so a persistent
// regression stays flagged night after night until a new baseline is set.
#include "harness/compare/stored_comparison.h"

#include <filesystem>
#include <optional>

#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/store_engine_test.h"
#include "tests/support/store_engines.h"

namespace harness {
namespace {

// On each store engine (tests/support/store_engines.h).
class StoredComparisonTest : public testing_support::OpenStoreTest {
 protected:
  StoredComparisonTest() : OpenStoreTest("harness-stored-comparison") {}

  // One night: a single throughput value (no samples, so only the threshold
  // and the history's noise band can judge it).
  std::int64_t night(double throughput) {
    const std::string scenario = "nightly";
    RunRecord r;
    r.scenario_name = scenario;
    r.scenario_path = scenario + ".toml";
    r.scenario_text = "name = \"" + scenario + "\"\n";
    r.scenario_hash = std::string(1, 'h');
    r.rig = std::string("board-7");
    r.origin = std::string("live");
    r.status = RunStatus::passed;
    r.started_at = std::string("2026-11-29T00:00:00Z");
    r.analysis.metrics.push_back(Metric::known(Level::latency, "throughput", throughput, "1/s",
                                               Provenance::measured, "workload", Better::higher));
    Result<std::int64_t> id = store_->insert_run(r);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }

  Change verdict(std::int64_t run) {
    Result<StoredComparison> c = compare_stored_runs(*store_, {run, "good", 0, false});
    EXPECT_TRUE(c) << c.error().message;
    if (!c) return Change::cannot_tell;
    EXPECT_EQ(c->report.comparison.metrics.size(), 1u);
    return c->report.comparison.metrics.empty() ? Change::cannot_tell : c->report.comparison.metrics[0].verdict;
  }
};

TEST_P(StoredComparisonTest, APersistentRegressionStaysRegressedUntilANewBaseline) {
  const double level_a[] = {100.0, 101.0, 99.0, 100.5, 99.5};
  std::int64_t last_good = 0;
  for (double v : level_a) last_good = night(v);
  ASSERT_TRUE(store_->set_baseline("good", last_good, "t5").ok());

  // Three nights 20 % slower: each one regressed, the earlier regressed
  // nights never widening the band that judges the next.
  const double slower[] = {80.0, 80.4, 79.6};
  std::int64_t nights[3];
  for (int i = 0; i < 3; ++i) {
    nights[i] = night(slower[i]);
    EXPECT_EQ(verdict(nights[i]), Change::regressed) << "night " << 6 + i;
  }

  // The new level accepted as the baseline: the later nights are unchanged.
  ASSERT_TRUE(store_->set_baseline("good", nights[0], "t6").ok());
  EXPECT_EQ(verdict(nights[1]), Change::unchanged);
  EXPECT_EQ(verdict(nights[2]), Change::unchanged);
}

TEST_P(StoredComparisonTest, TheBandUsesTheRunsUpToTheBaselineOnly) {
  for (double v : {100.0, 101.0, 99.0, 100.5, 99.5}) night(v);
  std::int64_t base = night(100.2);
  ASSERT_TRUE(store_->set_baseline("good", base, "t").ok());
  for (double v : {60.0, 140.0, 61.0}) night(v);  // wild nights after the baseline
  std::int64_t run = night(100.1);
  Result<StoredComparison> c = compare_stored_runs(*store_, {run, "good", 0, false});
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->report.comparison.metrics.size(), 1u);
  EXPECT_EQ(c->report.comparison.metrics[0].history_runs, 6u);  // nights 1-6, the baseline included
}

TEST_P(StoredComparisonTest, AnAcknowledgedRegressionStopsFailingUntilANewBaseline) {
  std::int64_t last_good = 0;
  for (double v : {100.0, 101.0, 99.0, 100.5, 99.5}) last_good = night(v);
  ASSERT_TRUE(store_->set_baseline("good", last_good, "t5").ok());
  std::int64_t n6 = night(80.0), n7 = night(80.3);
  ASSERT_TRUE(store_->acknowledge({"good", "nightly", "board-7", "throughput", last_good, "mira", "t6",
                                   "new firmware trades throughput for power; tracked in LAB-17"})
                  .ok());
  Result<StoredComparison> c = compare_stored_runs(*store_, {n7, "good", 0, false});
  ASSERT_TRUE(c) << c.error().message;
  const MetricComparison& m = c->report.comparison.metrics.at(0);
  EXPECT_EQ(m.verdict, Change::regressed);  // still shown as what it is
  EXPECT_EQ(m.acknowledged, "acknowledged by mira at t6: new firmware trades throughput for power; tracked in LAB-17");
  EXPECT_FALSE(c->report.comparison.regressed());

  // A new baseline ends the acknowledgement: a later regression against it fails again.
  ASSERT_TRUE(store_->set_baseline("good", n6, "t7").ok());
  std::int64_t n8 = night(60.0);
  c = compare_stored_runs(*store_, {n8, "good", 0, false});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->report.comparison.metrics.at(0).verdict, Change::regressed);
  EXPECT_EQ(c->report.comparison.metrics.at(0).acknowledged, "");
  EXPECT_TRUE(c->report.comparison.regressed());
}

INSTANTIATE_TEST_SUITE_P(Engines, StoredComparisonTest, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

}  // namespace
}  // namespace harness
