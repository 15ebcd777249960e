// `harness export --openmetrics FILE`: the newest finished run of each
// scenario and rig, with its one judgement (compare_stored_runs without a
// baseline, as `harness compare RUN` shows it), as Prometheus text
// (reports/openmetrics.h), written
// through a temporary and a rename, as node_exporter's textfile collector
// needs (it must never read a half-written file).
#include <map>

#include <fmt/format.h>

#include "harness/base/files.h"
#include "harness/cli/commands.h"
#include "harness/compare/stored_comparison.h"
#include "harness/store/store.h"
#include "reports/openmetrics.h"

namespace harness {

Result<ExitCode> export_openmetrics(const GlobalOptions& global, const std::string& file, Io io) {
  Result<Store> store = Store::open(resolve_database_path(global.db));
  if (!store) return store.error();
  Result<std::vector<RunSummary>> listed = store->list_runs(1'000'000);
  if (!listed) return listed.error();
  std::map<std::pair<std::string, std::string>, std::int64_t> newest;  // (scenario, rig) -> run
  for (const RunSummary& r : *listed)  // newest first
    if (r.status == RunStatus::passed || r.status == RunStatus::failed) newest.emplace(std::pair{r.scenario_name, r.rig}, r.id);
  std::vector<JudgedRun> runs;
  for (const auto& [key, id] : newest) {
    CompareRequest request;
    request.run = id;
    Result<StoredComparison> judged = compare_stored_runs(*store, request);
    if (judged) {
      runs.emplace_back(std::move(judged->current), std::move(judged->report));
      continue;
    }
    Result<RunRecord> run = store->load_run(id);
    if (!run) return run.error();
    runs.emplace_back(std::move(*run), std::nullopt, judged.error().message);
  }
  const std::string text = render_openmetrics(runs);
  if (file == "-") {
    io.out << text;
    return ExitCode::ok;
  }
  Status written = write_file_atomically(file, text);
  if (!written) return Error::input(written.error().message);
  io.out << fmt::format("{} runs written to {}\n", runs.size(), file);
  return ExitCode::ok;
}

}  // namespace harness
