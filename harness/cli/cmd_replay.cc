#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/base/bounded_json.h"
#include "harness/base/files.h"
#include "harness/base/input_limits.h"
#include "harness/bundle/replay.h"
#include "harness/cli/commands.h"
#include "harness/cli/progress_view.h"
#include "harness/runner/signal_stop.h"
#include "harness/store/store.h"
#include "reports/console.h"
#include "reports/json.h"

namespace harness {

Action setup_replay(CLI::App& app, const GlobalOptions& global, Io io) {
  struct Options {
    std::string dir;
    std::string expect;
    std::string write_expect;
    bool no_store = false;
    bool verbose = false;
    std::string color = "auto";
  };
  auto o = std::make_shared<Options>();
  app.add_option("bundle", o->dir, "Recording folder (made by 'harness run --record' or 'harness export')")
      ->required();
  app.add_option("--expect", o->expect, "Check metrics and verdicts against this expectation file; exit 1 on a difference");
  app.add_option("--write-expect", o->write_expect, "Write the replay's metrics and verdicts as an expectation file");
  app.add_flag("--no-store", o->no_store, "Do not store the replayed run");
  app.add_flag("--verbose,-v", o->verbose, "Print every metric and its source (as 'harness show RUN'), not only the summary");
  app.add_option("--color", o->color, "Colour: auto (on a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  return [=, &global]() -> Result<ExitCode> {
    SignalStop signals;  // a signal in any phase makes the replayed run aborted, exit 3
    Result<LoadedBundle> bundle = load_bundle(o->dir);
    if (!bundle) return bundle.error();
    Result<RunRecord> run = replay_bundle(*bundle);
    if (!run) return run.error();
    auto interrupted = [&](const std::string& reason, const char* phase) {
      if (reason.empty() || run->status == RunStatus::aborted) return false;
      run->status = RunStatus::aborted;
      run->reason = fmt::format("{} {}", reason, phase);
      return true;
    };
    interrupted(signals.reason(), "while replaying");
    if (!o->no_store) {
      Result<Store> store = Store::open(resolve_database_path(global.db));
      if (!store) return store.error();
      // The bundle's raw files become the replayed run's artifacts, so that
      // `export` of it carries what another replay needs.
      for (const BundleFile& f : bundle->manifest.files) {
        if (f.role == "scenario" || f.role == "recording") continue;
        Result<Artifact> kept = store->keep_artifact(o->dir + "/" + f.path, f.path, f.role, /*move=*/false);
        if (!kept) return kept.error();
        if (kept->sha256 != f.sha256) {
          return Error::input(fmt::format("{}/{}: changed after the bundle was verified", o->dir, f.path));
        }
        run->artifacts.push_back(*kept);
      }
      run->uuid = new_run_uuid();  // a replay is a run of its own
      Result<std::int64_t> id = store->insert_run(*run);
      if (!id) return id.error();
      run->id = *id;
      if (interrupted(signals.seal(fmt::format("run {} was stored {}", run->id, run_status_name(run->status))),
                      "while storing")) {
        HARNESS_TRY(store->mark_aborted(run->id, run->reason));
      }
    } else {
      interrupted(signals.seal("the replay was final"), "after replaying");
    }
    nlohmann::json fingerprint = analysis_fingerprint(run->analysis);
    if (!o->write_expect.empty()) HARNESS_TRY(write_file_atomically(o->write_expect, fingerprint.dump(1) + "\n"));
    std::string difference;
    if (!o->expect.empty()) {
      Result<nlohmann::json> expected =
          read_bounded_json_file(o->expect, {.bytes = kMaxExpectationBytes}, "expectation file");
      if (!expected) return expected.error();
      difference = describe_fingerprint_difference(*expected, fingerprint);
    }
    if (global.json) {
      io.out << run_to_json(*run).dump(2) << "\n";
    } else {
      const ColorChoice choice = color_choice_from_name(o->color).value_or(ColorChoice::automatic);
      const Palette palette{colour_wanted(choice, io.out_tty, std::getenv("NO_COLOR"))};
      if (o->verbose) io.out << render_run_details_text(*run) << "\n";
      io.out << render_run_summary_text(*run, palette);
      if (!o->no_store) {
        io.out << fmt::format("\nstored as run {}", run->id);
        if (!o->verbose) io.out << fmt::format("; every metric: harness show {}", run->id);
        io.out << "\n";
      }
    }
    if (!difference.empty()) {
      print_text(io.err, fmt::format("harness: replay differs from {}:\n{}", o->expect, difference));
      return ExitCode::failed;
    }
    if (run->status == RunStatus::aborted) return ExitCode::infrastructure;
    return run->status == RunStatus::failed ? ExitCode::failed : ExitCode::ok;
  };
}

}  // namespace harness
