#include "harness/compare/history_evidence.h"

#include <cmath>
#include <set>
#include <string_view>
#include <tuple>

namespace harness {

namespace {

bool measured_evidence(const HistoryPoint& p) {
  return p.value && std::isfinite(*p.value) && (p.provenance == "measured" || p.provenance == "replayed");
}

}  // namespace

std::vector<std::size_t> evidence_points(std::span<const HistoryPoint> points) {
  std::vector<std::size_t> out;
  out.reserve(points.size());
  bool all_live = true;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!measured_evidence(points[i])) continue;
    out.push_back(i);
    all_live = all_live && points[i].origin == "live";
  }
  if (all_live) return out;  // a live run always counts: no night can be a repeat
  std::set<std::tuple<std::string_view, std::string_view, std::string_view>> nights;
  std::size_t kept = 0;
  for (std::size_t i : out) {
    const HistoryPoint& p = points[i];
    const bool repeat = !nights.insert({p.scenario_name, p.rig, p.started_at}).second;
    if (repeat && p.origin != "live") continue;
    out[kept++] = i;
  }
  out.resize(kept);
  return out;
}

}  // namespace harness
