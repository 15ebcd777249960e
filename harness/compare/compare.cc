#include "harness/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <boost/sort/spreadsort/float_sort.hpp>
#include <fmt/format.h>

#include "harness/base/stats.h"
#include "harness/compare/mann_whitney.h"
#include "harness/compare/noise_band.h"
#include "harness/compare/persistence.h"
#include "harness/compare/sample_statistics.h"
#include "harness/model/metric_catalogue.h"

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

bool same_kind_of_evidence(Provenance a, Provenance b) {
  auto kind = [](Provenance p) { return p == Provenance::replayed ? Provenance::measured : p; };
  return kind(a) == kind(b);
}

std::size_t Comparison::count(Change c) const {
  return static_cast<std::size_t>(
      std::count_if(metrics.begin(), metrics.end(), [&](const MetricComparison& m) { return m.verdict == c; }));
}

std::size_t Comparison::unacknowledged_regressions() const {
  return static_cast<std::size_t>(std::count_if(metrics.begin(), metrics.end(), [](const MetricComparison& m) {
    return m.verdict == Change::regressed && m.acknowledged.empty();
  }));
}

bool Comparison::failed_expectations() const {
  return std::any_of(expectations.begin(), expectations.end(),
                     [](const Verdict& v) { return v.status == VerdictStatus::fail; });
}

namespace {

struct SortedSamples {
  const SampleSet* set = nullptr;
  std::vector<double> sorted;
};

// Each sample set sorted once: the U test walks the sorted pair, the median
// is read off it.
std::map<std::string, SortedSamples, std::less<>> sort_samples(const Analysis& a) {
  std::map<std::string, SortedSamples, std::less<>> out;
  for (const SampleSet& s : a.samples) {
    if (s.values.empty()) continue;
    SortedSamples& x = out[s.name];
    x.set = &s;
    x.sorted = s.values;
    // Sorting is most of a big comparison's time: spreadsort (a radix-style
    // hybrid) is 2-3x faster than std::sort on 10,000 doubles.
    boost::sort::spreadsort::float_sort(x.sorted.begin(), x.sorted.end());
  }
  return out;
}

// The sample set a metric is computed from: the set of the same name, else the
// longest set name that prefixes the metric as "<set>_" ("latency_p95").
std::string backing_set(const std::string& metric, const std::map<std::string, SortedSamples, std::less<>>& sets) {
  if (sets.count(metric)) return metric;
  std::string best;
  for (const auto& [name, s] : sets) {
    if (metric.size() > name.size() + 1 && metric.compare(0, name.size(), name) == 0 &&
        metric[name.size()] == '_' && name.size() > best.size())
      best = name;
  }
  return best;
}

std::string percent(double rel) { return fmt::format("{:+.1f} %", 100 * rel); }

// "= 0.0123", "= 1.2e-09", or "< 1e-300" when the tail underflowed.
std::string p_text(double p) {
  if (p == 0) return "< 1e-300";
  return p < 1e-4 ? fmt::format("= {:.1e}", p) : fmt::format("= {:.4f}", p);
}

class Judge {
 public:
  Judge(const Analysis& baseline, const Analysis& current, const CompareConfig& config, const HistoryLookup& history,
        const std::vector<const Analysis*>& baseline_runs)
      : base_(baseline), cur_(current), config_(config), history_(history), members_(baseline_runs),
        base_sets_(sort_samples(baseline)), cur_sets_(sort_samples(current)) {}

  Comparison run() {
    Comparison out;
    out.config = config_;
    std::set<std::string> names;
    for (const Metric& m : cur_.metrics) {
      names.insert(m.name);
      out.metrics.push_back(metric_row(base_.find_metric(m.name), &m));
    }
    for (const Metric& m : base_.metrics) {
      if (names.insert(m.name).second) out.metrics.push_back(metric_row(&m, nullptr));
    }
    std::set<std::string> set_names;
    for (const auto& [name, s] : cur_sets_) set_names.insert(name);
    for (const auto& [name, s] : base_sets_) set_names.insert(name);
    for (const std::string& name : set_names) {
      if (!names.count(name)) out.metrics.push_back(sample_row(name));
    }
    decide(out);
    return out;
  }

 private:
  // The sample set and statistic behind a row: its name ("median", "p90",
  // "mean", "stddev", "max", "p95_over_p50", ...).
  struct Statistic {
    std::string set;
    std::string name;
  };

  // Mann-Whitney p of a pair of sets, once per set.
  double samples_p(const std::string& set) {
    auto it = p_cache_.find(set);
    if (it != p_cache_.end()) return it->second;
    double p = mann_whitney_u_sorted(base_sets_.at(set).sorted, cur_sets_.at(set).sorted).p;
    p_cache_[set] = p;
    return p;
  }

  static std::string shown(const Metric& m) {
    if (!m.text.empty()) return m.text;
    if (!m.value) return "unavailable: " + m.unavailable;
    return "";
  }

  MetricComparison metric_row(const Metric* b, const Metric* c) {
    const Metric& any = c ? *c : *b;
    MetricComparison r;
    r.name = any.name;
    r.level = any.level;
    r.unit = any.unit;
    r.better = any.better;
    r.kind = !any.text.empty() ? "text" : "single";
    if (b) {
      r.baseline = b->value;
      r.baseline_text = shown(*b);
      r.baseline_provenance = b->provenance;
    }
    if (c) {
      r.current = c->value;
      r.current_text = shown(*c);
      r.current_provenance = c->provenance;
    }
    if (!b || !c) {
      r.reason = fmt::format("missing in the {} run", b ? "new" : "baseline");
      return r;
    }
    if (config_.ignore.count(r.name)) {
      r.reason = "ignored: listed in [compare] ignore";
      return r;
    }
    if (!b->value || !c->value) {
      if (!b->value && !c->value) r.reason = fmt::format("unavailable in both runs: {}", c->unavailable);
      else if (!b->value) r.reason = fmt::format("unavailable in the baseline: {}", b->unavailable);
      else r.reason = fmt::format("unavailable in the new run: {}", c->unavailable);
      return r;
    }
    if (!same_kind_of_evidence(b->provenance, c->provenance)) {
      r.reason = fmt::format("provenance differs: {} vs {}", provenance_name(b->provenance),
                             provenance_name(c->provenance));
      return r;
    }
    if (r.kind == "text") {
      r.verdict = b->text == c->text ? Change::unchanged : Change::changed;
      r.reason = b->text == c->text ? "same" : fmt::format("{} -> {}", b->text, c->text);
      return r;
    }
    std::string set = backing_set(r.name, cur_sets_);
    std::string note;
    bool untestable = false, needs_history = false;
    if (!set.empty() && base_sets_.count(set)) note = sample_test(r, set, untestable, needs_history);
    if (untestable) {
      r.reason = note;
      return r;
    }
    numeric(r, *b->value, *c->value, r.kind == "from samples");
    if (r.verdict == Change::cannot_tell) {
      r.reason = note.empty() ? r.reason : note + "; " + r.reason;
      return r;
    }
    if (needs_history && !r.p_between) {
      // Computed from noisy samples, yet without a test: only the spread of
      // earlier runs can tell a change from noise.
      if (!r.p_history) {
        r.verdict = Change::cannot_tell;
        r.reason = note + fmt::format(", and there is no noise band yet (needs {} earlier measured runs)",
                                      config_.min_history_runs);
        return r;
      }
      note += ", judged against the noise band; ";
    }
    r.reason = note;
    return r;
  }

  MetricComparison sample_row(const std::string& name) {
    MetricComparison r;
    r.name = name;
    r.kind = "samples";
    auto b = base_sets_.find(name);
    auto c = cur_sets_.find(name);
    const SampleSet& any = c != cur_sets_.end() ? *c->second.set : *b->second.set;
    r.level = any.level;
    r.unit = any.unit;
    r.better = any.better;
    if (b != base_sets_.end()) {
      r.baseline = percentile_sorted(b->second.sorted, 50);
      r.baseline_provenance = b->second.set->provenance;
      r.baseline_samples = b->second.sorted.size();
    }
    if (c != cur_sets_.end()) {
      r.current = percentile_sorted(c->second.sorted, 50);
      r.current_provenance = c->second.set->provenance;
      r.current_samples = c->second.sorted.size();
    }
    if (b == base_sets_.end() || c == cur_sets_.end()) {
      r.reason = fmt::format("samples missing in the {} run", b == base_sets_.end() ? "baseline" : "new");
      return r;
    }
    if (config_.ignore.count(r.name)) {
      r.reason = "ignored: listed in [compare] ignore";
      return r;
    }
    if (!same_kind_of_evidence(*r.baseline_provenance, *r.current_provenance)) {
      r.reason = fmt::format("provenance differs: {} vs {}", provenance_name(*r.baseline_provenance),
                             provenance_name(*r.current_provenance));
      return r;
    }
    if (std::min(r.baseline_samples, r.current_samples) < config_.min_samples) {
      r.reason = fmt::format("too few samples: {} and {} (the U test needs {} on each side)", r.baseline_samples,
                             r.current_samples, config_.min_samples);
      return r;
    }
    r.p_samples = samples_p(name);
    r.sample_test = "U test";
    statistic_[name] = Statistic{name, "median"};  // the row shows the medians
    numeric(r, *r.baseline, *r.current, true);
    if (r.verdict == Change::cannot_tell) return r;
    if (*r.baseline != 0) {
      const auto& x = b->second.sorted;
      const auto& y = c->second.sorted;
      double scale = std::max(std::fabs(*r.baseline), std::fabs(*r.current));
      r.effect = hodges_lehmann_shift_sorted(x, y, 1e-6 * scale) / std::fabs(*r.baseline);
      r.effect_name = "Hodges-Lehmann shift";
    }
    return r;
  }

  // Picks and runs the test for the statistic a metric takes of sample set
  // `set`; returns a note when the metric falls back to a single value.
  // Sets `untestable` when no judgement is possible at all, `needs_history`
  // when only the history's noise band can judge the metric.
  std::string sample_test(MetricComparison& r, const std::string& set, bool& untestable, bool& needs_history) {
    const std::vector<double>& x = base_sets_.at(set).sorted;
    const std::vector<double>& y = cur_sets_.at(set).sorted;
    r.baseline_samples = x.size();
    r.current_samples = y.size();
    const std::string stat = r.name == set ? "" : r.name.substr(set.size() + 1);
    std::optional<double> q = quantile_of(stat);  // in (0, 1)
    statistic_[r.name] = Statistic{set, stat.empty() ? "median" : stat};
    if (!stat.empty() && !q && stat != "mean") {
      needs_history = true;
      return fmt::format("'{}' of sample set '{}' has no test of its own", stat, set);
    }
    if (std::min(x.size(), y.size()) < config_.min_samples) {
      needs_history = true;
      return fmt::format("{} and {} samples are too few for a test (needs {})", x.size(), y.size(),
                         config_.min_samples);
    }
    if (stat.empty()) {
      r.p_samples = samples_p(set);
      r.sample_test = "U test";
    } else if (q) {
      r.p_samples = quantile_difference_p(x, y, *q);
      r.sample_test = "quantile test";
      if (!r.p_samples) {
        // A p99 of 300 samples rests on its 3 largest values: no number to judge.
        untestable = true;
        return fmt::format("too few samples in that tail: {} and {} samples give fewer than 5 beyond the "
                           "{:g}th percentile on a side",
                           x.size(), y.size(), 100 * *q);
      }
    } else {
      r.p_samples = welch_t_p(base_sets_.at(set).set->values, cur_sets_.at(set).set->values);
      r.sample_test = "Welch t test";
    }
    r.kind = "from samples";
    return "";
  }

  // Change, threshold and the evidence; the verdict waits for the family.
  void numeric(MetricComparison& r, double b, double c, bool from_samples) {
    r.change = c - b;
    if (b != 0) r.relative_change = (c - b) / std::fabs(b);
    else if (c == 0) r.relative_change = 0;
    r.effect = r.relative_change;
    r.effect_name = "change";
    r.threshold = config_.threshold_for(r.name, from_samples);
    if (members_.size() >= 2) {
      // A baseline set: the spread between its runs is the reference; the
      // history (runs up to the baseline) would mostly repeat those runs.
      std::vector<double> v = member_values(r);
      double now = c;
      if (std::optional<UndisturbedValues> u = undisturbed_values(r)) {
        v = std::move(u->members);
        now = u->current;
        r.between_undisturbed = true;
      }
      r.between_runs = v.size();
      if (auto band = noise_band(v, now, std::max<std::size_t>(3, config_.min_baseline_runs),
                                 noise_floor_of_unit(r.unit))) {
        r.p_between = band->p;
        r.counting_floor = band->counting_floor;
      } else {
        r.verdict = Change::cannot_tell;
        r.decided_by = "baseline spread unknown";
        r.reason = fmt::format("the baseline's {} run{} with this metric cannot show its run-to-run spread (needs {})",
                               v.size(), v.size() == 1 ? "" : "s", std::max<std::size_t>(3, config_.min_baseline_runs));
        return;
      }
    } else if (history_ && r.kind != "samples") {
      std::vector<double> h = history_(r.name);
      if (h.size() > config_.history_runs) h.erase(h.begin(), h.end() - static_cast<std::ptrdiff_t>(config_.history_runs));
      if (auto band = noise_band(h, c, config_.min_history_runs, noise_floor_of_unit(r.unit))) {
        r.p_history = band->p;
        r.history_runs = band->runs;
        r.counting_floor = band->counting_floor;
      }
    }
    for (const std::optional<double>& p : {r.p_samples, r.p_history, r.p_between})
      if (p) r.p = r.p ? std::max(*r.p, *p) : *p;
    r.verdict = Change::unchanged;  // provisional: numeric, to be decided
  }

  // Each baseline run's own value of the metric (a sample set's median), where
  // it has one of the same kind of evidence as the new run's.
  std::vector<double> member_values(const MetricComparison& r) const {
    std::vector<double> out;
    for (const Analysis* a : members_) {
      if (r.kind == "samples") {
        for (const SampleSet& s : a->samples) {
          if (s.name != r.name || s.values.empty()) continue;
          if (r.current_provenance && !same_kind_of_evidence(s.provenance, *r.current_provenance)) continue;
          std::vector<double> sorted = s.values;
          std::sort(sorted.begin(), sorted.end());
          out.push_back(percentile_sorted(sorted, 50));
        }
        continue;
      }
      const Metric* m = a->find_metric(r.name);
      if (!m || !m->value || !std::isfinite(*m->value)) continue;
      if (r.current_provenance && !same_kind_of_evidence(m->provenance, *r.current_provenance)) continue;
      out.push_back(*m->value);
    }
    return out;
  }

  // For a statistic of repeated iterations in order: each baseline run's and
  // the new run's value as their best stretch's (persistence.h), so that a
  // baseline night disturbed for a while does not widen the spread.
  // Nothing unless every run with the set has enough samples for it, and
  // nothing for a count of events: its best stretch would drop most of the
  // few events a small count has, and the count's Poisson floor already
  // judges its whole-run value (noise_band.h).
  struct UndisturbedValues {
    std::vector<double> members;
    double current = 0;
  };
  std::optional<UndisturbedValues> undisturbed_values(const MetricComparison& r) const {
    const Statistic* stat = nullptr;
    const SampleSet* current = repetitions_behind(r, stat);
    if (!current || noise_floor_of_unit(r.unit) == NoiseFloor::counting) return std::nullopt;
    // A stretch of one repetition holds its median (level 1's five rounds);
    // other statistics want the samples a test would.
    const std::size_t per_stretch = stat->name == "median" ? 1 : config_.min_samples;
    UndisturbedValues out;
    std::optional<double> now = undisturbed_value(current->values, stat->name, r.better, per_stretch);
    if (!now) return std::nullopt;
    out.current = *now;
    for (const Analysis* a : members_) {
      const SampleSet* s = a->find_samples(current->name);
      if (!s || s->values.empty() || !same_kind_of_evidence(s->provenance, current->provenance)) continue;
      std::optional<double> v = undisturbed_value(s->values, stat->name, r.better, per_stretch);
      if (!v) return std::nullopt;
      out.members.push_back(*v);
    }
    return out;
  }

  // The test whose p is the family's p for this metric: the weakest evidence.
  static std::string weakest_test(const MetricComparison& r) {
    if (r.p_between && r.p && *r.p_between == *r.p) return "between-run spread";
    if (r.p_history && r.p && *r.p_history == *r.p) return "noise band";
    return r.sample_test;
  }

  static std::string every_test(const MetricComparison& r) {
    std::string s = "threshold";
    if (r.p_samples) s += " and " + r.sample_test;
    if (r.p_history) s += " and noise band";
    if (r.p_between) s += " and between-run spread";
    return s;
  }

  void decide(Comparison& out) {
    std::vector<double> family;
    std::vector<std::size_t> where;
    for (std::size_t i = 0; i < out.metrics.size(); ++i) {
      const MetricComparison& r = out.metrics[i];
      if (r.verdict == Change::unchanged && r.change && r.p) {
        family.push_back(*r.p);
        where.push_back(i);
      }
    }
    out.tests = family.size();
    std::vector<double> adjusted = adjust_p_values(family, config_.method);
    for (std::size_t k = 0; k < where.size(); ++k) out.metrics[where[k]].p_adjusted = adjusted[k];

    for (MetricComparison& r : out.metrics) {
      if (r.verdict != Change::unchanged || !r.change) continue;  // text, or decided already
      if (!r.effect) {
        r.verdict = Change::cannot_tell;
        r.reason += "the baseline is 0, so there is no relative change";
        continue;
      }
      const double rel = *r.effect;
      const std::string what = r.effect_name == "change" ? "" : r.effect_name + " ";
      const bool large = std::fabs(rel) >= r.threshold;
      const bool significant = !r.p_adjusted || *r.p_adjusted < config_.alpha;
      std::string evidence = evidence_text(r);
      if (!large) {
        r.decided_by = "threshold";
        r.reason += fmt::format("{}{} is within the ±{:g} % threshold{}", what, percent(rel), 100 * r.threshold,
                                evidence.empty() ? "" : "; " + evidence);
        continue;
      }
      if (!significant) {
        r.decided_by = weakest_test(r);
        r.reason += fmt::format("{}{} is beyond the ±{:g} % threshold but not significant: {}", what, percent(rel),
                                100 * r.threshold, evidence);
        continue;
      }
      if (std::optional<Persistence> held = persistence_of(r)) {
        r.stretches = held->stretches;
        r.stretches_showing = held->showing;
        if (!held->holds()) {
          // Not a change of the workload as far as the run shows: a
          // disturbance of the host, or a change that sets in part-way
          // (throttling once hot); no verdict either way.
          r.verdict = Change::cannot_tell;
          r.decided_by = "persistence";
          r.reason += fmt::format(
              "{}{} is beyond the ±{:g} % threshold and significant ({}), but not throughout the new run: of its {} "
              "stretches in the order they ran, {} show it; the others ran within half the threshold of the "
              "baseline, clearly short of the whole run (a disturbance of the host comes and goes, a change of the "
              "workload shows in every stretch; one that sets in part-way, such as throttling once hot, looks the "
              "same)",
              what, percent(rel), 100 * r.threshold, evidence, held->stretches, held->showing);
          continue;
        }
      }
      r.decided_by = every_test(r);
      const bool up = rel > 0;
      if (r.better == Better::none) r.verdict = Change::changed;
      else r.verdict = (up == (r.better == Better::higher)) ? Change::improved : Change::regressed;
      r.reason += fmt::format("{}{} is beyond the ±{:g} % threshold{}", what, percent(rel), 100 * r.threshold,
                              evidence.empty() ? " (no test: a single value without history)" : "; " + evidence);
    }
  }

  // Whether a significant change of a statistic of repeated iterations holds
  // in every stretch of the new run; nothing for other metrics and sets.
  std::optional<Persistence> persistence_of(const MetricComparison& r) const {
    const Statistic* stat = nullptr;
    const SampleSet* s = repetitions_behind(r, stat);
    if (!s || !r.baseline || !r.current) return std::nullopt;
    std::optional<double> q = quantile_of(stat->name);
    if (!q && stat->name != "mean") return std::nullopt;  // no interval for it
    return persistence(s->values, q, *r.baseline, *r.current, r.threshold, config_.min_samples);
  }

  // The new run's sample set behind row `r` when it holds repetitions in the
  // order they ran (the catalogue's repetitions_in_order), and the statistic
  // the row takes of it; null for any other row.
  const SampleSet* repetitions_behind(const MetricComparison& r, const Statistic*& stat) const {
    auto found = statistic_.find(r.name);
    if (found == statistic_.end()) return nullptr;
    auto set = cur_sets_.find(found->second.set);
    if (set == cur_sets_.end()) return nullptr;
    const SampleSet* s = set->second.set;
    const CatalogueEntry* e = find_catalogue_entry(s->level, s->name, Series::samples);
    if (!e || !e->repetitions_in_order) return nullptr;
    stat = &found->second;
    return s;
  }

  // The quantile in (0, 1) a statistic's name stands for ("median", "p95").
  static std::optional<double> quantile_of(std::string_view name) {
    std::optional<double> percent = percentile_of_statistic(name);
    if (!percent) return std::nullopt;
    return *percent / 100;
  }

  static std::string_view floor_text(const MetricComparison& r) {
    return r.counting_floor ? " (at least a count's Poisson spread, sqrt(count))" : "";
  }

  std::string evidence_text(const MetricComparison& r) const {
    std::vector<std::string> parts;
    if (r.p_samples) {
      parts.push_back(fmt::format("{} on {} vs {} samples p {}", r.sample_test, r.baseline_samples,
                                  r.current_samples, p_text(*r.p_samples)));
    }
    if (r.p_history) {
      parts.push_back(fmt::format("noise band of {} earlier runs{} p {}", r.history_runs, floor_text(r),
                                  p_text(*r.p_history)));
    }
    if (r.p_between) {
      parts.push_back(fmt::format("between-run spread of {} baseline runs{}{} p {}", r.between_runs,
                                  r.between_undisturbed
                                      ? fmt::format(" (each run's best of its {} stretches)", kPersistenceStretches)
                                      : "",
                                  floor_text(r), p_text(*r.p_between)));
    }
    if (parts.empty()) return "";
    std::string s = parts[0];
    for (std::size_t i = 1; i < parts.size(); ++i) s += ", " + parts[i];
    if (r.p_adjusted) {
      s += fmt::format(", adjusted ({}) p {} vs alpha {:g}", correction_name(config_.method),
                       p_text(*r.p_adjusted), config_.alpha);
    }
    return s;
  }

  const Analysis& base_;
  const Analysis& cur_;
  const CompareConfig& config_;
  const HistoryLookup& history_;
  const std::vector<const Analysis*>& members_;
  std::map<std::string, SortedSamples, std::less<>> base_sets_, cur_sets_;
  std::map<std::string, double> p_cache_;
  std::map<std::string, Statistic> statistic_;
};

}  // namespace

Comparison compare_analyses(const Analysis& baseline, const Analysis& current, const CompareConfig& config,
                            const HistoryLookup& history, const std::vector<const Analysis*>& baseline_runs) {
  return Judge(baseline, current, config, history, baseline_runs).run();
}

}  // namespace harness
