// The one table of levels: what each level is called, in which order its
// analysis runs, how it analyses a Recording, which expectations it checks,
// how it judges a run against a baseline, and the title of its report section.
// analyse() (analyse.cc), compare (harness/compare/baseline_expectations.cc)
// and the HTML report (reports/html.cc) walk it instead of listing levels, so
// a new level is one row here plus its own files. The metric names each level
// emits are its table in harness/model/metric_catalogue.cc.
//
// The live acquisition is not a column: it differs per level in where it runs
// (levels 1 and 2 on the device through the agent, 4 from the host around the
// measurement window) and stays in harness/runner/runner.cc.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "harness/levels/recording.h"
#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

struct LevelRow {
  Level level;
  // Pure: the level's metrics, samples, hints (and verdicts of its own) from
  // its part of the recording. Absent from the scenario, it says why.
  void (*analyse)(const Scenario& scenario, const Recording& recording, Provenance measured, Analysis& out);
  // The [<level>.expect] bounds the scenario sets (empty when none).
  std::vector<Expectation> (*expectations)(const Scenario& scenario);
  // Verdicts and hints that need the evaluated expectations (level 2's
  // diagnostic rule); null for most levels.
  void (*after_verdicts)(const Scenario& scenario, Analysis& out);
  // Baseline-relative expectations (compare, report --baseline).
  std::vector<Verdict> (*baseline)(const Scenario& scenario, const Analysis& baseline, const Analysis& current);
  std::string_view report_section;  // the HTML report's heading
};

// In analysis order: level 1 after 2 and 3 (a kernel's bytes may come from
// their metrics), level 5 after 1 (its FP16-fallback candidates need the
// layer profile).
std::span<const LevelRow> level_table();

// The same rows in the level's own order (1..5), as reports show them.
std::vector<const LevelRow*> levels_in_report_order();

const LevelRow& level_row(Level level);

}  // namespace harness
