#include <unistd.h>

#include <iostream>
#include <new>

#include <fmt/format.h>

#include "harness/cli/commands.h"

namespace harness {
namespace {

constexpr CommandEntry kCommands[] = {
    {"run", "Run a scenario on this rig and store the run", &setup_run},
    {"check", "Check a scenario before a run: every file, tool and the rig's agent; every problem at once", &setup_check},
    {"init", "Write a commented scenario to start from, which runs as written on this machine", &setup_init},
    {"runs", "List stored runs", &setup_runs},
    {"show", "Show a stored run: metrics with units and provenance, verdicts", &setup_show},
    {"replay", "Analyse a recorded run offline and store the result", &setup_replay},
    {"compare", "Judge a run: regressed, improved, unchanged or cannot tell, against a baseline or its reference", &setup_compare},
    {"calibrate", "Run A/A nights of a scenario: this rig's false-alarm rate and the smallest change it can tell", &setup_calibrate},
    {"baseline", "Name runs as baselines: set, list, show", &setup_baseline},
    {"history", "A metric across stored runs, with level shifts", &setup_history},
    {"metrics", "The metric catalogue: every metric per level, its unit, better direction and expectation keys", &setup_metrics},
    {"report", "Render a run as HTML, Markdown, JSON or JUnit XML", &setup_report},
    {"publish", "Write the store as a static site: last night per rig, every metric's trend, the regression tables", &setup_publish},
    {"accuracy", "Layer-wise accuracy: per-layer cosine, PSNR, SQNR of device tensors against a reference", &setup_accuracy},
    {"capture", "Logic-analyzer captures: info, convert, synth", &setup_capture},
    {"export", "Write a stored run as a recording bundle", &setup_export},
    {"store", "Copy runs between stores (SQLite file, PostgreSQL server): push, pull", &setup_store},
    {"rig", "The device rig: check that the scenario's rig is reachable and ready", &setup_rig},
    {"agent", "Serve a run on the device (started by the transport; JSON lines on stdin/stdout)", &setup_agent},
    {"completion", "Print the shell completion script for bash, zsh or fish", &setup_completion},
    {"man-page", "Print the manual page (roff); the build writes it to harness.1", &setup_man_page},
};

}  // namespace

void add_notify_options(CLI::App& app, NotifyFlags& flags) {
  app.add_option("--notify", flags.target,
                 "Tell people on a regression: a command (verdict JSON on stdin, HARNESS_NOTIFY_SUMMARY) or an "
                 "http(s) webhook URL; instead of the scenario's [notify]");
  app.add_flag("--notify-cannot-tell", flags.cannot_tell, "With --notify: also when the verdict is 'cannot tell'");
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "harness: hardware-in-the-loop validation for edge AI accelerators.\n"
      "Exit codes: 0 all verdicts pass, 1 a verdict failed or a regression was found,\n"
      "2 bad usage or bad input, 3 a probe or the infrastructure failed.",
      "harness"};
  app.set_version_flag("--version", std::string("harness ") + HARNESS_VERSION);
  app.require_subcommand(1);
  GlobalOptions global;
  app.add_option("--db", global.db,
                 "Run store: an SQLite file or a postgresql:// URI (default: $HARNESS_DB, else "
                 "./harness-runs.sqlite)");
  app.add_flag("--json", global.json, "Machine-readable JSON on stdout");
  app.fallthrough();

  Io io{out, err, &out == &std::cout && ::isatty(STDOUT_FILENO) == 1, &err == &std::cerr && ::isatty(STDERR_FILENO) == 1};
  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const CommandEntry& c : kCommands) {
    CLI::App* sub = app.add_subcommand(std::string(c.name), std::string(c.summary));
    sub->fallthrough();
    actions.emplace_back(sub, c.setup(*sub, global, io));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --version, subcommand --help
      std::ostringstream text;
      app.exit(e, text, text);
      out << text.str();
      return 0;
    }
    print_text(err, fmt::format("harness: error: {}\nRun 'harness --help' for usage.\n", e.what()));
    return static_cast<int>(ExitCode::bad_input);
  }

  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    Result<ExitCode> r = ExitCode::ok;
    try {
      r = action();
    } catch (const std::bad_alloc&) {
      // Input that slipped past a limit must not abort the process: what was
      // stored stays stored, and a running run reads as abandoned.
      r = Error::infra(fmt::format("out of memory while running '{}' (an allocation failed)", sub->get_name()));
    }
    if (!r) {
      print_text(err, "harness: error: " + r.error().message + "\n");
      return static_cast<int>(r.error().code);
    }
    return static_cast<int>(*r);
  }
  return static_cast<int>(ExitCode::bad_input);
}

}  // namespace harness
