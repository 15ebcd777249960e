// The HTML report of real replayed fixtures draws every level's charts from
// the names the levels emit (not from hand-made report data): the roofline
// with a point per kernel or layer (predicted where no time was measured), the
// DDR bytes-per-transaction chart and DQ activity timeline, and latency panels
// titled by their load.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/bundle/replay.h"
#include "probes/process.h"
#include "reports/html.h"

#include "tests/support/replayed_fixture.h"
#include "tests/support/run_harness.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using testing_support::kFixtures;
using testing_support::replayed;

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

// Every point, baseline point, ceiling and ridge lies inside the plot area.
void expect_inside(const RooflineLayout& L) {
  const svg::Frame& f = L.frame;
  auto inside = [&](double x, double y, const std::string& what) {
    constexpr double slack = 0.5;  // pixels: a line may end exactly on the frame
    EXPECT_TRUE(x >= f.left - slack && x <= f.right + slack && y >= f.top - slack && y <= f.bottom + slack)
        << what << " at (" << x << ", " << y << ") outside [" << f.left << ", " << f.right << "] x [" << f.top << ", "
        << f.bottom << "]";
  };
  for (const RooflineLayout::Placed& p : L.points) {
    inside(p.x, p.y, p.label);
    if (p.baseline_x) inside(*p.baseline_x, *p.baseline_y, p.label + " (baseline)");
  }
  for (const auto& s : L.memory) {
    inside(s.x1, s.y1, s.label);
    inside(s.x2, s.y2, s.label);
  }
  for (const auto& s : L.compute) {
    inside(s.x1, s.y1, s.label);
    inside(s.x2, s.y2, s.label);
  }
  for (const auto& r : L.ridges) inside(r.x, r.y, r.label);
}

TEST(ReportOfReplayedFixtures, TheRooflineAxesSpanEveryPointAndEveryCeiling) {
  RunRecord day1 = replayed(kFixtures / "case-study" / "day1");
  RunRecord day6 = replayed(kFixtures / "case-study" / "day6");
  RunRecord host = replayed(kFixtures / "host" / "localhost-2026-11-29");
  std::vector<std::string> notes;
  for (auto [run, base] : {std::pair{&day6, &day1}, std::pair{&day1, static_cast<RunRecord*>(nullptr)},
                           std::pair{&host, static_cast<RunRecord*>(nullptr)}}) {
    RooflineData data = roofline_data(run->analysis, base ? &base->analysis : nullptr, notes);
    ASSERT_FALSE(data.points.empty()) << run->scenario_name;
    ASSERT_FALSE(data.memory.empty() && data.compute.empty()) << run->scenario_name;
    RooflineLayout L = layout_roofline(data);
    EXPECT_EQ(L.points.size(), data.points.size()) << run->scenario_name;
    EXPECT_EQ(L.memory.size(), data.memory.size()) << run->scenario_name;  // every diagonal is drawn
    EXPECT_EQ(L.compute.size(), data.compute.size()) << run->scenario_name;
    expect_inside(L);
    // The lowest intensity (the case study's 0.012 op/B on day 1) is on the
    // axis, less than two decades from its start.
    double lowest = INFINITY;
    for (const RooflinePoint& p : data.points) {
      lowest = std::min(lowest, p.intensity);
      if (p.baseline_intensity) lowest = std::min(lowest, *p.baseline_intensity);
    }
    EXPECT_LE(L.frame.x.lo(), lowest) << run->scenario_name;
    EXPECT_GT(L.frame.x.lo() * 100, lowest) << run->scenario_name;
  }
}

// The share of the plot's width between the first and the last bin holding a sample.
double filled_width(const svg::HistogramLayout& L) {
  double x0 = INFINITY, x1 = -INFINITY;
  for (const svg::HistogramLayout::Bin& b : L.bins) {
    if (b.count == 0) continue;
    x0 = std::min(x0, b.x0);
    x1 = std::max(x1, b.x1);
  }
  return (x1 - x0) / (L.frame.right - L.frame.left);
}

TEST(ReportOfReplayedFixtures, LatencyHistogramsAreScaledToTheirData) {
  RunRecord day1 = replayed(kFixtures / "case-study" / "day1");
  // Day 6 against day 1: day 1's 0.5-6 s tail must not squeeze day 6's 0.7 s
  // distribution into the left tenth of the axis.
  using Case = std::pair<const char*, const RunRecord*>;
  for (auto [fixture, baseline] : {Case{"case-study/day6", &day1}, Case{"case-study/day1", nullptr},
                                   Case{"case-study/day6", nullptr}, Case{"host/localhost-2026-11-29", nullptr}}) {
    RunRecord run = replayed(kFixtures / fixture);
    LatencyPanels drawn = latency_panels(run.analysis, baseline ? &baseline->analysis : nullptr);
    if (baseline) {
      EXPECT_GT(drawn.baseline_outside, 0u);  // day 1's slow samples are off day 6's axis, and said to be
    }
    ASSERT_FALSE(drawn.panels.empty()) << fixture;
    double widest = 0;
    for (const svg::HistogramSpec& spec : drawn.panels) {
      svg::HistogramLayout L = layout_histogram(spec);
      ASSERT_FALSE(L.bins.empty()) << fixture << ": " << spec.title;
      // The axis starts at the fastest sample (less one tick step), not at
      // zero: no wide empty left part.
      double fastest = *std::min_element(spec.values.begin(), spec.values.end());
      EXPECT_LE(L.lo, fastest) << fixture << ": " << spec.title;
      EXPECT_LT(fastest - L.lo, 0.2 * (L.hi - L.lo)) << fixture << ": " << spec.title;
      for (const svg::Marker& m : spec.markers) {
        EXPECT_TRUE(L.frame.x.contains(m.x)) << fixture << ": " << spec.title << " " << m.label;
      }
      widest = std::max(widest, filled_width(L));
    }
    // The panels share one axis: the widest distribution fills most of it.
    EXPECT_GT(widest, 0.6) << fixture;
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
    args.insert(args.begin(), {"--db", db});
    return testing_support::run_harness(args, CommandOptions{});
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
