#include "reports/publish/site_data.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include "harness/base/stats.h"
#include "harness/compare/noise_band.h"
#include "harness/scenario/compare_config.h"

namespace harness {
namespace {

bool in_filters(const PublishFilters& f, const std::string& scenario, const std::string& rig,
                const std::string& started_at) {
  if (!f.scenario.empty() && scenario != f.scenario) return false;
  if (!f.rig.empty() && rig != f.rig) return false;
  // ISO 8601 UTC text orders as time does: the day prefix is enough.
  return f.since.empty() || started_at.substr(0, 10) >= f.since;
}

bool completed(RunStatus s) { return s == RunStatus::passed || s == RunStatus::failed; }

double relative(double before, double after) {
  return before != 0 ? (after - before) / std::fabs(before) : (after == 0 ? 0 : INFINITY);
}

bool is_worse(Better better, double before, double after) {
  return (better == Better::higher && after < before) || (better == Better::lower && after > before);
}

}  // namespace

const char* const kPublishMethod =
    "level shifts: penalised step fit for changes in mean over the live runs of one scenario on one rig (as "
    "'harness history --changes'); noise band: 95 % prediction interval of the next value from the last 20 live "
    "runs before the newest (as 'harness compare'); a change counts once it reaches 10 % (compare's default "
    "threshold for a single value)";

Status check_since_date(const std::string& d) {
  auto bad = [&] { return Error::input(fmt::format("--since '{}': not a date (YYYY-MM-DD)", d)); };
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return bad();
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (d[i] < '0' || d[i] > '9') return bad();
  int month = std::stoi(d.substr(5, 2)), day = std::stoi(d.substr(8, 2));
  if (month < 1 || month > 12 || day < 1 || day > 31) return bad();
  return ok();
}

void judge_series(MetricSeries& s, Better better) {
  const CompareConfig config;  // the defaults every scenario without [compare] is judged by
  s.live.clear();
  std::vector<double> values;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const HistoryPoint& p = s.points[i];
    if (p.origin != "live" || !p.value || !std::isfinite(*p.value)) continue;
    s.live.push_back(i);
    values.push_back(*p.value);
  }
  s.change_points = find_change_points(values);
  s.band.reset();
  s.change.reset();
  if (values.size() >= config.min_history_runs + 1) {
    std::size_t runs = std::min(config.history_runs, values.size() - 1);
    std::size_t first = values.size() - 1 - runs;
    std::span<const double> history(values.data() + first, runs);
    if (std::optional<NoiseBand> nb = noise_band(history, values.back(), config.min_history_runs)) {
      const boost::math::students_t t(static_cast<double>(runs) - 1);
      const double q = boost::math::quantile(boost::math::complement(t, config.alpha / 2));
      const double half = q * nb->sd * std::sqrt(1 + 1.0 / static_cast<double>(runs));
      s.band = DrawnBand{first, runs, nb->mean, nb->mean - half, nb->mean + half, nb->p};
    }
  }
  auto at = [&](std::size_t live_index) -> const HistoryPoint& { return s.points[s.live[live_index]]; };
  // Last night outside the band is the freshest news; a level shift that
  // still holds says since when.
  if (s.band && s.band->p < config.alpha) {
    double rel = relative(s.band->mean, values.back());
    if (std::fabs(rel) >= config.default_threshold) {
      s.change = SeriesChange{SeriesChange::Kind::outside_band, is_worse(better, s.band->mean, values.back()),
                              at(values.size() - 1).run_id, at(values.size() - 1).started_at,
                              s.band->mean, values.back(), rel};
    }
  }
  if (!s.change && !s.change_points.empty()) {
    const ChangePoint& c = s.change_points.back();
    double rel = relative(c.before, c.after);
    if (std::fabs(rel) >= config.default_threshold) {
      s.change = SeriesChange{SeriesChange::Kind::change_point, is_worse(better, c.before, c.after),
                              at(c.index).run_id, at(c.index).started_at, c.before, c.after, rel};
    }
  }
}

Result<SiteData> load_site_data(const Store& store, const PublishFilters& filters) {
  SiteData site;
  site.store_path = store.path();
  site.filters = filters;
  Result<std::vector<RunSummary>> runs = store.list_runs(INT_MAX);
  if (!runs) return runs.error();
  for (RunSummary& r : *runs)
    if (in_filters(filters, r.scenario_name, r.rig, r.started_at)) site.runs.push_back(std::move(r));

  // Last night per series: the newest completed run (list_runs is newest first).
  for (const RunSummary& r : site.runs) {
    if (!completed(r.status) || site.last_night.count({r.scenario_name, r.rig})) continue;
    site.last_night[{r.scenario_name, r.rig}].run = r;
  }
  std::map<std::string, Better> better;
  for (auto& [key, night] : site.last_night) {
    Result<RunRecord> run = store.load_run(night.run.id);
    if (!run) return run.error();
    for (const Verdict& v : run->analysis.verdicts)
      if (v.status == VerdictStatus::fail) night.failed.push_back(v);
    for (const Metric& m : run->analysis.metrics) better.emplace(m.name, m.better);
  }

  Result<std::vector<Baseline>> baselines = store.list_baselines();
  if (!baselines) return baselines.error();
  for (Baseline& b : *baselines)
    if (in_filters({"", filters.rig, filters.scenario}, b.scenario_name, b.rig, "")) site.baselines.push_back(b);

  Result<std::map<std::string, std::vector<HistoryPoint>>> all =
      store.all_metric_history(filters.scenario, filters.rig);
  if (!all) return all.error();
  for (auto& [name, points] : *all) {
    MetricPage page;
    page.name = name;
    page.unit = points.empty() ? "" : points.back().unit;
    if (auto it = better.find(name); it != better.end()) page.better = it->second;
    std::map<SeriesKey, MetricSeries> series;
    for (HistoryPoint& p : points) {
      if (!in_filters(filters, p.scenario_name, p.rig, p.started_at)) continue;
      MetricSeries& s = series[{p.scenario_name, p.rig}];
      s.scenario = p.scenario_name;
      s.rig = p.rig;
      s.points.push_back(std::move(p));
    }
    if (series.empty()) continue;  // only runs before --since have it
    for (auto& [key, s] : series) {
      judge_series(s, page.better);
      for (const Baseline& b : site.baselines) {
        if (b.scenario_name != key.first || b.rig != key.second) continue;
        std::set<std::int64_t> members(b.runs.begin(), b.runs.end());
        std::vector<double> values;
        for (const HistoryPoint& p : s.points)
          if (members.count(p.run_id) && p.value && std::isfinite(*p.value)) values.push_back(*p.value);
        s.baselines.push_back({b.name, b.runs, values.empty() ? std::nullopt : std::optional<double>(mean(values))});
      }
      if (s.change && page.better != Better::none) {
        auto night = site.last_night.find(key);
        if (night != site.last_night.end()) {
          (s.change->worse ? night->second.regressions : night->second.improvements)
              .push_back({page.name, page.unit, *s.change});
        }
      }
      page.series.push_back(std::move(s));
    }
    site.metrics.push_back(std::move(page));
  }
  for (auto& [key, night] : site.last_night) {
    auto largest = [](const LastNight::Regression& a, const LastNight::Regression& b) {
      return std::fabs(a.change.relative) != std::fabs(b.change.relative)
                 ? std::fabs(a.change.relative) > std::fabs(b.change.relative)
                 : a.metric < b.metric;
    };
    std::sort(night.regressions.begin(), night.regressions.end(), largest);
    std::sort(night.improvements.begin(), night.improvements.end(), largest);
  }
  return site;
}

}  // namespace harness
