// Every output of `harness compare` shows each of the four outcomes as its
// own: the text, JSON, JUnit (cannot tell skipped with its reason), LAVA
// (cannot tell is "unknown"), Markdown (each with its mark, regressions
// first, then what could not be told).
#include "reports/compare_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

using ::testing::HasSubstr;

MetricComparison row(const std::string& name, Change verdict, double effect, const std::string& reason) {
  MetricComparison m;
  m.name = name;
  m.level = Level::latency;
  m.unit = "s";
  m.better = Better::lower;
  m.kind = "single";
  m.baseline = 1e-3;
  m.current = 1e-3 * (1 + effect);
  m.change = *m.current - *m.baseline;
  m.relative_change = effect;
  m.effect = effect;
  m.verdict = verdict;
  m.reason = reason;
  return m;
}

CompareReport four_outcomes() {
  CompareReport r;
  r.current_run = 7;
  r.baseline_run = 6;
  r.baseline_runs = {2, 3, 4, 5, 6};
  r.baseline_name = "nightly";
  r.scenario = "npu";
  r.rig = "lab-a";
  Comparison& c = r.comparison;
  c.against = "baseline nights";
  c.tests = 4;
  c.metrics = {row("latency_p50", Change::regressed, 0.23, "+23.0 % [+15.1 %, +31.4 %] at 95 %, beyond the ±10 % threshold"),
               row("latency_p90", Change::improved, -0.2, "-20.0 % [-26.0 %, -13.5 %] at 95 %, beyond the ±10 % threshold"),
               row("latency_mean", Change::unchanged, 0.01, "+1.0 % [-2.0 %, +4.1 %] at 90 %, inside the ±10 % threshold; "
                                                           "would detect ≥ 6.2 %"),
               row("latency_max", Change::cannot_tell, 0.3, "spread too wide for the ±10 % threshold: would detect ≥ 45.0 % only")};
  Comparison paired;
  paired.against = "reference";
  paired.metrics = {row("latency_p50", Change::cannot_tell, 0.04, "+4.0 % [-1.0 %, +9.3 %] at 95 %: the interval reaches "
                                                                  "beyond the ±5 % threshold")};
  paired.metrics[0].kind = "paired";
  paired.metrics[0].rounds = 20;
  r.reference = paired;
  return r;
}

TEST(CompareReport, TheTextSaysEachOutcomeAndWhy) {
  const std::string text = render_compare_text(four_outcomes());
  for (const char* s : {"regressed", "improved", "unchanged", "cannot tell", "would detect ≥ 6.2 %",
                        "spread too wide for the ±10 % threshold", "run 7 against its same-run reference",
                        "result: REGRESSED (1 regressed, 1 improved, 1 unchanged, 1 cannot tell; against the "
                        "reference: 0 regressed, 0 improved, 0 unchanged, 1 cannot tell)"})
    EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
}

TEST(CompareReport, JsonCarriesTheIntervalAndWhatCouldBeDetected) {
  CompareReport r = four_outcomes();
  r.comparison.metrics[2].low = -0.02;
  r.comparison.metrics[2].high = 0.041;
  r.comparison.metrics[2].detectable = 0.062;
  const nlohmann::json j = compare_to_json(r);
  EXPECT_EQ(j["summary"]["cannot_tell"], 1);
  EXPECT_EQ(j["metrics"][2]["verdict"], "unchanged");
  EXPECT_DOUBLE_EQ(j["metrics"][2]["detectable"].get<double>(), 0.062);
  EXPECT_EQ(j["metrics"][3]["verdict"], "cannot tell");
  EXPECT_EQ(j["reference"]["summary"]["cannot_tell"], 1);
  EXPECT_EQ(j["reference"]["metrics"][0]["kind"], "paired");
  EXPECT_EQ(j["regressed"], true);
  EXPECT_EQ(j["undecided"], true);
}

TEST(CompareReport, JunitSkipsCannotTellWithItsReason) {
  const std::string x = render_compare_junit(four_outcomes());
  EXPECT_THAT(x, HasSubstr("tests=\"5\" failures=\"1\" skipped=\"2\""));
  EXPECT_THAT(
      x, HasSubstr("<testcase classname=\"compare.latency\" name=\"latency_max\">\n      <skipped message=\"cannot "
                   "tell: baseline 1 ms, new 1.3 ms (+30.0 %); spread too wide for the ±10 % threshold"));
  EXPECT_THAT(
      x, HasSubstr("<testcase classname=\"reference.latency\" name=\"latency_p50\">\n      <skipped message=\"cannot "
                   "tell: reference 1 ms"));
  EXPECT_THAT(x, HasSubstr("name=\"latency_p90\">\n      <system-out>improved:"));
}

TEST(CompareReport, LavaSaysUnknownForCannotTell) {
  const std::string l = render_compare_lava(four_outcomes());
  EXPECT_THAT(l, HasSubstr("TEST_CASE_ID=compare.latency_p50 RESULT=fail"));
  EXPECT_THAT(l, HasSubstr("TEST_CASE_ID=compare.latency_p90 RESULT=pass"));
  EXPECT_THAT(l, HasSubstr("TEST_CASE_ID=compare.latency_mean RESULT=pass"));
  EXPECT_THAT(l, HasSubstr("TEST_CASE_ID=compare.latency_max RESULT=unknown"));
  EXPECT_THAT(l, HasSubstr("TEST_CASE_ID=reference.latency_p50 RESULT=unknown"));
}

TEST(CompareReport, MarkdownMarksEachOutcomeRegressionsThenCannotTellFirst) {
  const std::string md = render_compare_markdown(four_outcomes());
  const std::size_t regressed = md.find("| ❌ **regressed** |");
  const std::size_t cannot = md.find("| ❔ cannot tell |");
  const std::size_t improved = md.find("| ✅ improved |");
  const std::size_t unchanged = md.find("| ➖ unchanged |");
  ASSERT_NE(regressed, std::string::npos) << md;
  ASSERT_NE(cannot, std::string::npos) << md;
  ASSERT_NE(improved, std::string::npos) << md;
  ASSERT_NE(unchanged, std::string::npos) << md;
  EXPECT_LT(regressed, cannot);
  EXPECT_LT(cannot, improved);
  EXPECT_THAT(md, HasSubstr("#### Against its same-run reference"));
  EXPECT_EQ(outcome_mark(Change::changed), "🔀");
}

}  // namespace
}  // namespace harness
