// The one rule a verdict is reached by: `harness compare`, a run's judgement
// against its same-run reference, `history --changes`, `publish` and the
// reports all end a metric here, so the same evidence gives the same outcome
// everywhere (docs/parts/compare.md, "Four outcomes").
//
// The evidence is an estimate of the change on a judged scale (the natural
// log of new / reference where both are positive, else the change relative
// to |reference|) with its standard error and Student's t degrees of
// freedom, from paired rounds of one run or from nights. With a practical
// threshold theta (relative, turned into the judged scale), a level alpha
// and a power 1 - beta, on the side that is worse:
//   regressed  the change is significant (adjusted p < alpha) and its
//              estimate lies beyond the threshold; improved: the mirror;
//              changed: the same for a metric with no better direction;
//   unchanged  the evidence excludes a change as large as the threshold:
//              the 1 - 2 alpha interval lies inside (-theta, +theta) (two
//              one-sided tests) and the smallest detectable change (below)
//              is within the threshold, so the test could have seen it;
//   cannot tell anything else, with the reason: the spread is too wide for
//              the threshold, the change is beyond the threshold but not
//              significant, or significant but its interval reaches beyond
//              the threshold.
// The smallest detectable change at alpha (two-sided) and power 1 - beta:
//   (t(1 - alpha/2, df) + t(1 - beta, df)) * se on the judged scale.
// Repeated looks at the same run (more rounds when undecided) split alpha
// over the most looks the run may take (Bonferroni).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "harness/model/metric.h"

namespace harness {

enum class Change { regressed, improved, changed, unchanged, cannot_tell };
std::string_view change_name(Change c);  // "regressed", ..., "cannot tell"

// The scale a change is judged on.
enum class ChangeScale { log_ratio, relative };

struct ChangeEvidence {
  double estimate = 0;        // on the scale: ln(new / reference), or (new - reference) / |reference|
  double standard_error = 0;  // of the estimate
  double degrees_of_freedom = 0;  // of the spread behind the standard error (>= 1)
  ChangeScale scale = ChangeScale::log_ratio;
  std::string basis{};        // what the spread rests on: "15 paired rounds", "5 baseline nights"
  // Evidence that is not Student's t (paired rounds with outliers: the
  // signed-rank test and its interval, paired.h): its own two-sided p and
  // its interval at a confidence; empty: the t distribution of the above.
  std::optional<double> p{};
  std::function<std::pair<double, double>(double confidence)> interval{};
};

struct JudgementSettings {
  double threshold = 0.05;  // relative, > 0
  double alpha = 0.05;      // two-sided, per look, before the split over looks
  double power = 0.8;       // 1 - beta, for the smallest detectable change
  int looks = 1;            // the most looks the evidence may be taken at (>= 1)
  Better better = Better::none;
};

struct Judgement {
  Change outcome = Change::cannot_tell;
  double change = 0;        // relative: exp(estimate) - 1 on the log scale
  double low = 0, high = 0; // relative two-sided 1 - alpha/looks interval
  double p = 1;             // two-sided, this metric alone
  double detectable = 0;    // relative smallest detectable change (positive; inf when none)
  std::string decided_by;   // "threshold", "significance", "equivalence", "spread", "interval"
  std::string why;          // in words, ready for a reader
};

// The two-sided p of the evidence (t = estimate / se, df).
double change_p(const ChangeEvidence& e);
// The smallest change the evidence could detect, relative (see above).
double detectable_change(const ChangeEvidence& e, const JudgementSettings& s);
// A value on the judged scale as a relative change.
double relative_of(double x, ChangeScale scale);

// The verdict. `p_adjusted` is the metric's p after the family's correction
// (Holm or BH); without it the metric's own p is used.
Judgement judge_change(const ChangeEvidence& e, const JudgementSettings& s,
                       std::optional<double> p_adjusted = std::nullopt);

// "+3.1 %", "-0.4 %".
std::string percent_text(double relative);

}  // namespace harness
