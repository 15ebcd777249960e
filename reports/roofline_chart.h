// The roofline chart: log-log axes (arithmetic intensity op/B against
// performance op/s), every memory ceiling a diagonal and every compute
// ceiling a horizontal, ridge points where they meet, one point per kernel
// or layer and, for a comparison, an arrow from the baseline's point.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/svg.h"

namespace harness {

struct RooflineCeiling {
  std::string name;  // "fp32", "dram"
  double value = 0;  // op/s for compute, B/s for memory
};

struct RooflinePoint {
  std::string label;     // kernel or layer name
  double intensity = 0;  // op/B
  double achieved = 0;   // op/s
  std::optional<double> baseline_intensity;
  std::optional<double> baseline_achieved;
  // No measured time: the point sits at its attainable performance (the
  // roofline's prediction), drawn hollow and labelled as predicted.
  bool predicted = false;
};

struct RooflineData {
  std::vector<RooflineCeiling> compute;
  std::vector<RooflineCeiling> memory;
  std::vector<RooflinePoint> points;
};

// Where everything lands, in pixels; computed apart from drawing so that the
// geometry can be tested.
struct RooflineLayout {
  double width = 0, height = 0;
  svg::Frame frame;
  struct Segment {
    std::string label;
    double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  };
  std::vector<Segment> memory;   // diagonals, from the left/bottom edge up to the highest roof
  std::vector<Segment> compute;  // horizontals, from the ridge with the fastest memory to the right edge
  struct Ridge {
    std::string label;  // "fp32/dram"
    double intensity = 0, performance = 0;
    double x = 0, y = 0;
  };
  std::vector<Ridge> ridges;
  struct Placed {
    std::string label;
    double x = 0, y = 0;
    std::optional<double> baseline_x, baseline_y;
    bool predicted = false;
  };
  std::vector<Placed> points;
  std::vector<std::string> skipped;  // points that could not be placed, with why
};

// Up to this many points are labelled with their names; beyond, with their
// index (1-based, in the order of RooflineLayout::points).
constexpr std::size_t kNamedPoints = 12;

// Ceilings and points that are not positive and finite are left out (and
// listed in `skipped` for points): a log axis has no place for them.
RooflineLayout layout_roofline(const RooflineData& data, double width = 760, double height = 480);
std::string render_roofline(const RooflineData& data, double width = 760, double height = 480);

}  // namespace harness
