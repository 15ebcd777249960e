#include "reports/svg.h"

#include <algorithm>
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


TEST(SvgMarks, SpansWithinAPixelMergeAndEachIsAtLeastAPixelWide) {
  const Scale x = Scale::linear(0, 10, 100, 200);  // 10 px per unit
  const std::vector<MarkSpan> marks = {
      {2.05, 3, 0},   // 0.5 px after the next one's end: merged with it
      {1, 2, 0},      //
      {5, 5.01, 0},   // 0.1 px: drawn a pixel wide
      {-1, 0.5, 0},   // clipped at the axis' start
      {11, 12, 0},    // off the axis
      {4, 4.5, 1},    // another lane
  };
  using Px = std::vector<std::pair<double, double>>;
  EXPECT_EQ(mark_pixels(marks, 0, x), (Px{{100, 105}, {110, 130}, {150, 151}}));
  EXPECT_EQ(mark_pixels(marks, 1, x), (Px{{140, 145}}));
  EXPECT_EQ(mark_pixels(marks, 2, x), Px{});
}

TEST(SvgMarks, LanesSitBetweenTheTitleAndThePlotEachLabelledInItsColour) {
  LineSpec l;
  l.title = "power";
  l.xs = {0, 1, 2, 3};
  l.ys = {1, 2, 2, 1};
  l.x_range = std::make_pair(0.0, 4.0);  // plot 70..444 px: 93.5 px per unit
  l.lanes = {{"candidate", "#1e8449"}, {"reference", "#7d3c98"}};
  l.marks = {{0, 1, 0}, {1, 2, 1}, {2, 3, 1}, {3, 4, 0}};
  const std::string out = line_chart(l);
  for (const char* element : {
           R"(<text x="64.00" y="34.00" text-anchor="end" font-size="9.00" fill="#1e8449">candidate</text>)",
           R"(<rect x="70.00" y="28.00" width="93.50" height="6.00" stroke="#1e8449" stroke-width="0.00" fill="#1e8449"/>)",
           R"(<rect x="350.50" y="28.00" width="93.50" height="6.00" stroke="#1e8449" stroke-width="0.00" fill="#1e8449"/>)",
           R"(<text x="64.00" y="43.00" text-anchor="end" font-size="9.00" fill="#7d3c98">reference</text>)",
           R"(<rect x="163.50" y="37.00" width="187.00" height="6.00" stroke="#7d3c98" stroke-width="0.00" fill="#7d3c98"/>)",
       })
    EXPECT_NE(out.find(element), std::string::npos) << element << "\n" << out;
  // The plot starts below the two lanes (28 + 2 x 9 + 4 = 50 px): its top grid line.
  EXPECT_NE(out.find(R"(<line x1="70.00" y1="50.00" x2="444.00" y2="50.00")"), std::string::npos) << out;
  // Four marks, three rectangles: the two reference spans touch.
  std::size_t rects = 0;
  for (std::size_t at = out.find("height=\"6.00\""); at != std::string::npos; at = out.find("height=\"6.00\"", at + 1)) ++rects;
  EXPECT_EQ(rects, 3u);
}

TEST(SvgCharts, ALongLineKeepsEachPixelColumnsLowestAndHighestPoint) {
  LineSpec l;
  l.title = "power";
  for (int i = 0; i < 7000; ++i) {
    l.xs.push_back(i * 1e-3);
    l.ys.push_back(i == 3500 ? 9.0 : (i == 1234 ? 0.5 : 4 + (i % 7) * 0.1));
  }
  const std::string out = line_chart(l);
  // Found by hand: libstdc++'s regex recurses once a character over [^"]*,
  // which overflows the stack on a line this long under AddressSanitizer.
  const std::string start = "<polyline points=\"";
  const std::size_t from = out.find(start);
  ASSERT_NE(from, std::string::npos);
  const std::size_t end = out.find('"', from + start.size());
  ASSERT_NE(end, std::string::npos);
  const std::string points = out.substr(from + start.size(), end - from - start.size());
  const std::size_t count = static_cast<std::size_t>(std::count(points.begin(), points.end(), ','));
  EXPECT_LE(count, 2u * 375);  // pixel columns 70 to 444, both ends included
  EXPECT_GE(count, 374u);
  // The spike and the dip survive: y of 9 W and of 0.5 W on the 0..10 W axis (240 - v x 20.6 px).
  EXPECT_NE(points.find(",54.60"), std::string::npos);
  EXPECT_NE(points.find(",229.70"), std::string::npos);
}

}  // namespace
}  // namespace harness::svg
