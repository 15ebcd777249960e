// The reports of the bundled recordings, replayed as `harness replay` does,
// against golden files (tests/golden/replayed_*): the names, figures, charts
// and verdicts a real run produces, so a change to a level's output or to a
// renderer shows up as a reviewed diff. HARNESS_UPDATE_GOLDEN=1 rewrites them.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "reports/console.h"
#include "reports/html.h"
#include "reports/junit.h"
#include "reports/markdown.h"
#include "reports/report_model.h"
#include "reports/testdata/golden.h"
#include "tests/support/replayed_fixture.h"

namespace harness {
namespace {

using testing_support::kFixtures;

// A replayed run names its bundle by its absolute path; the golden files name
// it from the source tree, wherever that is checked out.
RunRecord replayed(const std::filesystem::path& dir) {
  RunRecord run = testing_support::replayed(dir);
  const std::string root = std::string(HARNESS_SOURCE_DIR) + "/";
  auto relative = [&](std::string& text) {
    for (std::size_t at = text.find(root); at != std::string::npos; at = text.find(root, at)) text.erase(at, root.size());
  };
  relative(run.scenario_path);
  for (auto& [key, value] : run.context) relative(value);
  return run;
}

// Day 6 of the case study read against day 1: every level populated, a
// failed DDR expectation, the roofline points moved.
ReportInput day6_against_day1() {
  RunRecord day1 = replayed(kFixtures / "case-study" / "day1");
  RunRecord day6 = replayed(kFixtures / "case-study" / "day6");
  ReportComparison differences = value_differences(day1, day6, "day 1");
  return {std::move(day6), std::move(day1), std::move(differences)};
}

// This host's own recording: levels without a source say so.
ReportInput host_alone() { return {replayed(kFixtures / "host" / "localhost-2026-11-29"), std::nullopt, std::nullopt}; }

TEST(ReplayedGolden, HtmlOfDay6AgainstDay1) {
  testing_golden::expect_golden("replayed_day6_vs_day1.html", render_html(day6_against_day1()));
}

TEST(ReplayedGolden, HtmlOfTheHostRecording) {
  testing_golden::expect_golden("replayed_host.html", render_html(host_alone()));
}

TEST(ReplayedGolden, MarkdownOfDay6AgainstDay1) {
  testing_golden::expect_golden("replayed_day6_vs_day1.md", render_markdown(day6_against_day1()));
}

TEST(ReplayedGolden, JunitOfDay6) {
  testing_golden::expect_golden("replayed_day6.junit.xml", render_junit(day6_against_day1()));
}

TEST(ReplayedGolden, TerminalSummaryAndDetailsOfTheHostRecording) {
  const RunRecord host = replayed(kFixtures / "host" / "localhost-2026-11-29");
  testing_golden::expect_golden("replayed_host.txt", render_run_summary_text(host) + "\n" + render_run_details_text(host));
}

}  // namespace
}  // namespace harness
