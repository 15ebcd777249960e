#include "reports/html.h"

#include <cstdlib>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "reports/testdata/case_study_runs.h"

namespace harness {
namespace {

bool has_non_finite(const std::string& text) {
  static const std::regex bad(R"((^|[^a-z])(nan|inf|infinity)([^a-z]|$))", std::regex::icase);
  return std::regex_search(text, bad);
}

ReportInput day6_vs_day1() {
  RunRecord day1 = testdata::case_study_run(1), day6 = testdata::case_study_run(6);
  ReportComparison c = value_differences(day1, day6, "run 1");
  return {day6, day1, c};
}

TEST(HtmlReport, RooflineDataTakesCeilingsAndPlaceablePoints) {
  RunRecord day1 = testdata::case_study_run(1), day6 = testdata::case_study_run(6);
  std::vector<std::string> notes;
  RooflineData d = roofline_data(day6.analysis, &day1.analysis, notes);
  ASSERT_EQ(d.compute.size(), 1u);
  EXPECT_EQ(d.compute[0].name, "int8");
  ASSERT_EQ(d.memory.size(), 1u);
  EXPECT_EQ(d.memory[0].name, "lpddr5x");
  ASSERT_EQ(d.points.size(), 1u);
  EXPECT_EQ(d.points[0].label, "encoder");
  EXPECT_DOUBLE_EQ(d.points[0].intensity, 0.095);
  ASSERT_TRUE(d.points[0].baseline_intensity.has_value());
  EXPECT_DOUBLE_EQ(*d.points[0].baseline_intensity, 0.012);
  EXPECT_EQ(notes, (std::vector<std::string>{"decoder: achieved: unavailable: no timing source for a declared kernel"}));
}

TEST(HtmlReport, UnavailableCeilingIsANoteNotAZero) {
  Analysis a;
  a.metrics.push_back(Metric::missing(Level::roofline, "ceiling.compute.fp32", "op/s", "no peak benchmark"));
  std::vector<std::string> notes;
  RooflineData d = roofline_data(a, nullptr, notes);
  EXPECT_TRUE(d.compute.empty());
  EXPECT_EQ(notes, (std::vector<std::string>{"ceiling.compute.fp32: unavailable: no peak benchmark"}));
}

TEST(HtmlReport, LevelIsUnavailableOnlyWhenNothingWasMeasured) {
  Analysis a;
  a.metrics.push_back(Metric::missing(Level::ddr, "ddr", "", "the scenario has no [ddr] section"));
  EXPECT_EQ(level_unavailable_reasons(a, Level::ddr), (std::vector<std::string>{"the scenario has no [ddr] section"}));
  Metric m = testdata::figure(Level::ddr, "ddr.dq_active_ratio", 0.5, "1", Provenance::measured, "x");
  a.metrics.push_back(m);
  EXPECT_TRUE(level_unavailable_reasons(a, Level::ddr).empty());
}

TEST(HtmlReport, SelfContainedReadTopDownSummaryChartsTables) {
  std::string html = render_html(day6_vs_day1());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  // The only URL is the SVG namespace, which is a name, not a fetch.
  std::string stripped = std::regex_replace(html, std::regex("http://www.w3.org/2000/svg"), "");
  EXPECT_EQ(stripped.find("http"), std::string::npos);
  EXPECT_FALSE(has_non_finite(html));

  // The summary first, then the charts, then the full tables.
  std::size_t summary = html.find("<h2>Summary</h2>"), roofline = html.find("<h2>Level 1: roofline</h2>"),
              latency = html.find("<h2>Level 4: latency</h2>"), verdicts = html.find("<h2>Verdicts</h2>"),
              figures = html.find("<h2>Figures and their provenance</h2>"), context = html.find("<h2>Run context</h2>");
  ASSERT_NE(summary, std::string::npos);
  ASSERT_NE(roofline, std::string::npos);
  ASSERT_NE(verdicts, std::string::npos);
  ASSERT_NE(figures, std::string::npos);
  ASSERT_NE(context, std::string::npos);
  EXPECT_LT(summary, roofline);
  EXPECT_LT(latency, verdicts);
  EXPECT_LT(verdicts, figures);
  EXPECT_LT(figures, context);
  EXPECT_NE(html.find("<td class=\"status fail\">fail</td>", verdicts), std::string::npos);
  // The summary says the verdict in one line and has one row per level.
  std::size_t line = html.find("<p><span class=\"badge ", summary);
  ASSERT_NE(line, std::string::npos);
  EXPECT_LT(line, roofline);
  EXPECT_NE(html.find(" pass, ", line), std::string::npos);
  for (const char* level : {"<tr><th>Level 1: roofline</th><td>", "<tr><th>Level 4: latency</th><td>"}) {
    std::size_t at = html.find(level, summary);
    EXPECT_LT(at, roofline) << level;
  }
  EXPECT_NE(html.find("<h3>Compared with run 1</h3>"), std::string::npos);
}

TEST(HtmlReport, DrawsEveryKindOfDataTheRunHas) {
  std::string html = render_html(day6_vs_day1());
  EXPECT_NE(html.find("Roofline: achieved performance against arithmetic intensity"), std::string::npos);
  EXPECT_NE(html.find(">without load</text>"), std::string::npos);
  EXPECT_NE(html.find(">under load: stress-ng --cpu 4</text>"), std::string::npos);
  EXPECT_NE(html.find(">bytes per transaction</text>"), std::string::npos);
  EXPECT_NE(html.find("read-command interval (ddr.read_interval)"), std::string::npos);
  EXPECT_NE(html.find("DQ bus activity over time (from DQS toggles)"), std::string::npos);
  EXPECT_NE(html.find("counters: baseline and this run"), std::string::npos);
  EXPECT_NE(html.find(">p95 "), std::string::npos);
  // Unavailable figures say why; they are never drawn as zero.
  EXPECT_NE(html.find("unavailable: the PMU file has no ALU_STALL_CYCLES line"), std::string::npos);
  EXPECT_NE(html.find("unavailable: no power source on this rig"), std::string::npos);
  EXPECT_NE(html.find("<th>npu_driver</th><td>1.3.1</td>"), std::string::npos);
}

TEST(HtmlReport, RunWithNoSourcesSaysUnavailablePerLevel) {
  RunRecord run;
  run.id = 3;
  run.scenario_name = "bare";
  run.rig = "host";
  run.analysis.metrics = {
      Metric::missing(Level::roofline, "roofline", "", "the scenario has no [roofline] section"),
      Metric::missing(Level::counters, "counters", "", "the scenario has no [counters] section"),
      Metric::missing(Level::ddr, "ddr", "", "the scenario has no [ddr] section (no logic-analyzer source)"),
      Metric::missing(Level::latency, "latency_p50", "s", "the scenario has no [latency] section")};
  std::string html = render_html({run, std::nullopt, std::nullopt});
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"unavailable\">unavailable: the scenario has no [roofline] section</p>"),
            std::string::npos);
  EXPECT_NE(html.find("<p class=\"unavailable\">unavailable: the scenario has no [ddr] section (no logic-analyzer "
                      "source)</p>"),
            std::string::npos);
  EXPECT_NE(html.find("No verdicts: the scenario sets no expectations."), std::string::npos);
  EXPECT_FALSE(has_non_finite(html));
}

TEST(HtmlReport, JudgedComparisonSummarisesAtTheTopAndListsAllBelow) {
  ReportInput in = day6_vs_day1();
  ReportComparison c;
  c.baseline_label = "baseline 'day1' (run 1)";
  c.method = "Mann-Whitney U for samples, tolerance for single values";
  c.changes.push_back({Level::latency, "latency_p95", "s", 1.9, 0.7, -63.2, "improved", "p = 0.001"});
  c.changes.push_back({Level::counters, "counter.l2_miss_cycles", "", 1.9e9, 2.5e9, 31.6, "regressed", "U test"});
  c.changes.push_back({Level::ddr, "ddr.dq_active_ratio", "1", 0.32, 0.33, 3.1, "unchanged", ""});
  c.changes.push_back({Level::latency, "power_mean", "W", std::nullopt, std::nullopt, std::nullopt, "cannot tell", ""});
  c.changes.push_back({Level::latency, "latency_p99", "s", 2.0, 2.4, 20.0, "cannot tell", "spread too wide"});
  in.comparison = c;
  std::string html = render_html(in);
  std::size_t top = html.find("<h3>Compared with baseline &apos;day1&apos; (run 1)</h3>");
  std::size_t charts = html.find("<h2>Level 1: roofline</h2>");
  std::size_t all = html.find("<h2>All differences from baseline &apos;day1&apos; (run 1)</h2>");
  ASSERT_NE(top, std::string::npos);
  ASSERT_NE(all, std::string::npos);
  EXPECT_LT(top, charts);
  EXPECT_LT(charts, all);
  EXPECT_NE(html.find("Mann-Whitney U for samples, tolerance for single values: 1 regressed, 1 improved, 1 unchanged, "
                      "2 cannot tell.</p>"),
            std::string::npos);
  std::size_t regressed = html.find("<td class=\"status regressed\">regressed</td>");
  ASSERT_NE(regressed, std::string::npos);
  EXPECT_LT(regressed, charts);  // the regression is in the summary
  // Regressions before improvements, in the summary.
  EXPECT_LT(regressed, html.find("<td class=\"status improved\">improved</td>"));
  EXPECT_NE(html.find("1 metrics are unavailable in both runs", all), std::string::npos);
  EXPECT_NE(html.find("<td class=\"status cannot-tell\">❔ cannot tell</td>", all), std::string::npos);
}

// Writes the case-study report where HARNESS_REPORT_SAMPLE says, for
// scripts/render-report-screenshot; otherwise checks it renders.
TEST(HtmlReport, CaseStudySample) {
  std::string html = render_html(day6_vs_day1());
  EXPECT_GT(html.size(), 10000u);
  if (const char* path = std::getenv("HARNESS_REPORT_SAMPLE")) {
    std::ofstream(path) << html;
  }
}

}  // namespace
}  // namespace harness
