#include "reports/report_model.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "reports/testdata/case_study_runs.h"

namespace harness {
namespace {

using testdata::figure;

TEST(ValueDifferences, ChangeIsRelativeToTheBaselineMagnitude) {
  RunRecord base, run;
  base.analysis.metrics = {figure(Level::latency, "latency_p95", 2.0, "s", Provenance::measured, "x"),
                           figure(Level::roofline, "k.ridge_distance", -2.0, "decades", Provenance::model, "x"),
                           figure(Level::counters, "counter.zero", 0.0, "", Provenance::measured, "x")};
  run.analysis.metrics = {figure(Level::latency, "latency_p95", 1.5, "s", Provenance::measured, "x"),
                          figure(Level::roofline, "k.ridge_distance", -1.0, "decades", Provenance::model, "x"),
                          figure(Level::counters, "counter.zero", 5.0, "", Provenance::measured, "x"),
                          figure(Level::counters, "counter.new", 5.0, "", Provenance::measured, "x")};
  ReportComparison c = value_differences(base, run, "run 1");
  EXPECT_EQ(c.baseline_label, "run 1");
  EXPECT_EQ(c.method, "value difference only: no statistical verdict in this report");
  ASSERT_EQ(c.changes.size(), 3u);  // counter.new is not in the baseline
  EXPECT_DOUBLE_EQ(*c.changes[0].change_pct, -25);
  EXPECT_DOUBLE_EQ(*c.changes[1].change_pct, 50);  // -2 -> -1 is up by half of |-2|
  EXPECT_FALSE(c.changes[2].change_pct.has_value());  // no percentage of zero
  for (const MetricChange& m : c.changes) EXPECT_TRUE(m.verdict.empty());
  EXPECT_FALSE(c.regressed());
}

TEST(ValueDifferences, UnavailableSideSaysWhyAndCategoriesAreSkipped) {
  RunRecord base = testdata::case_study_run(1), run = testdata::case_study_run(6);
  ReportComparison c = value_differences(base, run, "run 1");
  for (const MetricChange& m : c.changes) {
    EXPECT_NE(m.name, "encoder.bound");  // "memory" has no difference
    if (m.name == "decoder.achieved") {
      EXPECT_FALSE(m.change_pct.has_value());
      EXPECT_EQ(m.detail, "this run: unavailable: no timing source for a declared kernel");
    }
  }
}

TEST(FigureText, ReadableAndNeverNaN) {
  EXPECT_EQ(figure_text(std::nullopt, "s"), "unavailable");
  EXPECT_EQ(figure_text(std::numeric_limits<double>::quiet_NaN(), "s"), "not a number");
  EXPECT_EQ(figure_text(0.0123, "s"), "12.3 ms");
  EXPECT_EQ(figure_text(8.7e9, ""), "8.7 G");
  EXPECT_EQ(figure_text(1234, ""), "1234");
  EXPECT_EQ(figure_text(0.29, "1"), "0.29");
  EXPECT_EQ(figure_text(52e9, "B/s"), "52 GB/s");
}

TEST(ApplyBaselineVerdicts, JudgedVerdictsReplaceTheirPlaceholdersAndHintsJoin) {
  Analysis run;
  run.verdicts.push_back(
      {Level::latency, "latency.expect.latency_p95_max", "<= 1 s", "0.5 s", VerdictStatus::pass, ""});
  run.verdicts.push_back({Level::counters, "counters.expect.baseline.MEM_STALL_drop_min",
                          ">= 50 % drop against the baseline", "unavailable: needs a baseline",
                          VerdictStatus::unavailable, "compare this run"});
  run.hints.push_back("ddr: A12 unknown");
  std::vector<Verdict> judged = {
      {Level::counters, "counters.expect.baseline.MEM_STALL_drop_min", ">= 50 % drop against the baseline",
       "MEM_STALL dropped 61 % (100 -> 39)", VerdictStatus::pass, ""},
      {Level::ddr, "ddr.expect.bandwidth_vs_baseline", "> 5 GB/s", "4 GB/s", VerdictStatus::fail, "lower"}};
  apply_baseline_verdicts(run, judged, {"efficiency: L2 misses co-moved with MEM_STALL", "ddr: A12 unknown"});
  ASSERT_EQ(run.verdicts.size(), 3u);
  EXPECT_EQ(run.verdicts[0].check, "latency.expect.latency_p95_max");
  EXPECT_EQ(run.verdicts[1].measured, "MEM_STALL dropped 61 % (100 -> 39)");
  EXPECT_EQ(run.verdicts[1].status, VerdictStatus::pass);
  EXPECT_EQ(run.verdicts[2].check, "ddr.expect.bandwidth_vs_baseline");
  EXPECT_EQ(run.hints, (std::vector<std::string>{"ddr: A12 unknown", "efficiency: L2 misses co-moved with MEM_STALL"}));
}

}  // namespace
}  // namespace harness
