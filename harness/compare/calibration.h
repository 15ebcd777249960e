// A rig's calibration (`harness calibrate`): from A/A nights, per metric the
// spread between nights of the value compare judges a night by, the spread of
// a run's paired rounds, what each lets a verdict detect, and the false alarms
// the nights raised when judged at the scenario's settings. Pure: the caller
// runs the nights and stores the result (harness/model/calibration.h).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/compare/compare.h"
#include "harness/model/calibration.h"
#include "harness/model/run.h"

namespace harness {

// The calibration of `nights` (A/A runs of one scenario on one rig, oldest
// first). Comparisons: each night with a reference judged against it, and
// each night from the (min_baseline_runs + 1)-th judged against the
// min_baseline_runs nights before it.
Calibration calibrate_nights(const std::vector<RunRecord>& nights, const CompareConfig& config);

// For compare: a metric's calibrated between-night spread.
CalibrationLookup calibration_lookup(const Calibration& calibration);

// "rig r1, calibrated 2026-12-04 (20 nights): 0 of 35 A/A comparisons with a
// false alarm; detects ≥ 4.0 % on latency_p50 (paired)" for the gating metrics.
std::string calibration_summary(const Calibration& calibration, const CompareConfig& config);

}  // namespace harness
