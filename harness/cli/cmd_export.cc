#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/bundle/bundle.h"
#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/chrome_trace.h"
#include "reports/run_clock.h"

namespace harness {
namespace {

// `export RUN DIR`: the run as a recording bundle.
Status export_bundle(Store& store, const RunRecord& run, const Recording& recording, const std::string& dir, Io io) {
  // Every stored artifact goes out, and only as the bytes that were stored.
  std::vector<ExtraFile> files;
  for (const Artifact& a : run.artifacts) {
    HARNESS_TRY(store.verify_artifact(a));
    files.push_back({a.path, a.name, a.kind, a.sha256});
  }
  std::string provenance = run.origin == "live"
                               ? fmt::format("recorded live on {} (run {} of {})", run.context.count("host") ? run.context.at("host") : "?",
                                             run.id, store.path())
                               : fmt::format("exported from run {} of {} ({})", run.id, store.path(), run.origin);
  HARNESS_TRY(write_bundle(dir, run, recording, files, provenance));
  io.out << fmt::format("run {} written to {}\n", run.id, dir);
  return ok();
}

// `export RUN --trace FILE`: the measurement window as Chrome trace JSON.
Status export_trace(const RunRecord& run, const Recording& recording, const std::string& path, Io io) {
  RunTrace trace = run_trace(run, recording);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error::input(fmt::format("{}: cannot write the trace: {}", path, std::strerror(errno)));
  out << trace.doc.dump() << '\n';
  out.close();
  if (!out) return Error::infra(fmt::format("{}: writing the trace failed: {}", path, std::strerror(errno)));
  io.out << fmt::format("run {}: {} iteration slices written to {} (Chrome trace JSON: Perfetto, chrome://tracing)\n",
                        run.id, trace.iteration_slices, path);
  for (const std::string& note : trace.notes) print_text(io.out, "note: " + note + "\n");
  return ok();
}

}  // namespace

Action setup_export(CLI::App& app, const GlobalOptions& global, Io io) {
  auto id = std::make_shared<std::int64_t>(0);
  auto dir = std::make_shared<std::string>();
  auto trace = std::make_shared<std::string>();
  auto openmetrics = std::make_shared<std::string>();
  CLI::Option* prom = app.add_option("--openmetrics", *openmetrics,
                                     "Instead: the newest finished run of each scenario and rig as Prometheus text "
                                     "(node_exporter's textfile collector) into FILE, or - for stdout");
  app.add_option("run", *id, "Run id")->excludes(prom);
  app.add_option("dir", *dir, "Folder to write the recording bundle to (must be empty or absent)");
  app.add_option("--trace", *trace,
                 "Write the run's measurement window as Chrome trace event JSON (Perfetto, chrome://tracing) to FILE");
  return [=, &global]() -> Result<ExitCode> {
    if (!openmetrics->empty()) return export_openmetrics(global, *openmetrics, io);
    if (*id == 0) return Error::input("export: name a run (or --openmetrics FILE)");
    if (dir->empty() && trace->empty()) {
      return Error::input("export: name a folder for the recording bundle, or --trace FILE (or both)");
    }
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    Result<RunRecord> run = store->load_run(*id);
    if (!run) return run.error();
    Result<Recording> recording = stored_recording(*run);
    if (!recording) return recording.error();
    if (!dir->empty()) HARNESS_TRY(export_bundle(*store, *run, *recording, *dir, io));
    if (!trace->empty()) HARNESS_TRY(export_trace(*run, *recording, *trace, io));
    return ExitCode::ok;
  };
}

}  // namespace harness
