#include "reports/roofline_chart.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/base/units.h"

namespace harness {
namespace {

bool usable(double v) { return std::isfinite(v) && v > 0; }

std::vector<RooflineCeiling> usable_ceilings(const std::vector<RooflineCeiling>& in) {
  std::vector<RooflineCeiling> out;
  for (const RooflineCeiling& c : in)
    if (usable(c.value)) out.push_back(c);
  return out;
}

std::string ops_label(double v) { return svg::tick_label(v); }

}  // namespace

RooflineLayout layout_roofline(const RooflineData& data, double width, double height) {
  RooflineLayout L;
  L.width = width;
  L.height = height;
  const std::vector<RooflineCeiling> compute = usable_ceilings(data.compute);
  const std::vector<RooflineCeiling> memory = usable_ceilings(data.memory);

  // The axes cover every point, every ridge and every roof, padded to whole decades.
  std::vector<double> xs, ys;
  for (const RooflinePoint& p : data.points) {
    bool ok = usable(p.intensity) && usable(p.achieved);
    if (!ok) {
      L.skipped.push_back(fmt::format("{}: intensity or achieved performance is not a positive number", p.label));
      continue;
    }
    xs.push_back(p.intensity);
    ys.push_back(p.achieved);
    if (p.baseline_intensity && p.baseline_achieved && usable(*p.baseline_intensity) && usable(*p.baseline_achieved)) {
      xs.push_back(*p.baseline_intensity);
      ys.push_back(*p.baseline_achieved);
    }
  }
  double top_roof = 0, fastest_memory = 0;
  for (const RooflineCeiling& c : compute) top_roof = std::max(top_roof, c.value);
  for (const RooflineCeiling& m : memory) fastest_memory = std::max(fastest_memory, m.value);
  for (const RooflineCeiling& c : compute) {
    ys.push_back(c.value);
    for (const RooflineCeiling& m : memory) xs.push_back(c.value / m.value);
  }
  if (compute.empty()) {
    // Without a roof the diagonals still need a y range to run in.
    for (const RooflineCeiling& m : memory) {
      for (double x : xs) ys.push_back(m.value * x);
    }
  }
  double xlo = 0.01, xhi = 1000, ylo = 1e6, yhi = 1e12;
  if (!xs.empty()) {
    auto [a, b] = std::minmax_element(xs.begin(), xs.end());
    std::tie(xlo, xhi) = svg::decade_range(*a / 3, *b * 3);
  }
  if (!ys.empty()) {
    auto [a, b] = std::minmax_element(ys.begin(), ys.end());
    // Two decades below the lowest figure leave room for the diagonals to rise.
    std::tie(ylo, yhi) = svg::decade_range(*a / 100, *b * 2);
  }
  if (xhi / xlo < 100) xhi = xlo * 100;
  if (yhi / ylo < 100) ylo = yhi / 100;

  svg::Frame& f = L.frame;
  f.left = 78;
  f.top = 36;
  f.right = width - 150;  // room for the ceiling labels
  f.bottom = height - 62;
  f.x = svg::Scale::log10(xlo, xhi, f.left, f.right);
  f.y = svg::Scale::log10(ylo, yhi, f.bottom, f.top);

  for (const RooflineCeiling& m : memory) {
    // y = B x, clipped to the frame and ending at the highest roof.
    double x1 = std::max(xlo, ylo / m.value);
    double roof = compute.empty() ? yhi : top_roof;
    double x2 = std::min(xhi, roof / m.value);
    if (x2 <= x1) continue;
    L.memory.push_back({m.name, f.x.px(x1), f.y.px(m.value * x1), f.x.px(x2), f.y.px(m.value * x2)});
  }
  for (const RooflineCeiling& c : compute) {
    double x1 = memory.empty() ? xlo : std::max(xlo, c.value / fastest_memory);
    L.compute.push_back({c.name, f.x.px(x1), f.y.px(c.value), f.x.px(xhi), f.y.px(c.value)});
  }
  for (const RooflineCeiling& c : compute) {
    for (const RooflineCeiling& m : memory) {
      double ridge = c.value / m.value;
      L.ridges.push_back({c.name + "/" + m.name, ridge, c.value, f.x.px(ridge), f.y.px(c.value)});
    }
  }
  for (const RooflinePoint& p : data.points) {
    if (!usable(p.intensity) || !usable(p.achieved)) continue;
    RooflineLayout::Placed placed{p.label, f.x.px(p.intensity), f.y.px(p.achieved), std::nullopt, std::nullopt,
                                  p.predicted};
    if (p.baseline_intensity && p.baseline_achieved && usable(*p.baseline_intensity) && usable(*p.baseline_achieved)) {
      placed.baseline_x = f.x.px(*p.baseline_intensity);
      placed.baseline_y = f.y.px(*p.baseline_achieved);
    }
    L.points.push_back(placed);
  }
  return L;
}

std::string render_roofline(const RooflineData& data, double width, double height) {
  RooflineLayout L = layout_roofline(data, width, height);
  const svg::Frame& f = L.frame;
  svg::Canvas c(width, height, "Roofline: achieved performance against arithmetic intensity");
  c.text(width / 2, 20, "Roofline", svg::Anchor::middle, 14, "#222", 0, true);
  svg::draw_axes(c, f, "arithmetic intensity (op/B)", "performance (op/s)", &ops_label, &ops_label);

  const std::vector<RooflineCeiling> compute = usable_ceilings(data.compute);
  const std::vector<RooflineCeiling> memory = usable_ceilings(data.memory);
  for (std::size_t i = 0; i < L.memory.size(); ++i) {
    const auto& s = L.memory[i];
    c.line(s.x1, s.y1, s.x2, s.y2, {"#2e7d32", 2.2});
    // Label along the diagonal, rotated to its on-screen slope.
    double angle = std::atan2(s.y2 - s.y1, s.x2 - s.x1) * 180 / M_PI;
    double t = 0.62 - 0.12 * static_cast<double>(i);  // clear of the low-intensity points
    double lx = s.x1 + (s.x2 - s.x1) * t, ly = s.y1 + (s.y2 - s.y1) * t;
    const RooflineCeiling* m = nullptr;
    for (const RooflineCeiling& x : memory)
      if (x.name == s.label) m = &x;
    std::string text = m ? fmt::format("{} {}", s.label, format_quantity(m->value, "B/s")) : s.label;
    c.text(lx, ly - 6, text, svg::Anchor::middle, 11, "#2e7d32", angle);
  }
  for (const auto& s : L.compute) {
    c.line(s.x1, s.y1, s.x2, s.y2, {"#b26a00", 2.2});
    const RooflineCeiling* p = nullptr;
    for (const RooflineCeiling& x : compute)
      if (x.name == s.label) p = &x;
    std::string text = p ? fmt::format("{} {}", s.label, format_quantity(p->value, "op/s")) : s.label;
    c.text(s.x2 + 4, s.y2 + 4, text, svg::Anchor::start, 11, "#b26a00");
  }
  for (const auto& r : L.ridges) {
    if (!f.x.contains(r.intensity) || !f.y.contains(r.performance)) continue;
    c.diamond(r.x, r.y, 5, {"#555", 1.2, "#fff"});
    c.text(r.x + 6, r.y + 16, fmt::format("ridge {} op/B", fmt::format("{:.3g}", r.intensity)),
           svg::Anchor::start, 10, "#555");
  }
  for (const auto& p : L.points) {
    if (p.baseline_x && p.baseline_y) {
      c.circle(*p.baseline_x, *p.baseline_y, 4, {"#8c8c8c", 1.5, "#fff"});
      c.arrow(*p.baseline_x, *p.baseline_y, p.x, p.y, {"#c0392b", 1.6});
    }
    c.circle(p.x, p.y, 5, {"#1f6fb2", 1.5, p.predicted ? "#fff" : "#1f6fb2"});
  }
  // Names beside a few points; numbers (keyed under the chart) for many layers.
  for (std::size_t i = 0; i < L.points.size(); ++i) {
    const auto& p = L.points[i];
    std::string label = L.points.size() <= kNamedPoints ? p.label : std::to_string(i + 1);
    if (p.predicted && L.points.size() <= kNamedPoints) label += " (predicted)";
    c.text(p.x + 8, p.y - 7, label, svg::Anchor::start, L.points.size() <= kNamedPoints ? 11 : 9, "#1f4f82");
  }
  double ly = height - 5;
  c.circle(f.left + 6, ly - 4, 4, {"#1f6fb2", 1.5, "#1f6fb2"});
  c.text(f.left + 14, ly, "this run", svg::Anchor::start, 11);
  bool any_baseline = false, any_predicted = false;
  for (const auto& p : L.points) {
    any_baseline = any_baseline || p.baseline_x.has_value();
    any_predicted = any_predicted || p.predicted;
  }
  double lx = f.left + 86;
  if (any_predicted) {
    c.circle(lx, ly - 4, 4, {"#1f6fb2", 1.5, "#fff"});
    c.text(lx + 8, ly, "predicted (attainable, no measured time)", svg::Anchor::start, 11);
    lx += 250;
  }
  if (any_baseline) {
    c.circle(lx, ly - 4, 4, {"#8c8c8c", 1.5, "#fff"});
    c.text(lx + 8, ly, "baseline (arrow: baseline to this run)", svg::Anchor::start, 11);
  }
  return c.str();
}

}  // namespace harness
