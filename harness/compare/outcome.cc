#include "harness/compare/outcome.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace harness {
namespace {

// Every row of the judgement: against the nights, then the paired ones.
std::vector<const MetricComparison*> rows_of(const CompareReport& r) {
  std::vector<const MetricComparison*> rows;
  for (const MetricComparison& m : r.comparison.metrics) rows.push_back(&m);
  if (r.reference)
    for (const MetricComparison& m : r.reference->metrics) rows.push_back(&m);
  return rows;
}

// "latency_p95 +12.3 %" for a change, "power_mean (why)" for cannot tell.
std::string row_words(const MetricComparison& m) {
  if (m.verdict == Change::cannot_tell) return fmt::format("{} ({})", m.name, m.reason);
  std::optional<double> change = m.effect ? m.effect : m.relative_change;
  return change ? fmt::format("{} {}", m.name, percent_text(*change)) : m.name;
}

std::string listed(const std::vector<const MetricComparison*>& rows, Change c) {
  std::string out = fmt::format("{} metric{} {}", rows.size(), rows.size() == 1 ? "" : "s", change_name(c));
  for (std::size_t i = 0; i < rows.size() && i < 3; ++i) out += (i == 0 ? ": " : ", ") + row_words(*rows[i]);
  if (rows.size() > 3) out += fmt::format(" and {} more", rows.size() - 3);
  return out;
}

}  // namespace

bool tells_about_the_night(const MetricComparison& m) {
  const bool unavailable_in_both = !m.baseline && !m.current && m.baseline_text.starts_with("unavailable") &&
                                   m.current_text.starts_with("unavailable");
  return !unavailable_in_both && !m.reason.starts_with("unavailable in both runs") && !m.reason.starts_with("ignored:");
}

Outcome outcome_of(const CompareReport& report) {
  std::vector<const MetricComparison*> regressed, cannot_tell, improved;
  for (const MetricComparison* m : rows_of(report)) {
    if (!tells_about_the_night(*m)) continue;
    if (m->verdict == Change::regressed && m->acknowledged.empty()) regressed.push_back(m);
    if (m->verdict == Change::cannot_tell) cannot_tell.push_back(m);
    if (m->verdict == Change::improved) improved.push_back(m);
  }
  std::vector<std::string> failed;
  for (const Verdict& v : report.comparison.expectations)
    if (v.status == VerdictStatus::fail) failed.push_back(v.check);
  if (!regressed.empty() || !failed.empty()) {
    Outcome o;
    o.outcome = Change::regressed;
    o.metrics = regressed;
    o.why = regressed.empty() ? "" : listed(regressed, Change::regressed);
    if (!failed.empty()) {
      o.why += fmt::format("{}{} baseline expectation{} failed: {}", o.why.empty() ? "" : "; ", failed.size(),
                           failed.size() == 1 ? "" : "s", fmt::join(failed, ", "));
    }
    return o;
  }
  if (!cannot_tell.empty()) return {Change::cannot_tell, listed(cannot_tell, Change::cannot_tell), cannot_tell};
  if (!improved.empty()) return {Change::improved, listed(improved, Change::improved), improved};
  // A metric with no better direction that changed (a category, a
  // throttling state) is said, but is neither better nor worse.
  std::size_t judged = 0;
  std::vector<const MetricComparison*> changed;
  for (const MetricComparison* m : rows_of(report)) {
    judged += tells_about_the_night(*m);
    if (m->verdict == Change::changed) changed.push_back(m);
  }
  Outcome o{Change::unchanged, fmt::format("{} metric{} judged, none regressed or improved", judged, judged == 1 ? "" : "s"), changed};
  if (!changed.empty()) o.why += "; " + listed(changed, Change::changed);
  return o;
}

}  // namespace harness
