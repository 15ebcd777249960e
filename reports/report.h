// The report formats behind `harness report` and `harness run --report`:
// kReportFormats is the only place that lists them (name, file extension,
// renderer); `report --format` looks a name up there and `report --help`
// prints the rows.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "harness/base/result.h"
#include "reports/report_model.h"

namespace harness {

struct ReportFormat {
  std::string_view name;       // --format's value: "html"
  std::string_view also;       // another name --format accepts ("markdown"), or empty
  std::string_view extension;  // ".html": -o PATH ending so picks the format when --format is not given
  std::string_view contents;   // one line for --help
  std::string (*render)(const ReportInput&);
};

extern const std::array<ReportFormat, 5> kReportFormats;

// The row named so (its name or its other name); an error lists the names.
Result<const ReportFormat*> report_format_from_name(std::string_view name);

// The row whose extension PATH ends with, else null.
const ReportFormat* report_format_of_path(std::string_view path);

// The table as `report --help` prints it, one row a line:
// "  html   .html  a self-contained page ...".
std::string report_formats_text();

// Where `harness run` writes its HTML report unless told otherwise: next to
// the run store, "<store file name>.report-<run id>.html".
std::string default_report_path(const std::string& database_path, std::int64_t run_id);

// Writes through an O_EXCL temporary with a random name and a rename
// (write_file_atomically), so a reader never sees half a report and a
// planted symlink is never followed. The error names the path and the OS error.
Status write_report_file(const std::string& path, const std::string& text);

}  // namespace harness
