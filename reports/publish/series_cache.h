// What a publish keeps of the store beside its manifest, so that the next
// one reads only the new runs' metrics: DIR/.publish-series.cache holds every
// metric value it read (of every completed run under the --scenario and --rig
// filters) of the runs up to the highest run id the store had then, and a
// digest of those runs' states. A stored run's metrics never change once its
// final status is written, so when the runs up to that id are still those of
// the digest, the cached values plus the values of the runs after that id
// are exactly the values of the store now.
//
// The file is input like any other: binary, versioned, bounded, every count
// checked against the bytes left before anything is allocated, a sha256 over
// the body. A file that does not decode, or whose key does not match the
// store, is treated as absent (the values are read from the store, and the
// publish says why in a note), never trusted in part.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "harness/base/result.h"
#include "harness/model/run.h"
#include "harness/store/store.h"

namespace harness {

inline constexpr const char* kSeriesCacheName = ".publish-series.cache";
// About 25 bytes per stored metric value: 20 M values.
inline constexpr std::uint64_t kMaxSeriesCacheBytes = 512ull << 20;

// What a value says besides its number: its unit, provenance and reason
// (indices into MetricValues::texts) and whether it has a number. A
// metric's values share one or two of these, so each value refers to one by
// index instead of holding three strings.
struct ValueLabel {
  std::uint32_t unit = 0, provenance = 0, unavailable = 0;
  bool has_value = false;
  bool operator==(const ValueLabel&) const = default;
};

// One metric's values, oldest run first, column by column: a year of 20
// rigs is 1.46 M values, held as three flat vectors instead of a struct of
// six strings each (what all_metric_history gives).
struct MetricColumn {
  std::vector<std::int64_t> run;     // run ids, ascending
  std::vector<double> value;         // 0 where the label has none
  std::vector<std::uint32_t> label;  // indices into MetricValues::labels
  std::size_t size() const { return run.size(); }
  void reserve(std::size_t n);
  void resize(std::size_t n);
};

// Every metric value a publish read, by metric name, and the few texts and
// labels they share, each once.
class MetricValues {
 public:
  MetricValues();
  std::map<std::string, MetricColumn> metrics;
  const std::vector<std::string>& texts() const { return texts_; }
  const std::vector<ValueLabel>& labels() const { return labels_; }
  // The index of `text` in texts() (of `label` in labels()), added when new.
  std::uint32_t intern(std::string_view text);
  std::uint32_t intern(const ValueLabel& label);
  void append(MetricColumn& to, const Store::MetricValueRow& row);
  // Values of runs above `up_to_run` dropped, and metrics left without one.
  void drop_runs_after(std::int64_t up_to_run);
  // The texts and labels a decoded cache's indices refer to, in place of these.
  void assign_tables(std::vector<std::string> texts, std::vector<ValueLabel> labels);

 private:
  std::vector<std::string> texts_;
  std::unordered_map<std::string, std::uint32_t> text_index_;
  std::vector<ValueLabel> labels_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, bool>, std::uint32_t> label_index_;
};

// Which store, filters and runs the cached values are of.
struct SeriesCacheKey {
  std::string store;       // Store::path() when written (for a reader; the runs' uuids identify the store)
  std::int64_t schema = 0;  // Store::schema_version()
  std::string scenario, rig;  // the filters the values were read with
  std::int64_t up_to_run = 0;  // every value is of a run with an id <= this
  std::string runs_digest;     // runs_state_digest(runs, up_to_run) when written
};

// sha256 of every run with an id <= up_to_run (any status): its id, uuid,
// scenario, rig, origin, start, status, end, metric and failed-check counts
// and reason. A run that finishes, is marked aborted, or a store that is
// another one with the same path changes it.
std::string runs_state_digest(const std::vector<RunSummary>& runs, std::int64_t up_to_run);

// A run the cached values are of, as the store listed it when they were read.
struct CachedRun {
  std::int64_t id = 0;
  std::string started_at, origin, scenario, rig;
};

struct SeriesCache {
  SeriesCacheKey key;
  std::vector<CachedRun> runs;  // every run a value is of, by id ascending
  MetricValues values;          // run ids <= key.up_to_run
};

// `runs` must hold every run a value is of (any order; others are left out).
std::string encode_series_cache(const SeriesCacheKey& key, const std::vector<CachedRun>& runs,
                                const MetricValues& values);
// A cache file of `key` around `body` as it stands, with the body's sha256:
// how encode_series_cache ends, and what lets the fuzz target reach the body
// parser (tests/fuzz/series_cache_fuzz.cc).
std::string wrap_series_cache_body(const SeriesCacheKey& key, std::string_view body);
// Untrusted bytes: an error value (naming `path`) for anything that is not a
// whole cache of this version, never a crash.
Result<SeriesCache> decode_series_cache(std::string_view bytes, const std::string& path);

}  // namespace harness
