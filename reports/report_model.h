// What a report renders: one run, optionally the baseline run it is set
// against, and a per-metric comparison as a plain struct. The renderers
// (HTML, Markdown, JUnit) read only this; they never query the store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/model/run.h"

namespace harness {

// One metric of the new run set against the baseline.
struct MetricChange {
  Level level = Level::roofline;
  std::string name;
  std::string unit;
  std::optional<double> baseline;
  std::optional<double> current;
  std::optional<double> change_pct;  // (current - baseline) / |baseline| x 100, when both exist and baseline != 0
  // "regressed", "improved", "changed", "unchanged", "cannot tell"; empty when nobody
  // judged the change (the report then shows the difference only).
  std::string verdict;
  std::string detail;  // the test used and its result, or why it cannot decide
};

struct ReportComparison {
  std::string baseline_label;  // "baseline 'day1' (run 3)" or "run 3"
  std::string method;          // how the verdicts were reached, shown under the table
  std::vector<MetricChange> changes;

  bool regressed() const;
};

struct ReportInput {
  RunRecord run;
  std::optional<RunRecord> baseline;     // its Analysis feeds the arrows and overlays
  std::optional<ReportComparison> comparison;  // the per-metric table
};

// The arithmetic difference of every metric the two runs share, without any
// verdict: what a report can say before a statistical comparison exists.
ReportComparison value_differences(const RunRecord& baseline, const RunRecord& run, std::string baseline_label);

// The run as a report shows it against a baseline: each baseline-relative
// verdict the comparison judged (harness/compare: "MEM_STALL dropped >= 50 %",
// "AI moved right") takes the place of the run's own "needs a baseline"
// placeholder with the same check, or is added after the run's verdicts; the
// comparison's diagnostic hints join the run's hints.
void apply_baseline_verdicts(Analysis& run, const std::vector<Verdict>& judged, const std::vector<std::string>& hints);

// The text of a figure as people read it: "31.2 GB/s", "memory",
// "unavailable: <reason>".
std::string figure_text(std::optional<double> value, const std::string& unit);

}  // namespace harness
