// A live run: record (probes fill a Recording on a worker thread while a
// Boost.Asio loop watches for SIGINT/SIGTERM), then analyse, then store.
#pragma once

#include <functional>
#include <string>

#include "harness/base/result.h"
#include "harness/model/run.h"
#include "harness/scenario/scenario.h"
#include "harness/store/store.h"
#include "probes/clock.h"

namespace harness {

struct RunOptions {
  std::function<void(const std::string&)> progress;  // one line per step; may be empty
  Clock* clock = nullptr;                             // default: the monotonic clock
  // Raw files of the run (captures) go to <artifact_root>/run-<id>/; default:
  // "harness-artifacts" beside the database.
  std::string artifact_root;
  // When set, the run is also written there as a recording bundle.
  std::string record_dir;
};

struct RunOutcome {
  RunRecord run;
  ExitCode exit = ExitCode::ok;  // failed verdict -> 1, aborted -> 3
};

// Every run that reached the store is returned, aborted ones included; an
// Error means nothing could be stored (the store itself failed).
Result<RunOutcome> run_scenario(const Scenario& scenario, Store& store, const RunOptions& options = {});

}  // namespace harness
