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
#include <span>
#include <vector>

#include "harness/store/store.h"

namespace harness {

// Indices into `points` (oldest first, as metric_history and
// all_metric_history give them; any mix of scenarios and rigs) of the values
// that count, in order.
std::vector<std::size_t> evidence_points(std::span<const HistoryPoint> points);

// The words for the pages and notes that say which runs were taken.
inline constexpr const char* kEvidenceRule =
    "runs with measured evidence (provenance measured or replayed, whatever the run's origin; a night replayed again "
    "counts once)";

}  // namespace harness
