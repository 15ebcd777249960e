#include "harness/compare/judgement.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

namespace harness {

std::string_view change_name(Change c) {
  switch (c) {
    case Change::regressed: return "regressed";
    case Change::improved: return "improved";
    case Change::changed: return "changed";
    case Change::unchanged: return "unchanged";
    case Change::cannot_tell: return "cannot tell";
  }
  return "?";
}

namespace {

double t_quantile(double df, double probability) {
  const boost::math::students_t dist(std::max(df, 1.0));
  return boost::math::quantile(dist, probability);
}

double threshold_on_scale(double threshold, ChangeScale scale) {
  return scale == ChangeScale::log_ratio ? std::log1p(threshold) : threshold;
}

std::string p_words(double p) {
  if (p == 0) return "< 1e-300";
  return p < 1e-4 ? fmt::format("= {:.1e}", p) : fmt::format("= {:.4f}", p);
}

std::string level_words(double confidence) { return fmt::format("{:g} %", 100 * confidence); }

}  // namespace

std::string percent_text(double relative) {
  if (std::isinf(relative)) return relative > 0 ? "+inf %" : "-inf %";
  return fmt::format("{:+.1f} %", 100 * relative);
}

double relative_of(double x, ChangeScale scale) { return scale == ChangeScale::log_ratio ? std::expm1(x) : x; }

double change_p(const ChangeEvidence& e) {
  if (e.p) return *e.p;
  if (!(e.standard_error > 0)) return e.estimate == 0 ? 1.0 : 0.0;
  const double t = std::fabs(e.estimate) / e.standard_error;
  const boost::math::students_t dist(std::max(e.degrees_of_freedom, 1.0));
  return std::clamp(2 * boost::math::cdf(boost::math::complement(dist, t)), 0.0, 1.0);
}

double detectable_change(const ChangeEvidence& e, const JudgementSettings& s) {
  const double alpha = s.alpha / std::max(s.looks, 1);
  const double df = e.degrees_of_freedom;
  const double on_scale = (t_quantile(df, 1 - alpha / 2) + t_quantile(df, s.power)) * e.standard_error;
  return relative_of(on_scale, e.scale);
}

Judgement judge_change(const ChangeEvidence& e, const JudgementSettings& s, std::optional<double> p_adjusted) {
  Judgement j;
  const double alpha = s.alpha / std::max(s.looks, 1);
  const double theta = threshold_on_scale(s.threshold, e.scale);
  const double df = e.degrees_of_freedom;
  const double se = std::max(e.standard_error, 0.0);
  j.p = change_p(e);
  j.change = relative_of(e.estimate, e.scale);
  // The two-sided 1 - alpha interval, and the 1 - 2 alpha one of the two
  // one-sided tests (equivalence at alpha: inside the threshold).
  auto interval_at = [&](double confidence) {
    if (e.interval) return e.interval(confidence);
    const double half = t_quantile(df, 0.5 + confidence / 2) * se;
    return std::pair<double, double>(e.estimate - half, e.estimate + half);
  };
  const auto [low, high] = interval_at(1 - alpha);
  j.low = relative_of(low, e.scale);
  j.high = relative_of(high, e.scale);
  j.detectable = detectable_change(e, s);
  const double detectable_on_scale = (t_quantile(df, 1 - alpha / 2) + t_quantile(df, s.power)) * se;
  const auto [tost_low, tost_high] = interval_at(1 - 2 * alpha);
  const bool equivalent = tost_low > -theta && tost_high < theta;
  const bool could_see = detectable_on_scale <= theta;
  const double p = p_adjusted.value_or(j.p);
  const bool significant = p < alpha;
  const bool beyond = std::fabs(e.estimate) > theta;

  const std::string interval = fmt::format("{} [{}, {}] at {}", percent_text(j.change), percent_text(j.low),
                                           percent_text(j.high), level_words(1 - alpha));
  const std::string p_part =
      p_adjusted ? fmt::format("p {} (adjusted {})", p_words(j.p), p_words(*p_adjusted)) : fmt::format("p {}", p_words(j.p));
  const std::string basis = e.basis.empty() ? "" : "; " + e.basis;
  const std::string thr = fmt::format("±{:g} %", 100 * s.threshold);
  const std::string detect = fmt::format("would detect ≥ {:.1f} %", 100 * std::fabs(j.detectable));

  if (significant && beyond) {
    const bool up = e.estimate > 0;
    if (s.better == Better::none) j.outcome = Change::changed;
    else j.outcome = (up == (s.better == Better::higher)) ? Change::improved : Change::regressed;
    j.decided_by = "significance";
    j.why = fmt::format("{}, beyond the {} threshold, {}{}", interval, thr, p_part, basis);
    return j;
  }
  if (equivalent && could_see) {
    j.outcome = Change::unchanged;
    j.decided_by = "equivalence";
    const std::string tost = fmt::format("{} [{}, {}] at {}", percent_text(j.change),
                                         percent_text(relative_of(tost_low, e.scale)),
                                         percent_text(relative_of(tost_high, e.scale)), level_words(1 - 2 * alpha));
    j.why = fmt::format("{}, inside the {} threshold; {}{}", tost, thr, detect, basis);
    return j;
  }
  j.outcome = Change::cannot_tell;
  if (!could_see) {
    j.decided_by = "spread";
    j.why = fmt::format("spread too wide for the {} threshold: {} only; {}, {}{}", thr, detect, interval, p_part,
                        basis);
  } else if (beyond) {
    j.decided_by = "significance";
    j.why = fmt::format("{}: beyond the {} threshold but not significant, {}{}", interval, thr, p_part, basis);
  } else {
    j.decided_by = "interval";
    j.why = fmt::format("{}: {}the interval reaches beyond the {} threshold, {}{}", interval,
                        significant ? "significant, but " : "", thr, p_part, basis);
  }
  return j;
}

}  // namespace harness
