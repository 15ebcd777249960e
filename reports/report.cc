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

}  // namespace

Result<ReportFormat> report_format_from_name(std::string_view name) {
  if (name == "html") return ReportFormat::html;
  if (name == "md" || name == "markdown") return ReportFormat::markdown;
  if (name == "json") return ReportFormat::json;
  if (name == "junit") return ReportFormat::junit;
  return Error::input(fmt::format("unknown report format '{}': choose html, md, json or junit", name));
}

std::string render_report(const ReportInput& in, ReportFormat format) {
  switch (format) {
    case ReportFormat::html: return render_html(in);
    case ReportFormat::markdown: return render_markdown(in);
    case ReportFormat::junit: return render_junit(in);
    case ReportFormat::json: {
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
  }
  return "";
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
