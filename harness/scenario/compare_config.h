// How `harness compare` judges this scenario's runs. Reference:
// scenarios/README.md "## Comparing runs". Every field has a documented
// default, so a scenario without [compare] is judged the same way everywhere.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>

#include "harness/compare/multiple_testing.h"

namespace harness {

class TableReader;

struct CompareConfig {
  // Family-wise (holm) or false-discovery (bh) level of the tests.
  double alpha = 0.05;
  Correction method = Correction::holm;
  // Smallest relative change of a single value that counts. Without a test
  // behind it the threshold must also cover run-to-run noise, hence wider.
  double default_threshold = 0.10;
  // Smallest relative change of a metric computed from samples (the median of
  // a sample set, or a percentile of it) that counts once the U test says the
  // samples differ: a tiny but significant change is not a regression.
  double sample_threshold = 0.03;
  // Per-metric overrides of either threshold, by metric name.
  std::map<std::string, double> metric_threshold;
  // Metrics not judged at all (verdict "cannot tell"), e.g. a maximum that
  // one scheduler hiccup decides.
  std::set<std::string> ignore;
  // Fewer samples than this on either side: no U test.
  std::size_t min_samples = 10;
  // The noise band uses the last `history_runs` runs of the same scenario on
  // the same rig up to the baseline that carry measured evidence (live runs,
  // and replayed or imported nights, a night replayed again counted once),
  // once at least `min_history_runs` of them exist.
  std::size_t history_runs = 20;
  std::size_t min_history_runs = 5;
  // A baseline of several runs judges each value against the spread between
  // those runs; with fewer runs than this holding the metric the spread is
  // unknown and the verdict is "cannot tell".
  std::size_t min_baseline_runs = 3;

  double threshold_for(const std::string& metric, bool from_samples) const {
    auto it = metric_threshold.find(metric);
    if (it != metric_threshold.end()) return it->second;
    return from_samples ? sample_threshold : default_threshold;
  }
};

// Reads a [compare] table (parse_compare.cc).
CompareConfig read_compare_section(TableReader& reader);

}  // namespace harness
