#include "reports/publish/site_data.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include "harness/base/stats.h"
#include "harness/compare/history_evidence.h"
#include "harness/compare/noise_band.h"
#include "harness/scenario/scenario.h"
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

// The two-sided Student's t quantile of the band for `runs` values: the
// same few (`runs` is at most CompareConfig::history_runs) for every one of
// thousands of series, so each is computed once per thread.
double t_quantile(std::size_t runs, double alpha) {
  thread_local std::map<std::pair<std::size_t, double>, double> known;
  auto [it, added] = known.try_emplace({runs, alpha}, 0.0);
  if (added) {
    const boost::math::students_t t(static_cast<double>(runs) - 1);
    it->second = boost::math::quantile(boost::math::complement(t, alpha / 2));
  }
  return it->second;
}

}  // namespace

const char* const kPublishMethod =
    "verdicts: each series' newest night judged as 'harness compare RUN' judges it (against the newest baseline of "
    "its scenario and rig, else the nights before it, and against its same-run reference when it has one; "
    "regressed, improved, unchanged with what it could detect, or cannot tell with why); level shifts: penalised "
    "step fit for changes in mean over the runs with measured evidence (provenance measured or replayed, whatever "
    "the run's origin; a night replayed again counts once) of one scenario on one rig, at least the rig's calibrated "
    "spread between nights and a step of the metric's threshold (as 'harness history --changes'); band: 95 % "
    "prediction interval of the next value from the last 20 of those runs before the newest";

Status check_since_date(const std::string& d) {
  auto bad = [&] { return Error::input(fmt::format("--since '{}': not a date (YYYY-MM-DD)", d)); };
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return bad();
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (d[i] < '0' || d[i] > '9') return bad();
  int month = std::stoi(d.substr(5, 2)), day = std::stoi(d.substr(8, 2));
  if (month < 1 || month > 12 || day < 1 || day > 31) return bad();
  return ok();
}

void judge_series(MetricSeries& s, Better better, NoiseFloor floor, const SiteData& site,
                  const std::optional<Calibration>& calibration, const CompareConfig& config, const std::string& metric) {
  std::vector<char> measured_label(site.labels.size());  // a number with measured evidence
  for (std::size_t i = 0; i < site.labels.size(); ++i)
    measured_label[i] = site.labels[i].has_value && measured_provenance(site.texts[site.labels[i].provenance]);
  s.fitted = evidence_indices(
      s.points.size(),
      [&](std::size_t i) {
        const SeriesPoint& p = s.points[i];
        return measured_label[p.label] && std::isfinite(p.value);
      },
      [&](std::size_t i) { return site.live[s.points[i].run] != 0; },
      [&](std::size_t i) {
        const RunSummary& r = site.run_of(s.points[i]);
        return std::tuple<std::string_view, std::string_view, std::string_view>(r.scenario_name, r.rig, r.started_at);
      });
  std::vector<double> values;
  values.reserve(s.fitted.size());
  for (std::size_t i : s.fitted) values.push_back(s.points[i].value);
  s.change_points = find_change_points(values, series_change_options(calibration, config, metric, values));
  s.band.reset();
  s.change.reset();
  if (values.size() >= config.min_history_runs + 1) {
    std::size_t runs = std::min(config.history_runs, values.size() - 1);
    std::size_t first = values.size() - 1 - runs;
    std::span<const double> history(values.data() + first, runs);
    if (std::optional<NoiseBand> nb = noise_band(history, values.back(), config.min_history_runs, floor)) {
      const double q = t_quantile(runs, config.alpha);
      const double half = q * nb->sd * std::sqrt(1 + 1.0 / static_cast<double>(runs));
      s.band = DrawnBand{first, runs, nb->mean, nb->mean - half, nb->mean + half, nb->p};
    }
  }
  auto at = [&](std::size_t fitted_index) -> const RunSummary& { return site.run_of(s.points[s.fitted[fitted_index]]); };
  // The newest level shift says since when (each reaches the metric's
  // threshold: series_change_options); whether last night regressed is its
  // verdict's to say (LastNight::verdicts).
  if (!s.change_points.empty()) {
    const ChangePoint& c = s.change_points.back();
    s.change = SeriesChange{SeriesChange::Kind::change_point, is_worse(better, c.before, c.after), at(c.index).id,
                            at(c.index).started_at, c.before, c.after, relative(c.before, c.after)};
  }
}

namespace {

// The night's verdicts as `harness compare RUN` gives them: paired ones
// (against its reference) in place of those against nights where both judge
// a metric.
void take_judgement(const CompareReport& r, LastNight& night) {
  night.judged_against = r.baseline_name.empty()
                             ? fmt::format("the {} night{} before it", r.baseline_runs.size(),
                                           r.baseline_runs.size() == 1 ? "" : "s")
                             : fmt::format("baseline '{}'", r.baseline_name);
  if (r.reference) night.judged_against += " and its same-run reference";
  night.calibration = r.comparison.calibration;
  for (const MetricComparison& m : r.comparison.metrics) night.verdicts[m.name] = m;
  if (r.reference)
    for (const MetricComparison& m : r.reference->metrics) night.verdicts[m.name] = m;
  auto size = [](const MetricComparison& m) { return std::fabs(m.effect.value_or(m.relative_change.value_or(0))); };
  for (const auto& [name, m] : night.verdicts) {
    if (m.verdict == Change::regressed && m.acknowledged.empty()) night.regressions.push_back(m);
    if (m.verdict == Change::improved) night.improvements.push_back(m);
    night.cannot_tell += m.verdict == Change::cannot_tell;
    night.unchanged += m.verdict == Change::unchanged;
  }
  auto largest = [&](const MetricComparison& a, const MetricComparison& b) {
    return size(a) != size(b) ? size(a) > size(b) : a.name < b.name;
  };
  std::sort(night.regressions.begin(), night.regressions.end(), largest);
  std::sort(night.improvements.begin(), night.improvements.end(), largest);
}

}  // namespace

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
  for (const CachedRun& cr : c.runs) {
    auto it = expected.find(cr.id);
    if (it == expected.end()) return fmt::format("it holds run {}, which is no completed run in the filters", cr.id);
    const RunSummary& r = *it->second.first;
    if (cr.started_at != r.started_at || cr.origin != r.origin || cr.scenario != r.scenario_name || cr.rig != r.rig)
      return fmt::format("its run {} is not the store's", cr.id);
  }
  for (const auto& [name, col] : c.values.metrics)
    for (std::int64_t id : col.run) ++expected.at(id).second;  // every value's run is in the run table, checked above
  for (const RunSummary& r : runs) {  // in the listing's order, so the message names the newest such run
    auto it = expected.find(r.id);
    if (it != expected.end() && it->second.second != r.metric_count)
      return fmt::format("it holds {} of the {} metrics of run {}", it->second.second, r.metric_count, r.id);
  }
  return std::nullopt;
}

// Appends each value read from the store to its metric's column. A value
// comes from the metrics' pass (visit_metric_values_after) or from a run
// loaded for its report (load_run), and both give the same: a provenance
// this harness does not know (a row not written by it) reads as load_run
// reads it, "measured".
class AppendValues final : public Store::MetricValueVisitor {
 public:
  explicit AppendValues(MetricValues& values) : values_(values) {}
  void value(const Store::MetricValueRow& stored) override {
    const Store::MetricValueRow* known = &stored;
    if (!provenance_from_name(stored.provenance)) {
      unknown_ = stored;
      unknown_.provenance = provenance_name(Provenance::measured);
      known = &unknown_;
    }
    const Store::MetricValueRow& row = *known;
    // Each run's values come in the same order of names as the run's
    // before: the column at the same place in the last run is tried first.
    if (row.run_id != run_) {
      run_ = row.run_id;
      at_ = 0;
    }
    MetricColumn* column = nullptr;
    if (at_ < order_.size() && order_[at_]->first == row.name) {
      column = &order_[at_]->second;
    } else {
      auto* entry = &*values_.metrics.try_emplace(row.name).first;
      if (at_ < order_.size()) order_[at_] = entry;
      else order_.push_back(entry);
      column = &entry->second;
    }
    ++at_;
    values_.append(*column, row);
  }

 private:
  MetricValues& values_;
  Store::MetricValueRow unknown_;
  std::vector<std::pair<const std::string, MetricColumn>*> order_;
  std::int64_t run_ = 0;
  std::size_t at_ = 0;
};

}  // namespace

Result<SiteData> load_site_data(const Store& store, const PublishFilters& filters) {
  Result<StoreListing> listing = read_store_listing(store);
  if (!listing) return listing.error();
  Result<LoadedSite> loaded = load_site(store, filters, std::move(*listing), std::nullopt, "");
  if (!loaded) return loaded.error();
  return std::move(loaded->site);
}

namespace {

// Takes the values of a series cache that matches the store into `all` and
// returns the run after which the store's values are still to be read (0:
// every one); a cache that does not match is said why in out.cache_note.
std::int64_t take_cached_values(const std::optional<std::string>& cache, const std::string& cache_path,
                                const SeriesCacheKey& key, const std::vector<RunSummary>& runs, LoadedSite& out,
                                MetricValues& all) {
  std::int64_t values_after = 0;
  if (cache) {
    Result<SeriesCache> c = decode_series_cache(*cache, cache_path);
    std::optional<std::string> why;
    if (!c) {
      why = c.error().message;
    } else if ((why = cache_mismatch(*c, key, runs))) {
      why = fmt::format("{}: {}", cache_path, *why);
    } else {
      all = std::move(c->values);
      values_after = c->key.up_to_run;
      out.from_cache = true;
    }
    if (why) out.cache_note = fmt::format("{}; every metric value read from the store", *why);
  }
  return values_after;
}

// The runs whose reports are rendered, oldest first, and whether they
// hold every value still to be read: each completed run in the
// --scenario/--rig filters after `values_after` (a cold publish renders
// every run's report; one more night renders the new runs'). Then each of
// them is loaded once, for its report and its values, instead of a second
// pass over every metric of the store.
Status read_values_and_reports(const Store& store, const PublishFilters& filters, const std::vector<RunSummary>& runs,
                               std::int64_t values_after, RunReports* reports, MetricValues& all) {
  std::vector<std::int64_t> report_runs;
  std::unordered_set<std::int64_t> reported;
  if (reports) {
    for (const RunSummary& r : runs)
      if (in_filters(filters, r.scenario_name, r.rig, r.started_at) && reports->wanted(r)) report_runs.push_back(r.id);
    std::reverse(report_runs.begin(), report_runs.end());
    reported.insert(report_runs.begin(), report_runs.end());
  }
  auto needs_values = [&](const RunSummary& r) {
    return r.id > values_after && completed(r.status) && r.metric_count > 0 &&
           in_filters({"", filters.rig, filters.scenario}, r.scenario_name, r.rig, "");
  };
  bool values_from_reports = reports != nullptr;
  std::unordered_set<std::int64_t> value_runs;
  for (const RunSummary& r : runs) {
    if (!needs_values(r)) continue;
    value_runs.insert(r.id);
    values_from_reports = values_from_reports && reported.count(r.id);
  }
  AppendValues append(all);
  if (!values_from_reports)
    HARNESS_TRY(store.visit_metric_values_after(values_after, filters.scenario, filters.rig, append));
  for (std::int64_t id : report_runs) {
    Result<RunRecord> run = store.load_run(id);
    if (!run) return run.error();
    if (values_from_reports && value_runs.count(id)) {
      Store::MetricValueRow row;
      row.run_id = id;
      for (const Metric& m : run->analysis.metrics) {
        row.name = m.name;
        row.value = m.value;
        row.unit = m.unit;
        row.provenance = provenance_name(m.provenance);
        row.unavailable = m.unavailable;
        append.value(row);
      }
    }
    HARNESS_TRY(reports->report(std::move(*run)));
  }
  return ok();
}

// The series cache to keep for the next publish: the values read, of the
// runs up to `up_to`.
std::string encode_cache(const SeriesCacheKey& key, const std::vector<RunSummary>& runs, std::int64_t up_to,
                         const MetricValues& all) {
  std::vector<CachedRun> cached;
  cached.reserve(runs.size());
  for (const RunSummary& r : runs)
    if (r.id <= up_to) cached.push_back({r.id, r.started_at, r.origin, r.scenario_name, r.rig});
  return encode_series_cache(key, cached, all);
}

// What a series' newest run sets for judging it: its scenario's compare
// settings and its rig's latest calibration.
struct SeriesSettings {
  CompareConfig config;
  std::optional<Calibration> calibration;
};

// What the series' newest runs say: each metric's better direction, and
// each series' settings.
struct NewestRuns {
  std::map<std::string, Better> better;
  std::map<SeriesKey, SeriesSettings> settings;
};

// Last night per series: the newest completed run (list_runs is newest
// first), its failed verdicts and its judgement as `harness compare RUN`
// gives it.
Result<NewestRuns> judge_last_nights(const Store& store, SiteData& site) {
  for (const RunSummary& r : site.runs) {
    if (!completed(r.status) || site.last_night.count({r.scenario_name, r.rig})) continue;
    site.last_night[{r.scenario_name, r.rig}].run = r;
  }
  NewestRuns newest;
  for (auto& [key, night] : site.last_night) {
    Result<RunRecord> run = store.load_run(night.run.id);
    if (!run) return run.error();
    for (const Verdict& v : run->analysis.verdicts)
      if (v.status == VerdictStatus::fail) night.failed.push_back(v);
    for (const Metric& m : run->analysis.metrics) newest.better.emplace(m.name, m.better);
    SeriesSettings& s = newest.settings[key];
    if (Result<Scenario> parsed = parse_scenario(run->scenario_text, run->scenario_path); parsed && parsed->compare)
      s.config = *parsed->compare;
    Result<std::optional<Calibration>> calibration = store.latest_calibration(key.first, key.second);
    if (!calibration) return calibration.error();
    s.calibration = std::move(*calibration);
    CompareRequest request;
    request.run = night.run.id;
    Result<StoredComparison> judged = compare_stored_runs(store, request);
    if (judged) take_judgement(judged->report, night);
    else night.judged_against = "not judged: " + judged.error().message;
  }
  return newest;
}

// Where a run's values go: its index in SiteData::runs and its series'.
struct RunPlace {
  std::uint32_t run, series;
};
constexpr std::uint32_t kNoSeries = UINT32_MAX;

// Each run's series, by index in (scenario, rig) order: a value finds its
// run and series by its run id (a value is of the run's own scenario and
// rig), and a run outside the filters (--since) has none.
struct RunPlaces {
  std::vector<SeriesKey> series_keys;
  std::unordered_map<std::int64_t, RunPlace> of_run;
};

RunPlaces place_runs(const std::vector<RunSummary>& runs) {
  RunPlaces out;
  std::map<SeriesKey, std::size_t> series_index;
  for (const RunSummary& r : runs) series_index.emplace(SeriesKey{r.scenario_name, r.rig}, 0);
  for (auto& [key, index] : series_index) {
    index = out.series_keys.size();
    out.series_keys.push_back(key);
  }
  out.of_run.reserve(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunSummary& r = runs[i];
    out.of_run.emplace(r.id, RunPlace{static_cast<std::uint32_t>(i),
                                      static_cast<std::uint32_t>(series_index.at({r.scenario_name, r.rig}))});
  }
  return out;
}

// One metric's column split into its series, in (scenario, rig) order,
// those without a point left out. `counts` and `places` are scratch, kept
// between metrics.
std::vector<MetricSeries> split_into_series(const MetricColumn& col, const RunPlaces& at,
                                            std::vector<std::size_t>& counts, std::vector<RunPlace>& places) {
  // Counted first, so that each series' points are written once into a vector of their size.
  std::fill(counts.begin(), counts.end(), 0);
  places.assign(col.size(), RunPlace{0, kNoSeries});
  for (std::size_t i = 0; i < col.size(); ++i) {
    auto it = at.of_run.find(col.run[i]);
    if (it == at.of_run.end()) continue;
    places[i] = it->second;
    ++counts[it->second.series];
  }
  std::vector<MetricSeries> series(at.series_keys.size());
  for (std::size_t k = 0; k < series.size(); ++k) series[k].points.reserve(counts[k]);
  for (std::size_t i = 0; i < col.size(); ++i) {
    if (places[i].series == kNoSeries) continue;
    series[places[i].series].points.push_back(SeriesPoint{col.value[i], places[i].run, col.label[i]});
  }
  for (std::size_t k = 0; k < series.size(); ++k) {
    series[k].scenario = at.series_keys[k].first;
    series[k].rig = at.series_keys[k].second;
  }
  std::erase_if(series, [](const MetricSeries& s) { return s.points.empty(); });
  return series;
}

// The mean of the series' values in each baseline of its scenario and rig.
void add_baseline_lines(MetricSeries& s, const SiteData& site) {
  for (const Baseline& b : site.baselines) {
    if (b.scenario_name != s.scenario || b.rig != s.rig) continue;
    std::set<std::int64_t> members(b.runs.begin(), b.runs.end());
    std::vector<double> values;
    for (const SeriesPoint& p : s.points)
      if (site.has_value(p) && std::isfinite(p.value) && members.count(site.run_of(p).id)) values.push_back(p.value);
    s.baselines.push_back({b.name, b.runs, values.empty() ? std::nullopt : std::optional<double>(mean(values))});
  }
}

// A page per metric with a value in the site's runs, each of its series
// judged.
void add_metric_pages(SiteData& site, const MetricValues& all, const NewestRuns& newest) {
  const RunPlaces at = place_runs(site.runs);
  std::vector<std::size_t> counts(at.series_keys.size());
  std::vector<RunPlace> places;
  for (const auto& [name, col] : all.metrics) {
    MetricPage page;
    page.name = name;
    page.unit = col.size() == 0 ? "" : all.texts()[all.labels()[col.label.back()].unit];
    if (auto it = newest.better.find(name); it != newest.better.end()) page.better = it->second;
    std::vector<MetricSeries> series = split_into_series(col, at, counts, places);
    if (series.empty()) continue;  // only runs before --since have it
    for (MetricSeries& s : series) {
      const SeriesKey key{s.scenario, s.rig};
      const SeriesSettings& own = newest.settings.count(key) ? newest.settings.at(key) : SeriesSettings{};
      judge_series(s, page.better, noise_floor_of_unit(page.unit), site, own.calibration, own.config, page.name);
      add_baseline_lines(s, site);
      page.series.push_back(std::move(s));
    }
    site.metrics.push_back(std::move(page));
  }
}

}  // namespace

Result<LoadedSite> load_site(const Store& store, const PublishFilters& filters, StoreListing listing,
                             const std::optional<std::string>& cache, const std::string& cache_path,
                             RunReports* reports) {
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
  MetricValues all;
  // The values of the runs after this one are to be read.
  const std::int64_t values_after = take_cached_values(cache, cache_path, key, listing.runs, out, all);
  HARNESS_TRY(read_values_and_reports(store, filters, listing.runs, values_after, reports, all));
  all.drop_runs_after(up_to);
  out.series_cache = encode_cache(key, listing.runs, up_to, all);

  for (RunSummary& r : listing.runs)
    if (in_filters(filters, r.scenario_name, r.rig, r.started_at)) site.runs.push_back(std::move(r));
  for (const RunSummary& r : site.runs) site.live.push_back(r.origin == "live");
  site.texts = all.texts();
  site.labels = all.labels();

  Result<NewestRuns> newest = judge_last_nights(store, site);
  if (!newest) return newest.error();
  for (Baseline& b : listing.baselines)
    if (in_filters({"", filters.rig, filters.scenario}, b.scenario_name, b.rig, "")) site.baselines.push_back(b);
  add_metric_pages(site, all, *newest);
  return out;
}

}  // namespace harness
