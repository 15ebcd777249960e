#include "harness/compare/history_evidence.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace harness {
namespace {

HistoryPoint point(std::int64_t id, const std::string& rig, const std::string& night, const std::string& origin,
                   std::optional<double> value, const std::string& provenance = "measured") {
  HistoryPoint p;
  p.run_id = id;
  p.scenario_name = "nightly";
  p.rig = rig;
  p.started_at = night + "T02:00:00.000Z";
  p.origin = origin;
  p.value = value;
  p.provenance = provenance;
  return p;
}

TEST(EvidencePoints, MeasuredEvidenceWhateverTheOriginAndARepeatedNightOnce) {
  const std::vector<HistoryPoint> points = {
      point(1, "a", "2026-11-01", "live", 1.0),
      point(2, "a", "2026-11-01", "replay", 1.0, "replayed"),   // a repeat of night 1 on rig a
      point(3, "b", "2026-11-01", "replay", 2.0, "replayed"),   // the same night on another rig: its own
      point(4, "a", "2026-11-02", "import", 1.1, "replayed"),   // a night only imported: counts
      point(5, "a", "2026-11-02", "live", 1.2),                 // a live run always counts
      point(6, "a", "2026-11-03", "live", 1.3, "declared"),     // not measured
      point(7, "a", "2026-11-04", "live", 1.3, "model"),        // not measured
      point(8, "a", "2026-11-05", "live", std::nullopt),        // unavailable
      point(9, "a", "2026-11-06", "live", std::numeric_limits<double>::infinity()),
      point(10, "a", "2026-11-07", "replay", 1.4, "replayed"),  // a night only replayed
  };
  EXPECT_EQ(evidence_points(points), (std::vector<std::size_t>{0, 2, 3, 4, 9}));
}

TEST(EvidencePoints, AReplayBeforeTheLiveRunOfItsNightTakesTheNight) {
  // The replay came first (an import of a rig's night before the rig's own
  // store was merged): it takes the night, the live run still counts.
  const std::vector<HistoryPoint> points = {point(1, "a", "2026-11-01", "replay", 1.0, "replayed"),
                                            point(2, "a", "2026-11-01", "live", 1.0),
                                            point(3, "a", "2026-11-01", "replay", 1.0, "replayed")};
  EXPECT_EQ(evidence_points(points), (std::vector<std::size_t>{0, 1}));
}

}  // namespace
}  // namespace harness
