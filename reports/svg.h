// A small SVG toolkit for the report charts: scales (linear and log10) with
// readable ticks, a canvas that refuses non-finite coordinates, and plot
// frames with axes. Charts take plain vectors; they never see a Metric.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace harness::svg {

// Escapes text for XML/HTML content and attribute values.
std::string escape_xml(std::string_view text);

// A compact tick label: 1e9 -> "1G", 2500 -> "2.5k", 0.01 -> "0.01", 0 -> "0".
std::string tick_label(double v);

// Maps data values along one axis to pixels. A log scale maps log10(v).
class Scale {
 public:
  static Scale linear(double lo, double hi, double px_lo, double px_hi);
  static Scale log10(double lo, double hi, double px_lo, double px_hi);  // needs 0 < lo < hi

  // The pixel of v; NaN when v has no place on the axis (v <= 0 on a log
  // axis, or v not finite): the canvas drops such elements.
  double px(double v) const;
  bool contains(double v) const;  // lo <= v <= hi, with a little tolerance
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  double px_lo() const { return px_lo_; }
  double px_hi() const { return px_hi_; }
  bool is_log() const { return log_; }
  // Log: every decade (plus 2 and 5 when the axis spans two decades or fewer).
  // Linear: 1-2-5 steps, about six ticks.
  std::vector<double> ticks() const;

 private:
  double lo_ = 0, hi_ = 1, px_lo_ = 0, px_hi_ = 1;
  bool log_ = false;
};

// [lo, hi] widened to whole decades (10^floor, 10^ceil); needs 0 < lo <= hi.
std::pair<double, double> decade_range(double lo, double hi);
// [lo, hi] widened to multiples of a 1-2-5 step; a zero-width range is widened.
std::pair<double, double> nice_range(double lo, double hi);

struct Style {
  Style() = default;
  Style(std::string stroke_, double width_, std::string fill_ = "none", std::string dash_ = "", double opacity_ = 1)
      : stroke(std::move(stroke_)), width(width_), fill(std::move(fill_)), dash(std::move(dash_)), opacity(opacity_) {}

  std::string stroke = "#333";
  double width = 1.5;
  std::string fill = "none";
  std::string dash;     // stroke-dasharray, e.g. "4 3"
  double opacity = 1;
};

enum class Anchor { start, middle, end };

class Canvas {
 public:
  Canvas(double width, double height, std::string title);

  void line(double x1, double y1, double x2, double y2, const Style& style);
  void polyline(const std::vector<std::pair<double, double>>& points, const Style& style);
  void rect(double x, double y, double w, double h, const Style& style);
  void circle(double cx, double cy, double r, const Style& style);
  void diamond(double cx, double cy, double r, const Style& style);
  // A line with a filled head at (x2, y2).
  void arrow(double x1, double y1, double x2, double y2, const Style& style);
  void text(double x, double y, std::string_view content, Anchor anchor = Anchor::start, double size = 12,
            std::string_view fill = "#222", double rotate_deg = 0, bool bold = false);

  // The whole <svg> element, with a <title> for screen readers.
  std::string str() const;
  // Elements refused because a coordinate was NaN or infinite.
  int dropped() const { return dropped_; }
  double width() const { return width_; }
  double height() const { return height_; }

 private:
  bool finite(std::initializer_list<double> values);
  double width_, height_;
  std::string title_;
  std::string body_;
  int dropped_ = 0;
};

// A plot area inside a canvas, with its two scales.
struct Frame {
  double left = 0, top = 0, right = 0, bottom = 0;  // plot area in pixels
  Scale x, y;
};

// Formats tick values (default tick_label).
using TickFormat = std::string (*)(double);
// Ticks of a time axis in seconds, in the unit its largest value reads best
// in: "1.5 s", "20 ms", "3 us", "500 ns".
TickFormat time_format(double largest);

// Draws grid lines, ticks, tick labels and axis titles of a frame.
// `x_label`/`y_label` format tick values (default tick_label).
void draw_axes(Canvas& canvas, const Frame& frame, std::string_view x_title, std::string_view y_title,
               TickFormat x_label = nullptr, TickFormat y_label = nullptr);

// Histogram counts of values in [lo, hi] split into `bins` equal bins; values
// outside are clamped into the end bins so that no sample is lost.
std::vector<int> histogram_counts(const std::vector<double>& values, double lo, double hi, int bins);

// ---- Generic charts on plain data -------------------------------------------

struct Marker {
  std::string label;  // "p95"
  double x = 0;
};

struct HistogramSpec {
  std::string title;
  std::vector<double> values;
  std::vector<double> baseline;  // drawn as an outline when present
  std::string baseline_label = "baseline";
  std::string values_label = "this run";
  std::vector<Marker> markers;   // vertical lines (p50, p95, p99)
  std::optional<std::pair<double, double>> range;  // shared x range across panels
  int bins = 0;                  // 0: chosen from the sample count
  std::string x_title = "value";
  TickFormat x_format = nullptr;
  double width = 460, height = 300;
};
std::string histogram_chart(const HistogramSpec& spec);

// Where a histogram's bins land, in pixels, computed apart from drawing so
// that tests check the geometry (e.g. that the data fills the axis).
struct HistogramLayout {
  Frame frame;
  double lo = 0, hi = 0;  // the x range drawn (spec.range or the data's, widened to 1-2-5 steps)
  struct Bin {
    double x0 = 0, x1 = 0;  // pixels
    int count = 0;
    int baseline = 0;       // the baseline's count in the same bin (0 without one)
  };
  std::vector<Bin> bins;  // empty: no finite value to draw
  int top = 1;            // the highest count of either
};
HistogramLayout layout_histogram(const HistogramSpec& spec);

struct Bar {
  std::string label;
  std::optional<double> value;
  std::optional<double> baseline;
};
struct BarSpec {
  std::string title;
  std::vector<Bar> bars;
  std::string y_title;
  std::string baseline_label = "baseline";
  std::string values_label = "this run";
  double width = 460, height = 300;
};
// Vertical bars per category (e.g. bytes per transaction).
std::string bar_chart(const BarSpec& spec);

// A span of a line chart's x axis marked in a lane above the plot (one
// iteration of the workload); `lane` indexes LineSpec::lanes.
struct MarkSpan {
  double x0 = 0, x1 = 0;
  std::size_t lane = 0;
};
struct MarkLane {
  std::string label;  // written beside the lane, in its colour: the lane's legend
  std::string colour;
};

struct LineSpec {
  std::string title;
  std::vector<double> ys;        // one value per step
  std::vector<double> baseline;  // drawn dashed when present
  // The x of each step, this run's and the baseline's alike (a time axis);
  // empty: the step's index.
  std::vector<double> xs;
  std::optional<std::pair<double, double>> x_range;  // default: the steps' first to last x
  std::string x_title = "window";
  TickFormat x_format = nullptr;
  std::string y_title;
  std::optional<std::pair<double, double>> y_range;
  TickFormat y_format = nullptr;
  std::vector<MarkLane> lanes;  // each a band between the title and the plot
  std::vector<MarkSpan> marks;  // clipped to the x range; those a pixel apart or less merge
  double width = 460, height = 300;
};
// A line over steps (utilisation timeline, power trace), with marked spans
// of its x axis in lanes above it.
std::string line_chart(const LineSpec& spec);

// A lane's marks as drawn: [x0, x1] in pixels, in order, at least a pixel
// wide; marks closer than a pixel drawn as one.
std::vector<std::pair<double, double>> mark_pixels(const std::vector<MarkSpan>& marks, std::size_t lane,
                                                   const Scale& x);

struct PairedRow {
  std::string label;
  std::optional<double> baseline;
  std::optional<double> value;
  std::string baseline_text;  // formatted values shown beside the bars
  std::string value_text;
};
struct PairedSpec {
  std::string title;
  std::vector<PairedRow> rows;
  std::string baseline_label = "baseline";
  std::string values_label = "this run";
  double width = 720;
};
// One row per item (counter), baseline and new bars scaled to the row's
// larger value, so counters of very different size stay readable.
std::string paired_bars(const PairedSpec& spec);

struct LayerBar {
  std::string label;
  std::optional<double> value;       // +inf is drawn as a full bar
  std::optional<double> threshold;   // this row's bound (thresholds differ by layer pattern)
  std::string value_text;            // shown beside the bar ("0.9937", "+inf", "unavailable: ...")
};
struct LayerBarSpec {
  std::string title;
  std::vector<LayerBar> rows;  // in the order given (worst first)
  std::string x_title;
  double width = 720;
};
// One horizontal bar per layer on a shared linear axis, the row's threshold
// as a dashed tick; a bar below its threshold is drawn in the alarm colour.
std::string layer_bars(const LayerBarSpec& spec);

}  // namespace harness::svg
