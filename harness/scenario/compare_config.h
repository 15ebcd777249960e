// How `harness compare` judges this scenario's runs. Reference:
// scenarios/README.md "## Comparing runs". Every field has a documented
// default, so a scenario without [compare] is judged the same way everywhere.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/base/multiple_testing.h"

namespace harness {

class TableReader;

struct CompareConfig {
  // Family-wise (holm) or false-discovery (bh) level of the tests, and the
  // false-alarm rate of each look at a run (split over the looks).
  double alpha = 0.05;
  // The power (1 - beta) at which `unchanged` states the smallest change the
  // evidence could have detected.
  double power = 0.8;
  Correction method = Correction::holm;
  // Smallest relative change of a single value that counts. Without a test
  // behind it the threshold must also cover run-to-run noise, hence wider.
  double default_threshold = 0.10;
  // Smallest relative change of a metric computed from samples (the median of
  // a sample set, or a percentile of it) that counts once the U test says the
  // samples differ: a tiny but significant change is not a regression.
  double sample_threshold = 0.03;
  // Smallest relative change of a metric judged against a same-run
  // reference (paired rounds): drift cancels, so it can be small.
  double paired_threshold = 0.05;
  // Per-metric overrides of any threshold, by metric name.
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
  // A paired metric needs at least this many rounds for a verdict.
  std::size_t min_rounds = 5;
  // The metrics (by name, e.g. "latency_p50") whose paired verdict decides
  // whether a run with a reference takes more rounds: when one of them is
  // "cannot tell" the run adds rounds of both sides, up to max_rounds in all
  // and time_budget_s of extra measuring (0: no extra rounds).
  std::vector<std::string> gating = {"latency_p50"};
  std::size_t max_rounds = 0;
  double time_budget_s = 0;
  // The most looks a run with a reference may take at its paired metrics:
  // derived from [reference] rounds and max_rounds by the scenario reader;
  // alpha is split over them (Bonferroni).
  int looks = 1;

  double threshold_for(const std::string& metric, bool from_samples) const {
    auto it = metric_threshold.find(metric);
    if (it != metric_threshold.end()) return it->second;
    return from_samples ? sample_threshold : default_threshold;
  }
  double paired_threshold_for(const std::string& metric) const {
    auto it = metric_threshold.find(metric);
    return it != metric_threshold.end() ? it->second : paired_threshold;
  }
};

// Reads a [compare] table (parse_compare.cc).
CompareConfig read_compare_section(TableReader& reader);

}  // namespace harness
