// The HTML report of real replayed fixtures draws every level's charts from
// the names the levels emit (not from hand-made report data): the roofline
// with a point per kernel or layer (predicted where no time was measured), the
// DDR bytes-per-transaction chart and DQ activity timeline, and latency panels
// titled by their load.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/bundle/replay.h"
#include "reports/html.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(HARNESS_SOURCE_DIR) / "fixtures";

RunRecord replayed(const fs::path& dir) {
  Result<LoadedBundle> b = load_bundle(dir.string());
  EXPECT_TRUE(b) << b.error().message;
  if (!b) return {};
  Result<RunRecord> run = replay_bundle(*b);
  EXPECT_TRUE(run) << run.error().message;
  return run ? *run : RunRecord{};
}

TEST(ReportOfReplayedFixtures, TheCaseStudyShowsEveryLevel) {
  RunRecord day1 = replayed(kFixtures / "case-study" / "day1");
  RunRecord day6 = replayed(kFixtures / "case-study" / "day6");
  ReportInput in{day6, day1, value_differences(day1, day6, "run 1")};
  std::string html = render_html(in);
  // (find, not HasSubstr: a failure should not print the whole page)
  for (const char* drawn : {">bytes per transaction</text>", ">128 B</text>", ">32 B</text>",
                            "DQ bus activity over time (from DQS toggles)", ">under load: stress-ng --cpu 4</text>",
                            ">without load</text>", "(predicted)</text>"}) {
    EXPECT_NE(html.find(drawn), std::string::npos) << drawn;
  }

  std::vector<std::string> notes;
  RooflineData data = roofline_data(day6.analysis, &day1.analysis, notes);
  ASSERT_FALSE(data.points.empty());
  for (const RooflinePoint& p : data.points) {
    EXPECT_TRUE(p.predicted) << p.label;  // the case study declares no kernel time
    ASSERT_TRUE(p.baseline_intensity) << p.label;
  }
  // The axes span the points (0.012 to 0.095 op/B), not the ceilings alone.
  RooflineLayout layout = layout_roofline(data);
  ASSERT_EQ(layout.points.size(), data.points.size());
  for (const RooflineLayout::Placed& p : layout.points) {
    EXPECT_GE(p.x, layout.frame.left);
    EXPECT_LE(p.x, layout.frame.right);
    ASSERT_TRUE(p.baseline_x);
    EXPECT_GE(*p.baseline_x, layout.frame.left);
  }
}

TEST(ReportOfReplayedFixtures, TheHostRunTitlesEachLoadCondition) {
  RunRecord host = replayed(kFixtures / "host" / "localhost-2026-11-29");
  std::string html = render_html({host, std::nullopt, std::nullopt});
  EXPECT_NE(html.find(">without load</text>"), std::string::npos);
  EXPECT_NE(html.find(">under load: stress-ng --cpu 1</text>"), std::string::npos);
  EXPECT_EQ(html.find(">under load: none</text>"), std::string::npos);
}

}  // namespace
}  // namespace harness
