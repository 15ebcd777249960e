#include "reports/markdown.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reports/testdata/case_study_runs.h"
#include "reports/testdata/golden.h"

namespace harness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MarkdownReport, CaseStudyDay6AgainstDay1MatchesGolden) {
  RunRecord day1 = testdata::case_study_run(1), day6 = testdata::case_study_run(6);
  ReportInput in{day6, day1, value_differences(day1, day6, "run 1")};
  testing_golden::expect_golden("case_study_day6_vs_day1.md", render_markdown(in));
}

TEST(MarkdownReport, SingleRunMatchesGolden) {
  testing_golden::expect_golden("case_study_day1.md",
                                render_markdown({testdata::case_study_run(1), std::nullopt, std::nullopt}));
}

TEST(MarkdownReport, PipesInCellsAreEscaped) {
  RunRecord run;
  run.scenario_name = "a|b";
  run.analysis.verdicts.push_back({Level::latency, "x", "<= 1", "2 | 3", VerdictStatus::fail, ""});
  std::string md = render_markdown({run, std::nullopt, std::nullopt});
  EXPECT_THAT(md, HasSubstr("| latency | x | <= 1 | 2 \\| 3 | **FAIL** |"));
  EXPECT_THAT(md, HasSubstr("## harness run 0: a\\|b on : running"));
}

// A scenario, a check, a reason and a hint that carry HTML are shown as
// text: nothing of the run lands raw in a CI comment.
TEST(MarkdownReport, HtmlInRunTextIsEscaped) {
  RunRecord run;
  run.scenario_name = "<script>alert(1)</script>";
  run.rig = "rig\n## forged heading";
  run.status = RunStatus::aborted;
  run.reason = "<img src=x onerror=alert(1)> &amp;";
  run.analysis.verdicts.push_back({Level::latency, "<b>x</b>", "<= 1", "2", VerdictStatus::fail, ""});
  run.analysis.hints.push_back("<!-- hidden -->");
  std::string md = render_markdown({run, std::nullopt, std::nullopt});
  EXPECT_THAT(md, HasSubstr("## harness run 0: &lt;script>alert(1)&lt;/script> on rig ## forged heading: aborted\n"));
  EXPECT_THAT(md, HasSubstr("Reason: &lt;img src=x onerror=alert(1)> &amp;amp;\n"));
  EXPECT_THAT(md, HasSubstr("| latency | &lt;b>x&lt;/b> | <= 1 | 2 | **FAIL** |"));
  EXPECT_THAT(md, HasSubstr("- &lt;!-- hidden -->\n"));
  EXPECT_THAT(md, Not(HasSubstr("<script")));
  EXPECT_THAT(md, Not(HasSubstr("<img")));
}

TEST(MarkdownReport, JudgedComparisonShowsVerdicts) {
  RunRecord run = testdata::case_study_run(6);
  ReportComparison c;
  c.baseline_label = "baseline 'day1' (run 1)";
  c.method = "Mann-Whitney U, alpha 0.05";
  c.changes.push_back({Level::latency, "latency_p95", "s", 1.9, 0.7, -63.2, "improved", "p = 0.001"});
  c.changes.push_back({Level::counters, "counter.l2_miss_cycles", "", 1.9e9, 2.5e9, 31.6, "regressed", ""});
  std::string md = render_markdown({run, std::nullopt, c});
  EXPECT_THAT(md, HasSubstr("### Comparison with baseline 'day1' (run 1)\n\nMann-Whitney U, alpha 0.05\n"));
  EXPECT_THAT(md, HasSubstr("| latency_p95 | 1.9 s | 700 ms | -63.2 % | improved |"));
  EXPECT_THAT(md, HasSubstr("| counter.l2_miss_cycles | 1.9 G | 2.5 G | +31.6 % | **regressed** |"));
}

}  // namespace
}  // namespace harness
