#include "reports/publish/series_cache.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

CachedRun run(std::int64_t id) {
  return {id, "2026-11-0" + std::to_string(id) + "T02:00:00.000Z", id == 2 ? "replay" : "live", "nightly", "lab-a"};
}

std::vector<CachedRun> runs() { return {run(3), run(1), run(2)}; }  // any order

Store::MetricValueRow row(std::int64_t id, std::string name, std::optional<double> value,
                          const std::string& unit = "s") {
  Store::MetricValueRow r;
  r.run_id = id;
  r.name = std::move(name);
  r.value = value;
  r.unit = unit;
  r.provenance = id == 2 ? "replayed" : "measured";
  if (!value) r.unavailable = "no samples";
  return r;
}

SeriesCacheKey key() { return {"runs.sqlite", 6, "", "lab-a", 3, std::string(64, 'a')}; }

std::vector<Store::MetricValueRow> rows() {
  return {row(1, "latency_p50", 0.69), row(1, "bandwidth.seq_read", 3.1e10, "B/s"), row(2, "latency_p50", 0.7),
          row(3, "latency_p50", std::nullopt), row(3, "bandwidth.seq_read", 3.0e10, "B/s")};
}

MetricValues values() {
  MetricValues v;
  for (const Store::MetricValueRow& r : rows()) v.append(v.metrics[r.name], r);
  return v;
}

TEST(SeriesCache, DecodesWhatItEncoded) {
  const std::string bytes = encode_series_cache(key(), runs(), values());
  Result<SeriesCache> c = decode_series_cache(bytes, "site/.publish-series.cache");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->key.store, "runs.sqlite");
  EXPECT_EQ(c->key.schema, 6);
  EXPECT_EQ(c->key.rig, "lab-a");
  EXPECT_EQ(c->key.up_to_run, 3);
  EXPECT_EQ(c->key.runs_digest, std::string(64, 'a'));
  ASSERT_EQ(c->runs.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const CachedRun want = run(static_cast<std::int64_t>(i) + 1);
    EXPECT_EQ(c->runs[i].id, want.id);
    EXPECT_EQ(c->runs[i].started_at, want.started_at);
    EXPECT_EQ(c->runs[i].origin, want.origin);
    EXPECT_EQ(c->runs[i].scenario, want.scenario);
    EXPECT_EQ(c->runs[i].rig, want.rig);
  }
  // Every value as it was appended: run, value or absent, and its texts.
  std::map<std::string, std::vector<Store::MetricValueRow>> want;
  for (const Store::MetricValueRow& r : rows()) want[r.name].push_back(r);
  ASSERT_EQ(c->values.metrics.size(), want.size());
  for (const auto& [name, rs] : want) {
    const MetricColumn& col = c->values.metrics.at(name);
    ASSERT_EQ(col.size(), rs.size()) << name;
    for (std::size_t i = 0; i < rs.size(); ++i) {
      SCOPED_TRACE(name + " " + std::to_string(i));
      EXPECT_EQ(col.run[i], rs[i].run_id);
      const ValueLabel& l = c->values.labels().at(col.label[i]);
      EXPECT_EQ(l.has_value, rs[i].value.has_value());
      if (rs[i].value) {
        EXPECT_EQ(col.value[i], *rs[i].value);
      }
      EXPECT_EQ(c->values.texts().at(l.unit), rs[i].unit);
      EXPECT_EQ(c->values.texts().at(l.provenance), rs[i].provenance);
      EXPECT_EQ(c->values.texts().at(l.unavailable), rs[i].unavailable);
    }
  }
  EXPECT_EQ(encode_series_cache(c->key, c->runs, c->values), bytes);
}

TEST(SeriesCache, EveryShorterFileIsRefusedNoneIsTrustedInPart) {
  const std::string bytes = encode_series_cache(key(), runs(), values());
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
  std::string bytes = encode_series_cache(key(), runs(), values());
  std::string old = bytes;
  old[29] = 1;  // the version, just after the 29-byte magic: a cache of the row-per-value format
  Result<SeriesCache> c = decode_series_cache(old, "c");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "c: not a series cache: version 1, this harness reads version 2");
  SeriesCacheKey k = key();
  k.up_to_run = 2;
  c = decode_series_cache(encode_series_cache(k, runs(), values()), "c");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "c: not a series cache: run 3 is not between 1 and run 2");
}

// A body with a correct sha256 is still checked through: every index.
TEST(SeriesCache, RefusesABodyWhoseIndicesPointNowhere) {
  const std::string bytes = encode_series_cache(key(), runs(), values());
  // The body ends with the last metric's label stretches (u32 values, u32
  // label), just before the sha256 (u32 length + 64 hex).
  const std::size_t body_end = bytes.size() - 4 - 64;
  const std::size_t body_at = 29 + 4 + (4 + 11) + 8 + 4 + (4 + 5) + 8 + (4 + 64) + 8;
  const std::string body = bytes.substr(body_at, body_end - body_at);
  std::string label = body, length = body;
  label[label.size() - 4] = 99;   // the last stretch's label
  length[length.size() - 8] = 9;  // the last stretch's length: beyond the values
  for (const std::string& b : {label, length}) {
    Result<SeriesCache> c = decode_series_cache(wrap_series_cache_body(key(), b), "c");
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().message, "c: not a series cache: metric 'latency_p50': its labels do not cover its values");
  }
  Result<SeriesCache> c = decode_series_cache(wrap_series_cache_body(key(), body), "c");
  ASSERT_TRUE(c) << c.error().message;
}

}  // namespace
}  // namespace harness
