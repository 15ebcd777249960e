#include <filesystem>
#include <iostream>

#include <unistd.h>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/cli/progress_view.h"
#include "harness/runner/runner.h"
#include "harness/runner/signal_stop.h"
#include "harness/scenario/scenario.h"
#include "reports/console.h"
#include "reports/json.h"
#include "reports/report.h"

namespace harness {

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
  return [=, &global]() -> Result<ExitCode> {
    SignalStop signals;  // from the start: a signal at any point aborts the run
    Result<Scenario> scenario = load_scenario(*scenario_path);
    if (!scenario) return scenario.error();
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
      Status w = write_report_file(path, render_report({outcome->run, std::nullopt, std::nullopt}, ReportFormat::html));
      if (w) written = path;
      else io.err << "harness: warning: " << w.error().message << "\n";
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
    return outcome->exit;
  };
}

}  // namespace harness
