// A live run: record (probes fill a Recording while a watch thread turns
// SIGINT/SIGTERM into a stop request, signal_stop.h), then analyse,
// then store. A signal in any phase makes the run aborted, exit 3.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "harness/base/result.h"
#include "harness/model/run.h"
#include "harness/model/progress.h"
#include "harness/runner/signal_stop.h"
#include "harness/scenario/scenario.h"
#include "harness/store/store.h"
#include "probes/clock.h"

namespace harness {

struct RunOptions {
  RunProgress* progress = nullptr;  // steps, levels, iterations as they happen; may be null
  Clock* clock = nullptr;           // default: the monotonic clock
  // Raw files of the run (captures) are written to <artifact_root>/run-<id>/
  // while it runs, then kept in the store's artifact folder, named by their
  // sha256 (Store::keep_artifact); default: the store's artifact folder.
  std::string artifact_root;
  // When set, the run is also written there as a recording bundle.
  std::string record_dir;
  // The command's signal watch, when it outlives this call (the command
  // writes a report after it, and seals the watch itself); empty: the run
  // watches signals on its own until it returns.
  SignalStop* signals = nullptr;
  // Added to the run's stored context ("calibration": "night 3 of 20").
  std::map<std::string, std::string> context;
};

struct RunOutcome {
  RunRecord run;
  ExitCode exit = ExitCode::ok;  // failed verdict -> 1, aborted -> 3
};

// Every run that reached the store is returned, aborted ones included; an
// Error means nothing could be stored (the store itself failed).
Result<RunOutcome> run_scenario(const Scenario& scenario, Store& store, const RunOptions& options = {});

// A stored run whose command was interrupted (`reason` not empty) after its
// status was written becomes aborted: "<reason> <phase>", exit 3. Nothing
// changes for a run aborted already or when no signal arrived.
Status abort_if_interrupted(Store& store, const std::string& reason, const char* phase, RunOutcome& outcome);

}  // namespace harness
