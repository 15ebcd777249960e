#include "harness/compare/calibration.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "harness/base/stats.h"
#include "harness/compare/nights.h"
#include "harness/compare/paired.h"

namespace harness {
namespace {

// The spread of the rounds' log ratios pooled over the nights, their
// degrees of freedom and the median rounds of a night.
struct PooledRounds {
  double sum_squares = 0, df = 0;
  std::vector<double> rounds;
};

// Whether a comparison flagged each metric (regressed or improved).
void count_flags(const Comparison& c, std::map<std::string, std::int64_t>& flags, bool& any) {
  for (const MetricComparison& m : c.metrics) {
    if (m.verdict != Change::regressed && m.verdict != Change::improved) continue;
    ++flags[m.name];
    any = true;
  }
}

}  // namespace

Calibration calibrate_nights(const std::vector<RunRecord>& nights, const CompareConfig& config) {
  Calibration out;
  if (nights.empty()) return out;
  out.scenario_name = nights.front().scenario_name;
  out.rig = nights.front().rig;
  for (const RunRecord& r : nights) out.runs.push_back(r.id);

  // Each night's judged values, and the paired rounds' spread.
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, PooledRounds> paired;
  for (const RunRecord& r : nights) {
    for (const auto& [name, v] : night_values(r.analysis, config)) values[name].push_back(v);
    for (const SampleSet& s : r.analysis.samples) {
      if (s.name.rfind("vs_reference.", 0) != 0) continue;
      std::optional<PairedRounds> p = paired_rounds(s.values);
      if (!p) continue;
      PooledRounds& pool = paired[s.name.substr(std::string_view("vs_reference.").size())];
      pool.sum_squares += (static_cast<double>(p->rounds) - 1) * p->sd_log * p->sd_log;
      pool.df += static_cast<double>(p->rounds) - 1;
      pool.rounds.push_back(static_cast<double>(p->rounds));
    }
  }

  // The A/A comparisons at the scenario's settings.
  std::map<std::string, std::int64_t> flags;
  for (std::size_t k = 0; k < nights.size(); ++k) {
    const Comparison own = judge_against_reference(nights[k].analysis, config);
    if (!own.metrics.empty()) {
      bool any = false;
      count_flags(own, flags, any);
      ++out.comparisons;
      out.false_alarms += any;
    }
    const std::size_t before = config.min_baseline_runs;
    if (k < before) continue;
    std::vector<const Analysis*> set;
    for (std::size_t i = k - before; i < k; ++i) set.push_back(&nights[i].analysis);
    const Comparison c = compare_analyses(nights[k - 1].analysis, nights[k].analysis, config, {}, set);
    bool any = false;
    count_flags(c, flags, any);
    ++out.comparisons;
    out.false_alarms += any;
  }

  JudgementSettings settings;
  settings.alpha = config.alpha;
  settings.power = config.power;
  std::set<std::string> names;
  for (const auto& [name, v] : values) names.insert(name);
  for (const auto& [name, p] : paired) names.insert(name);
  for (const std::string& name : names) {
    CalibratedMetric m;
    m.name = name;
    m.false_alarms = flags.count(name) ? flags.at(name) : 0;
    auto v = values.find(name);
    if (v != values.end() && v->second.size() >= 2) {
      const ChangeScale scale = scale_of(v->second);
      if (std::optional<NightSpread> s = spread_of(v->second, scale, "")) {
        m.scale = scale == ChangeScale::log_ratio ? "log" : "relative";
        m.sd = s->sd;
        m.df = s->degrees_of_freedom;
        // One baseline night with this spread: se = sd * sqrt(1/1 + 1).
        const ChangeEvidence e{.standard_error = s->sd * std::sqrt(2.0), .degrees_of_freedom = s->degrees_of_freedom, .scale = scale};
        m.detectable = detectable_change(e, settings);
      }
    }
    auto p = paired.find(name);
    if (p != paired.end() && p->second.df >= 1) {
      m.paired_sd = std::sqrt(p->second.sum_squares / p->second.df);
      m.paired_rounds = static_cast<std::int64_t>(median(p->second.rounds));
      const double rounds = static_cast<double>(m.paired_rounds);
      const ChangeEvidence e{.standard_error = *m.paired_sd / std::sqrt(rounds),
                             .degrees_of_freedom = rounds - 1,
                             .scale = ChangeScale::log_ratio};
      JudgementSettings looks = settings;
      looks.looks = config.looks;
      m.paired_detectable = detectable_change(e, looks);
    }
    if (m.df >= 1 || m.paired_sd) out.metrics.push_back(std::move(m));
  }
  return out;
}

CalibrationLookup calibration_lookup(const Calibration& c) {
  return [c](const std::string& metric) -> std::optional<NightSpread> {
    const CalibratedMetric* m = c.find(metric);
    if (!m || m->df < 1) return std::nullopt;
    return NightSpread{m->sd, m->df, m->scale == "log" ? ChangeScale::log_ratio : ChangeScale::relative,
                       fmt::format("the rig's calibration of {} ({} nights)", c.created_at.substr(0, 10),
                                   c.runs.size())};
  };
}

std::string calibration_summary(const Calibration& c, const CompareConfig& config) {
  std::string out = fmt::format("rig {}, calibrated {} ({} A/A nights): {} of {} comparisons with a false alarm",
                                c.rig, c.created_at.substr(0, 10), c.runs.size(), c.false_alarms, c.comparisons);
  std::vector<std::string> detects;
  for (const std::string& g : config.gating) {
    const CalibratedMetric* m = c.find(g);
    if (!m) continue;
    if (m->paired_detectable)
      detects.push_back(fmt::format("≥ {:.1f} % on {} against its reference", 100 * *m->paired_detectable, g));
    if (m->detectable) detects.push_back(fmt::format("≥ {:.1f} % on {} against one night", 100 * *m->detectable, g));
  }
  if (!detects.empty()) {
    out += "; detects ";
    for (std::size_t i = 0; i < detects.size(); ++i) out += (i ? ", " : "") + detects[i];
  }
  return out;
}

}  // namespace harness
