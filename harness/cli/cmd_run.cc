#include <filesystem>
#include <iostream>

#include <unistd.h>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/cli/progress_view.h"
#include "harness/runner/notify.h"
#include "harness/runner/runner.h"
#include "harness/runner/signal_stop.h"
#include "harness/scenario/scenario.h"
#include "reports/console.h"
#include "reports/html.h"
#include "reports/json.h"
#include "reports/report.h"

namespace harness {

namespace {

// The run's one judgement (compare_stored_runs without a baseline, as
// `harness compare RUN` shows it), told when it is news.
void notify_of_run(const NotifyConfig& config, const Store& store, const RunRecord& run, Io io) {
  CompareRequest request;
  request.run = run.id;
  Result<StoredComparison> judged = compare_stored_runs(store, request);
  std::optional<Notification> news =
      run_notification(run, judged ? &judged->report : nullptr, judged ? std::string() : judged.error().message);
  if (!news) return;
  if (std::optional<std::string> said = notify_if_asked(config, *news)) io.err << "harness: " << *said << "\n";
}

}  // namespace

Action setup_run(CLI::App& app, const GlobalOptions& global, Io io) {
  auto scenario_path = std::make_shared<std::string>();
  auto record_dir = std::make_shared<std::string>();
  app.add_option("scenario", *scenario_path, "Scenario file (TOML); reference: scenarios/README.md")->required();
  app.add_option("--record", *record_dir, "Also write the run as a recording bundle into this folder (empty or absent)");
  auto report_path = std::make_shared<std::string>();
  auto no_report = std::make_shared<bool>(false);
  auto* report = app.add_option("--report", *report_path,
                                "Write the HTML report here (default: <store file>.report-<run id>.html next to the "
                                "run store)");
  app.add_flag("--no-report", *no_report, "Write no HTML report")->excludes(report);
  auto quiet = std::make_shared<bool>(false);
  auto verbose = std::make_shared<bool>(false);
  auto color = std::make_shared<std::string>("auto");
  app.add_flag("--quiet,-q", *quiet, "Progress as plain one-line milestones, also on a terminal");
  app.add_flag("--verbose,-v", *verbose, "End with every metric and its source (as 'harness show RUN'), not only the summary");
  app.add_option("--color", *color, "Colour: auto (on a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  auto notify = std::make_shared<NotifyFlags>();
  add_notify_options(app, *notify);
  auto dry_run = std::make_shared<bool>(false);
  app.add_flag("--dry-run,-n", *dry_run, "Only check the scenario, its files, tools and rig, as 'harness check' does");
  return [=, &global]() -> Result<ExitCode> {
    if (*dry_run) return print_preflight(*scenario_path, true, global, io);
    SignalStop signals;  // from the start: a signal at any point aborts the run
    // Every file, tool and the rig checked before the store is opened: a
    // scenario that cannot finish spends no rig time and stores nothing.
    Result<Scenario> scenario = preflight_for_run(*scenario_path);
    if (!scenario) return scenario.error();
    Result<std::optional<NotifyConfig>> notify_config =
        notify_config_for(notify->target, notify->cannot_tell, scenario->text, scenario->path);
    if (!notify_config) return notify_config.error();
    if (!record_dir->empty() && std::filesystem::exists(*record_dir) && !std::filesystem::is_empty(*record_dir)) {
      return Error::input(fmt::format("{}: the recording folder must be empty or absent", *record_dir));
    }
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    const ColorChoice choice = color_choice_from_name(*color).value_or(ColorChoice::automatic);
    const char* no_color = std::getenv("NO_COLOR");
    MonotonicClock clock;
    ProgressViewOptions view;
    view.live = io.err_tty && !*quiet;
    view.color = colour_wanted(choice, io.err_tty, no_color);
    view.columns = io.err_tty ? terminal_columns(STDERR_FILENO) : 80;
    if (io.err_tty) view.terminal_fd = STDERR_FILENO;
    view.tick = view.live;
    std::unique_ptr<RunProgress> progress = make_progress_view(io.err, clock, view);
    RunOptions options;
    options.record_dir = *record_dir;
    options.signals = &signals;
    options.progress = progress.get();
    Result<RunOutcome> outcome = run_scenario(*scenario, *store, options);
    progress.reset();  // its live line, if any, ends before anything else is written
    if (!outcome) return outcome.error();
    HARNESS_TRY(abort_if_interrupted(*store, signals.reason(), "after storing", *outcome));
    std::string written;
    if (!*no_report && outcome->run.id != 0) {
      std::string path = report_path->empty() ? default_report_path(store->path(), outcome->run.id) : *report_path;
      // The run is stored already: a report that cannot be written is said, not fatal.
      Status w = write_report_file(path, render_html({outcome->run, std::nullopt, std::nullopt}));
      if (w) written = path;
      else print_text(io.err, "harness: warning: " + w.error().message + "\n");
    }
    HARNESS_TRY(abort_if_interrupted(*store, signals.seal(fmt::format("run {} was stored {}", outcome->run.id,
                                                                      run_status_name(outcome->run.status))),
                                     "after storing", *outcome));
    if (global.json) {
      io.out << run_to_json(outcome->run).dump(2) << "\n";
    } else {
      const Palette palette{colour_wanted(choice, io.out_tty, no_color)};
      if (*verbose) io.out << render_run_details_text(outcome->run) << "\n";
      io.out << render_run_summary_text(outcome->run, palette);
      io.out << fmt::format("\nstored as run {} in {}", outcome->run.id, store->path());
      if (!*verbose) io.out << fmt::format("; every metric: harness show {}", outcome->run.id);
      io.out << "\n";
      if (!written.empty()) io.out << fmt::format("report: {}\n", written);
    }
    // Stored and printed first: a notifier that fails or hangs cannot lose the run.
    if (*notify_config && outcome->run.id != 0) notify_of_run(**notify_config, *store, outcome->run, io);
    return outcome->exit;
  };
}

}  // namespace harness
