// The report formats behind `harness report` and `harness run --report`:
// one place that maps a format name to its renderer and writes the file.
#pragma once

#include <string>
#include <string_view>

#include "harness/base/result.h"
#include "reports/report_model.h"

namespace harness {

enum class ReportFormat { html, markdown, json, junit };

// "html", "md" (or "markdown"), "json", "junit"; an error lists the choices.
Result<ReportFormat> report_format_from_name(std::string_view name);

std::string render_report(const ReportInput& input, ReportFormat format);

// Where `harness run` writes its HTML report unless told otherwise: next to
// the run store, "<store file name>.report-<run id>.html".
std::string default_report_path(const std::string& database_path, std::int64_t run_id);

// Writes through an O_EXCL temporary with a random name and a rename
// (write_file_atomically), so a reader never sees half a report and a
// planted symlink is never followed. The error names the path and the OS error.
Status write_report_file(const std::string& path, const std::string& text);

}  // namespace harness
