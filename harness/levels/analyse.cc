#include "harness/levels/analyse.h"

#include <fmt/format.h>

#include "harness/base/units.h"
#include "harness/levels/level_table.h"

namespace harness {
namespace {

std::string show(double value, const std::string& unit) {
  if (unit.empty() || unit == "1") return fmt::format("{:.4g}", value);
  return format_quantity(value, unit);
}

Verdict evaluate_one(const Expectation& e, const Analysis& analysis) {
  Verdict v;
  v.level = e.level;
  v.check = fmt::format("{}.expect.{}", level_name(e.level), e.key);
  if (e.metric.find('.') != std::string::npos && e.metric.rfind("ceiling.", 0) != 0) {
    v.check = fmt::format("{}.expect.{}", e.metric.substr(0, e.metric.find('.')), e.key);
  }
  switch (e.bound) {
    case Bound::min: v.expected = ">= " + show(e.number, e.unit); break;
    case Bound::max: v.expected = "<= " + show(e.number, e.unit); break;
    case Bound::equals: v.expected = e.text; break;
  }
  const Metric* m = analysis.find_metric(e.metric);
  if (!m) {
    v.status = VerdictStatus::unavailable;
    v.measured = "unavailable: metric " + e.metric + " was not produced";
    return v;
  }
  if (!m->value) {
    v.status = VerdictStatus::unavailable;
    v.measured = "unavailable: " + m->unavailable;
    return v;
  }
  bool pass = false;
  switch (e.bound) {
    case Bound::min: pass = *m->value >= e.number; break;
    case Bound::max: pass = *m->value <= e.number; break;
    case Bound::equals: pass = m->text == e.text; break;
  }
  v.measured = e.bound == Bound::equals ? m->text : show(*m->value, m->unit);
  v.status = pass ? VerdictStatus::pass : VerdictStatus::fail;
  if (!pass) v.detail = fmt::format("{} is {}, expected {} ({})", e.metric, v.measured, v.expected, e.where);
  return v;
}

}  // namespace

std::vector<Verdict> evaluate_expectations(const std::vector<Expectation>& expectations,
                                           const Analysis& analysis) {
  std::vector<Verdict> out;
  for (const Expectation& e : expectations) out.push_back(evaluate_one(e, analysis));
  return out;
}

RunStatus status_from_verdicts(const std::vector<Verdict>& verdicts) {
  for (const Verdict& v : verdicts)
    if (v.status == VerdictStatus::fail) return RunStatus::failed;
  return RunStatus::passed;
}

Analysis analyse(const Scenario& scenario, const Recording& recording, Provenance measured) {
  Analysis a;
  for (const LevelRow& level : level_table()) level.analyse(scenario, recording, measured, a);
  if (recording.stability) analyse_stability(scenario.rig.stability, *recording.stability, measured, a);

  std::vector<Expectation> all;
  for (const LevelRow* level : levels_in_report_order()) {
    std::vector<Expectation> e = level->expectations(scenario);
    all.insert(all.end(), e.begin(), e.end());
  }
  // Levels may add verdicts of their own (baseline-relative ones, unavailable in a run alone).
  std::vector<Verdict> verdicts = evaluate_expectations(all, a);
  a.verdicts.insert(a.verdicts.begin(), verdicts.begin(), verdicts.end());
  for (const LevelRow& level : level_table())
    if (level.after_verdicts) level.after_verdicts(scenario, a);
  return a;
}

}  // namespace harness
