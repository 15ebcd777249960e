// Judging a run against a baseline, metric by metric. Pure: the caller loads
// both analyses and the history from the store.
//
// For each metric both runs have:
//  - computed from samples (a sample set of the same name, or a statistic
//    "<set>_<stat>" of one) with >= min_samples on both sides: a test suited
//    to the statistic says whether the samples differ in it (the set or a
//    metric of its name: Mann-Whitney U; "_p95", "_median": quantile test;
//    "_mean": Welch's t; any other statistic such as "_max" or a ratio has no
//    test and is a single value), and the effect must also reach
//    sample_threshold (for the set itself the Hodges-Lehmann shift relative
//    to the baseline median, for a metric its own relative change);
//  - a single value: its relative change must reach default_threshold;
//  - either way, when the history holds >= min_history_runs earlier runs with
//    measured evidence (live, or replayed / imported nights counted once;
//    Store::recent_values), the value must also leave the history's noise band (both tests must
//    reject: an intersection-union test, valid at alpha);
//  - a baseline of several runs replaces the history: the value (a sample
//    set's median) must also leave the spread between the baseline's runs
//    (the same prediction interval over their run-level values), so a change
//    must exceed what identical runs show; fewer than min_baseline_runs runs
//    with the metric cannot show a spread: "cannot tell";
//  - the p-values of all metrics form one family, adjusted by Holm or BH.
// Verdicts: regressed / improved (by Metric::better), changed (a metric with no
// better direction), unchanged, cannot tell (missing or unavailable on a
// side, provenance of a different kind, too few samples for a set).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/metric.h"
#include "harness/scenario/compare_config.h"

namespace harness {

enum class Change { regressed, improved, changed, unchanged, cannot_tell };
std::string_view change_name(Change c);  // "regressed", ..., "cannot tell"

// Measured and replayed figures are the same kind of evidence (a replay
// re-analyses a measurement); declared and model figures are not.
bool same_kind_of_evidence(Provenance a, Provenance b);

struct MetricComparison {
  std::string name;
  Level level = Level::roofline;
  std::string unit;
  Better better = Better::none;
  std::string kind;  // "samples" (a sample set's median), "from samples", "single", "text"
  std::optional<double> baseline, current;
  std::string baseline_text, current_text;  // categorical value or "unavailable: why"
  std::optional<Provenance> baseline_provenance, current_provenance;
  std::optional<double> change;           // current - baseline
  std::optional<double> relative_change;  // change / |baseline|
  // What is held against the threshold: the relative change, or for a
  // sample set the Hodges-Lehmann shift relative to the baseline median.
  std::optional<double> effect;
  std::string effect_name;  // "change" or "Hodges-Lehmann shift"
  double threshold = 0;     // relative
  std::size_t baseline_samples = 0, current_samples = 0;
  std::optional<double> p_samples;  // the sample test's two-sided p
  std::string sample_test;          // "U test", "quantile test", "Welch t test"
  std::optional<double> p_history;  // noise band
  std::size_t history_runs = 0;
  std::optional<double> p_between;  // against the spread between a baseline set's runs
  std::size_t between_runs = 0;     // the baseline's runs that have the metric
  // The between-run spread was taken of each run's best stretch (a statistic
  // of repetitions in order: level 4's iterations, level 1's rounds, level 2's
  // windows; persistence.h), the new run's too.
  bool between_undisturbed = false;
  // The noise band or the between-run spread was a count's Poisson spread,
  // larger than the runs' own (noise_band.h).
  bool counting_floor = false;
  // For a statistic of repetitions in order with enough of them: the new run
  // cut into stretches, and how many show the change (persistence.h); 0 and 0
  // unchecked.
  std::size_t stretches = 0, stretches_showing = 0;
  // The evidence that decided the verdict: "threshold" (the change was too
  // small), the test that could not reject ("U test", "between-run spread",
  // ...), or the threshold and every test that rejected.
  std::string decided_by;
  std::optional<double> p;           // the one in the family: max of the above
  std::optional<double> p_adjusted;  // after Holm / BH
  Change verdict = Change::cannot_tell;
  std::string reason;  // why, in words
  // A regression accepted for now (`harness baseline ack`): who, when, why.
  // It is still shown as regressed but no longer fails the comparison.
  std::string acknowledged;
};

struct Comparison {
  CompareConfig config;
  std::vector<MetricComparison> metrics;
  std::size_t tests = 0;           // size of the family the correction saw
  std::vector<Verdict> expectations;  // baseline-relative scenario expectations

  std::size_t count(Change c) const;
  bool failed_expectations() const;
  // Regressions nobody has acknowledged.
  std::size_t unacknowledged_regressions() const;
  // Exit code 1: any regression not acknowledged, or a failed baseline expectation.
  bool regressed() const { return unacknowledged_regressions() > 0 || failed_expectations(); }
};

// Earlier values of a metric on the same scenario and rig, oldest first (empty
// when there are none). Supplied by the caller so the judgement stays pure.
using HistoryLookup = std::function<std::vector<double>(const std::string& metric)>;

// `baseline_runs`: every run of a baseline set (the baseline among them);
// with two or more the between-run spread judges every metric.
Comparison compare_analyses(const Analysis& baseline, const Analysis& current, const CompareConfig& config,
                            const HistoryLookup& history = {},
                            const std::vector<const Analysis*>& baseline_runs = {});

}  // namespace harness
