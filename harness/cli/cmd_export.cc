#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/input_limits.h"
#include "harness/bundle/bundle.h"
#include "harness/cli/commands.h"
#include "harness/store/store.h"

namespace harness {

Action setup_export(CLI::App& app, const GlobalOptions& global, Io io) {
  auto id = std::make_shared<std::int64_t>(0);
  auto dir = std::make_shared<std::string>();
  app.add_option("run", *id, "Run id")->required();
  app.add_option("dir", *dir, "Folder to write (must be empty or absent)")->required();
  return [=, &global]() -> Result<ExitCode> {
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    Result<RunRecord> run = store->load_run(*id);
    if (!run) return run.error();
    if (run->recording_json.empty()) {
      return Error::input(fmt::format("run {} has no recording (it never finished acquiring)", *id));
    }
    Result<nlohmann::json> stored =
        parse_bounded_json(run->recording_json, fmt::format("run {}'s stored recording", *id), kMaxJsonDepth);
    if (!stored) return Error::infra(stored.error().message);
    Recording recording;
    try {
      recording = stored->get<Recording>();
    } catch (const nlohmann::json::exception& e) {
      return Error::infra(fmt::format("run {}'s stored recording is corrupt: {}", *id, e.what()));
    }
    // Every stored artifact goes out, and only as the bytes that were stored.
    std::vector<ExtraFile> files;
    for (const Artifact& a : run->artifacts) {
      HARNESS_TRY(store->verify_artifact(a));
      files.push_back({a.path, a.name, a.kind, a.sha256});
    }
    std::string provenance = run->origin == "live"
                                 ? fmt::format("recorded live on {} (run {} of {})", run->context["host"], *id,
                                               store->path())
                                 : fmt::format("exported from run {} of {} ({})", *id, store->path(), run->origin);
    HARNESS_TRY(write_bundle(*dir, *run, recording, files, provenance));
    io.out << fmt::format("run {} written to {}\n", *id, *dir);
    return ExitCode::ok;
  };
}

}  // namespace harness
