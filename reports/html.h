// The HTML report: one self-contained file (inline CSS and SVG, no script,
// no network) with the verdict table at the top, the comparison, a chart for
// each kind of data the run has, and every figure's provenance at the bottom.
#pragma once

#include <string>
#include <vector>

#include "harness/model/metric.h"
#include "reports/report_model.h"
#include "reports/roofline_chart.h"
#include "reports/svg.h"

namespace harness {

std::string render_html(const ReportInput& input);

// The roofline chart's data taken from an analysis: ceilings that have a
// value, and one point per kernel or layer ("<name>.intensity" with
// "<name>.achieved"), with the baseline's point when it has one. What could
// not be placed is said in `notes` ("gemm: achieved: unavailable: ...").
RooflineData roofline_data(const Analysis& run, const Analysis* baseline, std::vector<std::string>& notes);

// Level 4's latency histograms as drawn: one panel per load condition
// (titled by its load), all on one x range scaled to this run's samples,
// from the smallest to the largest p99.5; `beyond` of its samples lie past
// it (counted in the last bin), `hi` is where the axes end. The baseline's
// outline keeps the samples on that axis; `baseline_outside` are not drawn.
struct LatencyPanels {
  std::vector<svg::HistogramSpec> panels;
  std::size_t beyond = 0;
  double hi = 0;
  std::size_t baseline_outside = 0;
};
LatencyPanels latency_panels(const Analysis& run, const Analysis* baseline);

// Why a level has nothing to draw: the reasons of its unavailable metrics,
// or empty when it has at least one figure.
std::vector<std::string> level_unavailable_reasons(const Analysis& run, Level level);

}  // namespace harness
