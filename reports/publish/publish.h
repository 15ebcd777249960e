// `harness publish DIR`: writes the static site (site_pages.h) and one HTML
// report per run (reports/html.h) into DIR, incrementally. DIR keeps a
// manifest (.publish-manifest.json) of what was written: for a page its
// sha256 and size, for a run report the run's state it was rendered from.
// When the store's runs and baselines and the filters are those of the last
// publish (one digest, see input_digest in publish.cc) and every file is in
// place, nothing more is read. Otherwise every page is rendered again:
// a page whose text is unchanged is not written again, a run report whose run
// is unchanged is not rendered again, and a file an earlier publish wrote that
// is no longer part of the site is removed (nothing else in DIR is touched).
// Publish stays inside DIR: it holds DIR and its subfolders open as folders
// (site_folder.h), refuses a subfolder that is a symlink (exit 2), and
// removes only regular files named by its manifest, inside them.
// Beside the manifest, the series cache (series_cache.h) keeps the metric
// values read, so that the next publish reads only the newer runs' values;
// a cache that does not match the store is treated as absent, with a note.
// Every write is atomic (write_file_atomically, flushed once for the whole
// batch with sync_filesystem); the manifest is written last, the index after
// the pages it links.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/store/store.h"
#include "reports/publish/site_data.h"

namespace harness {

inline constexpr const char* kSiteManifestName = ".publish-manifest.json";

struct PublishSummary {
  std::size_t pages_written = 0, pages_unchanged = 0;
  std::size_t reports_written = 0, reports_unchanged = 0;
  std::size_t removed = 0;
  std::size_t metrics = 0, runs = 0, regressed_series = 0, series = 0;
  bool from_series_cache = false;  // only the metrics of runs newer than the cache's were read
  std::vector<std::string> notes;  // e.g. why the folder's series cache was not used
};

// A folder that exists, is not empty and holds no manifest is refused
// (exit 2), so publishing never overwrites files it did not write.
Result<PublishSummary> publish_site(const Store& store, const std::string& dir, const PublishFilters& filters);

// "published 214 pages to site/: 3 written, 211 unchanged; run reports: 20 written, 7280 unchanged; 0 removed"
std::string publish_summary_text(const PublishSummary& s, const std::string& dir);

}  // namespace harness
