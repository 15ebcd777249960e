// Which stored values of a metric are evidence of its level across nights:
// the one rule behind `history --changes`, the noise band of `compare`
// (Store::recent_values says it in SQL) and `harness publish`.
// A value takes part when it is a finite number with measured evidence
// (provenance measured, or replayed: a rig's figures analysed again),
// whatever its run's origin; a replayed or imported run of a night already
// taken (same scenario, rig and start time) repeats that night rather than
// adding one and is left out. A live run always counts.
#pragma once

#include <cstddef>
#include <set>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "harness/compare/change_points.h"
#include "harness/scenario/compare_config.h"
#include "harness/store/store.h"

namespace harness {

// Indices into `points` (oldest first, as metric_history and
// all_metric_history give them; any mix of scenarios and rigs) of the values
// that count, in order.
std::vector<std::size_t> evidence_points(std::span<const HistoryPoint> points);

// Whether a provenance is measured evidence ("measured" or "replayed").
inline bool measured_provenance(std::string_view provenance) {
  return provenance == "measured" || provenance == "replayed";
}

// The same rule over `n` points held any other way (harness publish keeps
// its values in columns, reports/publish/series_cache.h): `measured(i)`:
// point i is a finite value with a measured_provenance; `live(i)`: its run
// is live; `night(i)`: its run's (scenario, rig, start) as string_views.
template <class Measured, class Live, class Night>
std::vector<std::size_t> evidence_indices(std::size_t n, Measured measured, Live live, Night night) {
  std::vector<std::size_t> out;
  out.reserve(n);
  bool all_live = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (!measured(i)) continue;
    out.push_back(i);
    all_live = all_live && live(i);
  }
  if (all_live) return out;  // a live run always counts: no night can be a repeat
  std::set<std::tuple<std::string_view, std::string_view, std::string_view>> nights;
  std::size_t kept = 0;
  for (std::size_t i : out) {
    const bool repeat = !nights.insert(night(i)).second;
    if (repeat && !live(i)) continue;
    out[kept++] = i;
  }
  out.resize(kept);
  return out;
}

// How `history --changes` and `publish` find one series' level shifts, so
// that they mark only what the rig's nights could tell and what compare
// would count: the rig's calibrated between-night spread of the metric as the
// least noise of a night (relative spread x the series' mean level), and the
// smaller of the metric's thresholds as the least step.
ChangePointOptions series_change_options(const std::optional<Calibration>& calibration, const CompareConfig& config,
                                         const std::string& metric, std::span<const double> values);

// The words for the pages and notes that say which runs were taken.
inline constexpr const char* kEvidenceRule =
    "runs with measured evidence (provenance measured or replayed, whatever the run's origin; a night replayed again "
    "counts once)";

}  // namespace harness
