#include "harness/store/transfer.h"

#include <fmt/format.h>

namespace harness {

Result<TransferSummary> copy_runs(const Store& source, Store& destination) {
  Result<std::vector<std::pair<std::int64_t, std::string>>> runs = source.run_uuids();
  if (!runs) return runs.error();
  TransferSummary summary;
  for (const auto& [id, uuid] : *runs) {
    Result<std::optional<std::int64_t>> there = destination.find_run(uuid);
    if (!there) return there.error();
    if (*there) {
      ++summary.already_there;
      continue;
    }
    Result<RunRecord> run = source.load_run(id);
    if (!run) return run.error();
    // A running run would be frozen as running in the destination, and an
    // abandoned one is no record of anything; both stay behind.
    if (run->status == RunStatus::running || run->status == RunStatus::abandoned) {
      summary.unfinished.push_back(id);
      continue;
    }
    std::vector<Artifact> kept;
    for (const Artifact& a : run->artifacts) {
      Status intact = source.verify_artifact(a);
      if (!intact) return intact.error().within(fmt::format("run {} not copied", id));
      Result<Artifact> copy = destination.keep_artifact(a.path, a.name, a.kind, false);
      if (!copy) return copy.error().within(fmt::format("run {} not copied", id));
      if (copy->sha256 != a.sha256 || copy->size != a.size) {
        return Error::infra(fmt::format("run {} not copied: artifact {} arrived as sha256 {} ({} B), not {} ({} B)",
                                        id, a.name, copy->sha256, copy->size, a.sha256, a.size));
      }
      kept.push_back(*copy);
      ++summary.artifacts;
      summary.artifact_bytes += a.size;
    }
    run->artifacts = std::move(kept);
    // Another push of the same run may have stored it since find_run: then
    // it is there, which is all this copy was for.
    Result<std::optional<std::int64_t>> stored = destination.insert_run_if_absent(*run);
    if (!stored) return stored.error().within(fmt::format("run {} not copied", id));
    if (*stored) {
      summary.copied.push_back(id);
    } else {
      ++summary.already_there;
    }
  }
  return summary;
}

}  // namespace harness
