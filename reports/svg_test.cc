#include "reports/svg.h"

#include <cmath>
#include <limits>
#include <regex>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace harness::svg {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// True when the text holds NaN or infinity in any spelling, as a word.
bool has_non_finite(const std::string& svg) {
  static const std::regex bad(R"((^|[^a-z])(nan|inf|infinity)([^a-z]|$))", std::regex::icase);
  return std::regex_search(svg, bad);
}

TEST(SvgScale, LogMapsDecadesEvenly) {
  Scale s = Scale::log10(0.01, 1000, 60, 660);  // five decades over 600 px: 120 px each
  EXPECT_DOUBLE_EQ(s.px(0.01), 60);
  EXPECT_DOUBLE_EQ(s.px(0.1), 180);
  EXPECT_DOUBLE_EQ(s.px(1), 300);
  EXPECT_DOUBLE_EQ(s.px(1000), 660);
  EXPECT_NEAR(s.px(std::sqrt(10.0)), 360, 1e-9);  // half a decade above 1
}

TEST(SvgScale, LogOfNothingHasNoPixel) {
  Scale s = Scale::log10(1, 100, 0, 100);
  EXPECT_TRUE(std::isnan(s.px(0)));
  EXPECT_TRUE(std::isnan(s.px(-5)));
  EXPECT_TRUE(std::isnan(s.px(kNaN)));
  EXPECT_TRUE(std::isnan(s.px(kInf)));
}

TEST(SvgScale, LinearMayRunUpwards) {
  Scale s = Scale::linear(0, 50, 400, 100);  // y axes run from bottom to top
  EXPECT_DOUBLE_EQ(s.px(0), 400);
  EXPECT_DOUBLE_EQ(s.px(25), 250);
  EXPECT_DOUBLE_EQ(s.px(50), 100);
}

TEST(SvgScale, LogTicksAreDecadesOrOneTwoFive) {
  EXPECT_EQ(Scale::log10(0.01, 1000, 0, 1).ticks(), (std::vector<double>{0.01, 0.1, 1, 10, 100, 1000}));
  std::vector<double> fine = Scale::log10(1, 100, 0, 1).ticks();
  ASSERT_EQ(fine.size(), 7u);
  EXPECT_DOUBLE_EQ(fine[1], 2);
  EXPECT_DOUBLE_EQ(fine[2], 5);
  EXPECT_DOUBLE_EQ(fine[6], 100);
}

TEST(SvgScale, WideLogAxesLabelEveryOtherDecade) {
  std::vector<double> t = Scale::log10(1e-6, 1e14, 0, 1).ticks();  // 20 decades
  ASSERT_EQ(t.size(), 11u);
  EXPECT_DOUBLE_EQ(t[0], 1e-6);
  EXPECT_DOUBLE_EQ(t[1], 1e-4);
  EXPECT_DOUBLE_EQ(t[10], 1e14);
}

TEST(SvgScale, LinearTicksUseOneTwoFiveSteps) {
  EXPECT_EQ(Scale::linear(0, 10, 0, 1).ticks(), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(Scale::linear(0, 1, 0, 1).ticks(), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1}));
}

TEST(SvgRanges, WidenToDecadesAndNiceSteps) {
  auto [lo, hi] = decade_range(0.03, 700);
  EXPECT_DOUBLE_EQ(lo, 0.01);
  EXPECT_DOUBLE_EQ(hi, 1000);
  auto [a, b] = nice_range(0.3, 9.7);
  EXPECT_DOUBLE_EQ(a, 0);
  EXPECT_DOUBLE_EQ(b, 10);
  auto [c, d] = nice_range(5, 5);  // one value still gets an axis
  EXPECT_LT(c, 5);
  EXPECT_GT(d, 5);
}

TEST(SvgTicks, LabelsAreShortAndReadable) {
  EXPECT_EQ(tick_label(1e9), "1G");
  EXPECT_EQ(tick_label(1e12), "1T");
  EXPECT_EQ(tick_label(2500), "2.5k");
  EXPECT_EQ(tick_label(100), "100");
  EXPECT_EQ(tick_label(0.01), "0.01");
  EXPECT_EQ(tick_label(0), "0");
  EXPECT_EQ(tick_label(kNaN), "");
}

TEST(SvgCanvas, RefusesNonFiniteCoordinates) {
  Canvas c(100, 100, "t");
  c.line(0, 0, kNaN, 10, {});
  c.circle(kInf, 1, 2, {});
  c.text(kNaN, 1, "x");
  c.polyline({{1, 1}, {2, kNaN}}, {});
  c.line(0, 0, 10, 10, {});
  EXPECT_EQ(c.dropped(), 4);
  std::string out = c.str();
  EXPECT_FALSE(has_non_finite(out)) << out;
  EXPECT_NE(out.find(R"(<line x1="0.00" y1="0.00" x2="10.00" y2="10.00")"), std::string::npos) << out;
}

// Coordinates are "{:.2f}" of the value (nearer zero than 0.005: "0.00"),
// whichever way they are written: around every tie of a cent, on exact ties
// (k / 8), far from ties, negative, large.
TEST(SvgCanvas, CoordinatesAreTheValueRoundedToTwoDecimals) {
  std::vector<double> values = {0, -0.0, 0.005, -0.005, 0.0049, -0.0049, 2.675, -2.675, 1.005, 299.995, 1e11, 1e13, -7.5e12};
  for (int k = -4000; k <= 4000; ++k) {
    const double tie = (k + 0.5) / 100.0;
    for (double v : {tie, std::nextafter(tie, 1e300), std::nextafter(tie, -1e300), k / 8.0, k / 100.0, k * 1.37 + 0.123})
      values.push_back(v);
  }
  std::vector<std::pair<double, double>> points;
  std::string want;
  for (double v : values) {
    points.push_back({v, v});
    const std::string t = fmt::format("{:.2f}", std::fabs(v) < 0.005 ? 0.0 : v);
    want += (want.empty() ? "" : " ") + t + "," + t;
  }
  Canvas c(100, 100, "t");
  c.polyline(points, {});
  EXPECT_NE(c.str().find("<polyline points=\"" + want + "\""), std::string::npos);
}

TEST(SvgCanvas, EscapesText) {
  Canvas c(10, 10, "a < b & c");
  c.text(1, 1, "<script>\"x\"</script>");
  std::string out = c.str();
  EXPECT_EQ(out.find("<script>"), std::string::npos);
  EXPECT_NE(out.find("&lt;script&gt;&quot;x&quot;&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(out.find("<title>a &lt; b &amp; c</title>"), std::string::npos);
}

TEST(SvgHistogram, CountsEverySampleOnce) {
  std::vector<int> counts = histogram_counts({0, 0.5, 1, 1.5, 2, 10, -3, kNaN}, 0, 2, 4);
  // -3 clamps into the first bin, 10 and the upper edge into the last; NaN is not a sample.
  EXPECT_EQ(counts, (std::vector<int>{2, 1, 1, 3}));
  // Far outliers land in the end bins instead of overflowing an index.
  EXPECT_EQ(histogram_counts({1e300, -1e300}, 0, 1e-9, 3), (std::vector<int>{1, 0, 1}));
}

TEST(SvgCharts, NoNonFiniteNumberReachesTheSvg) {
  HistogramSpec h;
  h.title = "latency";
  h.values = {kNaN, kInf, 1, 2, 3};
  h.markers = {{"p95", kNaN}, {"p50", 2}};
  EXPECT_FALSE(has_non_finite(histogram_chart(h)));
  h.values = {kNaN};
  std::string empty = histogram_chart(h);
  EXPECT_FALSE(has_non_finite(empty));
  EXPECT_NE(empty.find("no samples"), std::string::npos);

  BarSpec b;
  b.title = "bytes";
  b.bars = {{"64", kNaN, 3.0}, {"128", std::nullopt, kInf}, {"256", 4.0, std::nullopt}};
  EXPECT_FALSE(has_non_finite(bar_chart(b)));

  LineSpec l;
  l.title = "util";
  l.ys = {0.1, kNaN, 0.5};
  EXPECT_FALSE(has_non_finite(line_chart(l)));

  PairedSpec p;
  p.title = "counters";
  p.rows = {{"counter.a", kNaN, 1.0, "", "1"}, {"counter.b", std::nullopt, std::nullopt, "", ""}};
  std::string bars = paired_bars(p);
  EXPECT_FALSE(has_non_finite(bars));
  EXPECT_NE(bars.find("unavailable"), std::string::npos);
}

TEST(SvgCharts, MarkersAreLabelledWithTheirValue) {
  HistogramSpec h;
  h.title = "latency";
  h.values = {1, 2, 3, 4, 5};
  h.markers = {{"p50", 3}};
  std::string out = histogram_chart(h);
  EXPECT_NE(out.find(">p50 3</text>"), std::string::npos) << out;
}

}  // namespace
}  // namespace harness::svg
