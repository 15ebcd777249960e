// `harness report RUN [--against RUN | --baseline NAME] --format FORMAT -o PATH`:
// renders a stored (live or replayed) run, set against a baseline run when
// one is given.
#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/base/multiple_testing.h"
#include "harness/compare/stored_comparison.h"
#include "harness/store/store.h"
#include "reports/report.h"

namespace harness {
namespace {

// The statistical verdicts of harness/compare, as the report's table.
ReportComparison comparison_for_report(const CompareReport& compared, const std::string& label) {
  ReportComparison out;
  out.baseline_label = label;
  const Comparison& c = compared.comparison;
  out.method = fmt::format("{} over {} tests at alpha {}", correction_description(c.config.method), c.tests,
                           c.config.alpha);
  for (const MetricComparison& m : c.metrics) {
    MetricChange change;
    change.level = m.level;
    change.name = m.name;
    change.unit = m.unit;
    change.baseline = m.baseline;
    change.current = m.current;
    if (m.relative_change) change.change_pct = *m.relative_change * 100;
    change.verdict = std::string(change_name(m.verdict));
    change.detail = m.reason;
    out.changes.push_back(std::move(change));
  }
  return out;
}

}  // namespace

Action setup_report(CLI::App& app, const GlobalOptions& global, Io io) {
  struct Options {
    std::int64_t run = 0;
    std::string baseline_name;
    std::int64_t against = 0;
    std::string format;
    std::string output = "-";
  };
  auto o = std::make_shared<Options>();
  app.add_option("run", o->run, "Run id (see 'harness runs')")->required();
  auto* baseline = app.add_option("--baseline", o->baseline_name, "Set the run against this named baseline");
  app.add_option("--against", o->against, "Set the run against this run id")->excludes(baseline);
  app.add_option("--format", o->format,
                 "One of the report formats below (default: the one whose extension -o's PATH ends with, else html)");
  app.add_option("-o,--output", o->output, "Write the report here (default: standard output)");
  app.footer("Report formats:\n" + report_formats_text());
  return [=, &global]() -> Result<ExitCode> {
    const ReportFormat* by_path = report_format_of_path(o->output);
    Result<const ReportFormat*> format = !o->format.empty() ? report_format_from_name(o->format)
                                         : by_path           ? by_path
                                                             : &kReportFormats[0];
    if (!format) return format.error();
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    Result<RunRecord> run = store->load_run(o->run);
    if (!run) return run.error();
    ReportInput input{std::move(*run), std::nullopt, std::nullopt};

    if (!o->baseline_name.empty() || o->against != 0) {
      CompareRequest request;
      request.run = o->run;
      request.baseline = o->baseline_name;
      request.against = o->against;
      Result<StoredComparison> compared = compare_stored_runs(*store, request);
      if (!compared) return compared.error();
      std::string label = o->baseline_name.empty()
                              ? fmt::format("run {}", compared->baseline.id)
                              : fmt::format("baseline '{}' (run {})", o->baseline_name, compared->baseline.id);
      input.comparison = comparison_for_report(compared->report, label);
      // The baseline verdicts and hints that compare gives, in the report too.
      std::vector<std::string> hints;
      for (const std::string& note : compared->report.notes)
        if (note.starts_with("hint: ")) hints.push_back(note.substr(6));
      apply_baseline_verdicts(input.run.analysis, compared->report.comparison.expectations, hints);
      input.baseline = std::move(compared->baseline);
    }

    std::string text = (*format)->render(input);
    if (o->output == "-") {
      print_text(io.out, text);
    } else {
      HARNESS_TRY(write_report_file(o->output, text));
      io.err << fmt::format("harness: wrote {}\n", o->output);
    }
    return ExitCode::ok;
  };
}

}  // namespace harness
