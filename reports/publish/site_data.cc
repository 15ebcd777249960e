#include "reports/publish/site_data.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <unordered_map>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include "harness/base/stats.h"
#include "harness/compare/history_evidence.h"
#include "harness/compare/noise_band.h"
#include "harness/scenario/compare_config.h"
#include "reports/publish/series_cache.h"

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
    "level shifts: penalised step fit for changes in mean over the runs with measured evidence (provenance measured "
    "or replayed, whatever the run's origin; a night replayed again counts once) of one scenario on one rig (as "
    "'harness history --changes'); noise band: 95 % prediction interval of the next value from the last 20 of those "
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
  s.fitted = evidence_points(s.points);
  std::vector<double> values;
  values.reserve(s.fitted.size());
  for (std::size_t i : s.fitted) values.push_back(*s.points[i].value);
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
  auto at = [&](std::size_t fitted_index) -> const HistoryPoint& { return s.points[s.fitted[fitted_index]]; };
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

Result<StoreListing> read_store_listing(const Store& store) {
  StoreListing l;
  Result<std::vector<RunSummary>> runs = store.list_runs(INT_MAX);
  if (!runs) return runs.error();
  l.runs = std::move(*runs);
  Result<std::vector<Baseline>> baselines = store.list_baselines();
  if (!baselines) return baselines.error();
  l.baselines = std::move(*baselines);
  return l;
}

namespace {

// Why a decoded cache cannot stand for the store's values, if it cannot: it
// is of another store or filters, a run up to its newest changed since, or
// its runs are not the store's (each completed run in the filters with all
// of its metrics, and no other).
std::optional<std::string> cache_mismatch(const SeriesCache& c, const SeriesCacheKey& now,
                                          const std::vector<RunSummary>& runs) {
  // The store is known by its runs (their uuids are in the digest), not by
  // the path it was opened with: a copy of it is as good.
  if (c.key.schema != now.schema || c.key.scenario != now.scenario || c.key.rig != now.rig)
    return "written for another store schema or other --scenario/--rig filters";
  if (c.key.up_to_run > now.up_to_run || c.key.runs_digest != runs_state_digest(runs, c.key.up_to_run))
    return fmt::format("the store's runs up to run {} are not those it was written from", c.key.up_to_run);
  std::unordered_map<std::int64_t, std::pair<const RunSummary*, int>> expected;  // run -> (summary, values seen)
  expected.reserve(runs.size());
  for (const RunSummary& r : runs) {
    if (r.id > c.key.up_to_run || !completed(r.status) || r.metric_count == 0) continue;
    if ((!now.scenario.empty() && r.scenario_name != now.scenario) || (!now.rig.empty() && r.rig != now.rig)) continue;
    expected[r.id] = {&r, 0};
  }
  for (const auto& [name, points] : c.points) {
    for (const HistoryPoint& p : points) {
      auto it = expected.find(p.run_id);
      if (it == expected.end()) return fmt::format("it holds run {}, which is no completed run in the filters", p.run_id);
      const RunSummary& r = *it->second.first;
      if (it->second.second++ == 0 &&
          (p.started_at != r.started_at || p.origin != r.origin || p.scenario_name != r.scenario_name || p.rig != r.rig))
        return fmt::format("its run {} is not the store's", p.run_id);
    }
  }
  for (const RunSummary& r : runs) {  // in the listing's order, so the message names the newest such run
    auto it = expected.find(r.id);
    if (it != expected.end() && it->second.second != r.metric_count)
      return fmt::format("it holds {} of the {} metrics of run {}", it->second.second, r.metric_count, r.id);
  }
  return std::nullopt;
}

}  // namespace

Result<SiteData> load_site_data(const Store& store, const PublishFilters& filters) {
  Result<StoreListing> listing = read_store_listing(store);
  if (!listing) return listing.error();
  Result<LoadedSite> loaded = load_site(store, filters, std::move(*listing), std::nullopt, "");
  if (!loaded) return loaded.error();
  return std::move(loaded->site);
}

Result<LoadedSite> load_site(const Store& store, const PublishFilters& filters, StoreListing listing,
                             const std::optional<std::string>& cache, const std::string& cache_path) {
  LoadedSite out;
  SiteData& site = out.site;
  site.store_path = store.path();
  site.filters = filters;
  // Every value read is of a run up to the newest the listing has (a run
  // stored since is left for the next publish, as it is left out of the
  // runs and the input digest).
  const std::int64_t up_to = listing.runs.empty() ? 0 : listing.runs.front().id;
  const SeriesCacheKey key{store.path(), store.schema_version(), filters.scenario, filters.rig, up_to,
                           runs_state_digest(listing.runs, up_to)};
  MetricPoints all;
  if (cache) {
    Result<SeriesCache> c = decode_series_cache(*cache, cache_path);
    std::optional<std::string> why;
    if (!c) {
      why = c.error().message;
    } else if ((why = cache_mismatch(*c, key, listing.runs))) {
      why = fmt::format("{}: {}", cache_path, *why);
    } else {
      Result<MetricPoints> fresh = store.all_metric_history_after(c->key.up_to_run, filters.scenario, filters.rig);
      if (!fresh) return fresh.error();
      all = std::move(c->points);
      for (auto& [name, points] : *fresh) {
        std::vector<HistoryPoint>& to = all[name];
        to.insert(to.end(), std::make_move_iterator(points.begin()), std::make_move_iterator(points.end()));
      }
      out.from_cache = true;
    }
    if (why) out.cache_note = fmt::format("{}; every metric value read from the store", *why);
  }
  if (!out.from_cache) {
    Result<MetricPoints> read = store.all_metric_history(filters.scenario, filters.rig);
    if (!read) return read.error();
    all = std::move(*read);
  }
  for (auto it = all.begin(); it != all.end();) {
    std::erase_if(it->second, [&](const HistoryPoint& p) { return p.run_id > up_to; });
    it = it->second.empty() ? all.erase(it) : std::next(it);
  }
  out.series_cache = encode_series_cache(key, all);

  for (RunSummary& r : listing.runs)
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

  for (Baseline& b : listing.baselines)
    if (in_filters({"", filters.rig, filters.scenario}, b.scenario_name, b.rig, "")) site.baselines.push_back(b);

  // Each run's series, by index in (scenario, rig) order: a point finds its
  // series by its run id (a value is of the run's own scenario and rig), and
  // a run outside the filters (--since) has none.
  std::map<SeriesKey, std::size_t> series_index;
  for (const RunSummary& r : site.runs) series_index.emplace(SeriesKey{r.scenario_name, r.rig}, 0);
  std::vector<SeriesKey> series_keys;
  for (auto& [key, index] : series_index) {
    index = series_keys.size();
    series_keys.push_back(key);
  }
  std::unordered_map<std::int64_t, std::size_t> series_of_run;
  series_of_run.reserve(site.runs.size());
  for (const RunSummary& r : site.runs) series_of_run.emplace(r.id, series_index.at({r.scenario_name, r.rig}));

  std::vector<std::size_t> counts(series_keys.size());
  std::vector<std::size_t> point_series;
  for (auto& [name, points] : all) {
    MetricPage page;
    page.name = name;
    page.unit = points.empty() ? "" : points.back().unit;
    if (auto it = better.find(name); it != better.end()) page.better = it->second;
    // Counted first, so that each series' points are moved once into a vector of their size.
    std::fill(counts.begin(), counts.end(), 0);
    point_series.assign(points.size(), series_keys.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      auto it = series_of_run.find(points[i].run_id);
      if (it == series_of_run.end()) continue;
      point_series[i] = it->second;
      ++counts[it->second];
    }
    std::vector<MetricSeries> series(series_keys.size());
    for (std::size_t k = 0; k < series.size(); ++k) series[k].points.reserve(counts[k]);
    for (std::size_t i = 0; i < points.size(); ++i)
      if (point_series[i] < series.size()) series[point_series[i]].points.push_back(std::move(points[i]));
    std::erase_if(series, [](const MetricSeries& s) { return s.points.empty(); });
    if (series.empty()) continue;  // only runs before --since have it
    for (MetricSeries& s : series) {
      s.scenario = s.points.front().scenario_name;
      s.rig = s.points.front().rig;
      const SeriesKey key{s.scenario, s.rig};
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
  return out;
}

}  // namespace harness
