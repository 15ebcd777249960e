#include "reports/report_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/base/units.h"

namespace harness {

bool ReportComparison::regressed() const {
  for (const MetricChange& c : changes)
    if (c.verdict == "regressed") return true;
  return false;
}

ReportComparison value_differences(const RunRecord& baseline, const RunRecord& run, std::string baseline_label) {
  ReportComparison out;
  out.baseline_label = std::move(baseline_label);
  out.method = "value difference only: no statistical verdict in this report";
  for (const Metric& m : run.analysis.metrics) {
    const Metric* b = baseline.analysis.find_metric(m.name);
    if (!b || !m.text.empty()) continue;  // categorical metrics have no difference
    MetricChange c;
    c.level = m.level;
    c.name = m.name;
    c.unit = m.unit;
    c.baseline = b->value;
    c.current = m.value;
    if (c.baseline && c.current && *c.baseline != 0 && std::isfinite(*c.baseline) && std::isfinite(*c.current)) {
      c.change_pct = (*c.current - *c.baseline) / std::fabs(*c.baseline) * 100;
    }
    if (!c.current) c.detail = "this run: unavailable: " + m.unavailable;
    else if (!c.baseline) c.detail = "baseline: unavailable: " + b->unavailable;
    out.changes.push_back(std::move(c));
  }
  return out;
}

void apply_baseline_verdicts(Analysis& run, const std::vector<Verdict>& judged, const std::vector<std::string>& hints) {
  for (const Verdict& v : judged) {
    auto same = std::find_if(run.verdicts.begin(), run.verdicts.end(),
                             [&](const Verdict& x) { return x.level == v.level && x.check == v.check; });
    if (same != run.verdicts.end()) *same = v;
    else run.verdicts.push_back(v);
  }
  for (const std::string& h : hints)
    if (std::find(run.hints.begin(), run.hints.end(), h) == run.hints.end()) run.hints.push_back(h);
}

std::string figure_text(std::optional<double> value, const std::string& unit) {
  if (!value) return "unavailable";
  if (!std::isfinite(*value)) return "not a number";
  if (unit.empty() && std::fabs(*value) >= 1e4) {
    // Counts (cycles, misses) read better with a prefix: "8.7 G", not "8.7e+09".
    for (auto [scale, prefix] : {std::pair{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}) {
      if (std::fabs(*value) >= scale) return fmt::format("{:.4g} {}", *value / scale, prefix);
    }
  }
  if (unit.empty() || unit == "1") return fmt::format("{:.4g}", *value);
  return format_quantity(*value, unit);
}

}  // namespace harness
