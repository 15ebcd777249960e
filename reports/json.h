// Machine-readable output (--json): a run, and the list of runs.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/analysis_json.h"
#include "harness/model/run.h"

namespace harness {

// Metrics as metric_to_json writes them (harness/model/analysis_json.h).
nlohmann::json run_to_json(const RunRecord& run);
nlohmann::json run_list_to_json(const std::vector<RunSummary>& runs);

}  // namespace harness
