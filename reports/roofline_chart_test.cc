#include "reports/roofline_chart.h"

#include <cmath>
#include <limits>
#include <regex>

#include <gtest/gtest.h>

namespace harness {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool has_non_finite(const std::string& svg) {
  static const std::regex bad(R"((^|[^a-z])(nan|inf|infinity)([^a-z]|$))", std::regex::icase);
  return std::regex_search(svg, bad);
}

// 1 TFLOP/s over 10 GB/s: ridge at 100 op/B. One kernel at AI 1, 1 GFLOP/s.
RooflineData one_roof() {
  RooflineData d;
  d.compute = {{"fp32", 1e12}};
  d.memory = {{"dram", 10e9}};
  d.points = {{"k", 1.0, 1e9, std::nullopt, std::nullopt}};
  return d;
}

TEST(RooflineChart, AxesSpanWholeDecadesAroundTheData) {
  RooflineLayout L = layout_roofline(one_roof(), 760, 480);
  // x covers AI 1 and the ridge 100, padded by 3x and widened to decades.
  EXPECT_DOUBLE_EQ(L.frame.x.lo(), 0.1);
  EXPECT_DOUBLE_EQ(L.frame.x.hi(), 1000);
  // y covers 1 GFLOP/s and the 1 TFLOP/s roof: two decades below, 2x above, in decades.
  EXPECT_DOUBLE_EQ(L.frame.y.lo(), 1e7);
  EXPECT_DOUBLE_EQ(L.frame.y.hi(), 1e13);
}

TEST(RooflineChart, PointAtIntensityOneAndOneGigaflopLandsWhereComputed) {
  RooflineLayout L = layout_roofline(one_roof(), 760, 480);
  ASSERT_EQ(L.points.size(), 1u);
  // Plot area: x from 78 to 610 px (760 - 150), y from 418 (480 - 62) up to 36.
  // x: log10(1) is 1 decade into 4 (0.1 .. 1000): 78 + 532 / 4 = 211.
  EXPECT_NEAR(L.points[0].x, 211.0, 1e-9);
  // y: log10(1e9) is 2 decades into 6 (1e7 .. 1e13): 418 - 382 / 3 = 290.666...
  EXPECT_NEAR(L.points[0].y, 418.0 - 382.0 / 3.0, 1e-9);
}

TEST(RooflineChart, CeilingsMeetAtTheRidge) {
  RooflineLayout L = layout_roofline(one_roof(), 760, 480);
  ASSERT_EQ(L.memory.size(), 1u);
  ASSERT_EQ(L.compute.size(), 1u);
  ASSERT_EQ(L.ridges.size(), 1u);
  const auto& m = L.memory[0];
  const auto& c = L.compute[0];
  const auto& r = L.ridges[0];
  EXPECT_DOUBLE_EQ(r.intensity, 100);
  EXPECT_NEAR(m.x2, c.x1, 1e-9);
  EXPECT_NEAR(m.y2, c.y1, 1e-9);
  EXPECT_NEAR(r.x, c.x1, 1e-9);
  EXPECT_NEAR(r.y, c.y1, 1e-9);
  EXPECT_NEAR(r.x, L.frame.x.px(100), 1e-9);
  EXPECT_NEAR(r.y, L.frame.y.px(1e12), 1e-9);
  // The compute roof runs to the right edge, the memory roof starts at an edge.
  EXPECT_NEAR(c.x2, L.frame.right, 1e-9);
  EXPECT_TRUE(std::fabs(m.x1 - L.frame.left) < 1e-9 || std::fabs(m.y1 - L.frame.bottom) < 1e-9);
}

TEST(RooflineChart, MemoryRoofRisesOneDecadePerDecade) {
  RooflineLayout L = layout_roofline(one_roof(), 760, 480);
  const auto& m = L.memory[0];
  double x_per_decade = (L.frame.right - L.frame.left) / 4;  // 4 decades on x
  double y_per_decade = (L.frame.bottom - L.frame.top) / 6;  // 6 decades on y
  EXPECT_NEAR((m.y1 - m.y2) / y_per_decade, (m.x2 - m.x1) / x_per_decade, 1e-9);
}

TEST(RooflineChart, EveryPairOfCeilingsHasARidge) {
  RooflineData d;
  d.compute = {{"int8", 30e12}, {"fp16", 15e12}};
  d.memory = {{"lpddr5x", 50e9}, {"sram", 500e9}};
  RooflineLayout L = layout_roofline(d);
  ASSERT_EQ(L.ridges.size(), 4u);
  EXPECT_EQ(L.ridges[0].label, "int8/lpddr5x");
  EXPECT_DOUBLE_EQ(L.ridges[0].intensity, 600);  // the seed's 30 TOPS / 50 GB/s
  // Horizontals start where they meet the fastest memory.
  ASSERT_EQ(L.compute.size(), 2u);
  EXPECT_NEAR(L.compute[0].x1, L.frame.x.px(30e12 / 500e9), 1e-9);
  EXPECT_NEAR(L.compute[1].x1, L.frame.x.px(15e12 / 500e9), 1e-9);
  // Diagonals run up to the highest roof.
  for (const auto& m : L.memory) EXPECT_NEAR(m.y2, L.frame.y.px(30e12), 1e-9);
}

TEST(RooflineChart, BaselinePointGetsAnArrowToTheNewOne) {
  RooflineData d = one_roof();
  d.points[0].baseline_intensity = 0.2;
  d.points[0].baseline_achieved = 1e8;
  RooflineLayout L = layout_roofline(d);
  ASSERT_TRUE(L.points[0].baseline_x.has_value());
  EXPECT_NEAR(*L.points[0].baseline_x, L.frame.x.px(0.2), 1e-9);
  std::string svg = render_roofline(d);
  EXPECT_NE(svg.find("baseline (arrow: baseline to this run)"), std::string::npos);
  EXPECT_NE(svg.find("<polygon"), std::string::npos);
}

TEST(RooflineChart, LabelsEveryCeiling) {
  RooflineData d = one_roof();
  std::string svg = render_roofline(d);
  EXPECT_NE(svg.find(">fp32 1 Top/s</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">dram 10 GB/s</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">ridge 100 op/B</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">1G</text>"), std::string::npos) << svg;  // a y tick label
}

TEST(RooflineChart, UnplaceablePointsAndCeilingsStayOffTheChart) {
  RooflineData d;
  d.compute = {{"fp32", kNaN}, {"int8", 0}};
  d.memory = {{"dram", -1}};
  d.points = {{"zero", 0, 1e9, std::nullopt, std::nullopt},
              {"nan", kNaN, kNaN, std::nullopt, std::nullopt},
              {"ok", 2, 1e9, kNaN, 1e9}};
  RooflineLayout L = layout_roofline(d);
  EXPECT_TRUE(L.compute.empty());
  EXPECT_TRUE(L.memory.empty());
  ASSERT_EQ(L.points.size(), 1u);
  EXPECT_FALSE(L.points[0].baseline_x.has_value());
  ASSERT_EQ(L.skipped.size(), 2u);
  EXPECT_EQ(L.skipped[0], "zero: intensity or achieved performance is not a positive number");
  EXPECT_FALSE(has_non_finite(render_roofline(d)));
  EXPECT_FALSE(has_non_finite(render_roofline(RooflineData{})));
}

TEST(RooflineChart, ManyLayersAreNumberedNotNamed) {
  RooflineData d = one_roof();
  d.points.clear();
  for (int i = 0; i < 13; ++i) d.points.push_back({"layer.l" + std::to_string(i), 0.5 + i, 1e9, std::nullopt, std::nullopt});
  std::string svg = render_roofline(d);
  EXPECT_EQ(svg.find(">layer.l0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">13</text>"), std::string::npos);
  d.points.resize(kNamedPoints);
  EXPECT_NE(render_roofline(d).find(">layer.l0</text>"), std::string::npos);
}

}  // namespace
}  // namespace harness
