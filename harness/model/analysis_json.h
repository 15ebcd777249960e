// A metric and a verdict as JSON: one shape for everything that writes
// them (`--json` reports, compare reports, replay fingerprints).
#pragma once

#include <nlohmann/json.hpp>

#include "harness/model/metric.h"

namespace harness {

// Full precision; an unavailable metric carries "value": null and its reason.
nlohmann::json metric_to_json(const Metric& m);
nlohmann::json verdict_to_json(const Verdict& v);

}  // namespace harness
