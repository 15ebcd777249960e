#include "reports/svg.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>

namespace harness::svg {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kRunColour = "#1f6fb2";
constexpr const char* kBaselineColour = "#8c8c8c";

// Coordinates are written with two decimals: enough for a screen, and
// stable text for tests.
//
// "{:.2f}" is the correctly rounded value; most coordinates take a shortcut
// to the same text: v * 100 is off the exact value by less than 1e-4 below
// 1e12, so when its fraction is not within 1e-3 of one half, rounding it to
// the nearest integer rounds the exact value the same way (fmt writes the
// rest, ties and near-ties included).
void append_num(std::string& out, double v) {
  if (std::fabs(v) < 0.005) v = 0;  // no "-0.00"
  const double scaled = std::fabs(v * 100);
  if (scaled < 1e12) {
    const double whole = std::floor(scaled);
    const double frac = scaled - whole;  // exact
    if (std::fabs(frac - 0.5) > 1e-3) {
      const long long cents = static_cast<long long>(whole) + (frac > 0.5 ? 1 : 0);
      char text[32];
      char* end = text;
      if (v < 0) *end++ = '-';  // cents >= 1 here: |v| >= 0.005
      end = std::to_chars(end, text + sizeof text - 3, cents / 100).ptr;
      *end++ = '.';
      *end++ = static_cast<char>('0' + cents % 100 / 10);
      *end++ = static_cast<char>('0' + cents % 10);
      out.append(text, end);
      return;
    }
  }
  fmt::format_to(std::back_inserter(out), "{:.2f}", v);
}

std::string num(double v) {
  std::string out;
  append_num(out, v);
  return out;
}

// The elements below are appended piece by piece, not through a format:
// `harness publish` draws the axes and marks of 4,000 charts, and formatting
// each line and label was a tenth of a publish after one more night. The text
// is the same as the format's (SvgCanvas.* and the golden reports pin it).
void append_style(std::string& out, const Style& s) {
  out += R"( stroke=")";
  out += s.stroke;
  out += R"(" stroke-width=")";
  append_num(out, s.width);
  out += R"(" fill=")";
  out += s.fill;
  out += '"';
  if (!s.dash.empty()) {
    out += R"( stroke-dasharray=")";
    out += s.dash;
    out += '"';
  }
  if (s.opacity < 1) {
    out += R"( opacity=")";
    append_num(out, s.opacity);
    out += '"';
  }
}

std::string style_attrs(const Style& s) {
  std::string out;
  append_style(out, s);
  return out;
}

std::string_view anchor_name(Anchor a) {
  switch (a) {
    case Anchor::start: return "start";
    case Anchor::middle: return "middle";
    case Anchor::end: return "end";
  }
  return "start";
}

double nice_step(double span, int target) {
  double raw = span / target;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

void legend(Canvas& c, double x, double y, const std::string& run_label, const std::string* baseline_label) {
  c.rect(x, y - 9, 12, 10, {kRunColour, 1, kRunColour});
  c.text(x + 16, y, run_label, Anchor::start, 11);
  if (baseline_label) {
    double bx = x + 24 + 7 * static_cast<double>(run_label.size());
    c.rect(bx, y - 9, 12, 10, {kBaselineColour, 1.5, "none"});
    c.text(bx + 16, y, *baseline_label, Anchor::start, 11);
  }
}

}  // namespace

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += ch;
    }
  }
  return out;
}

namespace {
std::string ticks_s(double v) { return fmt::format("{:g} s", std::round(v * 1e4) / 1e4); }
std::string ticks_ms(double v) { return fmt::format("{:g} ms", std::round(v * 1e7) / 1e4); }
std::string ticks_us(double v) { return fmt::format("{:g} us", std::round(v * 1e10) / 1e4); }
std::string ticks_ns(double v) { return fmt::format("{:g} ns", std::round(v * 1e13) / 1e4); }
}  // namespace

TickFormat time_format(double largest) {
  if (largest >= 1) return &ticks_s;
  if (largest >= 1e-3) return &ticks_ms;
  if (largest >= 1e-6) return &ticks_us;
  return &ticks_ns;
}

std::string tick_label(double v) {
  if (!std::isfinite(v)) return "";
  double a = std::fabs(v);
  if (a == 0) return "0";
  static constexpr std::pair<double, const char*> kPrefixes[] = {
      {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (auto [scale, prefix] : kPrefixes) {
    if (a >= scale) return fmt::format("{:g}{}", std::round(v / scale * 1000) / 1000, prefix);
  }
  if (a >= 1) return fmt::format("{:g}", std::round(v * 1000) / 1000);
  return fmt::format("{:.3g}", v);
}

Scale Scale::linear(double lo, double hi, double px_lo, double px_hi) {
  Scale s;
  s.lo_ = lo;
  s.hi_ = hi > lo ? hi : lo + 1;
  s.px_lo_ = px_lo;
  s.px_hi_ = px_hi;
  return s;
}

Scale Scale::log10(double lo, double hi, double px_lo, double px_hi) {
  Scale s;
  s.log_ = true;
  s.lo_ = lo > 0 ? lo : 1e-3;
  s.hi_ = hi > s.lo_ ? hi : s.lo_ * 10;
  s.px_lo_ = px_lo;
  s.px_hi_ = px_hi;
  return s;
}

double Scale::px(double v) const {
  if (!std::isfinite(v)) return kNaN;
  double t;
  if (log_) {
    if (v <= 0) return kNaN;
    t = (std::log10(v) - std::log10(lo_)) / (std::log10(hi_) - std::log10(lo_));
  } else {
    t = (v - lo_) / (hi_ - lo_);
  }
  return px_lo_ + t * (px_hi_ - px_lo_);
}

bool Scale::contains(double v) const {
  if (!std::isfinite(v)) return false;
  double tol = log_ ? 1e-9 * lo_ : 1e-9 * (hi_ - lo_);
  return v >= lo_ - tol && v <= hi_ + std::fabs(hi_) * 1e-9 + tol;
}

std::vector<double> Scale::ticks() const {
  std::vector<double> out;
  if (log_) {
    int first = static_cast<int>(std::ceil(std::log10(lo_) - 1e-9));
    int last = static_cast<int>(std::floor(std::log10(hi_) + 1e-9));
    bool fine = last - first <= 2;
    // At most about ten labelled decades, so that labels never overlap.
    int every = std::max(1, (last - first + 9) / 10);
    for (int e = first - 1; e <= last; ++e) {
      if ((e - first) % every != 0) continue;
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1 && !fine) continue;
        double v = m * std::pow(10.0, e);
        if (contains(v)) out.push_back(v);
      }
    }
    return out;
  }
  double step = nice_step(hi_ - lo_, 6);
  // Counted from the first tick, at most a few dozen: a range far narrower
  // than its values (a series of one value, widened by a hair) would make the
  // index so large that adding 1 no longer changes it.
  const double first = std::ceil(lo_ / step - 1e-9);
  for (int k = 0; k < 64 && (first + k) * step <= hi_ + step * 1e-9; ++k) {
    // Rounded to 12 digits so that 3 x 0.2 is the 0.6 a reader expects.
    const double v = std::stod(fmt::format("{:.12g}", (first + k) * step)) + 0.0;  // + 0.0: no "-0" label
    if (out.empty() || v != out.back()) out.push_back(v);
  }
  return out;
}

std::pair<double, double> decade_range(double lo, double hi) {
  return {std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi)))};
}

std::pair<double, double> nice_range(double lo, double hi) {
  if (!(hi > lo)) {
    double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  double step = nice_step(hi - lo, 6);
  return {std::floor(lo / step) * step, std::ceil(hi / step) * step};
}

Canvas::Canvas(double width, double height, std::string title)
    : width_(width), height_(height), title_(std::move(title)) {}

bool Canvas::finite(std::initializer_list<double> values) {
  for (double v : values) {
    if (!std::isfinite(v)) {
      ++dropped_;
      return false;
    }
  }
  return true;
}

void Canvas::line(double x1, double y1, double x2, double y2, const Style& s) {
  if (!finite({x1, y1, x2, y2})) return;
  body_ += R"(<line x1=")";
  append_num(body_, x1);
  body_ += R"(" y1=")";
  append_num(body_, y1);
  body_ += R"(" x2=")";
  append_num(body_, x2);
  body_ += R"(" y2=")";
  append_num(body_, y2);
  body_ += '"';
  append_style(body_, s);
  body_ += "/>\n";
}

void Canvas::polyline(const std::vector<std::pair<double, double>>& points, const Style& s) {
  std::string pts;
  pts.reserve(points.size() * 14);
  for (auto [x, y] : points) {
    if (!finite({x, y})) return;
    if (!pts.empty()) pts += ' ';
    append_num(pts, x);
    pts += ',';
    append_num(pts, y);
  }
  if (pts.empty()) return;
  body_ += R"(<polyline points=")";
  body_ += pts;
  body_ += '"';
  append_style(body_, s);
  body_ += "/>\n";
}

void Canvas::rect(double x, double y, double w, double h, const Style& s) {
  if (!finite({x, y, w, h})) return;
  if (w < 0) { x += w; w = -w; }
  if (h < 0) { y += h; h = -h; }
  body_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}"{}/>)", num(x), num(y), num(w), num(h),
                       style_attrs(s)) + "\n";
}

void Canvas::circle(double cx, double cy, double r, const Style& s) {
  if (!finite({cx, cy, r})) return;
  body_ += fmt::format(R"(<circle cx="{}" cy="{}" r="{}"{}/>)", num(cx), num(cy), num(r), style_attrs(s)) + "\n";
}

void Canvas::diamond(double cx, double cy, double r, const Style& s) {
  if (!finite({cx, cy, r})) return;
  body_ += fmt::format(R"(<polygon points="{},{} {},{} {},{} {},{}"{}/>)", num(cx), num(cy - r), num(cx + r),
                       num(cy), num(cx), num(cy + r), num(cx - r), num(cy), style_attrs(s)) + "\n";
}

void Canvas::arrow(double x1, double y1, double x2, double y2, const Style& s) {
  if (!finite({x1, y1, x2, y2})) return;
  double dx = x2 - x1, dy = y2 - y1, len = std::hypot(dx, dy);
  if (len < 1) return;  // the point did not move: nothing to point at
  double ux = dx / len, uy = dy / len, head = std::min(10.0, len * 0.5);
  // The shaft stops at the head's base so the tip stays sharp.
  line(x1, y1, x2 - ux * head, y2 - uy * head, s);
  double bx = x2 - ux * head, by = y2 - uy * head, w = head * 0.45;
  body_ += fmt::format(R"(<polygon points="{},{} {},{} {},{}" fill="{}" stroke="none"/>)", num(x2), num(y2),
                       num(bx - uy * w), num(by + ux * w), num(bx + uy * w), num(by - ux * w), s.stroke) + "\n";
}

void Canvas::text(double x, double y, std::string_view content, Anchor anchor, double size, std::string_view fill,
                  double rotate_deg, bool bold) {
  if (!finite({x, y, rotate_deg})) return;
  body_ += R"(<text x=")";
  append_num(body_, x);
  body_ += R"(" y=")";
  append_num(body_, y);
  body_ += R"(" text-anchor=")";
  body_ += anchor_name(anchor);
  body_ += R"(" font-size=")";
  append_num(body_, size);
  body_ += R"(" fill=")";
  body_ += fill;
  body_ += '"';
  if (rotate_deg != 0) {
    body_ += R"x( transform="rotate()x";
    append_num(body_, rotate_deg);
    body_ += ' ';
    append_num(body_, x);
    body_ += ' ';
    append_num(body_, y);
    body_ += R"x()")x";
  }
  if (bold) body_ += R"( font-weight="bold")";
  body_ += '>';
  body_ += escape_xml(content);
  body_ += "</text>\n";
}

std::string Canvas::str() const {
  return fmt::format(
             R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" )"
             R"(font-family="Helvetica, Arial, sans-serif" role="img">)",
             num(width_), num(height_), num(width_), num(height_)) +
         "\n<title>" + escape_xml(title_) + "</title>\n" + body_ + "</svg>\n";
}

void draw_axes(Canvas& c, const Frame& f, std::string_view x_title, std::string_view y_title, TickFormat x_label,
               TickFormat y_label) {
  if (!x_label) x_label = &tick_label;
  if (!y_label) y_label = &tick_label;
  const Style grid{"#e3e3e3", 1};
  const Style minor{"#f0f0f0", 1};
  const Style axis{"#444", 1};
  for (double v : f.x.ticks()) {
    double px = f.x.px(v);
    bool major = !f.x.is_log() || std::fabs(std::log10(v) - std::round(std::log10(v))) < 1e-9;
    c.line(px, f.top, px, f.bottom, major ? grid : minor);
    c.line(px, f.bottom, px, f.bottom + 5, axis);
    c.text(px, f.bottom + 18, x_label(v), Anchor::middle, 11, "#444");
  }
  for (double v : f.y.ticks()) {
    double py = f.y.px(v);
    bool major = !f.y.is_log() || std::fabs(std::log10(v) - std::round(std::log10(v))) < 1e-9;
    c.line(f.left, py, f.right, py, major ? grid : minor);
    c.line(f.left - 5, py, f.left, py, axis);
    c.text(f.left - 8, py + 4, y_label(v), Anchor::end, 11, "#444");
  }
  c.line(f.left, f.bottom, f.right, f.bottom, axis);
  c.line(f.left, f.top, f.left, f.bottom, axis);
  c.text((f.left + f.right) / 2, f.bottom + 38, x_title, Anchor::middle, 12, "#222");
  c.text(f.left - 52, (f.top + f.bottom) / 2, y_title, Anchor::middle, 12, "#222", -90);
}

std::vector<int> histogram_counts(const std::vector<double>& values, double lo, double hi, int bins) {
  std::vector<int> counts(static_cast<std::size_t>(std::max(bins, 1)), 0);
  double width = (hi - lo) / static_cast<double>(counts.size());
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    // Clamped as a double: a far outlier must not overflow the integer cast.
    double i = width > 0 ? std::floor((v - lo) / width) : 0;
    i = std::clamp(i, 0.0, static_cast<double>(counts.size() - 1));
    ++counts[static_cast<std::size_t>(i)];
  }
  return counts;
}

namespace {

std::vector<double> finite_only(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v)
    if (std::isfinite(x)) out.push_back(x);
  return out;
}

Frame frame_for(double width, double height) {
  Frame f;
  f.left = 70;
  f.top = 34;
  f.right = width - 16;
  f.bottom = height - 60;
  return f;
}

}  // namespace

HistogramLayout layout_histogram(const HistogramSpec& spec) {
  HistogramLayout L;
  std::vector<double> values = finite_only(spec.values), baseline = finite_only(spec.baseline);
  L.frame = frame_for(spec.width, spec.height);
  if (values.empty()) return L;
  double lo, hi;
  if (spec.range) {
    std::tie(lo, hi) = *spec.range;
  } else {
    auto [a, b] = std::minmax_element(values.begin(), values.end());
    lo = *a;
    hi = *b;
    for (double v : baseline) { lo = std::min(lo, v); hi = std::max(hi, v); }
  }
  std::tie(lo, hi) = nice_range(lo, hi);
  L.lo = lo;
  L.hi = hi;
  int bins = spec.bins > 0 ? spec.bins
                           : std::clamp(static_cast<int>(std::ceil(std::sqrt(static_cast<double>(values.size())))), 5, 50);
  std::vector<int> counts = histogram_counts(values, lo, hi, bins);
  std::vector<int> base_counts;
  if (!baseline.empty()) base_counts = histogram_counts(baseline, lo, hi, bins);
  for (int n : counts) L.top = std::max(L.top, n);
  for (int n : base_counts) L.top = std::max(L.top, n);
  Frame& f = L.frame;
  f.x = Scale::linear(lo, hi, f.left, f.right);
  auto [ylo, yhi] = nice_range(0, L.top * 1.15);
  f.y = Scale::linear(ylo, yhi, f.bottom, f.top);
  const double bw = (hi - lo) / bins;
  for (int i = 0; i < bins; ++i) {
    HistogramLayout::Bin b;
    b.x0 = f.x.px(lo + i * bw);
    b.x1 = f.x.px(lo + (i + 1) * bw);
    b.count = counts[static_cast<std::size_t>(i)];
    b.baseline = base_counts.empty() ? 0 : base_counts[static_cast<std::size_t>(i)];
    L.bins.push_back(b);
  }
  return L;
}

std::string histogram_chart(const HistogramSpec& spec) {
  Canvas c(spec.width, spec.height, spec.title);
  c.text(spec.width / 2, 18, spec.title, Anchor::middle, 13, "#222", 0, true);
  const HistogramLayout L = layout_histogram(spec);
  if (L.bins.empty()) {
    c.text(spec.width / 2, spec.height / 2, "no samples", Anchor::middle, 12, "#a00");
    return c.str();
  }
  const Frame& f = L.frame;
  draw_axes(c, f, spec.x_title, "count", spec.x_format, nullptr);
  for (const HistogramLayout::Bin& b : L.bins) {
    if (b.count == 0) continue;
    c.rect(b.x0 + 0.5, f.y.px(b.count), std::max(b.x1 - b.x0 - 1, 1.0), f.bottom - f.y.px(b.count),
           {kRunColour, 0, kRunColour, "", 0.75});
  }
  if (!finite_only(spec.baseline).empty()) {
    std::vector<std::pair<double, double>> outline;
    for (const HistogramLayout::Bin& b : L.bins) {
      double y = f.y.px(b.baseline);
      outline.push_back({b.x0, y});
      outline.push_back({b.x1, y});
    }
    c.polyline(outline, {kBaselineColour, 1.5});
  }
  double label_y = f.top + 12;
  for (const Marker& m : spec.markers) {
    if (!f.x.contains(m.x)) continue;
    double px = f.x.px(m.x);
    c.line(px, f.top, px, f.bottom, {"#c0392b", 1.2, "none", "4 3"});
    std::string fmt_x = spec.x_format ? spec.x_format(m.x) : tick_label(m.x);
    c.text(px + 3, label_y, m.label + " " + fmt_x, Anchor::start, 11, "#c0392b");
    label_y += 13;
  }
  std::string base = spec.baseline_label;
  legend(c, f.left, spec.height - 5, spec.values_label, finite_only(spec.baseline).empty() ? nullptr : &base);
  return c.str();
}

std::string bar_chart(const BarSpec& spec) {
  Canvas c(spec.width, spec.height, spec.title);
  c.text(spec.width / 2, 18, spec.title, Anchor::middle, 13, "#222", 0, true);
  double top = 0;
  bool any_baseline = false;
  for (const Bar& b : spec.bars) {
    if (b.value && std::isfinite(*b.value)) top = std::max(top, *b.value);
    if (b.baseline && std::isfinite(*b.baseline)) { top = std::max(top, *b.baseline); any_baseline = true; }
  }
  if (spec.bars.empty() || top <= 0) {
    c.text(spec.width / 2, spec.height / 2, "no data", Anchor::middle, 12, "#a00");
    return c.str();
  }
  Frame f = frame_for(spec.width, spec.height);
  auto [ylo, yhi] = nice_range(0, top * 1.1);
  f.y = Scale::linear(ylo, yhi, f.bottom, f.top);
  f.x = Scale::linear(0, 1, f.left, f.right);
  // Category axis: no x ticks from the scale, labels under each group.
  for (double v : f.y.ticks()) {
    double py = f.y.px(v);
    c.line(f.left, py, f.right, py, {"#e3e3e3", 1});
    c.text(f.left - 8, py + 4, tick_label(v), Anchor::end, 11, "#444");
  }
  c.line(f.left, f.bottom, f.right, f.bottom, {"#444", 1});
  c.line(f.left, f.top, f.left, f.bottom, {"#444", 1});
  c.text(f.left - 52, (f.top + f.bottom) / 2, spec.y_title, Anchor::middle, 12, "#222", -90);
  double group = (f.right - f.left) / static_cast<double>(spec.bars.size());
  double bar = any_baseline ? group * 0.38 : group * 0.7;
  for (std::size_t i = 0; i < spec.bars.size(); ++i) {
    const Bar& b = spec.bars[i];
    double gx = f.left + group * static_cast<double>(i) + group * 0.15;
    if (any_baseline && b.baseline && std::isfinite(*b.baseline)) {
      c.rect(gx, f.y.px(*b.baseline), bar, f.bottom - f.y.px(*b.baseline), {kBaselineColour, 1.5, "#ececec"});
    }
    double vx = any_baseline ? gx + bar : gx;
    if (b.value && std::isfinite(*b.value)) {
      c.rect(vx, f.y.px(*b.value), bar, f.bottom - f.y.px(*b.value), {kRunColour, 0, kRunColour, "", 0.8});
    } else {
      c.text(vx + bar / 2, f.bottom - 4, "n/a", Anchor::middle, 10, "#a00");
    }
    c.text(f.left + group * (static_cast<double>(i) + 0.5), f.bottom + 16, b.label, Anchor::middle, 11, "#444");
  }
  std::string base = spec.baseline_label;
  legend(c, f.left, spec.height - 5, spec.values_label, any_baseline ? &base : nullptr);
  return c.str();
}

std::vector<std::pair<double, double>> mark_pixels(const std::vector<MarkSpan>& marks, std::size_t lane,
                                                   const Scale& x) {
  const double lo = std::min(x.lo(), x.hi()), hi = std::max(x.lo(), x.hi());
  std::vector<std::pair<double, double>> px;
  for (const MarkSpan& m : marks) {
    if (m.lane != lane || !std::isfinite(m.x0) || !std::isfinite(m.x1) || m.x1 < lo || m.x0 > hi) continue;
    px.push_back({x.px(std::max(m.x0, lo)), x.px(std::min(m.x1, hi))});
  }
  std::sort(px.begin(), px.end());
  std::vector<std::pair<double, double>> merged;
  for (auto [a, b] : px) {
    if (!merged.empty() && a <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, b);
    } else {
      merged.push_back({a, b});
    }
  }
  for (auto& [a, b] : merged) b = std::max(b, a + 1);
  return merged;
}

namespace {

constexpr double kLaneTop = 28, kLaneHeight = 6, kLaneStep = 9;

// A line of more points than twice the pixels across keeps, in each pixel
// column, its lowest and highest point in the order they come: the same
// drawing (a 7,000-reading power trace on 374 pixels) in a tenth of the text.
std::vector<std::pair<double, double>> thin_to_pixels(const std::vector<std::pair<double, double>>& pts, double width) {
  if (static_cast<double>(pts.size()) <= 2 * width) return pts;
  std::vector<std::pair<double, double>> out;
  for (std::size_t i = 0; i < pts.size();) {
    const double column = std::floor(pts[i].first);
    std::size_t lo = i, hi = i, j = i + 1;
    for (; j < pts.size() && std::floor(pts[j].first) == column; ++j) {
      if (pts[j].second < pts[lo].second) lo = j;
      if (pts[j].second > pts[hi].second) hi = j;
    }
    out.push_back(pts[std::min(lo, hi)]);
    if (lo != hi) out.push_back(pts[std::max(lo, hi)]);
    i = j;
  }
  return out;
}

void draw_lanes(Canvas& c, const Frame& f, const LineSpec& spec) {
  for (std::size_t k = 0; k < spec.lanes.size(); ++k) {
    const MarkLane& lane = spec.lanes[k];
    const double y = kLaneTop + kLaneStep * static_cast<double>(k);
    c.text(f.left - 6, y + kLaneHeight, lane.label, Anchor::end, 9, lane.colour);
    for (auto [a, b] : mark_pixels(spec.marks, k, f.x)) c.rect(a, y, b - a, kLaneHeight, {lane.colour, 0, lane.colour});
  }
}

}  // namespace

std::string line_chart(const LineSpec& spec) {
  Canvas c(spec.width, spec.height, spec.title);
  c.text(spec.width / 2, 18, spec.title, Anchor::middle, 13, "#222", 0, true);
  // (x, y) of each finite value; x the step's index without spec.xs.
  auto points = [&](const std::vector<double>& v) {
    std::vector<std::pair<double, double>> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double x = spec.xs.empty() ? static_cast<double>(i) : (i < spec.xs.size() ? spec.xs[i] : kNaN);
      if (std::isfinite(v[i]) && std::isfinite(x)) out.push_back({x, v[i]});
    }
    return out;
  };
  const auto ys = points(spec.ys), base = points(spec.baseline);
  if (ys.empty()) {
    c.text(spec.width / 2, spec.height / 2, "no samples", Anchor::middle, 12, "#a00");
    return c.str();
  }
  double lo, hi;
  if (spec.y_range) {
    std::tie(lo, hi) = *spec.y_range;
  } else {
    lo = 0, hi = ys.front().second;
    for (const auto& [x, y] : ys) lo = std::min(lo, y), hi = std::max(hi, y);
    for (const auto& [x, y] : base) hi = std::max(hi, y);
    std::tie(lo, hi) = nice_range(lo, hi);
  }
  double x_lo = ys.front().first, x_hi = x_lo;
  for (const auto* line : {&ys, &base})
    for (const auto& [x, y] : *line) x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
  if (spec.x_range) std::tie(x_lo, x_hi) = *spec.x_range;
  if (!(x_hi > x_lo)) x_hi = x_lo + 1;
  Frame f = frame_for(spec.width, spec.height);
  if (!spec.lanes.empty()) f.top = kLaneTop + kLaneStep * static_cast<double>(spec.lanes.size()) + 4;
  f.x = Scale::linear(x_lo, x_hi, f.left, f.right);
  f.y = Scale::linear(lo, hi, f.bottom, f.top);
  draw_axes(c, f, spec.x_title, spec.y_title, spec.x_format, spec.y_format);
  draw_lanes(c, f, spec);
  auto trace = [&](const std::vector<std::pair<double, double>>& v, const Style& s) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& [x, y] : v) pts.push_back({f.x.px(x), f.y.px(y)});
    c.polyline(thin_to_pixels(pts, f.right - f.left), s);
  };
  if (!base.empty()) trace(base, {kBaselineColour, 1.5, "none", "5 3"});
  trace(ys, {kRunColour, 1.8});
  std::string base_label = "baseline";
  legend(c, f.left, spec.height - 5, "this run", base.empty() ? nullptr : &base_label);
  return c.str();
}

std::string layer_bars(const LayerBarSpec& spec) {
  const double row_h = 20, top = 34, label_w = 170, text_w = 110, axis_h = 44;
  const double height = top + row_h * static_cast<double>(spec.rows.size()) + axis_h;
  Canvas c(spec.width, height, spec.title);
  c.text(spec.width / 2, 18, spec.title, Anchor::middle, 13, "#222", 0, true);
  // The axis spans the finite values and thresholds (+inf rows are drawn full).
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const LayerBar& r : spec.rows)
    for (const std::optional<double>& v : {r.value, r.threshold})
      if (v && std::isfinite(*v)) lo = std::min(lo, *v), hi = std::max(hi, *v);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  auto [a, b] = nice_range(lo, hi);
  Frame f;
  f.left = label_w;
  f.right = spec.width - text_w;
  f.top = top;
  f.bottom = top + row_h * static_cast<double>(spec.rows.size());
  f.x = Scale::linear(a, b, f.left, f.right);
  f.y = Scale::linear(0, 1, f.bottom, f.top);
  for (double t : f.x.ticks()) {
    c.line(f.x.px(t), f.top, f.x.px(t), f.bottom, {"#e4e4e4", 1});
    c.text(f.x.px(t), f.bottom + 14, tick_label(t), Anchor::middle, 10, "#444");
  }
  c.text((f.left + f.right) / 2, f.bottom + 34, spec.x_title, Anchor::middle, 11, "#222");
  for (std::size_t i = 0; i < spec.rows.size(); ++i) {
    const LayerBar& r = spec.rows[i];
    const double y = top + row_h * static_cast<double>(i);
    c.text(label_w - 6, y + 14, r.label, Anchor::end, 11, "#222");
    if (!r.value) {
      c.text(label_w + 4, y + 14, r.value_text.empty() ? "unavailable" : r.value_text, Anchor::start, 10, "#a00");
      continue;
    }
    const bool below = r.threshold && *r.value < *r.threshold;
    const double x = std::isinf(*r.value) ? (*r.value > 0 ? f.right : f.left) : f.x.px(*r.value);
    const std::string colour = below ? "#c0392b" : kRunColour;
    c.rect(f.left, y + 4, std::max(x - f.left, 1.0), row_h - 8, {colour, 0, colour, "", 0.85});
    c.text(f.right + 6, y + 14, r.value_text, Anchor::start, 10, below ? "#a00" : "#444");
    if (r.threshold) c.line(f.x.px(*r.threshold), y + 1, f.x.px(*r.threshold), y + row_h - 1, {"#222", 1.5, "none", "3 2"});
  }
  c.text(f.right, f.top - 6, "dashed: threshold", Anchor::end, 10, "#444");
  return c.str();
}

std::string paired_bars(const PairedSpec& spec) {
  const double row_h = 34, top = 40, label_w = 230, text_w = 190;
  const double height = top + row_h * static_cast<double>(spec.rows.size()) + 20;
  Canvas c(spec.width, height, spec.title);
  c.text(spec.width / 2, 18, spec.title, Anchor::middle, 13, "#222", 0, true);
  bool any_baseline = false;
  for (const PairedRow& r : spec.rows) any_baseline = any_baseline || r.baseline.has_value();
  std::string base = spec.baseline_label;
  legend(c, label_w, 34, spec.values_label, any_baseline ? &base : nullptr);
  const double bar_max = spec.width - label_w - text_w - 10;
  for (std::size_t i = 0; i < spec.rows.size(); ++i) {
    const PairedRow& r = spec.rows[i];
    double y = top + 8 + row_h * static_cast<double>(i);
    c.text(label_w - 8, y + 16, r.label, Anchor::end, 11, "#222");
    double scale = 0;
    for (const std::optional<double>& v : {r.baseline, r.value})
      if (v && std::isfinite(*v)) scale = std::max(scale, std::fabs(*v));
    auto bar = [&](const std::optional<double>& v, double by, const Style& s, const std::string& text) {
      if (!v || !std::isfinite(*v)) {
        c.text(label_w + 2, by + 10, text.empty() ? "unavailable" : text, Anchor::start, 10, "#a00");
        return;
      }
      double w = scale > 0 ? bar_max * std::fabs(*v) / scale : 0;
      c.rect(label_w, by, std::max(w, 1.0), 12, s);
      c.text(label_w + std::max(w, 1.0) + 6, by + 10, text, Anchor::start, 10, "#444");
    };
    if (any_baseline) {
      bar(r.baseline, y, {kBaselineColour, 1.2, "#ececec"}, r.baseline_text);
      bar(r.value, y + 14, {kRunColour, 0, kRunColour, "", 0.8}, r.value_text);
    } else {
      bar(r.value, y + 6, {kRunColour, 0, kRunColour, "", 0.8}, r.value_text);
    }
  }
  return c.str();
}

}  // namespace harness::svg
