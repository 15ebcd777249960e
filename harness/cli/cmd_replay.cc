#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/bundle/replay.h"
#include "harness/cli/commands.h"
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
  };
  auto o = std::make_shared<Options>();
  app.add_option("bundle", o->dir, "Recording folder (made by 'harness run --record' or 'harness export')")
      ->required();
  app.add_option("--expect", o->expect, "Check metrics and verdicts against this expectation file; exit 1 on a difference");
  app.add_option("--write-expect", o->write_expect, "Write the replay's metrics and verdicts as an expectation file");
  app.add_flag("--no-store", o->no_store, "Do not store the replayed run");
  return [=, &global]() -> Result<ExitCode> {
    Result<LoadedBundle> bundle = load_bundle(o->dir);
    if (!bundle) return bundle.error();
    Result<RunRecord> run = replay_bundle(*bundle);
    if (!run) return run.error();
    if (!o->no_store) {
      Result<Store> store = Store::open(resolve_database_path(global.db));
      if (!store) return store.error();
      Result<std::int64_t> id = store->insert_run(*run);
      if (!id) return id.error();
      run->id = *id;
    }
    nlohmann::json fingerprint = analysis_fingerprint(run->analysis);
    if (!o->write_expect.empty()) {
      std::ofstream out(o->write_expect, std::ios::trunc);
      out << fingerprint.dump(1) << "\n";
      if (!out) return Error::infra(fmt::format("{}: cannot write", o->write_expect));
    }
    std::string difference;
    if (!o->expect.empty()) {
      std::ifstream in(o->expect);
      if (!in) return Error::input(fmt::format("{}: cannot open expectation file", o->expect));
      std::stringstream text;
      text << in.rdbuf();
      nlohmann::json expected = nlohmann::json::parse(text.str(), nullptr, false);
      if (expected.is_discarded()) return Error::input(fmt::format("{}: not valid JSON", o->expect));
      difference = describe_fingerprint_difference(expected, fingerprint);
    }
    if (global.json) {
      io.out << run_to_json(*run).dump(2) << "\n";
    } else {
      io.out << render_run_text(*run);
      if (!o->no_store) io.out << fmt::format("stored as run {}\n", run->id);
    }
    if (!difference.empty()) {
      io.err << fmt::format("harness: replay differs from {}:\n{}", o->expect, difference);
      return ExitCode::failed;
    }
    if (run->status == RunStatus::aborted) return ExitCode::infrastructure;
    return run->status == RunStatus::failed ? ExitCode::failed : ExitCode::ok;
  };
}

}  // namespace harness
