// What `harness publish` shows, read from a store through its public API:
// the runs, every metric's values per (scenario, rig) series, the baselines,
// and the newest completed run of each series ("last night"). Then the
// judgement per series: change points (harness/compare/change_points.h) and
// the history noise band (harness/compare/noise_band.h), the same methods
// `history --changes` and `compare` use. The pages (site_pages.h) only render.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/base/result.h"
#include "harness/compare/change_points.h"
#include "harness/compare/noise_band.h"
#include "harness/compare/stored_comparison.h"
#include "harness/model/run.h"
#include "harness/store/store.h"
#include "reports/publish/series_cache.h"

namespace harness {

struct PublishFilters {
  std::string since;     // "YYYY-MM-DD": only runs started on or after that UTC day; empty: all
  std::string rig;       // empty: every rig
  std::string scenario;  // empty: every scenario
};

// "--since" must be a calendar date; the error names the flag and the text.
Status check_since_date(const std::string& date);

using SeriesKey = std::pair<std::string, std::string>;  // (scenario, rig)

// The noise band drawn on a trend: the prediction interval (95 %, Student's
// t) of the next value from the `runs` fitted values before the newest.
struct DrawnBand {
  std::size_t first = 0, runs = 0;  // indices into MetricSeries::fitted
  double mean = 0, lo = 0, hi = 0;
  double p = 1;  // the newest value against it (noise_band)
};

// The newest level shift of a series (reaching the metric's threshold).
struct SeriesChange {
  enum class Kind { change_point, outside_band } kind = Kind::change_point;
  bool worse = false;
  std::int64_t since_run = 0;
  std::string since;  // started_at of since_run
  double before = 0, after = 0;
  double relative = 0;  // (after - before) / |before|
};

// One value of a series, 16 bytes: its run (start, origin, id) is
// SiteData::runs[run], its unit, provenance and reason SiteData::labels[label]
// (series_cache.h): a year of 20 rigs is 1.46 M of them, none holding a string.
struct SeriesPoint {
  double value = 0;  // when its label has one
  std::uint32_t run = 0;    // index into SiteData::runs
  std::uint32_t label = 0;  // index into SiteData::labels
};

// One metric on one (scenario, rig): its values oldest first and what they say.
struct MetricSeries {
  std::string scenario, rig;
  std::vector<SeriesPoint> points;          // every completed run in the filters
  // Indices of the points with measured evidence, a night replayed again
  // counted once (evidence_points, harness/compare/history_evidence.h: the
  // rule of `history --changes` and compare's noise band): what is fitted.
  std::vector<std::size_t> fitted;
  std::vector<ChangePoint> change_points;   // indices into `fitted`
  std::optional<DrawnBand> band;
  std::optional<SeriesChange> change;       // the newest level shift, if any
  struct BaselineLine {
    std::string name;
    std::vector<std::int64_t> runs;
    std::optional<double> value;  // mean of its runs' values in this series; absent: none in the filters
  };
  std::vector<BaselineLine> baselines;
};

struct MetricPage {
  std::string name, unit;
  Better better = Better::none;
  std::vector<MetricSeries> series;  // by (scenario, rig)
};

// The newest completed run of a series, what failed in it, and its verdicts
// as `harness compare RUN` judges it (harness/compare/stored_comparison.h:
// against the newest baseline of its scenario and rig, else the nights
// before it; and against its same-run reference when it has one): the same
// evidence and rule as compare and `history --changes`.
struct LastNight {
  RunSummary run;
  std::vector<Verdict> failed;  // verdicts with status fail
  std::vector<MetricComparison> regressions;   // regressed (unacknowledged), largest first
  std::vector<MetricComparison> improvements;  // improved, largest first
  std::size_t cannot_tell = 0, unchanged = 0;  // of its judged metrics
  std::string judged_against;  // "baseline 'nightly' (runs 3-7)", "the 5 nights before it", or why not judged
  std::string calibration;     // the rig's calibration in words, "" without one
  std::map<std::string, MetricComparison> verdicts;  // every judged metric's row, by name (paired ones win)
  bool regressed() const { return run.status == RunStatus::failed || !regressions.empty() || !failed.empty(); }
};

struct SiteData {
  std::string store_path;
  PublishFilters filters;
  std::vector<RunSummary> runs;  // matching the filters, newest first (every status)
  std::vector<char> live;        // live[i]: runs[i] is a live run (origin "live"), not a replay or import
  std::vector<std::string> texts;   // the units, provenances and reasons the labels refer to
  std::vector<ValueLabel> labels;   // what SeriesPoint::label refers to
  std::vector<MetricPage> metrics;  // by name
  std::map<SeriesKey, LastNight> last_night;
  std::vector<Baseline> baselines;
  const RunSummary& run_of(const SeriesPoint& p) const { return runs[p.run]; }
  const ValueLabel& label_of(const SeriesPoint& p) const { return labels[p.label]; }
  bool has_value(const SeriesPoint& p) const { return labels[p.label].has_value; }
  std::optional<double> value_of(const SeriesPoint& p) const {
    return has_value(p) ? std::optional<double>(p.value) : std::nullopt;
  }
  const std::string& text(std::uint32_t index) const { return texts[index]; }
};

// How the judgement was reached, printed on the pages.
extern const char* const kPublishMethod;

// What a publish reads of the store first, once: the input digest of
// publish.cc and the site data are both made from it.
struct StoreListing {
  std::vector<RunSummary> runs;     // list_runs: every run, newest first
  std::vector<Baseline> baselines;  // list_baselines
};
Result<StoreListing> read_store_listing(const Store& store);

// The site, and the series cache (series_cache.h) to keep for the next publish.
struct LoadedSite {
  SiteData site;
  std::string series_cache;              // encode_series_cache of the values read
  std::optional<std::string> cache_note;  // why the cache given was not used
  bool from_cache = false;                // only the runs after the cache's were read
};

// The run reports a publish renders (publish.cc), handed each run as
// load_site loads it.
class RunReports {
 public:
  virtual ~RunReports() = default;
  // Whether the report of `run` (in the filters) is to be rendered.
  virtual bool wanted(const RunSummary& run) = 0;
  virtual Status report(RunRecord run) = 0;
};

// Reads and judges everything the filters select. Queries besides the
// listing: the values of every completed run in the --scenario/--rig filters
// (with a cache that matches the store, of the runs after the cache's
// newest), and load_run of each series' newest run (its verdicts and each
// metric's better direction). `cache` holds the bytes of the folder's series
// cache, if it has one (`cache_path` names it in the note).
// With `reports`, each run they want is loaded (load_run) and handed to
// them, oldest first, before the series are judged; when those runs hold
// every value still to be read (a cold publish, one more night), the values
// are taken from the loaded runs; otherwise they are read in one pass
// (Store::visit_metric_values_after).
Result<LoadedSite> load_site(const Store& store, const PublishFilters& filters, StoreListing listing,
                             const std::optional<std::string>& cache, const std::string& cache_path,
                             RunReports* reports = nullptr);
// The same without a cache.
Result<SiteData> load_site_data(const Store& store, const PublishFilters& filters);

// Change points, band and newest level shift of one series of `site` (pure;
// `better` decides worse, `floor` is the least noise its unit implies; the
// rig's calibration and the scenario's compare settings set what a level
// shift must reach, as in `history --changes`).
void judge_series(MetricSeries& series, Better better, NoiseFloor floor, const SiteData& site,
                  const std::optional<Calibration>& calibration, const CompareConfig& config,
                  const std::string& metric);

}  // namespace harness
