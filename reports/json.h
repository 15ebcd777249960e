// Machine-readable output (--json): a run, and the list of runs.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/run.h"

namespace harness {

// Metrics keep full precision; unavailable ones carry "value": null and
// their reason.
nlohmann::json run_to_json(const RunRecord& run);
nlohmann::json run_list_to_json(const std::vector<RunSummary>& runs);
nlohmann::json metric_to_json(const Metric& m);
nlohmann::json verdict_to_json(const Verdict& v);

}  // namespace harness
