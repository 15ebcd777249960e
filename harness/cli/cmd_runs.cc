#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/console.h"
#include "reports/json.h"

namespace harness {

Action setup_runs(CLI::App& app, const GlobalOptions& global, Io io) {
  auto limit = std::make_shared<int>(50);
  app.add_option("--limit", *limit, "How many runs, newest first")->check(CLI::Range(1, 1000000));
  return [=, &global]() -> Result<ExitCode> {
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    Result<std::vector<RunSummary>> runs = store->list_runs(*limit);
    if (!runs) return runs.error();
    if (global.json) io.out << run_list_to_json(*runs).dump(2) << "\n";
    else io.out << render_run_list_text(*runs);
    return ExitCode::ok;
  };
}

Action setup_show(CLI::App& app, const GlobalOptions& global, Io io) {
  auto id = std::make_shared<std::int64_t>(0);
  app.add_option("run", *id, "Run id (see 'harness runs')")->required();
  return [=, &global]() -> Result<ExitCode> {
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    Result<RunRecord> run = store->load_run(*id);
    if (!run) return run.error();
    if (global.json) io.out << run_to_json(*run).dump(2) << "\n";
    else io.out << render_run_text(*run);
    return ExitCode::ok;
  };
}

}  // namespace harness
