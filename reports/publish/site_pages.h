// The pages of the published site, rendered from SiteData: plain HTML with
// inline CSS and SVG and relative links only, so the folder opens from the
// file system (file://) in any browser, without a server or a script.
//   index.html            last night per scenario and rig, regressions first
//   metrics/<name>.html   one metric's trend per rig: change points, noise band, baselines
//   tables.html           seed 001's regression tables (bandwidth, compute, latency) across nights
//   runs.html             every run, linking its report runs/<id>.html
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "reports/publish/site_data.h"

namespace harness {

// Nights per (scenario, rig) in the regression tables.
inline constexpr std::size_t kPublishTableNights = 14;

// Where a metric's page is, relative to the site's folder: "metrics/<name>.html"
// with every character outside [A-Za-z0-9._-] replaced, and a digest of the
// name appended when anything was replaced, so two names never share a page.
std::string metric_page_path(const std::string& metric);
// "runs/<id>.html"
std::string run_report_path(std::int64_t run_id);

// A metric's trend on one series as an <svg>: the values of every completed
// run (replays hollow), the level of each segment between change points, each
// change point, the noise band and the baselines. `compact` for the index.
std::string trend_chart(const SiteData& site, const MetricSeries& series, const std::string& metric,
                        const std::string& unit, bool compact);

// Every page but the run reports, by path relative to the site's folder.
std::map<std::string, std::string> render_site_pages(const SiteData& site);

}  // namespace harness
