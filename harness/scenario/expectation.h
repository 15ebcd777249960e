// Expectations are data: "<metric>_min", "<metric>_max" or "<metric>" (for a
// categorical metric) keys in a level's [<level>.expect] table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/base/units.h"
#include "harness/model/metric.h"
#include "harness/scenario/toml_reader.h"

namespace harness {

enum class Bound { min, max, equals };

struct Expectation {
  Level level = Level::roofline;
  std::string key;      // as written: "p95_over_p50_max"
  std::string metric;   // the metric it checks: "latency_p95_over_p50"
  Bound bound = Bound::max;
  double number = 0;    // SI value for min/max
  std::string text;     // for equals on a categorical metric
  std::string unit;     // SI unit of `number`, for display
  std::string where;    // "file:line:col" of the value
};

// What a level lets a scenario expect of it.
struct ExpectableMetric {
  std::string key;     // stem used in the file: "p95_over_p50", "latency_p95"
  std::string metric;  // metric name in the analysis
  std::optional<Dimension> dimension;  // absent: a plain number ("1" unit)
  bool categorical = false;            // compared by equality with a string
  std::vector<std::string> categories; // allowed values when categorical
};

// Reads every key of an expect table; unknown ones get "did you mean".
std::vector<Expectation> read_expectations(TableReader& reader, Level level,
                                           const std::vector<ExpectableMetric>& allowed);

}  // namespace harness
