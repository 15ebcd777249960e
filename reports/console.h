// Text for people at a terminal: a run with its metrics and verdicts, and
// the list of stored runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/model/run.h"

namespace harness {

// Metrics grouped by level, each with value, unit and provenance; then the
// verdict table. Unavailable metrics show their reason.
std::string render_run_text(const RunRecord& run);
// render_run_text without the verdict table and hints: `harness run` prints
// these first and ends with the verdicts and the report's path.
std::string render_run_details_text(const RunRecord& run);
std::string render_verdicts_and_hints_text(const RunRecord& run);
// A metric's value as people read it: "31.2 GB/s", "memory", "unavailable: <reason>".
std::string metric_value_text(const Metric& m);
std::string render_verdict_table(const std::vector<Verdict>& verdicts);
std::string render_run_list_text(const std::vector<RunSummary>& runs);
// "run 7", or "runs 3, 4, 5" for several (a baseline set).
std::string run_ids_text(const std::vector<std::int64_t>& ids);

}  // namespace harness
