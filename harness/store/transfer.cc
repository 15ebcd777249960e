#include "harness/store/transfer.h"

#include <algorithm>
#include <map>

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

Result<BaselineTransferSummary> copy_baselines(const Store& source, Store& destination) {
  Result<std::vector<Baseline>> baselines = source.list_baselines();
  if (!baselines) return baselines.error();
  Result<std::vector<std::pair<std::int64_t, std::string>>> runs = source.run_uuids();
  if (!runs) return runs.error();
  const std::map<std::int64_t, std::string> uuid_of(runs->begin(), runs->end());
  BaselineTransferSummary summary;
  for (const Baseline& b : *baselines) {
    const std::string what = fmt::format("'{}' of scenario '{}' on rig '{}'", b.name, b.scenario_name, b.rig);
    // The members' ids in the destination, oldest first as in the source.
    std::vector<std::int64_t> members;
    for (std::int64_t id : b.runs) {
      auto uuid = uuid_of.find(id);
      if (uuid == uuid_of.end()) break;
      Result<std::optional<std::int64_t>> there = destination.find_run(uuid->second);
      if (!there) return there.error();
      if (!*there) break;
      members.push_back(**there);
    }
    if (members.size() != b.runs.size()) {
      summary.left.push_back(what);
      continue;
    }
    std::sort(members.begin(), members.end());
    Result<std::vector<Baseline>> same_name = destination.list_baselines(b.name);
    if (!same_name) return same_name.error();
    auto existing = std::find_if(same_name->begin(), same_name->end(), [&](const Baseline& d) {
      return d.scenario_name == b.scenario_name && d.rig == b.rig;
    });
    if (existing != same_name->end() && existing->runs != members) {
      summary.kept.push_back(what);
      continue;
    }
    if (existing == same_name->end()) {
      Result<std::optional<std::int64_t>> set = destination.set_baseline(b.name, members, b.set_at);
      if (!set) return set.error().within("baseline " + what + " not copied");
      summary.copied.push_back(what);
    } else {
      ++summary.already_there;
    }
    // The acknowledgements that hold for the source's baseline hold for the
    // same baseline in the destination: its newest run there.
    Result<std::vector<Acknowledgement>> acks = source.acknowledgements(b.name, b.scenario_name, b.rig);
    if (!acks) return acks.error();
    Result<std::vector<Acknowledgement>> held = destination.acknowledgements(b.name, b.scenario_name, b.rig);
    if (!held) return held.error();
    for (Acknowledgement a : *acks) {
      a.baseline_run = members.back();
      const bool there = std::any_of(held->begin(), held->end(), [&](const Acknowledgement& h) {
        return h.metric == a.metric && h.by == a.by && h.at == a.at && h.reason == a.reason;
      });
      if (there) continue;
      Status stored = destination.acknowledge(a);
      if (!stored) return stored.error().within("acknowledgement of " + a.metric + " against " + what);
      ++summary.acknowledgements;
    }
  }
  return summary;
}

}  // namespace harness
