// What a publish keeps of the store beside its manifest, so that the next
// one reads only the new runs' metrics: DIR/.publish-series.cache holds every
// metric value it read (all_metric_history under the --scenario and --rig
// filters) of the runs up to the highest run id the store had then, and a
// digest of those runs' states. A stored run's metrics never change once its
// final status is written, so when the runs up to that id are still those of
// the digest, the cached values plus all_metric_history_after(that id) are
// exactly all_metric_history of the store now.
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
#include <vector>

#include "harness/base/result.h"
#include "harness/model/run.h"
#include "harness/store/store.h"

namespace harness {

inline constexpr const char* kSeriesCacheName = ".publish-series.cache";
// About 25 bytes per stored metric value: 20 M values.
inline constexpr std::uint64_t kMaxSeriesCacheBytes = 512ull << 20;

using MetricPoints = std::map<std::string, std::vector<HistoryPoint>>;

// Which store, filters and runs the cached values are of.
struct SeriesCacheKey {
  std::string store;       // Store::path() when written (for a reader; the runs' uuids identify the store)
  std::int64_t schema = 0;  // Store::schema_version()
  std::string scenario, rig;  // the filters all_metric_history was read with
  std::int64_t up_to_run = 0;  // every value is of a run with an id <= this
  std::string runs_digest;     // runs_state_digest(runs, up_to_run) when written
};

// sha256 of every run with an id <= up_to_run (any status): its id, uuid,
// scenario, rig, origin, start, status, end, metric and failed-check counts
// and reason. A run that finishes, is marked aborted, or a store that is
// another one with the same path changes it.
std::string runs_state_digest(const std::vector<RunSummary>& runs, std::int64_t up_to_run);

struct SeriesCache {
  SeriesCacheKey key;
  MetricPoints points;  // by name, each oldest first; run ids <= key.up_to_run
};

std::string encode_series_cache(const SeriesCacheKey& key, const MetricPoints& points);
// A cache file of `key` around `body` as it stands, with the body's sha256:
// how encode_series_cache ends, and what lets the fuzz target reach the body
// parser (tests/fuzz/series_cache_fuzz.cc).
std::string wrap_series_cache_body(const SeriesCacheKey& key, std::string_view body);
// Untrusted bytes: an error value (naming `path`) for anything that is not a
// whole cache of this version, never a crash.
Result<SeriesCache> decode_series_cache(std::string_view bytes, const std::string& path);

}  // namespace harness
