#include "harness/compare/history_evidence.h"

#include <algorithm>
#include <cmath>

namespace harness {

std::vector<std::size_t> evidence_points(std::span<const HistoryPoint> points) {
  return evidence_indices(
      points.size(),
      [&](std::size_t i) {
        const HistoryPoint& p = points[i];
        return p.value && std::isfinite(*p.value) && measured_provenance(p.provenance);
      },
      [&](std::size_t i) { return points[i].origin == "live"; },
      [&](std::size_t i) {
        const HistoryPoint& p = points[i];
        return std::tuple<std::string_view, std::string_view, std::string_view>(p.scenario_name, p.rig, p.started_at);
      });
}

ChangePointOptions series_change_options(const std::optional<Calibration>& calibration, const CompareConfig& config,
                                         const std::string& metric, std::span<const double> values) {
  ChangePointOptions o;
  o.min_relative_shift = std::min(config.threshold_for(metric, true), config.threshold_for(metric, false));
  if (calibration && !values.empty()) {
    if (const CalibratedMetric* m = calibration->find(metric); m && m->df >= 1) {
      double level = 0;
      for (double v : values) level += v;
      o.min_sigma = m->sd * std::fabs(level / static_cast<double>(values.size()));
    }
  }
  return o;
}

}  // namespace harness
