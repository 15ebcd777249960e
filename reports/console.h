// Text for people at a terminal: a run with its metrics and verdicts, and
// the list of stored runs.
#pragma once

#include <string>
#include <vector>

#include "harness/model/run.h"

namespace harness {

// Metrics grouped by level, each with value, unit and provenance; then the
// verdict table. Unavailable metrics show their reason.
std::string render_run_text(const RunRecord& run);
std::string render_verdict_table(const std::vector<Verdict>& verdicts);
std::string render_run_list_text(const std::vector<RunSummary>& runs);

}  // namespace harness
