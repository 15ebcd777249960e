// harness compare RUN [--baseline NAME | --against RUN]: judges a run metric
// by metric (harness/compare/compare.h): against a baseline, or by default
// against the newest baseline of its scenario and rig, else the nights before
// it; a run with a same-run reference also against that. Exits 1 on any
// regression or failed baseline expectation (and on "cannot tell" with
// --fail-on-unknown).
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "harness/base/files.h"
#include "harness/cli/commands.h"
#include "harness/compare/stored_comparison.h"
#include "harness/runner/notify.h"
#include "harness/store/store.h"
#include "reports/compare_report.h"

namespace harness {
namespace {

struct CompareOptions {
  CompareRequest request;
  std::string junit;
  std::string markdown;
  bool lava = false;
  bool fail_on_unknown = false;
};

// Through an O_EXCL temporary and a rename: a planted symlink is not followed.
Status write_file(const std::string& path, const std::string& text) {
  Status written = write_file_atomically(path, text);
  if (!written) return Error::input(written.error().message);
  return ok();
}

}  // namespace

Action setup_compare(CLI::App& app, const GlobalOptions& global, Io io) {
  auto o = std::make_shared<CompareOptions>();
  app.add_option("run", o->request.run, "The new run's id (see 'harness runs')")->required();
  CLI::Option* baseline = app.add_option(
      "--baseline", o->request.baseline,
      "Named baseline of the run's scenario and rig (default: its newest baseline set before the run, else the "
      "nights before it)");
  CLI::Option* against = app.add_option("--against", o->request.against, "Compare with this run instead of a named baseline");
  baseline->excludes(against);
  app.add_option("--rig", o->request.rig,
                 "With --baseline: the baseline of this rig rather than the run's own (a cross-rig comparison)")
      ->needs(baseline);
  app.add_flag("--all-rigs", o->request.all_rigs,
               "The history noise band draws on the scenario's runs on every rig, not only the run's");
  app.add_option("--junit", o->junit, "Also write JUnit XML, one test case per metric, to FILE");
  app.add_option("--markdown", o->markdown, "Also write a Markdown summary for CI comments to FILE");
  app.add_flag("--lava", o->lava,
               "Also print LAVA test-case signals, one per verdict with its measurement and units");
  app.add_flag("--fail-on-unknown", o->fail_on_unknown,
               "Exit 1 also when a metric is 'cannot tell' (the evidence could not decide)");
  app.add_flag("--allow-mismatch", o->request.allow_mismatch,
               "Compare even when the baseline's scenario or rig differs from the run's");
  auto notify = std::make_shared<NotifyFlags>();
  add_notify_options(app, *notify);
  return [=, &global]() -> Result<ExitCode> {
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    Result<StoredComparison> compared = compare_stored_runs(*store, o->request);
    if (!compared) return compared.error();
    const CompareReport& report = compared->report;
    if (!o->junit.empty()) HARNESS_TRY(write_file(o->junit, render_compare_junit(report)));
    if (!o->markdown.empty()) HARNESS_TRY(write_file(o->markdown, render_compare_markdown(report)));
    if (global.json) io.out << compare_to_json(report).dump(2) << "\n";
    else print_text(io.out, render_compare_text(report));
    if (o->lava) print_text(io.out, render_compare_lava(report));
    // Printed first: a notifier that fails or hangs changes nothing of it.
    Result<std::optional<NotifyConfig>> notify_config = notify_config_for(
        notify->target, notify->cannot_tell, compared->current.scenario_text, compared->current.scenario_path);
    if (!notify_config) print_text(io.err, "harness: notify: " + notify_config.error().message + "\n");
    else if (*notify_config)
      if (auto said = notify_if_asked(**notify_config, comparison_notification(report)))
        print_text(io.err, "harness: " + *said + "\n");
    if (report.regressed()) return ExitCode::failed;
    return o->fail_on_unknown && report.undecided() ? ExitCode::failed : ExitCode::ok;
  };
}

}  // namespace harness
