#include "harness/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <boost/sort/spreadsort/float_sort.hpp>
#include <fmt/format.h>

#include "harness/base/stats.h"
#include "harness/compare/mann_whitney.h"
#include "harness/compare/noise_band.h"
#include "harness/compare/paired.h"
#include "harness/compare/persistence.h"
#include "harness/compare/sample_statistics.h"
#include "harness/model/metric_catalogue.h"

namespace harness {

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

bool Comparison::undecided() const {
  return std::any_of(metrics.begin(), metrics.end(), [](const MetricComparison& m) {
    return m.verdict == Change::cannot_tell && !m.nothing_to_judge;
  });
}

bool Comparison::failed_expectations() const {
  return std::any_of(expectations.begin(), expectations.end(),
                     [](const Verdict& v) { return v.status == VerdictStatus::fail; });
}

std::optional<std::string> unstable_level(const Analysis& run, Level level) {
  const Metric* m = run.find_metric(fmt::format("stability.{}", level_name(level)));
  if (!m || m->text.rfind("unstable", 0) != 0) return std::nullopt;
  return "rig " + m->text;
}

namespace {

// An unstable window's paired change must show in each stretch of its rounds
// in the order they ran; a stretch of fewer rounds than this cannot tell.
constexpr std::size_t kMinRoundsPerStretch = 3;

// The scenario's settings for judging one metric: its threshold and better
// direction, alpha split over the looks a run may take at it.
JudgementSettings judgement_settings(const CompareConfig& config, double threshold, Better better, int looks) {
  JudgementSettings s;
  s.threshold = threshold;
  s.alpha = config.alpha;
  s.power = config.power;
  s.looks = looks;
  s.better = better;
  return s;
}

struct SortedSamples {
  const SampleSet* set = nullptr;
  std::vector<double> sorted;
};
using SortedSets = std::map<std::string, SortedSamples, std::less<>>;

// Each sample set sorted once: the U test walks the sorted pair, the median
// is read off it.
SortedSets sort_samples(const Analysis& a) {
  SortedSets out;
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
std::string backing_set(const std::string& metric, const SortedSets& sets) {
  if (sets.count(metric)) return metric;
  std::string best;
  for (const auto& [name, s] : sets) {
    if (metric.size() > name.size() + 1 && metric.compare(0, name.size(), name) == 0 &&
        metric[name.size()] == '_' && name.size() > best.size())
      best = name;
  }
  return best;
}

// "= 0.0123", "= 1.2e-09", or "< 1e-300" when the tail underflowed.
std::string p_text(double p) {
  if (p == 0) return "< 1e-300";
  return p < 1e-4 ? fmt::format("= {:.1e}", p) : fmt::format("= {:.4f}", p);
}

// The verdict of a row once its family's p are adjusted: the one rule,
// then the persistence of a change of repeated iterations.
struct PendingJudgement {
  std::size_t row = 0;
  ChangeEvidence evidence;
  JudgementSettings settings;
  bool tested = true;  // false: a figure with no noise, outside the family of tests
};

std::string_view shown_unavailable(const Metric& m) { return m.unavailable; }

// A paired metric's sample set: the per-round ratios candidate / reference.
constexpr std::string_view kPairedPrefix = "vs_reference.";

class Judge {
 public:
  Judge(const Analysis& baseline, const Analysis& current, const CompareConfig& config, const HistoryLookup& history,
        const std::vector<const Analysis*>& baseline_runs, const CalibrationLookup& calibration)
      : base_(baseline), cur_(current), config_(config), history_(history), members_(baseline_runs),
        calibration_(calibration), base_sets_(sort_samples(baseline)), cur_sets_(sort_samples(current)) {}

  Comparison run() {
    Comparison out;
    out.config = config_;
    out.against = "baseline nights";
    std::set<std::string> names;
    // The rig's own readings (stability.<level>) are the condition of the
    // judgement, not a figure of the workload to judge.
    auto rig_reading = [](const std::string& name) { return name.rfind("stability.", 0) == 0; };
    for (const Metric& m : cur_.metrics) {
      names.insert(m.name);
      if (!rig_reading(m.name)) out.metrics.push_back(metric_row(base_.find_metric(m.name), &m));
    }
    for (const Metric& m : base_.metrics) {
      if (names.insert(m.name).second && !rig_reading(m.name)) out.metrics.push_back(metric_row(&m, nullptr));
    }
    std::set<std::string> set_names;
    for (const auto& [name, s] : cur_sets_) set_names.insert(name);
    for (const auto& [name, s] : base_sets_) set_names.insert(name);
    for (const std::string& name : set_names) {
      // A paired set is judged within its own run (judge_against_reference).
      if (!names.count(name) && !rig_reading(name) && name.rfind(kPairedPrefix, 0) != 0)
        out.metrics.push_back(sample_row(name));
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

  static std::string shown(const Metric& m) {
    if (!m.text.empty()) return m.text;
    if (!m.value) return "unavailable: " + m.unavailable;
    return "";
  }

  // Why a row cannot be judged before any number is looked at, or "".
  std::string unjudgeable(const MetricComparison& r) const {
    if (config_.ignore.count(r.name)) return "ignored: listed in [compare] ignore";
    for (const Analysis* a : {&base_, &cur_}) {
      if (std::optional<std::string> why = unstable_level(*a, r.level))
        return fmt::format("{} in the {} run", *why, a == &base_ ? "baseline" : "new");
    }
    return "";
  }

  // Whether `r` is not to be judged (unjudgeable); if so, with why.
  bool cannot_judge(MetricComparison& r) const {
    std::string why = unjudgeable(r);
    if (why.empty()) return false;
    r.reason = why;
    r.nothing_to_judge = config_.ignore.count(r.name) > 0;
    r.decided_by = why.rfind("rig unstable", 0) == 0 ? "stability" : "";
    return true;
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
    if (r.kind == "text") {  // a category (or the stability readings themselves): same or not
      if (config_.ignore.count(r.name)) {
        r.reason = "ignored: listed in [compare] ignore";
        r.nothing_to_judge = true;
        return r;
      }
      r.verdict = b->text == c->text ? Change::unchanged : Change::changed;
      r.reason = b->text == c->text ? "same" : fmt::format("{} -> {}", b->text, c->text);
      return r;
    }
    if (cannot_judge(r)) return r;
    if (!b->value || !c->value) {
      if (!b->value && !c->value) {
        r.reason = fmt::format("unavailable in both runs: {}", shown_unavailable(*c));
        r.nothing_to_judge = true;
      }
      else if (!b->value) r.reason = fmt::format("unavailable in the baseline: {}", shown_unavailable(*b));
      else r.reason = fmt::format("unavailable in the new run: {}", shown_unavailable(*c));
      return r;
    }
    if (!same_kind_of_evidence(b->provenance, c->provenance)) {
      r.reason = fmt::format("provenance differs: {} vs {}", provenance_name(b->provenance),
                             provenance_name(c->provenance));
      return r;
    }
    std::string set = backing_set(r.name, cur_sets_);
    if (!set.empty() && base_sets_.count(set)) sample_test(r, set);
    against_nights(r, *b->value, *c->value);
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
    if (cannot_judge(r)) return r;
    if (!same_kind_of_evidence(*r.baseline_provenance, *r.current_provenance)) {
      r.reason = fmt::format("provenance differs: {} vs {}", provenance_name(*r.baseline_provenance),
                             provenance_name(*r.current_provenance));
      return r;
    }
    statistic_[name] = Statistic{name, "median"};  // the row shows the medians
    if (std::min(r.baseline_samples, r.current_samples) >= config_.min_samples) {
      r.p_samples = mann_whitney_u_sorted(b->second.sorted, c->second.sorted).p;
      r.sample_test = "U test";
    }
    against_nights(r, *r.baseline, *r.current);
    return r;
  }

  // The within-run test suited to the statistic a metric takes of sample set
  // `set`: shown beside the verdict, never deciding it (it cannot see how
  // nights differ).
  void sample_test(MetricComparison& r, const std::string& set) {
    const std::vector<double>& x = base_sets_.at(set).sorted;
    const std::vector<double>& y = cur_sets_.at(set).sorted;
    r.baseline_samples = x.size();
    r.current_samples = y.size();
    r.kind = "from samples";
    const std::string stat = r.name == set ? "" : r.name.substr(set.size() + 1);
    std::optional<double> q = quantile_of(stat);  // in (0, 1)
    statistic_[r.name] = Statistic{set, stat.empty() ? "median" : stat};
    if (std::min(x.size(), y.size()) < config_.min_samples) return;
    if (stat.empty()) {
      r.p_samples = mann_whitney_u_sorted(x, y).p;
      r.sample_test = "U test";
    } else if (q) {
      r.p_samples = quantile_difference_p(x, y, *q);
      if (r.p_samples) r.sample_test = "quantile test";
    } else if (stat == "mean") {
      r.p_samples = welch_t_p(base_sets_.at(set).set->values, cur_sets_.at(set).set->values);
      r.sample_test = "Welch t test";
    }
  }

  // Change, threshold and the evidence against the baseline's nights; the
  // verdict waits for the family.
  void against_nights(MetricComparison& r, double b, double c) {
    r.change = c - b;
    if (b != 0) r.relative_change = (c - b) / std::fabs(b);
    else if (c == 0) r.relative_change = 0;
    r.threshold = config_.threshold_for(r.name, r.kind != "single");
    // A declared figure carries no measurement noise between nights: judged
    // as it stands (its threshold, nothing to detect below). A model's figure
    // is no such thing: level 1's achieved, attainable and utilisation are a
    // model's formulas over measured times and ceilings, and move with them.
    if (r.current_provenance && *r.current_provenance == Provenance::declared) {
      const bool logs = b > 0 && c > 0;
      ChangeEvidence e;
      e.scale = logs ? ChangeScale::log_ratio : ChangeScale::relative;
      e.estimate = logs ? std::log(c / b) : (b != 0 ? (c - b) / std::fabs(b) : 0);
      e.degrees_of_freedom = 1;
      e.basis = "a declared figure: no noise between nights";
      if (b == 0 && c != 0) {
        r.decided_by = "spread unknown";
        r.reason = "the baseline is 0: there is no relative change";
        return;
      }
      r.basis = e.basis;
      r.effect_name = "change";
      pending_.push_back({0, e, settings_for(r, r.threshold), false});
      pending_row_names_.push_back(r.name);
      r.verdict = Change::unchanged;  // provisional
      return;
    }
    std::vector<double> nights = members_.size() >= 2 ? member_values(r) : std::vector<double>{b};
    double now = c;
    // Each run's best stretch where the spread is taken of such values too
    // (a baseline set's runs, a calibration); the history holds whole runs'.
    const std::optional<NightSpread> calibration = calibration_ ? calibration_(r.name) : std::nullopt;
    if (nights.size() >= 2 || calibration) {
      if (std::optional<UndisturbedValues> u = undisturbed_values(r)) {
        nights = std::move(u->members);
        now = u->current;
        r.between_undisturbed = true;
      }
    }
    r.between_runs = nights.size();
    const NoiseFloor floor = noise_floor_of_unit(r.unit);
    r.counting_floor = floor == NoiseFloor::counting;
    std::vector<double> scale_values = nights;
    scale_values.push_back(now);
    const ChangeScale scale = scale_of(scale_values);
    std::optional<NightSpread> outside =
        calibration && calibration->scale == scale ? calibration : history_spread(r, scale, nights.size());
    std::optional<ChangeEvidence> e = night_evidence(nights, now, config_.min_baseline_runs, outside, floor);
    if (!e) {
      r.decided_by = "spread unknown";
      r.reason = spread_unknown_reason(r, nights.size());
      return;
    }
    const double p = change_p(*e);
    if (outside && outside->basis.rfind("the history", 0) == 0) r.p_history = p;
    else r.p_between = p;
    r.p = p;
    r.basis = e->basis;
    r.effect_name = "change against nights";
    pending_.push_back({0, *e, settings_for(r, r.threshold)});
    pending_row_names_.push_back(r.name);
    r.verdict = Change::unchanged;  // provisional: numeric, to be decided
  }

  JudgementSettings settings_for(const MetricComparison& r, double threshold) const {
    return judgement_settings(config_, threshold, r.better, 1);
  }

  // For a baseline of one run without a calibration: the spread of the
  // history of earlier runs.
  std::optional<NightSpread> history_spread(MetricComparison& r, ChangeScale scale, std::size_t nights) const {
    if (nights >= 2 || !history_) return std::nullopt;
    std::vector<double> h = history_(r.name);
    if (h.size() > config_.history_runs) h.erase(h.begin(), h.end() - static_cast<std::ptrdiff_t>(config_.history_runs));
    if (h.size() < config_.min_history_runs || scale_of(h) != scale) return std::nullopt;
    r.history_runs = h.size();
    return spread_of(h, scale, fmt::format("the history of {} earlier runs", h.size()), /*robust=*/true);
  }

  std::string spread_unknown_reason(const MetricComparison& r, std::size_t nights) const {
    std::string within;
    if (r.p_samples) {
      within = fmt::format("; within the two runs the {} on {} vs {} samples gives p {} ({})", r.sample_test,
                           r.baseline_samples, r.current_samples, p_text(*r.p_samples),
                           r.relative_change ? percent_text(*r.relative_change) : std::string("no relative change"));
    }
    if (nights >= 2) {
      return fmt::format(
          "the baseline's {} runs with this metric cannot show how far nights spread (needs {}), and the rig has "
          "no calibration for it{}",
          nights, std::max<std::size_t>(config_.min_baseline_runs, 2), within);
    }
    return fmt::format(
        "one baseline night cannot show how far this rig's nights spread, and there is no calibration (harness "
        "calibrate) and no history of {} earlier runs: a baseline of {} or more nights, or a calibration, can "
        "tell{}",
        config_.min_history_runs, config_.min_baseline_runs, within);
  }

  // Each baseline run's own value of the metric (a sample set's median), where
  // it has one of the same kind of evidence as the new run's.
  std::vector<double> member_values(const MetricComparison& r) const {
    std::vector<double> out;
    for (const Analysis* a : members_) {
      if (r.kind == "samples") {
        const SampleSet* s = a->find_samples(r.name);
        if (!s || s->values.empty()) continue;
        if (r.current_provenance && !same_kind_of_evidence(s->provenance, *r.current_provenance)) continue;
        std::vector<double> sorted = s->values;
        std::sort(sorted.begin(), sorted.end());
        out.push_back(percentile_sorted(sorted, 50));
        continue;
      }
      const Metric* m = a->find_metric(r.name);
      if (!m || !m->value || !std::isfinite(*m->value)) continue;
      if (r.current_provenance && !same_kind_of_evidence(m->provenance, *r.current_provenance)) continue;
      out.push_back(*m->value);
    }
    return out;
  }

  // For a statistic of repetitions in order: each baseline night's and the
  // new run's value as their best stretch's (persistence.h), so that a night
  // disturbed for a while neither widens the spread nor leaves it. Nothing
  // unless every night with the set has enough samples for it, and nothing
  // for a count of events: its best stretch would drop most of the few
  // events a small count has, and the count's Poisson floor already judges
  // its whole-run value (noise_band.h).
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
    std::vector<const Analysis*> nights = members_;
    if (nights.size() < 2) nights = {&base_};
    for (const Analysis* a : nights) {
      const SampleSet* s = a->find_samples(current->name);
      if (!s || s->values.empty() || !same_kind_of_evidence(s->provenance, current->provenance)) continue;
      std::optional<double> v = undisturbed_value(s->values, stat->name, r.better, per_stretch);
      if (!v) return std::nullopt;
      out.members.push_back(*v);
    }
    if (out.members.empty()) return std::nullopt;
    return out;
  }

  void decide(Comparison& out) {
    std::map<std::string, std::size_t> row_of;
    for (std::size_t i = 0; i < out.metrics.size(); ++i) row_of[out.metrics[i].name] = i;
    std::vector<double> family;
    std::vector<std::size_t> in_family;  // pending index -> family index
    for (std::size_t k = 0; k < pending_.size(); ++k) {
      pending_[k].row = row_of.at(pending_row_names_[k]);
      in_family.push_back(family.size());
      if (pending_[k].tested) family.push_back(out.metrics[pending_[k].row].p.value_or(1));
    }
    out.tests = family.size();
    const std::vector<double> adjusted = adjust_p_values(family, config_.method);
    for (std::size_t k = 0; k < pending_.size(); ++k) {
      MetricComparison& r = out.metrics[pending_[k].row];
      std::optional<double> p_adjusted;
      if (pending_[k].tested && config_.method != Correction::none) p_adjusted = adjusted[in_family[k]];
      r.p_adjusted = p_adjusted;
      apply(r, judge_change(pending_[k].evidence, pending_[k].settings, p_adjusted));
      if (r.verdict == Change::regressed || r.verdict == Change::improved) check_persistence(r);
      if (r.verdict == Change::unchanged) check_whole_run(r);
    }
  }

  // A change of repeated iterations that does not hold through the new run is
  // no change of the workload as far as the run shows: a disturbance of the
  // host, or a change that sets in part-way (throttling once hot).
  void check_persistence(MetricComparison& r) const {
    std::optional<Persistence> held = persistence_of(r);
    if (!held) return;
    r.stretches = held->stretches;
    r.stretches_showing = held->showing;
    if (held->holds()) return;
    r.verdict = Change::cannot_tell;
    r.decided_by = "persistence";
    r.reason = fmt::format(
        "{}; but not throughout the new run: of its {} stretches in the order they ran, {} show it; the others ran "
        "within half the threshold of the baseline, clearly short of the whole run (a disturbance of the host comes "
        "and goes, a change of the workload shows in every stretch; one that sets in part-way, such as throttling "
        "once hot, looks the same)",
        r.reason, held->stretches, held->showing);
  }

  // Each run's best stretch ran as the baseline's, but the whole run moved
  // beyond the threshold: part of the run was disturbed, or a change set in
  // part-way (throttling once hot). The evidence cannot exclude a change.
  void check_whole_run(MetricComparison& r) const {
    if (!r.between_undisturbed || !r.relative_change || std::fabs(*r.relative_change) < r.threshold) return;
    r.verdict = Change::cannot_tell;
    r.decided_by = "persistence";
    r.reason = fmt::format(
        "each run's best of its {} stretches is unchanged ({}), but the whole run moved {}, beyond the ±{:g} % "
        "threshold: part of the run was disturbed, or a change set in part-way (throttling once hot)",
        kPersistenceStretches, r.reason, percent_text(*r.relative_change), 100 * r.threshold);
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

 public:
  // The judgement's outcome and words on a row, with what stands beside it.
  static void apply(MetricComparison& r, const Judgement& j) {
    r.verdict = j.outcome;
    r.decided_by = j.decided_by;
    r.effect = j.change;
    r.low = j.low;
    r.high = j.high;
    r.detectable = j.detectable;
    r.reason = j.why;
    if (r.between_undisturbed) r.reason += fmt::format(" (each run's best of its {} stretches)", kPersistenceStretches);
    if (r.p_samples) {
      r.reason += fmt::format("; within the two runs: {} p {}", r.sample_test, p_text(*r.p_samples));
    }
  }

 private:
  const Analysis& base_;
  const Analysis& cur_;
  const CompareConfig& config_;
  const HistoryLookup& history_;
  const std::vector<const Analysis*>& members_;
  const CalibrationLookup& calibration_;
  SortedSets base_sets_, cur_sets_;
  std::map<std::string, Statistic> statistic_;
  std::vector<PendingJudgement> pending_;
  std::vector<std::string> pending_row_names_;
};

}  // namespace

Comparison compare_analyses(const Analysis& baseline, const Analysis& current, const CompareConfig& config,
                            const HistoryLookup& history, const std::vector<const Analysis*>& baseline_runs,
                            const CalibrationLookup& calibration) {
  return Judge(baseline, current, config, history, baseline_runs, calibration).run();
}

std::map<std::string, double> night_values(const Analysis& run, const CompareConfig& config) {
  const SortedSets sets = sort_samples(run);
  auto measured = [](Provenance p) { return same_kind_of_evidence(p, Provenance::measured); };
  // The best stretch of `set` for statistic `stat`, where the catalogue says
  // the set holds repetitions in order; else nothing.
  auto undisturbed = [&](const SampleSet& set, const std::string& stat, Better better) -> std::optional<double> {
    const CatalogueEntry* e = find_catalogue_entry(set.level, set.name, Series::samples);
    if (!e || !e->repetitions_in_order || noise_floor_of_unit(set.unit) == NoiseFloor::counting) return std::nullopt;
    return undisturbed_value(set.values, stat, better, stat == "median" ? 1 : config.min_samples);
  };
  std::map<std::string, double> out;
  for (const Metric& m : run.metrics) {
    if (!m.value || !std::isfinite(*m.value) || !m.text.empty() || !measured(m.provenance)) continue;
    if (m.name.rfind("stability.", 0) == 0) continue;
    double v = *m.value;
    const std::string set = backing_set(m.name, sets);
    if (!set.empty()) {
      const std::string stat = set == m.name ? "median" : m.name.substr(set.size() + 1);
      if (std::optional<double> u = undisturbed(*sets.at(set).set, stat, m.better)) v = *u;
    }
    out[m.name] = v;
  }
  for (const auto& [name, s] : sets) {
    if (out.count(name) || run.find_metric(name) || !measured(s.set->provenance) ||
        name.rfind("stability.", 0) == 0 || name.rfind(kPairedPrefix, 0) == 0)
      continue;
    out[name] = undisturbed(*s.set, "median", s.set->better).value_or(percentile_sorted(s.sorted, 50));
  }
  return out;
}

Comparison judge_against_reference(const Analysis& run, const CompareConfig& config) {
  Comparison out;
  out.config = config;
  out.against = "reference";
  std::vector<std::size_t> judged;
  std::vector<ChangeEvidence> evidence;
  std::vector<double> family;
  for (const SampleSet& s : run.samples) {
    if (s.name.rfind(kPairedPrefix, 0) != 0) continue;
    MetricComparison r;
    r.name = s.name.substr(kPairedPrefix.size());
    r.kind = "paired";
    r.level = s.level;
    r.unit = "1";
    r.better = s.better;
    r.rounds = s.values.size();
    r.threshold = config.paired_threshold_for(r.name);
    if (const Metric* m = run.find_metric(r.name)) {
      r.unit = m->unit;
      r.current = m->value;
      r.current_provenance = m->provenance;
    }
    if (const Metric* m = run.find_metric(std::string("reference.") + r.name)) {
      r.baseline = m->value;
      r.baseline_provenance = m->provenance;
    }
    if (r.baseline && r.current) {
      r.change = *r.current - *r.baseline;
      if (*r.baseline != 0) r.relative_change = *r.change / std::fabs(*r.baseline);
    }
    r.effect_name = "paired change";
    if (config.ignore.count(r.name)) {
      r.reason = "ignored: listed in [compare] ignore";
      r.nothing_to_judge = true;
    } else if (s.values.size() < config.min_rounds) {
      r.decided_by = "rounds";
      r.reason = fmt::format("too few rounds: {} (a paired verdict needs {})", s.values.size(), config.min_rounds);
    } else if (std::optional<PairedRounds> p = paired_rounds(s.values)) {
      r.p_paired = p->p_t;
      r.p_wilcoxon = p->p_wilcoxon;
      // The p the judgement reads (the signed-rank one when a round lies far
      // from the others) is the one the family is adjusted over.
      const ChangeEvidence e = p->evidence();
      r.p = change_p(e);
      r.basis = e.basis;
      judged.push_back(out.metrics.size());
      evidence.push_back(e);
      family.push_back(*r.p);
    } else {
      r.reason = "a round's ratio is not a positive finite number";
    }
    out.metrics.push_back(std::move(r));
  }
  out.tests = family.size();
  const std::vector<double> adjusted = adjust_p_values(family, config.method);
  for (std::size_t k = 0; k < judged.size(); ++k) {
    MetricComparison& r = out.metrics[judged[k]];
    const JudgementSettings s = judgement_settings(config, r.threshold, r.better, config.looks);
    r.p_adjusted = adjusted[k];
    Judge::apply(r, judge_change(evidence[k], s,
                                 config.method == Correction::none ? std::nullopt : std::optional<double>(adjusted[k])));
    if (r.p_wilcoxon) r.reason += fmt::format("; signed-rank p {}", p_text(*r.p_wilcoxon));
    if (config.looks > 1) r.reason += fmt::format("; alpha split over {} looks", config.looks);
  }
  // An unstable rig: both sides ran under it, in rounds whose order was
  // drawn, so a disturbance that lasts shifts both and one that comes and
  // goes widens the rounds' spread, and with it the change the verdict could
  // detect. An `unchanged` stands on that spread, with the rig's state said
  // beside. A `regressed` or `improved` stands only where it shows in every
  // stretch of the rounds in the order they ran (persistence.h, against a
  // ratio of 1): a change of the candidate is in every round, while a
  // disturbance that happened to fall on one side's blocks more than the
  // other's (the only way one could make a change) comes and goes. Otherwise,
  // or with too few rounds to cut, it is `cannot tell`, saying what the
  // rounds read.
  for (MetricComparison& r : out.metrics) {
    const std::optional<std::string> unstable = unstable_level(run, r.level);
    if (!unstable) continue;
    const std::string level(level_name(r.level));
    if (r.verdict != Change::regressed && r.verdict != Change::improved) {
      r.reason += fmt::format("{}rig unstable (stability.{} says how), shared by both sides", r.reason.empty() ? "" : "; ",
                              level);
      continue;
    }
    const SampleSet* ratios = run.find_samples(std::string(kPairedPrefix) + r.name);
    std::optional<Persistence> held;
    if (ratios)
      held = persistence(ratios->values, std::nullopt, 1.0, mean(ratios->values), r.threshold, kMinRoundsPerStretch);
    if (held) r.stretches = held->stretches, r.stretches_showing = held->showing;
    if (held && held->holds()) {
      r.reason += fmt::format("; rig unstable (stability.{} says how), but the change shows in each of the {} stretches "
                              "of rounds in the order they ran",
                              level, held->stretches);
      continue;
    }
    r.reason = fmt::format(
        "{} (stability.{}): the rounds read {} ({}), {}", *unstable, level, change_name(r.verdict), r.reason,
        held ? fmt::format("but only {} of their {} stretches in the order they ran show it", held->showing,
                           held->stretches)
             : fmt::format("and {} rounds are too few to see whether it shows in each of {} stretches of {}", r.rounds,
                           kPersistenceStretches, kMinRoundsPerStretch));
    r.verdict = Change::cannot_tell;
    r.decided_by = "stability";
  }
  return out;
}

std::vector<Verdict> reference_verdicts(const Comparison& paired) {
  std::vector<Verdict> out;
  for (const MetricComparison& m : paired.metrics) {
    Verdict v;
    v.level = m.level;
    v.check = "reference." + m.name;
    v.expected = fmt::format("within ±{:g} % of the reference", 100 * m.threshold);
    v.measured = m.effect ? fmt::format("{} ({})", percent_text(*m.effect), change_name(m.verdict))
                          : std::string(change_name(m.verdict));
    v.status = m.verdict == Change::regressed     ? VerdictStatus::fail
               : m.verdict == Change::cannot_tell ? VerdictStatus::cannot_tell
                                                  : VerdictStatus::pass;
    v.detail = m.reason;
    out.push_back(std::move(v));
  }
  return out;
}

void add_reference_verdicts(const CompareConfig& config, Analysis& run) {
  std::vector<Verdict> paired = reference_verdicts(judge_against_reference(run, config));
  run.verdicts.insert(run.verdicts.end(), paired.begin(), paired.end());
}

}  // namespace harness
