// `harness report RUN [--against RUN | --baseline NAME] --format FORMAT -o PATH`:
// renders a stored (live or replayed) run, set against a baseline run when
// one is given.
#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/report.h"

namespace harness {
namespace {

// MERGE(compare): the one place where a report learns how the run compares
// with its baseline. Until harness/compare is merged this is the plain value
// difference, without verdicts; at merge, fill the Comparison from
// harness/compare's per-metric result (verdict, test, detail) instead.
Comparison comparison_for_report(const Store& store, const RunRecord& baseline, const RunRecord& run,
                                 const std::string& label) {
  (void)store;
  return value_differences(baseline, run, label);
}

// MERGE(compare): named baselines live with `harness baseline`, which is not
// in this build; resolve NAME to its run id here.
Result<std::int64_t> resolve_baseline_name(const Store& store, const std::string& name) {
  (void)store;
  return Error::input(fmt::format(
      "cannot resolve baseline '{}': named baselines are not in this build; use --against RUN", name));
}

}  // namespace

Action setup_report(CLI::App& app, const GlobalOptions& global, Io io) {
  struct Options {
    std::int64_t run = 0;
    std::string baseline_name;
    std::int64_t against = 0;
    std::string format = "html";
    std::string output = "-";
  };
  auto o = std::make_shared<Options>();
  app.add_option("run", o->run, "Run id (see 'harness runs')")->required();
  auto* baseline = app.add_option("--baseline", o->baseline_name, "Set the run against this named baseline");
  app.add_option("--against", o->against, "Set the run against this run id")->excludes(baseline);
  app.add_option("--format", o->format, "html, md, json or junit (default: html)");
  app.add_option("-o,--output", o->output, "Write the report here (default: standard output)");
  return [=, &global]() -> Result<ExitCode> {
    Result<ReportFormat> format = report_format_from_name(o->format);
    if (!format) return format.error();
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    Result<RunRecord> run = store->load_run(o->run);
    if (!run) return run.error();
    ReportInput input{std::move(*run), std::nullopt, std::nullopt};

    std::int64_t baseline_id = o->against;
    std::string label = fmt::format("run {}", o->against);
    if (!o->baseline_name.empty()) {
      Result<std::int64_t> id = resolve_baseline_name(*store, o->baseline_name);
      if (!id) return id.error();
      baseline_id = *id;
      label = fmt::format("baseline '{}' (run {})", o->baseline_name, *id);
    }
    if (baseline_id != 0) {
      Result<RunRecord> base = store->load_run(baseline_id);
      if (!base) return base.error().within("baseline");
      input.comparison = comparison_for_report(*store, *base, input.run, label);
      input.baseline = std::move(*base);
    }

    std::string text = render_report(input, *format);
    if (o->output == "-") {
      io.out << text;
    } else {
      HARNESS_TRY(write_report_file(o->output, text));
      io.err << fmt::format("harness: wrote {}\n", o->output);
    }
    return ExitCode::ok;
  };
}

}  // namespace harness
