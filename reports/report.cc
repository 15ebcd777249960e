#include "reports/report.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "harness/base/files.h"
#include "reports/html.h"
#include "reports/json.h"
#include "reports/junit.h"
#include "reports/lava.h"
#include "reports/markdown.h"

namespace harness {
namespace {

// run_to_json keeps only the sample counts; a report's JSON is the full data.
nlohmann::json run_with_samples(const RunRecord& run) {
  nlohmann::json j = run_to_json(run);
  for (std::size_t i = 0; i < run.analysis.samples.size() && i < j["samples"].size(); ++i) {
    j["samples"][i]["values"] = run.analysis.samples[i].values;
  }
  return j;
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string render_json_report(const ReportInput& in) {
  nlohmann::json j = {{"run", run_with_samples(in.run)}};
  if (in.baseline) j["baseline"] = run_with_samples(*in.baseline);
  if (in.comparison) {
    nlohmann::json c = {{"baseline", in.comparison->baseline_label}, {"method", in.comparison->method}};
    c["changes"] = nlohmann::json::array();
    for (const MetricChange& m : in.comparison->changes) {
      c["changes"].push_back({{"level", level_name(m.level)}, {"name", m.name}, {"unit", m.unit},
                              {"baseline", optional_json(m.baseline)}, {"current", optional_json(m.current)},
                              {"change_pct", optional_json(m.change_pct)}, {"verdict", m.verdict},
                              {"detail", m.detail}});
    }
    j["comparison"] = c;
  }
  return j.dump(2) + "\n";
}

}  // namespace

const std::array<ReportFormat, 5> kReportFormats = {{
    {"html", "", ".html", "a self-contained page for people: charts, verdicts, hints (the default)", render_html},
    {"md", "markdown", ".md", "Markdown for CI comments and wikis", render_markdown},
    {"json", "", ".json", "every metric, verdict and sample, for scripts", render_json_report},
    {"junit", "", ".xml", "JUnit XML: a test case per verdict and per judged metric", render_junit},
    {"lava", "", ".lava", "LAVA test-case signals with measurements, for a LAVA job's output", render_lava},
}};

Result<const ReportFormat*> report_format_from_name(std::string_view name) {
  for (const ReportFormat& f : kReportFormats)
    if (name == f.name || (!f.also.empty() && name == f.also)) return &f;
  std::string names;
  for (std::size_t i = 0; i < kReportFormats.size(); ++i)
    names += (i == 0 ? "" : i + 1 == kReportFormats.size() ? " or " : ", ") + std::string(kReportFormats[i].name);
  return Error::input(fmt::format("unknown report format '{}': choose {}", name, names));
}

const ReportFormat* report_format_of_path(std::string_view path) {
  for (const ReportFormat& f : kReportFormats)
    if (path.ends_with(f.extension)) return &f;
  return nullptr;
}

std::string report_formats_text() {
  std::string out;
  for (const ReportFormat& f : kReportFormats) out += fmt::format("  {:<6} {:<6} {}\n", f.name, f.extension, f.contents);
  return out;
}

std::string default_report_path(const std::string& database_path, std::int64_t run_id) {
  // Named after the store's file, so two stores in one folder never write
  // each other's run 1 report. A store on a PostgreSQL server has no file:
  // its reports go to the current folder.
  if (database_path.starts_with("postgresql://") || database_path.starts_with("postgres://")) {
    return fmt::format("harness-report-{}.html", run_id);
  }
  std::filesystem::path db(database_path);
  return (db.parent_path() / fmt::format("{}.report-{}.html", db.filename().string(), run_id)).string();
}

Status write_report_file(const std::string& path, const std::string& text) {
  Status written = write_file_atomically(path, text);
  if (!written) return Error::input("cannot write report " + written.error().message);
  return ok();
}

}  // namespace harness
