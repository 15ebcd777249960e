// A rig's measured false-alarm rate and spread for one scenario (`harness
// calibrate`): A/A nights on the rig, and per metric what they showed. compare,
// rig check, the reports and publish show it; compare uses the spread as the
// between-night spread a one-night baseline cannot show (docs/parts/compare.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace harness {

struct CalibratedMetric {
  std::string name;
  std::string scale = "log";  // "log" (ln of the values) or "relative" (to |mean|): what sd is on
  double sd = 0;              // between-night standard deviation of the night's judged value
  double df = 0;              // its degrees of freedom (nights with the metric - 1)
  std::optional<double> detectable{};  // relative: the smallest change one baseline night with this spread could see
  // A run with a same-run reference: the pooled spread of the rounds' log
  // ratios, the rounds a night took, and the change one night's rounds could see.
  std::optional<double> paired_sd{};
  std::int64_t paired_rounds = 0;
  std::optional<double> paired_detectable{};
  std::int64_t false_alarms = 0;  // of the calibration's comparisons, those that flagged this metric
};

struct Calibration {
  std::int64_t id = 0;
  std::string scenario_name, rig;
  std::string created_at;             // ISO 8601 UTC
  std::vector<std::int64_t> runs;     // the A/A nights, oldest first
  std::int64_t comparisons = 0;       // A/A comparisons judged at the default settings
  std::int64_t false_alarms = 0;      // of those, the ones with a metric regressed or improved
  std::vector<CalibratedMetric> metrics;

  const CalibratedMetric* find(const std::string& name) const {
    for (const CalibratedMetric& m : metrics)
      if (m.name == name) return &m;
    return nullptr;
  }
};

}  // namespace harness
