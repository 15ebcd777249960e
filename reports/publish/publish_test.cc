// publish_site on a store of replayed fixture nights (tests/support/publish_store.h):
// what the pages say, what an incremental publish rewrites, the filters and
// the refusals.
#include "reports/publish/publish.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reports/publish/series_cache.h"
#include "reports/publish/site_pages.h"
#include "tests/support/file_bytes.h"
#include "tests/support/publish_store.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

using testing_support::file_bytes;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

ino_t inode(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

class Publish : public testing_support::ScratchDirTest {
 protected:
  Publish() : ScratchDirTest("harness-publish") {}
  void SetUp() override {
    ScratchDirTest::SetUp();
    Result<Store> s = Store::open((dir_ / "runs.sqlite").string());
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
    Result<test_support::PublishStore> filled = test_support::fill_publish_store(*store_);
    ASSERT_TRUE(filled) << filled.error().message;
    runs_ = *filled;
  }

  // Stores the replay of `fixture` as a night of `rig` on `day` (its origin
  // "replay" when `origin` says so); the run's id.
  Result<std::int64_t> insert_night(const std::string& fixture, const std::string& rig, const std::string& day,
                                    const std::string& origin = "") {
    Result<RunRecord> night = test_support::replayed_night(fixture, rig, day);
    if (!night) return night.error();
    if (!origin.empty()) night->origin = origin;
    return store_->insert_run(*night);
  }

  std::optional<Store> store_;
  test_support::PublishStore runs_;
};

TEST_F(Publish, IndexPutsTheRegressedRigFirstWithMetricChangeAndSinceWhen) {
  const fs::path site = dir_ / "site";
  Result<PublishSummary> s = publish_site(*store_, site.string(), {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->runs, 27u);
  EXPECT_EQ(s->series, 3u);
  EXPECT_EQ(s->reports_written, 27u);
  EXPECT_EQ(s->pages_unchanged, 0u);
  EXPECT_EQ(s->pages_written, s->metrics + 3);  // a page per metric, index, tables, runs

  const std::string index = file_bytes(site / "index.html");
  // lab-a regressed: it comes before lab-b and host-a in the verdict table.
  const std::size_t a = index.find("<td>lab-a</td>"), b = index.find("<td>lab-b</td>"),
                    h = index.find("<td>host-a</td>");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(h, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(a, h);
  // The day 3 -> day 1 step of the case study, found as a level shift from
  // the first day-1 night (night 11, 2026-11-11).
  const std::string since = fmt::format("since run {} (2026-11-11), level shift", runs_.lab_a[10]);
  EXPECT_NE(index.find("<a href=\"metrics/latency_p50.html\">latency_p50</a> on lab-a / whisper-medium-ryzen-ai: "
                       "<span class=\"worse\">"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find(since), std::string::npos);
  EXPECT_NE(index.find("<ol class=\"regressions\" id=\"regressions\">"), std::string::npos);
  // lab-b ran day 6 every night: no regression of its own.
  EXPECT_EQ(count(index, "on lab-b / whisper-medium-ryzen-ai:"), 0u);
  EXPECT_GE(count(index, "<figure class=\"trend\"><svg"), 1u);
  EXPECT_NE(index.find(fmt::format("<a href=\"runs/{0}.html\">run {0}</a>", runs_.lab_a.back())), std::string::npos);

  const std::string page = file_bytes(site / "metrics/latency_p50.html");
  // One trend per series that has the metric: lab-a, lab-b and host-a.
  EXPECT_EQ(count(page, "<figure class=\"trend\"><svg"), 3u);
  EXPECT_NE(page.find("<h2>whisper-medium-ryzen-ai on lab-a</h2>"), std::string::npos);
  EXPECT_NE(page.find("baseline <b>nightly</b>"), std::string::npos);
  EXPECT_NE(page.find("baseline nightly</text>"), std::string::npos);  // drawn on the chart
  EXPECT_NE(page.find("<table class=\"changes\">"), std::string::npos);
  EXPECT_NE(page.find(fmt::format("<tr><td><a href=\"../runs/{0}.html\">run {0}</a></td><td>2026-11-11</td>",
                                  runs_.lab_a[10])),
            std::string::npos);
  EXPECT_NE(page.find("noise band of the 12 measured runs before the newest"), std::string::npos);

  const std::string tables = file_bytes(site / "tables.html");
  for (const char* t : {"bandwidth regression: scenario whisper-medium-ryzen-ai on rig lab-a (13 runs)",
                        "op latency regression: scenario whisper-medium-ryzen-ai on rig lab-b (13 runs)"}) {
    EXPECT_NE(tables.find(t), std::string::npos) << t;
  }
  EXPECT_NE(tables.find("<tr><td><code>latency_p50</code></td>"), std::string::npos);

  for (std::int64_t id : runs_.lab_a) EXPECT_TRUE(fs::is_regular_file(site / run_report_path(id))) << id;
  EXPECT_NE(file_bytes(site / run_report_path(runs_.host_a[0])).find("<svg"), std::string::npos);
}

TEST_F(Publish, RepublishingRewritesOnlyWhatChanged) {
  const fs::path site = dir_ / "site";
  Result<PublishSummary> first = publish_site(*store_, site.string(), {});
  ASSERT_TRUE(first) << first.error().message;

  Result<PublishSummary> again = publish_site(*store_, site.string(), {});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->pages_written, 0u);
  EXPECT_EQ(again->reports_written, 0u);
  EXPECT_EQ(again->pages_unchanged, first->pages_written);
  EXPECT_EQ(again->reports_unchanged, first->reports_written);

  // A page someone deleted comes back, and only that page is written.
  fs::remove(site / "tables.html");
  Result<PublishSummary> repaired = publish_site(*store_, site.string(), {});
  ASSERT_TRUE(repaired) << repaired.error().message;
  EXPECT_EQ(repaired->pages_written, 1u);
  EXPECT_EQ(repaired->reports_written, 0u);
  EXPECT_TRUE(fs::is_regular_file(site / "tables.html"));

  // A metric only the host fixture has keeps its page through a night of lab-a.
  std::string host_only;
  for (const auto& e : fs::directory_iterator(site / "metrics")) {
    std::string text = file_bytes(e.path());
    if (text.find("on host-a</h2>") != std::string::npos && text.find("on lab-a</h2>") == std::string::npos) {
      host_only = e.path().filename().string();
      break;
    }
  }
  ASSERT_FALSE(host_only.empty());
  const ino_t host_page = inode(site / "metrics" / host_only);
  const ino_t old_report = inode(site / run_report_path(runs_.lab_a[0]));
  const ino_t lat_page = inode(site / "metrics/latency_p50.html");

  Result<std::int64_t> id = insert_night("case-study/day1", "lab-a", "2026-11-14");
  ASSERT_TRUE(id) << id.error().message;

  Result<PublishSummary> next = publish_site(*store_, site.string(), {});
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->reports_written, 1u);
  EXPECT_EQ(next->reports_unchanged, first->reports_written);
  EXPECT_GT(next->pages_unchanged, 0u);
  EXPECT_EQ(next->pages_written + next->pages_unchanged, first->pages_written);
  EXPECT_TRUE(fs::is_regular_file(site / run_report_path(*id)));
  EXPECT_EQ(inode(site / "metrics" / host_only), host_page);
  EXPECT_EQ(inode(site / run_report_path(runs_.lab_a[0])), old_report);
  EXPECT_NE(inode(site / "metrics/latency_p50.html"), lat_page);
  EXPECT_NE(file_bytes(site / "index.html").find(fmt::format("run {}</a>", *id)), std::string::npos);
}

// Every file of a folder, by its path relative to the folder.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = file_bytes(e.path());
  return out;
}

// What an incremental publish keeps from the last one (reports, unchanged
// pages) must not make the site differ from one published from scratch.
TEST_F(Publish, IncrementalAfterOneMoreNightIsByteForByteTheColdSite) {
  const fs::path site = dir_ / "site";
  ASSERT_TRUE(publish_site(*store_, site.string(), {}));
  for (const char* rig : {"lab-a", "lab-b", "host-a"}) {
    Result<std::int64_t> id =
        insert_night(std::string(rig) == "host-a" ? "host/localhost-2026-11-29" : "case-study/day1", rig, "2026-11-14");
    ASSERT_TRUE(id) << id.error().message;
  }
  Result<PublishSummary> next = publish_site(*store_, site.string(), {});
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->reports_written, 3u);
  EXPECT_TRUE(next->from_series_cache);  // only the three new runs' metrics were read
  EXPECT_TRUE(next->notes.empty());

  const fs::path cold = dir_ / "cold";
  Result<PublishSummary> scratch = publish_site(*store_, cold.string(), {});
  ASSERT_TRUE(scratch) << scratch.error().message;
  EXPECT_EQ(scratch->reports_written, next->reports_written + next->reports_unchanged);

  const std::map<std::string, std::string> a = files_of(site), b = files_of(cold);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [rel, text] : b) {
    auto it = a.find(rel);
    ASSERT_NE(it, a.end()) << rel << " is missing from the incremental site";
    EXPECT_TRUE(it->second == text) << rel << " differs from the cold publish";
  }
}

// The text of one series' section on a metric page.
std::string series_section(const std::string& page, const std::string& title) {
  const std::size_t at = page.find("<h2>" + title + "</h2>");
  if (at == std::string::npos) return "";
  return page.substr(at, page.find("</section>", at) - at);
}

// The evidence rule of history --changes and compare (evidence_points): a
// replayed night counts whatever its origin, a replay of a night already in
// the series counts once.
TEST_F(Publish, FitsReplayedNightsOnceWithMeasuredEvidenceAsHistoryAndCompareDo) {
  // Night 13 of lab-a again (the same start time): a repeat. Night 14 only
  // as a replay: a night of its own.
  Result<std::int64_t> repeat = insert_night("case-study/day1", "lab-a", "2026-11-13", "replay");
  ASSERT_TRUE(repeat) << repeat.error().message;
  Result<std::int64_t> fresh = insert_night("case-study/day1", "lab-a", "2026-11-14", "replay");
  ASSERT_TRUE(fresh) << fresh.error().message;

  const fs::path site = dir_ / "site";
  ASSERT_TRUE(publish_site(*store_, site.string(), {}));
  const std::string lab_a = series_section(file_bytes(site / "metrics/latency_p50.html"), "whisper-medium-ryzen-ai on lab-a");
  ASSERT_FALSE(lab_a.empty());
  EXPECT_NE(lab_a.find("<p>15 runs, newest"), std::string::npos) << lab_a;
  // 14 nights fitted (13 live, the replayed 14th), the band from the 13 before the newest.
  EXPECT_NE(lab_a.find("noise band of the 13 measured runs before the newest"), std::string::npos) << lab_a;
  EXPECT_NE(lab_a.find(fmt::format("<tr><td><a href=\"../runs/{0}.html\">run {0}</a></td><td>2026-11-11</td>",
                                   runs_.lab_a[10])),
            std::string::npos)
      << lab_a;
}

// A series cache that does not decode or does not match the store is
// treated as absent: the site is the cold one, and a note says why.
TEST_F(Publish, ACorruptOrStaleSeriesCacheGivesTheColdSiteAndSaysWhy) {
  const fs::path site = dir_ / "site";
  ASSERT_TRUE(publish_site(*store_, site.string(), {}));
  const fs::path cache = site / kSeriesCacheName;
  const std::string good = file_bytes(cache);
  ASSERT_GT(good.size(), 1000u);
  // Another store's cache: published from a copy holding one night less.
  const fs::path other_dir = dir_ / "other";
  {
    Result<Store> other = Store::open((dir_ / "other.sqlite").string());
    ASSERT_TRUE(other) << other.error().message;
    Result<RunRecord> night = test_support::replayed_night("case-study/day6", "lab-a", "2026-11-01");
    ASSERT_TRUE(night) << night.error().message;
    ASSERT_TRUE(other->insert_run(*night));
    ASSERT_TRUE(publish_site(*other, other_dir.string(), {}));
  }
  const std::string foreign = file_bytes(other_dir / kSeriesCacheName);
  ASSERT_TRUE(publish_site(*store_, (dir_ / "lab-b-only").string(), {"", "lab-b", ""}));
  const std::string filtered = file_bytes(dir_ / "lab-b-only" / kSeriesCacheName);
  // Whole caches whose values are not the store's: a value left out, a run's start changed.
  Result<SeriesCache> decoded = decode_series_cache(good, "good");
  ASSERT_TRUE(decoded) << decoded.error().message;
  const std::int64_t host = runs_.host_a[0];
  int host_metrics = 0;
  Result<std::vector<RunSummary>> listed = store_->list_runs(100);
  ASSERT_TRUE(listed);
  for (const RunSummary& r : *listed)
    if (r.id == host) host_metrics = r.metric_count;
  MetricValues fewer = decoded->values;
  {
    MetricColumn& col = fewer.metrics.at("latency_p50");
    MetricColumn kept;
    for (std::size_t i = 0; i < col.size(); ++i) {
      if (col.run[i] == host) continue;
      kept.run.push_back(col.run[i]);
      kept.value.push_back(col.value[i]);
      kept.label.push_back(col.label[i]);
    }
    ASSERT_EQ(kept.size() + 1, col.size());
    col = std::move(kept);
  }
  const std::string missing = encode_series_cache(decoded->key, decoded->runs, fewer);
  std::vector<CachedRun> moved = decoded->runs;
  for (CachedRun& r : moved)
    if (r.id == host) r.started_at = "2026-11-12T02:00:00.000Z";
  const std::string other_start = encode_series_cache(decoded->key, moved, decoded->values);
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x20;
  const std::string why_tail = "; every metric value read from the store";
  const struct {
    const char* what;
    std::string bytes;
    std::string note;
  } cases[] = {
      {"truncated", good.substr(0, good.size() - 70), cache.string() + ": not a series cache: truncated" + why_tail},
      {"a byte changed", flipped, cache.string() + ": not a series cache: its sha256 does not match its contents" + why_tail},
      {"not a cache", "<html>hello</html>\n",
       cache.string() + ": not a series cache: no \"harness publish series cache\" header" + why_tail},
      {"empty", "", cache.string() + ": not a series cache: no \"harness publish series cache\" header" + why_tail},
      {"a value left out", missing,
       fmt::format("{}: it holds {} of the {} metrics of run {}", cache.string(), host_metrics - 1, host_metrics, host) +
           why_tail},
      {"a run's start changed", other_start, fmt::format("{}: its run {} is not the store's", cache.string(), host) + why_tail},
      {"of other filters", filtered,
       cache.string() + ": written for another store schema or other --scenario/--rig filters" + why_tail},
      {"another store's", foreign,
       cache.string() + ": the store's runs up to run 1 are not those it was written from" + why_tail},
  };
  int night = 14;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    std::ofstream(cache, std::ios::binary | std::ios::trunc) << c.bytes;
    Result<std::int64_t> more = insert_night("case-study/day1", "lab-a", fmt::format("2026-11-{}", night++));
    ASSERT_TRUE(more) << more.error().message;
    Result<PublishSummary> next = publish_site(*store_, site.string(), {});
    ASSERT_TRUE(next) << next.error().message;
    EXPECT_FALSE(next->from_series_cache);
    EXPECT_EQ(next->notes, std::vector<std::string>{c.note});
    const fs::path cold = dir_ / fmt::format("cold-{}", night);
    ASSERT_TRUE(publish_site(*store_, cold.string(), {}));
    EXPECT_TRUE(files_of(site) == files_of(cold)) << "the site differs from a cold publish";
  }
  // Stale: a run the cache holds was marked aborted since it was written.
  Result<std::int64_t> newest = insert_night("case-study/day1", "lab-a", "2026-11-20");
  ASSERT_TRUE(newest) << newest.error().message;
  ASSERT_TRUE(store_->mark_aborted(runs_.lab_b[3], "stopped by SIGTERM"));
  Result<PublishSummary> next = publish_site(*store_, site.string(), {});
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_FALSE(next->from_series_cache);
  EXPECT_EQ(next->notes, std::vector<std::string>{fmt::format(
                             "{}: the store's runs up to run {} are not those it was written from{}", cache.string(),
                             *newest - 1, why_tail)});
  const fs::path cold = dir_ / "cold-stale";
  ASSERT_TRUE(publish_site(*store_, cold.string(), {}));
  EXPECT_TRUE(files_of(site) == files_of(cold)) << "the site differs from a cold publish";
  // The cache written then is whole again: the next night reads only itself.
  Result<std::int64_t> last = insert_night("case-study/day1", "lab-a", "2026-11-21");
  ASSERT_TRUE(last) << last.error().message;
  next = publish_site(*store_, site.string(), {});
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_TRUE(next->from_series_cache);
  EXPECT_TRUE(next->notes.empty());
}

TEST_F(Publish, FiltersLeaveOutOtherRigsAndRemoveTheirPagesOnRepublish) {
  const fs::path site = dir_ / "site";
  ASSERT_TRUE(publish_site(*store_, site.string(), {}));
  Result<PublishSummary> s = publish_site(*store_, site.string(), {"", "lab-b", ""});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->runs, 13u);
  EXPECT_EQ(s->series, 1u);
  // Day 5 fails one check every night: the pair is regressed by it, with no level shift.
  EXPECT_EQ(s->regressed_series, 1u);
  EXPECT_GT(s->removed, 14u);  // lab-a's and host-a's run reports and the host's metric pages
  const std::string index = file_bytes(site / "index.html");
  EXPECT_EQ(index.find("lab-a"), std::string::npos);
  EXPECT_NE(index.find("<p id=\"no-regressions\">"), std::string::npos);
  EXPECT_NE(index.find("<li>check <code>ddr.expect.dq_active_ratio_min</code> failed: expected &gt;= 0.65, measured "
                       "0.6153</li>"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(site / run_report_path(runs_.lab_a[0])));
  EXPECT_TRUE(fs::exists(site / run_report_path(runs_.lab_b[0])));

  Result<PublishSummary> recent = publish_site(*store_, (dir_ / "recent").string(), {"2026-11-12", "", ""});
  ASSERT_TRUE(recent) << recent.error().message;
  EXPECT_EQ(recent->runs, 5u);  // nights 12 and 13 of lab-a and lab-b, night 13 of host-a
}

TEST_F(Publish, RefusesAFolderItDidNotWriteAndABadManifest) {
  const fs::path site = dir_ / "mine";
  fs::create_directories(site);
  std::ofstream(site / "notes.txt") << "keep me\n";
  Result<PublishSummary> s = publish_site(*store_, site.string(), {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ExitCode::bad_input);
  EXPECT_EQ(s.error().message, site.string() + ": not empty and holds no published site (.publish-manifest.json); "
                                               "publish into a new or empty folder");
  EXPECT_EQ(file_bytes(site / "notes.txt"), "keep me\n");

  std::ofstream(site / ".publish-manifest.json") << "{\"kind\": \"something else\"}\n";
  s = publish_site(*store_, site.string(), {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, (site / ".publish-manifest.json").string() +
                                   ": not a publish manifest: no \"kind\": \"harness publish manifest\"");

  // A page entry without its keys (found by publish_manifest_fuzz: the
  // lookup of a missing key read past the entry).
  std::ofstream(site / ".publish-manifest.json", std::ios::trunc)
      << "{\"kind\": \"harness publish manifest\", \"version\": 1, \"pages\": {\"index.html\": {\"sha212\": 1}}, "
         "\"reports\": {}}\n";
  s = publish_site(*store_, site.string(), {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, (site / ".publish-manifest.json").string() +
                                   ": not a publish manifest: page 'index.html' needs \"sha256\" and \"bytes\"");

  // A kind or version of another type (found by publish_manifest_fuzz:
  // reading a number as the kind threw past publish).
  for (const char* text : {"{\"kind\": 1, \"pages\": {}, \"reports\": {}}",
                           "{\"kind\": \"harness publish manifest\", \"version\": \"1\"}",
                           "[\"kind\", \"harness publish manifest\"]"}) {
    std::ofstream(site / ".publish-manifest.json", std::ios::trunc) << text;
    s = publish_site(*store_, site.string(), {});
    ASSERT_FALSE(s) << text;
    EXPECT_EQ(s.error().code, ExitCode::bad_input) << text;
    EXPECT_THAT(s.error().message, testing::StartsWith((site / ".publish-manifest.json").string() +
                                                       ": not a publish manifest: "))
        << text;
  }

  std::ofstream(dir_ / "file") << "x";
  s = publish_site(*store_, (dir_ / "file").string(), {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, (dir_ / "file").string() + ": not a folder");
}

// Publish stays inside DIR (issue 29): a subfolder an earlier publish made,
// replaced by a symlink to another folder, is refused before anything is
// written or removed there, whatever the manifest names.
TEST_F(Publish, ASymlinkedSubfolderIsRefusedAndNothingOutsideIsWrittenOrRemoved) {
  const fs::path site = dir_ / "site", elsewhere = dir_ / "elsewhere";
  ASSERT_TRUE(publish_site(*store_, site.string(), {}));
  fs::create_directories(elsewhere);
  std::ofstream(elsewhere / "victim.html") << "keep me\n";
  for (const char* sub : {"runs", "metrics"}) {
    fs::rename(site / sub, dir_ / (std::string(sub) + ".real"));
    fs::create_symlink(elsewhere, site / sub);
    // A tampered manifest names the victim as a page an earlier publish wrote.
    std::string manifest = file_bytes(site / kSiteManifestName);
    const std::string pages = "\"pages\": {";
    manifest.replace(manifest.find(pages), pages.size(),
                     pages + "\"" + sub + "/victim.html\": {\"sha256\": \"00\", \"bytes\": 8},");
    std::ofstream(site / kSiteManifestName, std::ios::trunc) << manifest;
    Result<PublishSummary> s = publish_site(*store_, site.string(), {"", "lab-b", ""});
    ASSERT_FALSE(s) << sub;
    EXPECT_EQ(s.error().code, ExitCode::bad_input);
    EXPECT_EQ(s.error().message, (site / sub).string() + ": is a symbolic link, not a folder (publish writes only "
                                                         "inside its folder and follows no symlink there)");
    EXPECT_EQ(file_bytes(elsewhere / "victim.html"), "keep me\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(elsewhere), fs::directory_iterator()), 1);
    fs::remove(site / sub);
    fs::rename(dir_ / (std::string(sub) + ".real"), site / sub);
  }
}

// Only regular files the manifest names, inside the site's folders, are
// removed: not a symlink standing at such a name, nor what it points at,
// nor a folder, nor a name outside the site's own ("../x", "a/b/c").
TEST_F(Publish, RemovesOnlyRegularFilesItWroteInsideTheFolder) {
  const fs::path site = dir_ / "site", elsewhere = dir_ / "elsewhere";
  ASSERT_TRUE(publish_site(*store_, site.string(), {}));
  fs::create_directories(elsewhere);
  std::ofstream(elsewhere / "victim.html") << "keep me\n";
  std::ofstream(dir_ / "beside.html") << "keep me\n";
  fs::create_directories(site / "runs" / "sub");
  fs::create_symlink(elsewhere / "victim.html", site / "runs" / "link.html");
  std::string manifest = file_bytes(site / kSiteManifestName);
  const std::string reports = "\"reports\": {";
  manifest.replace(manifest.find(reports), reports.size(),
                   reports + "\"runs/link.html\": \"x\", \"runs/sub\": \"x\", \"../beside.html\": \"x\", "
                             "\"runs/../../beside.html\": \"x\", \"metrics/../../beside.html\": \"x\", "
                             "\"runs/sub/x.html\": \"x\", ");
  std::ofstream(site / kSiteManifestName, std::ios::trunc) << manifest;
  Result<PublishSummary> s = publish_site(*store_, site.string(), {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->removed, 0u);
  EXPECT_TRUE(fs::is_symlink(site / "runs" / "link.html"));
  EXPECT_TRUE(fs::is_directory(site / "runs" / "sub"));
  EXPECT_EQ(file_bytes(elsewhere / "victim.html"), "keep me\n");
  EXPECT_EQ(file_bytes(dir_ / "beside.html"), "keep me\n");
}

TEST_F(Publish, RigAndScenarioNamesAreTextNotMarkup) {
  Result<RunRecord> night = test_support::replayed_night("case-study/day6", "<script>alert(1)</script>", "2026-11-14");
  ASSERT_TRUE(night) << night.error().message;
  night->scenario_name = "a&b \"quoted\"";
  ASSERT_TRUE(store_->insert_run(*night));
  const fs::path site = dir_ / "site";
  ASSERT_TRUE(publish_site(*store_, site.string(), {}));
  for (const char* page : {"index.html", "runs.html", "tables.html", "metrics/latency_p50.html"}) {
    const std::string text = file_bytes(site / page);
    EXPECT_EQ(text.find("<script>"), std::string::npos) << page;
    EXPECT_NE(text.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << page;
    EXPECT_NE(text.find("a&amp;b &quot;quoted&quot;"), std::string::npos) << page;
  }
}

TEST(PublishSince, NeedsACalendarDate) {
  EXPECT_TRUE(check_since_date("2026-11-29"));
  for (const char* bad : {"2026-11-29T00:00", "29.11.2026", "2026-13-01", "2026-1-01", ""}) {
    Status s = check_since_date(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().message, fmt::format("--since '{}': not a date (YYYY-MM-DD)", bad));
  }
}

TEST(PublishPages, MetricPagePathsAreSafeAndDistinct) {
  EXPECT_EQ(metric_page_path("latency_p50"), "metrics/latency_p50.html");
  EXPECT_EQ(metric_page_path("ddr.transactions.64B"), "metrics/ddr.transactions.64B.html");
  std::string odd = metric_page_path("../x/y");
  EXPECT_EQ(odd.find('/', 8), std::string::npos) << odd;
  EXPECT_EQ(odd.rfind("metrics/_._x_y-", 0), 0u) << odd;
  EXPECT_NE(metric_page_path("a/b"), metric_page_path("a_b"));
}

// Runs of one day stand apart by their time: the chart's axis is that day's
// hours, not a week on which they would share one x.
TEST(PublishCharts, RunsOfOneDayAreSpreadByTheirTime) {
  const fs::path dir = fs::temp_directory_path() / ("harness-publish-one-day-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  Result<Store> store = Store::open((dir / "runs.sqlite").string());
  ASSERT_TRUE(store) << store.error().message;
  for (const char* at : {"T01:00:00.000Z", "T09:00:00.000Z", "T17:30:00.000Z"}) {
    Result<RunRecord> run = test_support::replayed_night("case-study/day6", "bench-1", "2026-11-05");
    ASSERT_TRUE(run) << run.error().message;
    run->started_at = std::string("2026-11-05") + at;
    ASSERT_TRUE(store->insert_run(*run));
  }
  ASSERT_TRUE(publish_site(*store, (dir / "site").string(), {}));
  const std::string page = file_bytes(dir / "site" / metric_page_path("latency_p50"));
  EXPECT_NE(page.find("time (UTC) on 2026-11-05"), std::string::npos);
  EXPECT_TRUE(std::regex_search(page, std::regex(">[0-2][0-9]:[0-5][0-9]</text>")));  // ticks are times of day
  std::set<std::string> xs;
  for (std::size_t at = page.find("<circle cx=\""); at != std::string::npos; at = page.find("<circle cx=\"", at + 1))
    xs.insert(page.substr(at + 12, page.find('"', at + 12) - at - 12));
  EXPECT_EQ(xs.size(), 3u) << page;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace harness
