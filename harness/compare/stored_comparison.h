// A comparison of two stored runs: the baseline resolved by name (keyed by
// scenario and rig) or id, the run's own scenario's compare settings and
// baseline expectations, the history noise band. Used by `harness compare`
// and by `harness report --baseline/--against`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/compare/compare.h"
#include "harness/model/run.h"
#include "harness/store/store.h"

namespace harness {

struct CompareRequest {
  std::int64_t run = 0;
  std::string baseline;      // a named baseline of the run's scenario and rig
  std::int64_t against = 0;  // or a run id
  bool allow_mismatch = false;
  std::string rig;           // with `baseline`: that rig's baseline instead (asked for, so no mismatch)
  bool all_rigs = false;     // the noise band draws on the scenario's runs on every rig
};

// What was compared with what, and the judgement.
struct CompareReport {
  std::int64_t baseline_run = 0;           // the baseline's newest run
  std::vector<std::int64_t> baseline_runs;  // every run of a baseline set, oldest first
  std::int64_t current_run = 0;
  std::string baseline_name;  // empty for --against RUN
  std::string scenario, rig;                    // of the new run
  std::string baseline_scenario, baseline_rig;  // of the baseline run
  std::vector<std::string> notes;  // e.g. key mismatch allowed, scenario text differs
  Comparison comparison;
};

struct StoredComparison {
  CompareReport report;
  RunRecord baseline;
  RunRecord current;
};

Result<StoredComparison> compare_stored_runs(const Store& store, const CompareRequest& request);

}  // namespace harness
