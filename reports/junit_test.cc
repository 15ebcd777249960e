#include "reports/junit.h"

#include <sstream>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reports/testdata/case_study_runs.h"
#include "reports/testdata/golden.h"

namespace harness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

namespace pt = boost::property_tree;

pt::ptree parse(const std::string& xml) {
  std::istringstream in(xml);
  pt::ptree tree;
  pt::read_xml(in, tree);
  return tree;
}

// The structure JUnit consumers require: <testsuites> of <testsuite> of
// <testcase> (name, classname), a <failure message> or <skipped> inside a
// case, and counts on the suites that agree with their cases.
void expect_valid_junit(const std::string& xml) {
  pt::ptree tree = parse(xml);
  ASSERT_EQ(tree.size(), 1u);
  ASSERT_EQ(tree.begin()->first, "testsuites");
  const pt::ptree& root = tree.begin()->second;
  int all_tests = 0, all_failures = 0, all_skipped = 0;
  for (const auto& [tag, suite] : root) {
    if (tag == "<xmlattr>") continue;
    ASSERT_EQ(tag, "testsuite");
    ASSERT_FALSE(suite.get<std::string>("<xmlattr>.name").empty());
    int tests = 0, failures = 0, skipped = 0;
    for (const auto& [ctag, c] : suite) {
      if (ctag == "<xmlattr>" || ctag == "properties") continue;
      ASSERT_EQ(ctag, "testcase");
      ++tests;
      EXPECT_FALSE(c.get<std::string>("<xmlattr>.name").empty());
      EXPECT_FALSE(c.get<std::string>("<xmlattr>.classname").empty());
      if (auto f = c.get_child_optional("failure")) {
        ++failures;
        EXPECT_FALSE(f->get<std::string>("<xmlattr>.message").empty());
      }
      if (c.get_child_optional("skipped")) ++skipped;
    }
    EXPECT_EQ(suite.get<int>("<xmlattr>.tests"), tests);
    EXPECT_EQ(suite.get<int>("<xmlattr>.failures"), failures);
    EXPECT_EQ(suite.get<int>("<xmlattr>.skipped"), skipped);
    EXPECT_EQ(suite.get<int>("<xmlattr>.errors"), 0);
    all_tests += tests;
    all_failures += failures;
    all_skipped += skipped;
  }
  EXPECT_EQ(root.get<int>("<xmlattr>.tests"), all_tests);
  EXPECT_EQ(root.get<int>("<xmlattr>.failures"), all_failures);
  EXPECT_EQ(root.get<int>("<xmlattr>.skipped"), all_skipped);
}

TEST(JunitReport, CaseStudyDay6MatchesGolden) {
  std::string xml = render_junit({testdata::case_study_run(6), std::nullopt, std::nullopt});
  testing_golden::expect_golden("case_study_day6.junit.xml", xml);
  expect_valid_junit(xml);
}

TEST(JunitReport, OneCasePerVerdictAndFailuresCarryExpectedAndMeasured) {
  std::string xml = render_junit({testdata::case_study_run(1), std::nullopt, std::nullopt});
  expect_valid_junit(xml);
  pt::ptree suite = parse(xml).get_child("testsuites.testsuite");
  EXPECT_EQ(suite.get<int>("<xmlattr>.tests"), 4);
  EXPECT_EQ(suite.get<int>("<xmlattr>.failures"), 3);
  EXPECT_EQ(suite.get<int>("<xmlattr>.skipped"), 1);
  for (const auto& [tag, c] : suite) {
    if (tag != "testcase" || c.get<std::string>("<xmlattr>.name") != "ddr.expect.dq_active_ratio_min") continue;
    EXPECT_EQ(c.get<std::string>("failure.<xmlattr>.message"), "expected >= 0.7, measured 0.32");
    EXPECT_EQ(c.get<std::string>("failure"),
              "expected: >= 0.7\nmeasured: 0.32\nDQ bus active < 70 % of the capture: look for gaps between read "
              "bursts");
  }
}

TEST(JunitReport, JudgedComparisonAddsASuite) {
  ReportComparison c;
  c.baseline_label = "run 1";
  c.changes.push_back({Level::latency, "latency_p95", "s", 1.9, 0.7, -63.2, "improved", ""});
  c.changes.push_back({Level::counters, "counter.l2_miss_cycles", "", 1.9e9, 2.5e9, 31.6, "regressed", "U test"});
  c.changes.push_back({Level::ddr, "ddr.dq_active_ratio", "1", 0.32, 0.33, 3.1, "cannot tell", "too few samples"});
  c.changes.push_back({Level::ddr, "ddr.x", "1", 1, 2, 100, "", ""});  // not judged: no case
  std::string xml = render_junit({testdata::case_study_run(6), std::nullopt, c});
  expect_valid_junit(xml);
  EXPECT_THAT(xml,
              HasSubstr("<testsuite name=\"harness.whisper-medium.compare\" tests=\"3\" failures=\"1\" errors=\"0\" "
                        "skipped=\"1\""));
  EXPECT_THAT(xml, HasSubstr("<failure message=\"regressed against run 1: baseline 1.9 G, this run 2.5 G (+31.6 %)\" "
                             "type=\"verdict\">U test</failure>"));
}

TEST(JunitReport, NoVerdictsIsAnEmptyValidSuite) {
  RunRecord run;
  run.scenario_name = "s<&>";
  std::string xml = render_junit({run, std::nullopt, std::nullopt});
  expect_valid_junit(xml);
  EXPECT_THAT(xml, HasSubstr("name=\"harness.s&lt;&amp;&gt;\" tests=\"0\""));
  // A run with no recorded start and end has no wall time to report.
  EXPECT_THAT(xml, Not(HasSubstr(" time=")));
}

}  // namespace
}  // namespace harness
