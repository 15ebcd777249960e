// The Markdown summary for CI comments: status, verdicts, the comparison
// when there is one, and the run's figures per level (unavailable ones with
// their reason).
#pragma once

#include <string>
#include <string_view>

#include "reports/report_model.h"

namespace harness {

std::string render_markdown(const ReportInput& input);

// Text from a run (scenario and rig names, checks, reasons, hints) made
// inert in Markdown: a '<' or '&' that could open an HTML tag, comment or
// entity becomes "&lt;" / "&amp;" ("<script>" shows as text, "<= 1 ms" stays
// as it is), a '|' is escaped so that it cannot end a table cell, and a line
// break becomes a space so that it cannot end a row or a heading.
std::string markdown_text(std::string_view text);

}  // namespace harness
