#include "harness/compare/history_evidence.h"

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

}  // namespace harness
