// The Markdown summary for CI comments: status, verdicts, the comparison
// when there is one, and the run's figures per level (unavailable ones with
// their reason).
#pragma once

#include <string>

#include "reports/report_model.h"

namespace harness {

std::string render_markdown(const ReportInput& input);

}  // namespace harness
