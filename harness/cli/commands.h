// The command-line interface: every subcommand is one row of the table in
// cli.cc (name, summary, setup). A setup adds the subcommand's options to its
// CLI11 app and returns the action to run once the line has been parsed.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "harness/base/result.h"
#include "harness/base/terminal_text.h"
#include "harness/scenario/scenario.h"

namespace harness {

struct GlobalOptions {
  std::string db;     // --db PATH|URI (else $HARNESS_DB, else harness-runs.sqlite)
  bool json = false;  // --json: machine-readable output on stdout
};

struct Io {
  std::ostream& out;  // results
  std::ostream& err;  // progress and errors
  // Whether each is the process's own stdout/stderr on a terminal (a live
  // progress line, colour); false for any other stream.
  bool out_tty = false;
  bool err_tty = false;
};

// Text for a person built from data (names, reasons, paths, what a device or
// a store says), written with every control character shown, not sent
// (terminal_safe_lines): no name can clear the screen or set the window
// title. Painted text, which carries the harness's own colour sequences,
// escapes its fields itself (reports/console.h, progress_view.h); JSON is
// escaped by its writer.
inline void print_text(std::ostream& out, std::string_view text) { write_terminal_safe_lines(out, text); }

using Action = std::function<Result<ExitCode>()>;
using CommandSetup = Action (*)(CLI::App& app, const GlobalOptions& global, Io io);

struct CommandEntry {
  std::string_view name;
  std::string_view summary;
  CommandSetup setup;
};

// One setup per command, each in its own cmd_<name>.cc.
Action setup_run(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_runs(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_show(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_replay(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_compare(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_calibrate(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_baseline(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_history(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_metrics(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_report(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_accuracy(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_capture(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_export(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_agent(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_rig(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_store(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_publish(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_check(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_init(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_completion(CLI::App& app, const GlobalOptions& global, Io io);
Action setup_man_page(CLI::App& app, const GlobalOptions& global, Io io);  // hidden: the build writes harness.1

// `export --openmetrics FILE` (cmd_export_openmetrics.cc).
Result<ExitCode> export_openmetrics(const GlobalOptions& global, const std::string& file, Io io);

// --notify TARGET and --notify-cannot-tell of `run` and `compare`.
struct NotifyFlags {
  std::string target;
  bool cannot_tell = false;
};
void add_notify_options(CLI::App& app, NotifyFlags& flags);

// The pre-flight (harness/runner/preflight.h) of a scenario file, shared by
// `check` and `run --dry-run`: "ready to run" and what was checked (exit 0),
// or every problem at once (exit 2). cmd_check.cc
Result<ExitCode> print_preflight(const std::string& path, bool ask_rig, const GlobalOptions& global, Io io);
// The scenario of `run`, checked before the store is opened: every problem at once, exit 2.
Result<Scenario> preflight_for_run(const std::string& path);

// Parses argv, runs the chosen command, prints errors as
// "harness: error: <message>" and returns the process exit code.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace harness
