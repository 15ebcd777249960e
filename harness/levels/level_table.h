// The one table of levels: in which order its analysis runs, how it
// analyses a Recording, which expectations it checks, how it judges a run
// against a baseline, the title of its report section, where its part of
// the Recording goes in the recording's JSON, the raw files that part names,
// and the figures a run's summary shows first. analyse() (analyse.cc), the recording's JSON (recording.cc),
// compare (harness/compare/baseline_expectations.cc), the console summary
// (reports/console.cc) and the HTML report (reports/html.cc) walk it instead
// of listing levels, so a new level is one row here plus its own files. A
// level's name is level_name() (harness/model/metric.h, beside the Level
// enum that every layer below this one speaks); the metric names each level
// emits are its table in harness/model/metric_catalogue.cc.
//
// The acquire column is a second table keyed by these rows,
// harness/runner/acquire_table.h: acquiring needs the device, the host
// instruments and the measurement window, which live in harness/runner and
// above, and this layer must not include them (harness/runner includes
// harness/levels). A test there checks that both tables hold the same levels.
// The typed parts themselves stay typed members (Recording's and Scenario's
// optionals): each row's functions are the one place that names them.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/levels/recording.h"
#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

// A level's part of the Recording in the recording's JSON, under the
// level's name ("roofline", ..., level_name): written when present, read
// when there.
struct RecordingPart {
  void (*save)(const Recording& recording, const std::string& key, nlohmann::json& out);
  void (*load)(const nlohmann::json& in, const std::string& key, Recording& recording);
};

// A figure a person looks at first in a run's summary, by its exact
// catalogue name, with a short label ("p95").
struct HeadlineFigure {
  std::string_view name, label;
};

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
  RecordingPart recording;
  // The raw files its part of the recording names (level 3's capture, level
  // 5's dumps): a live run keeps them as the run's artifacts and its bundle
  // carries them. Null: none.
  void (*raw_files)(const Recording& recording, std::vector<RecordedFile>& out);
  // The run summary's figures of the level (`harness run`, reports/console.cc),
  // each shown when the run has it; level 1 sums up its ceilings and bounds instead.
  std::span<const HeadlineFigure> headline;
};

// In analysis order: level 1 after 2 and 3 (a kernel's bytes may come from
// their metrics), level 5 after 1 (its FP16-fallback candidates need the
// layer profile).
std::span<const LevelRow> level_table();

// The same rows in the level's own order (1..5), as reports show them.
std::vector<const LevelRow*> levels_in_report_order();

const LevelRow& level_row(Level level);

}  // namespace harness
