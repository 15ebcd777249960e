// The HTML report of real replayed fixtures draws every level's charts from
// the names the levels emit (not from hand-made report data): the roofline
// with a point per kernel or layer (predicted where no time was measured), the
// DDR bytes-per-transaction chart and DQ activity timeline, and latency panels
// titled by their load.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/bundle/replay.h"
#include "probes/process.h"
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

// report --against shows what compare judges: the baseline-relative
// verdicts (MEM_STALL drop, L2 follows it, DDR read interval, power) and the
// diagnostic hints, not "needs a baseline".
TEST(ReportOfReplayedFixtures, AgainstABaselineShowsTheBaselineVerdictsAndHints) {
  const fs::path dir = fs::temp_directory_path() / "harness_report_against_fixtures";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "runs.db").string();
  auto harness = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {HARNESS_BINARY, "--db", db});
    Result<CommandResult> r = run_command(args);
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : CommandResult{};
  };
  harness({"replay", (kFixtures / "case-study" / "day1").string()});
  harness({"replay", (kFixtures / "case-study" / "day6").string()});
  CommandResult compare = harness({"compare", "2", "--against", "1"});
  CommandResult md = harness({"report", "2", "--against", "1", "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  for (const char* check :
       {"counters.expect.baseline.MEM_STALL_CYCLES_drop_min", "counters.expect.baseline.L2_MISS_CYCLES_follows",
        "ddr.expect.read_interval_p50_vs_baseline", "latency.expect.power_not_above_baseline"}) {
    std::size_t at = md.out.find(check);
    ASSERT_NE(at, std::string::npos) << check;
    const std::string row = md.out.substr(at, md.out.find('\n', at) - at);
    EXPECT_EQ(row.find("needs a baseline"), std::string::npos) << row;
    EXPECT_NE(compare.out.find(check), std::string::npos) << check;  // the same verdict compare gives
  }
  CommandResult html = harness({"report", "2", "--against", "1"});
  EXPECT_NE(html.out.find("MEM_STALL_CYCLES dropped"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace harness
