// Judging a run, metric by metric, by the one rule of judgement.h. Pure: the
// caller loads the analyses, the history and the rig's calibration from the
// store.
//
// Two kinds of evidence (docs/parts/compare.md):
//  - against a same-run reference (`judge_against_reference`): the per-round
//    ratios candidate / reference of every paired metric ("vs_reference.<X>"
//    sample sets), judged as paired rounds (paired.h);
//  - against baseline nights (`compare_analyses`): each numeric metric's value
//    of the new night against the baseline's nights, the spread between
//    nights from the baseline's own runs (>= min_baseline_runs), the rig's
//    calibration or the history of earlier runs (nights.h). A statistic of
//    repetitions in order is taken as each run's best stretch
//    (persistence.h). One baseline run with no calibration and no history
//    cannot show how far this rig's nights wander: "cannot tell", with the
//    within-run test's view in the reason.
// Either way the p-values of a comparison form one family (Holm or BH), a
// change of repeated iterations must hold in every stretch of the new run
// (else cannot tell, persistence), and a level whose rig readings were
// unstable in either run (`stability.<level>` starts with "unstable") is
// cannot tell for all its metrics.
// Outcomes: regressed / improved (by Metric::better), changed (a metric with
// no better direction, or another category), unchanged (with the smallest
// change the evidence could detect), cannot tell (with why).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/compare/judgement.h"
#include "harness/compare/nights.h"
#include "harness/model/metric.h"
#include "harness/scenario/compare_config.h"

namespace harness {

// Measured and replayed figures are the same kind of evidence (a replay
// re-analyses a measurement); declared and model figures are not.
bool same_kind_of_evidence(Provenance a, Provenance b);

struct MetricComparison {
  std::string name;
  Level level = Level::roofline;
  std::string unit;
  Better better = Better::none;
  std::string kind;  // "samples" (a sample set's median), "from samples", "single", "text", "paired"
  // Unavailable in both runs, or ignored by the scenario: "cannot tell", but no
  // evidence was missed either, so `--fail-on-unknown` does not count it (a
  // rig without a power sensor would otherwise fail every night).
  bool nothing_to_judge = false;
  std::optional<double> baseline, current;
  std::string baseline_text, current_text;  // categorical value or "unavailable: why"
  std::optional<Provenance> baseline_provenance, current_provenance;
  std::optional<double> change;           // current - baseline
  std::optional<double> relative_change;  // change / |baseline|
  // What is held against the threshold: the judged relative change (each
  // run's best stretch for repetitions in order; the geometric mean of the
  // round ratios for a paired metric), with its interval at 1 - alpha and the
  // smallest change the evidence could detect at the configured power.
  std::optional<double> effect;
  std::string effect_name;  // "change against nights", "paired change"
  std::optional<double> low, high, detectable;
  std::string basis;        // what the spread rests on: "5 baseline nights' spread", "20 paired rounds"
  double threshold = 0;     // relative
  std::size_t baseline_samples = 0, current_samples = 0;
  // Within the two runs' samples (shown, not deciding: it cannot see the
  // spread between nights).
  std::optional<double> p_samples;  // the sample test's two-sided p
  std::string sample_test;          // "U test", "quantile test", "Welch t test"
  std::optional<double> p_history;  // when the spread came from the history of earlier runs
  std::size_t history_runs = 0;
  std::optional<double> p_between;  // when it came from a baseline set's runs (or the calibration)
  std::size_t between_runs = 0;     // the baseline's runs that have the metric
  std::optional<double> p_paired;   // paired rounds against the same-run reference
  std::optional<double> p_wilcoxon; // its signed-rank check
  std::size_t rounds = 0;
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
  // What decided the verdict: judgement.h's "significance", "equivalence",
  // "spread", "interval"; or "persistence", "stability", "spread unknown".
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
  std::string against;  // "baseline nights" or "reference"
  std::string calibration;  // the rig's calibration used, in words ("" when none)
  std::vector<MetricComparison> metrics;
  std::size_t tests = 0;           // size of the family the correction saw
  std::vector<Verdict> expectations;  // baseline-relative scenario expectations

  std::size_t count(Change c) const;
  bool failed_expectations() const;
  // Regressions nobody has acknowledged.
  std::size_t unacknowledged_regressions() const;
  // Exit code 1: any regression not acknowledged, or a failed baseline expectation.
  bool regressed() const { return unacknowledged_regressions() > 0 || failed_expectations(); }
  // `--fail-on-unknown`: a metric that could not be told also fails.
  bool undecided() const;
};

// Earlier values of a metric on the same scenario and rig, oldest first (empty
// when there are none). Supplied by the caller so the judgement stays pure.
using HistoryLookup = std::function<std::vector<double>(const std::string& metric)>;

// The rig's measured between-night spread of a metric (its calibration,
// `harness calibrate`), on the scale the metric is judged on; nothing when the
// rig has none for it.
using CalibrationLookup = std::function<std::optional<NightSpread>(const std::string& metric)>;

// `baseline_runs`: every run of a baseline set (the baseline among them);
// with min_baseline_runs or more their spread judges every metric.
Comparison compare_analyses(const Analysis& baseline, const Analysis& current, const CompareConfig& config,
                            const HistoryLookup& history = {},
                            const std::vector<const Analysis*>& baseline_runs = {},
                            const CalibrationLookup& calibration = {});

// The value compare judges a night by, per numeric metric and sample set
// (a set's median) with measured evidence: each run's best stretch for a
// statistic of repetitions in order (persistence.h), the metric's own value
// otherwise. What a calibration takes the spread between nights of.
std::map<std::string, double> night_values(const Analysis& run, const CompareConfig& config);

// A run with a same-run reference judged on its own: one row per paired
// metric (the candidate's metric name, kind "paired"). Empty when the run
// has no reference.
Comparison judge_against_reference(const Analysis& run, const CompareConfig& config);

// The paired rows as the run's own verdicts, stored with it (check
// "reference.<metric>"): regressed fails, unchanged and improved pass,
// cannot tell is VerdictStatus::cannot_tell; changed (no better direction)
// passes with the change said.
std::vector<Verdict> reference_verdicts(const Comparison& paired);
// The run's paired verdicts joined to its own (a live run, a replay).
void add_reference_verdicts(const CompareConfig& config, Analysis& run);

// The reason a level's metrics cannot be told in this run ("rig unstable:
// cpu0 2.1→1.2 GHz"), or nothing.
std::optional<std::string> unstable_level(const Analysis& run, Level level);

}  // namespace harness
