// The table of report formats checks itself (every row names a renderer,
// names and extensions are unique), and the LAVA renderer's exact lines.
#include "reports/report.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "reports/lava.h"
#include "reports/testdata/case_study_runs.h"

namespace harness {
namespace {

TEST(ReportFormats, EveryRowIsCompleteAndUnique) {
  std::set<std::string_view> names, extensions;
  for (const ReportFormat& f : kReportFormats) {
    SCOPED_TRACE(std::string(f.name));
    ASSERT_NE(f.render, nullptr);
    EXPECT_FALSE(f.contents.empty());
    ASSERT_GE(f.extension.size(), 2u);
    EXPECT_EQ(f.extension[0], '.');
    EXPECT_TRUE(names.insert(f.name).second);
    if (!f.also.empty()) {
      EXPECT_TRUE(names.insert(f.also).second);
    }
    EXPECT_TRUE(extensions.insert(f.extension).second);
    // Each name and extension finds its own row, and no other row's.
    Result<const ReportFormat*> by_name = report_format_from_name(f.name);
    ASSERT_TRUE(by_name);
    EXPECT_EQ(*by_name, &f);
    if (!f.also.empty()) {
      EXPECT_EQ(*report_format_from_name(f.also), &f);
    }
    EXPECT_EQ(report_format_of_path("out/report" + std::string(f.extension)), &f);
    // Every renderer renders the case study, with and without a comparison.
    ReportInput alone{testdata::case_study_run(6), std::nullopt, std::nullopt};
    EXPECT_GT(f.render(alone).size(), 100u);
    RunRecord day1 = testdata::case_study_run(1), day6 = testdata::case_study_run(6);
    ReportComparison judged = value_differences(day1, day6, "run 1");
    for (MetricChange& c : judged.changes) c.verdict = "unchanged";
    ReportInput against{day6, day1, judged};
    EXPECT_GT(f.render(against).size(), f.render(alone).size());
  }
  EXPECT_EQ(report_format_of_path("report.pdf"), nullptr);
  EXPECT_FALSE(report_format_from_name("pdf"));
}

TEST(ReportFormats, HelpTextIsOneLinePerRow) {
  std::string text = report_formats_text();
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, kReportFormats.size());
  EXPECT_EQ(text.substr(0, text.find('\n') + 1),
            "  html   .html  a self-contained page for people: charts, verdicts, hints (the default)\n");
}

TEST(LavaReport, OneSignalPerMetricVerdictChangeAndTheRun) {
  RunRecord run;
  run.id = 7;
  run.status = RunStatus::failed;
  run.analysis.metrics.push_back(
      Metric::known(Level::latency, "latency_p50", 0.0125, "s", Provenance::measured, "timer"));
  Metric gone;
  gone.name = "dram_bandwidth";
  gone.unit = "B/s";
  gone.unavailable = "no perf counters";
  run.analysis.metrics.push_back(gone);
  run.analysis.metrics.push_back(
      Metric::known(Level::roofline, "bound", 0, "1", Provenance::model, "roofline", Better::none, "memory"));
  run.analysis.verdicts.push_back({Level::latency, "latency.expect.p95 over p50", "<= 1.3", "1.5",
                                   VerdictStatus::fail, ""});
  run.analysis.verdicts.push_back({Level::ddr, "ddr.expect.bw", ">= 1 GB/s", "unavailable", VerdictStatus::unavailable, ""});
  run.analysis.verdicts.push_back({Level::counters, "counters.expect.stall", "<= 10 %", "9 %",
                                   VerdictStatus::cannot_tell, ""});
  ReportComparison c;
  MetricChange slower;
  slower.name = "latency_p50";
  slower.unit = "s";
  slower.current = 0.0125;
  slower.verdict = "regressed";
  MetricChange unsure = slower;
  unsure.name = "latency_p95";
  unsure.current = std::nullopt;
  unsure.verdict = "cannot tell";
  c.changes = {slower, unsure};
  EXPECT_EQ(render_lava({run, std::nullopt, c}),
            "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=metric.latency_p50 RESULT=pass MEASUREMENT=0.0125 UNITS=s>\n"
            "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=metric.dram_bandwidth RESULT=skip>\n"
            "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=verdict.latency.expect.p95_over_p50 RESULT=fail>\n"
            "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=verdict.ddr.expect.bw RESULT=skip>\n"
            "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=verdict.counters.expect.stall RESULT=unknown>\n"
            "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=compare.latency_p50 RESULT=fail MEASUREMENT=0.0125 UNITS=s>\n"
            "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=compare.latency_p95 RESULT=unknown>\n"
            "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=run-7 RESULT=fail>\n");
}

}  // namespace
}  // namespace harness
