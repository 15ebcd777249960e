#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/runner/runner.h"
#include "harness/scenario/scenario.h"
#include "reports/console.h"
#include "reports/json.h"

namespace harness {

Action setup_run(CLI::App& app, const GlobalOptions& global, Io io) {
  auto scenario_path = std::make_shared<std::string>();
  auto record_dir = std::make_shared<std::string>();
  app.add_option("scenario", *scenario_path, "Scenario file (TOML); reference: scenarios/README.md")->required();
  app.add_option("--record", *record_dir, "Also write the run as a recording bundle into this folder (empty or absent)");
  return [=, &global]() -> Result<ExitCode> {
    Result<Scenario> scenario = load_scenario(*scenario_path);
    if (!scenario) return scenario.error();
    if (!record_dir->empty() && std::filesystem::exists(*record_dir) && !std::filesystem::is_empty(*record_dir)) {
      return Error::input(fmt::format("{}: the recording folder must be empty or absent", *record_dir));
    }
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    RunOptions options;
    options.record_dir = *record_dir;
    options.progress = [&](const std::string& line) { io.err << "harness: " << line << "\n" << std::flush; };
    Result<RunOutcome> outcome = run_scenario(*scenario, *store, options);
    if (!outcome) return outcome.error();
    if (global.json) {
      io.out << run_to_json(outcome->run).dump(2) << "\n";
    } else {
      io.out << render_run_text(outcome->run);
      io.out << fmt::format("stored as run {} in {}\n", outcome->run.id, store->path());
    }
    return outcome->exit;
  };
}

}  // namespace harness
