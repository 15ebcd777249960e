// One stored run: who/what/where, its status, and what its analysis produced.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/model/metric.h"

namespace harness {

struct RunRecord {
  std::int64_t id = 0;          // the run's number in its store
  std::string uuid;             // the same in every store the run is copied to (store push/pull)
  std::string scenario_name;
  std::string scenario_path;
  std::string scenario_text;
  std::string scenario_hash;  // sha256 of scenario_text
  std::string rig;
  std::string origin = "live";  // "live" or "replay"
  RunStatus status = RunStatus::running;
  std::string reason;           // why it failed or was aborted
  std::string started_at;       // ISO 8601 UTC
  std::string ended_at;
  std::map<std::string, std::string> context;
  std::string recording_json;   // the raw Recording, for replay and export
  Analysis analysis;
  std::vector<Artifact> artifacts;
};

// A line of `harness runs`.
struct RunSummary {
  std::int64_t id = 0;
  std::string uuid;
  std::string scenario_name;
  std::string rig;
  std::string origin;
  RunStatus status = RunStatus::running;
  std::string reason;
  std::string started_at;
  std::string ended_at;
  int metric_count = 0;
  int verdicts_failed = 0;
};

}  // namespace harness
