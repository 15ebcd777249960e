// The judgement of a stored run: against a baseline resolved by name (keyed
// by scenario and rig) or id, with the run's own scenario's compare settings
// and baseline expectations, the history and the rig's calibration; and,
// for a run with a same-run reference, its paired verdicts. Without a named
// baseline or run it is the run's default judgement, the one `harness
// compare RUN`, `history --changes` and `publish` all show: against the
// newest baseline of its scenario and rig set before it, else against the
// nights before it (the last history_runs completed runs). Used by `harness
// compare`, `harness report --baseline/--against`, history and publish.
#pragma once

#include <cstdint>
#include <optional>
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
  std::string rig{};         // with `baseline`: that rig's baseline instead (asked for, so no mismatch)
  bool all_rigs = false;     // the noise band draws on the scenario's runs on every rig
};

// The nights a run is judged against when no baseline is named: how the
// default was chosen, in words ("the nights before it: runs 3-7").

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
  // A run with a same-run reference: its paired verdicts (judge_against_reference).
  std::optional<Comparison> reference;

  bool regressed() const { return comparison.regressed() || (reference && reference->regressed()); }
  bool undecided() const { return comparison.undecided() || (reference && reference->undecided()); }
};

struct StoredComparison {
  CompareReport report;
  RunRecord baseline;
  RunRecord current;
};

Result<StoredComparison> compare_stored_runs(const Store& store, const CompareRequest& request);

// The nights a baseline of `count` is made of (`baseline set --last N`):
// counting back from run `newest`, the completed live runs of its scenario
// and rig that are good nights: passed (no failed verdict, no paired
// regression against a reference), no paired verdict that could not tell, no
// level whose rig readings were unstable, and no regression in their own
// judgement against the nights before them. The others are skipped, each
// with why. `newest` itself must be one of them.
struct ChosenNights {
  std::vector<std::int64_t> taken;  // oldest first
  std::vector<std::pair<std::int64_t, std::string>> skipped;  // newest first: run, why
};
Result<ChosenNights> choose_good_nights(const Store& store, std::int64_t newest, int count);

}  // namespace harness
