#include "reports/publish/series_cache.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

HistoryPoint point(std::int64_t run, std::optional<double> value, const std::string& unit = "s") {
  HistoryPoint p;
  p.run_id = run;
  p.started_at = "2026-11-0" + std::to_string(run) + "T02:00:00.000Z";
  p.origin = run == 2 ? "replay" : "live";
  p.scenario_name = "nightly";
  p.rig = "lab-a";
  p.value = value;
  p.unit = unit;
  p.provenance = run == 2 ? "replayed" : "measured";
  if (!value) p.unavailable = "no samples";
  return p;
}

SeriesCacheKey key() { return {"runs.sqlite", 6, "", "lab-a", 3, std::string(64, 'a')}; }

MetricPoints points() {
  return {{"latency_p50", {point(1, 0.69), point(2, 0.7), point(3, std::nullopt)}},
          {"bandwidth.seq_read", {point(1, 3.1e10, "B/s"), point(3, 3.0e10, "B/s")}}};
}

bool same(const HistoryPoint& a, const HistoryPoint& b) {
  return a.run_id == b.run_id && a.started_at == b.started_at && a.origin == b.origin &&
         a.scenario_name == b.scenario_name && a.rig == b.rig && a.value == b.value && a.unit == b.unit &&
         a.provenance == b.provenance && a.unavailable == b.unavailable;
}

TEST(SeriesCache, DecodesWhatItEncoded) {
  const std::string bytes = encode_series_cache(key(), points());
  Result<SeriesCache> c = decode_series_cache(bytes, "site/.publish-series.cache");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->key.store, "runs.sqlite");
  EXPECT_EQ(c->key.schema, 6);
  EXPECT_EQ(c->key.rig, "lab-a");
  EXPECT_EQ(c->key.up_to_run, 3);
  EXPECT_EQ(c->key.runs_digest, std::string(64, 'a'));
  const MetricPoints want = points();
  ASSERT_EQ(c->points.size(), want.size());
  for (const auto& [name, pts] : want) {
    ASSERT_EQ(c->points.at(name).size(), pts.size()) << name;
    for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_TRUE(same(c->points.at(name)[i], pts[i])) << name << " " << i;
  }
  EXPECT_EQ(encode_series_cache(c->key, c->points), bytes);
}

TEST(SeriesCache, EveryShorterFileIsRefusedNoneIsTrustedInPart) {
  const std::string bytes = encode_series_cache(key(), points());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    Result<SeriesCache> c = decode_series_cache(std::string_view(bytes).substr(0, n), "c");
    ASSERT_FALSE(c) << n;
    EXPECT_EQ(c.error().code, ExitCode::bad_input);
  }
  Result<SeriesCache> longer = decode_series_cache(bytes + "x", "c");
  ASSERT_FALSE(longer);
  EXPECT_EQ(longer.error().message, "c: not a series cache: bytes after the end");
}

TEST(SeriesCache, RefusesAnotherVersionAndPointsBeyondItsNewestRun) {
  std::string bytes = encode_series_cache(key(), points());
  std::string other = bytes;
  other[29] = 2;  // the version, just after the 29-byte magic
  Result<SeriesCache> c = decode_series_cache(other, "c");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "c: not a series cache: version 2, this harness reads version 1");
  SeriesCacheKey k = key();
  k.up_to_run = 2;
  c = decode_series_cache(encode_series_cache(k, points()), "c");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "c: not a series cache: run 3 is not between 1 and run 2");
}

}  // namespace
}  // namespace harness
