#include "reports/publish/publish.h"

#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/digest.h"
#include "harness/base/files.h"
#include "harness/base/input_limits.h"
#include "reports/html.h"
#include "reports/publish/series_cache.h"
#include "reports/publish/site_folder.h"
#include "reports/publish/site_pages.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifestKind = "harness publish manifest";
constexpr int kManifestVersion = 1;

struct Manifest {
  std::map<std::string, std::pair<std::string, std::uint64_t>> pages;  // path -> (sha256, bytes)
  std::map<std::string, std::string> reports;                          // path -> run state
  std::string inputs;  // input_digest of the publish that wrote it
  std::size_t series = 0, regressed_series = 0;
};

// A run's report changes only when the run does: its status (a running run
// finishes, a finished one is marked aborted), its end and what it holds.
std::string run_state(const RunSummary& r) {
  return fmt::format("{}|{}|{}|{}|{}", run_status_name(r.status), r.ended_at, r.metric_count, r.verdicts_failed,
                     r.reason);
}

Result<std::optional<Manifest>> read_manifest(const fs::path& dir) {
  const fs::path path = dir / kSiteManifestName;
  std::error_code ec;
  fs::file_status st = fs::symlink_status(dir, ec);
  if (ec || st.type() == fs::file_type::not_found) return std::optional<Manifest>{};
  if (st.type() != fs::file_type::directory) return Error::input(fmt::format("{}: not a folder", dir.string()));
  if (!fs::exists(fs::symlink_status(path, ec))) {
    if (fs::directory_iterator(dir, ec) != fs::directory_iterator()) {
      return Error::input(fmt::format("{}: not empty and holds no published site ({}); publish into a new or empty "
                                      "folder",
                                      dir.string(), kSiteManifestName));
    }
    return std::optional<Manifest>{};
  }
  Result<nlohmann::json> j = read_bounded_json_file(path.string(), {.bytes = kMaxSiteManifestBytes}, "publish manifest");
  if (!j) return j.error();
  auto bad = [&](const std::string& why) {
    return Error::input(fmt::format("{}: not a publish manifest: {}", path.string(), why));
  };
  // Each field's type is checked before it is read: value("kind", "") on a
  // "kind" that is a number throws instead of answering.
  const auto field = [&](const char* name) { return j->is_object() ? j->find(name) : j->end(); };
  const auto kind = field("kind"), version = field("version");
  if (kind == j->end() || !kind->is_string() || kind->get<std::string>() != kManifestKind)
    return bad("no \"kind\": \"" + std::string(kManifestKind) + "\"");
  if (version == j->end() || !version->is_number_integer() || *version != kManifestVersion)
    return bad(fmt::format("version is not {}", kManifestVersion));
  Manifest m;
  const nlohmann::json& pages = (*j)["pages"];
  const nlohmann::json& reports = (*j)["reports"];
  if (!pages.is_object() || !reports.is_object()) return bad("\"pages\" and \"reports\" must be objects");
  for (const auto& [p, v] : pages.items()) {
    // Looked up with find: a const operator[] on a missing key is undefined.
    const auto sha = v.is_object() ? v.find("sha256") : v.end();
    const auto bytes = v.is_object() ? v.find("bytes") : v.end();
    if (sha == v.end() || !sha->is_string() || bytes == v.end() || !bytes->is_number_unsigned())
      return bad(fmt::format("page '{}' needs \"sha256\" and \"bytes\"", p));
    m.pages[p] = {sha->get<std::string>(), json_integer<std::uint64_t>(*bytes)};
  }
  for (const auto& [p, v] : reports.items()) {
    if (!v.is_string()) return bad(fmt::format("report '{}' needs a run state", p));
    m.reports[p] = v.get<std::string>();
  }
  if ((*j)["inputs"].is_string()) m.inputs = (*j)["inputs"].get<std::string>();
  if ((*j)["series"].is_number_unsigned()) m.series = (*j)["series"].get<std::size_t>();
  if ((*j)["regressed_series"].is_number_unsigned()) m.regressed_series = (*j)["regressed_series"].get<std::size_t>();
  return std::optional<Manifest>(std::move(m));
}

// Only names this module makes: "index.html", "metrics/x.html", "runs/3.html".
bool own_name(const std::string& p) {
  if (p.empty() || p.find("..") != std::string::npos || p[0] == '/') return false;
  return p.find('/') == std::string::npos || p.rfind("metrics/", 0) == 0 || p.rfind("runs/", 0) == 0;
}


// Everything the site is made of, in one digest: the harness that renders
// it, the filters, every run's state (a stored run's metrics and verdicts do
// not change once its final status is written; a change of status is in the
// state) and every baseline. The same digest as the last publish, with every
// file still in place, means the site is up to date: nothing is read further.
std::string input_digest(const StoreListing& listing, const PublishFilters& f) {
  std::string text = fmt::format("harness {}\nmanifest {}\nsince {}\nrig {}\nscenario {}\n", HARNESS_VERSION,
                                 kManifestVersion, f.since, f.rig, f.scenario);
  for (const RunSummary& r : listing.runs) {
    text += fmt::format("run {}|{}|{}|{}|{}|{}\n", r.id, r.scenario_name, r.rig, r.origin, r.started_at, run_state(r));
  }
  for (const Baseline& b : listing.baselines) {
    text += fmt::format("baseline {}|{}|{}|{}|{}|", b.name, b.scenario_name, b.rig, b.run_id, b.set_at);
    for (std::int64_t id : b.runs) text += fmt::format("{},", id);
    text += "\n";
  }
  return sha256_hex(text);
}

// The folder's series cache, if it has one: absent, unreadable (a symlink,
// too large) or unusable, the values are read from the store.
std::optional<std::string> read_series_cache(const fs::path& path, std::vector<std::string>& notes) {
  std::error_code ec;
  if (fs::symlink_status(path, ec).type() == fs::file_type::not_found) return std::nullopt;
  Result<std::string> bytes = read_regular_file(path.string(), kMaxSeriesCacheBytes, "series cache");
  if (!bytes) {
    notes.push_back(bytes.error().message + "; every metric value read from the store");
    return std::nullopt;
  }
  return std::move(*bytes);
}

bool every_file_in_place(const SiteFolder& site, const Manifest& m) {
  for (const auto& [rel, v] : m.pages)
    if (site.regular_file_size(rel) != v.second) return false;
  for (const auto& [rel, state] : m.reports)
    if (!site.regular_file_size(rel)) return false;
  return true;
}

// The site's folders, made and opened when the first file is written (a
// store that fails to read leaves no folder behind, which the next publish
// would refuse as someone else's).
class SiteWriter {
 public:
  explicit SiteWriter(std::string dir) : dir_(std::move(dir)) {}
  Status write(const std::string& rel, std::string_view text, Flush flush) {
    if (!folder_) {
      Result<SiteFolder> opened = SiteFolder::open(dir_, /*create=*/true);
      if (!opened) return opened.error();
      folder_.emplace(std::move(*opened));
    }
    return folder_->write(rel, text, flush);
  }

 private:
  std::string dir_;
  std::optional<SiteFolder> folder_;
};

// Renders and writes each run report load_site hands over: those of a new
// run, or of one whose state changed since the manifest, or whose file is
// gone.
class ReportWriter final : public RunReports {
 public:
  ReportWriter(SiteWriter& site, const std::optional<SiteFolder>& existing, const std::optional<Manifest>& old,
               PublishSummary& sum)
      : site_(site), existing_(existing), old_(old), sum_(sum) {}
  bool wanted(const RunSummary& r) override {
    if (!old_) return true;
    const std::string rel = run_report_path(r.id);
    auto it = old_->reports.find(rel);
    return it == old_->reports.end() || it->second != run_state(r) || !existing_->regular_file_size(rel);
  }
  Status report(RunRecord run) override {
    ReportInput input;
    const std::string rel = run_report_path(run.id);
    input.run = std::move(run);
    HARNESS_TRY(site_.write(rel, render_html(input), Flush::deferred));
    ++sum_.reports_written;
    return ok();
  }

 private:
  SiteWriter& site_;
  const std::optional<SiteFolder>& existing_;
  const std::optional<Manifest>& old_;
  PublishSummary& sum_;
};

}  // namespace

Result<PublishSummary> publish_site(const Store& store, const std::string& dir_text, const PublishFilters& filters) {
  const fs::path dir(dir_text);
  Result<std::optional<Manifest>> old = read_manifest(dir);
  if (!old) return old.error();
  // The folder as an earlier publish left it (it has a manifest): a
  // subfolder replaced by a symlink is refused here, before the store is read.
  std::optional<SiteFolder> existing;
  if (*old) {
    Result<SiteFolder> opened = SiteFolder::open(dir_text, /*create=*/false);
    if (!opened) return opened.error();
    existing.emplace(std::move(*opened));
  }
  Result<StoreListing> listing = read_store_listing(store);
  if (!listing) return listing.error();
  const std::string inputs = input_digest(*listing, filters);
  if (*old && (*old)->inputs == inputs && every_file_in_place(*existing, **old)) {
    PublishSummary same;
    same.pages_unchanged = (*old)->pages.size();
    same.reports_unchanged = (*old)->reports.size();
    same.runs = (*old)->reports.size();
    for (const auto& [rel, v] : (*old)->pages) same.metrics += rel.rfind("metrics/", 0) == 0 ? 1 : 0;
    same.series = (*old)->series;
    same.regressed_series = (*old)->regressed_series;
    return same;
  }
  PublishSummary sum;
  // Run reports first (load_site hands them over as it loads them): the
  // pages link them.
  SiteWriter site_writer(dir_text);
  ReportWriter reports(site_writer, existing, *old, sum);
  // A cache is read only from a folder this module wrote (it has a manifest).
  const fs::path cache_path = dir / kSeriesCacheName;
  std::optional<std::string> cache = *old ? read_series_cache(cache_path, sum.notes) : std::nullopt;
  Result<LoadedSite> loaded = load_site(store, filters, std::move(*listing), cache, cache_path.string(), &reports);
  if (!loaded) return loaded.error();
  cache.reset();
  if (loaded->cache_note) sum.notes.push_back(*loaded->cache_note);
  sum.from_series_cache = loaded->from_cache;
  const SiteData* site = &loaded->site;

  Manifest now;
  sum.metrics = site->metrics.size();
  sum.runs = site->runs.size();
  sum.series = site->last_night.size();
  for (const auto& [key, n] : site->last_night) sum.regressed_series += n.regressed() ? 1 : 0;
  for (const RunSummary& r : site->runs) now.reports[run_report_path(r.id)] = run_state(r);
  sum.reports_unchanged = site->runs.size() - sum.reports_written;

  std::map<std::string, std::string> pages = render_site_pages(*site);
  auto put = [&](const std::string& rel, const std::string& text) -> Status {
    const std::string digest = sha256_hex(text);
    now.pages[rel] = {digest, text.size()};
    if (*old) {
      auto it = (*old)->pages.find(rel);
      if (it != (*old)->pages.end() && it->second.first == digest && it->second.second == text.size() &&
          existing->regular_file_size(rel) == text.size()) {
        ++sum.pages_unchanged;
        return ok();
      }
    }
    HARNESS_TRY(site_writer.write(rel, text, Flush::deferred));
    ++sum.pages_written;
    return ok();
  };
  for (const auto& [rel, text] : pages)
    if (rel != "index.html") HARNESS_TRY(put(rel, text));
  HARNESS_TRY(put("index.html", pages.at("index.html")));

  // What an earlier publish wrote and this one did not: a metric or run that
  // the filters now leave out. Nothing outside the manifest is touched.
  if (*old) {
    std::set<std::string> gone;
    for (const auto& [rel, v] : (*old)->pages)
      if (!now.pages.count(rel)) gone.insert(rel);
    for (const auto& [rel, v] : (*old)->reports)
      if (!now.reports.count(rel)) gone.insert(rel);
    for (const std::string& rel : gone) {
      if (own_name(rel) && existing->remove_regular_file(rel)) ++sum.removed;
    }
  }

  // The values read, for the next publish (before the flush: the manifest
  // that makes the folder ours is written after it).
  if (loaded->series_cache.size() <= kMaxSeriesCacheBytes) {
    HARNESS_TRY(site_writer.write(kSeriesCacheName, loaded->series_cache, Flush::deferred));
  } else {
    if (existing) existing->remove_regular_file(kSeriesCacheName);
    sum.notes.push_back(fmt::format("{}: not written: {} bytes, over the limit of {}; the next publish reads every "
                                    "metric value from the store",
                                    cache_path.string(), loaded->series_cache.size(), kMaxSeriesCacheBytes));
  }

  // One flush for the whole batch, before the manifest says it is there.
  HARNESS_TRY(sync_filesystem(dir.string()));
  nlohmann::json j = {{"kind", kManifestKind}, {"version", kManifestVersion}, {"store", store.path()},
                      {"inputs", inputs}, {"series", sum.series}, {"regressed_series", sum.regressed_series},
                      {"pages", nlohmann::json::object()}, {"reports", nlohmann::json::object()}};
  for (const auto& [rel, v] : now.pages) j["pages"][rel] = {{"sha256", v.first}, {"bytes", v.second}};
  for (const auto& [rel, state] : now.reports) j["reports"][rel] = state;
  HARNESS_TRY(site_writer.write(kSiteManifestName, j.dump(1) + "\n", Flush::each));
  return sum;
}

std::string publish_summary_text(const PublishSummary& s, const std::string& dir) {
  return fmt::format(
      "published {} to {}: {} metric page{}, {} of {} scenario and rig pair{} regressed\n"
      "pages: {} written, {} unchanged; run reports: {} written, {} unchanged; {} removed\n"
      "open {}/index.html\n",
      s.runs == 1 ? "1 run" : fmt::format("{} runs", s.runs), dir, s.metrics, s.metrics == 1 ? "" : "s",
      s.regressed_series, s.series, s.series == 1 ? "" : "s", s.pages_written, s.pages_unchanged, s.reports_written,
      s.reports_unchanged, s.removed, dir);
}

}  // namespace harness
