#include "reports/publish/site_pages.h"
#include "reports/compare_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "reports/regression_tables.h"
#include "reports/report_model.h"
#include "reports/svg.h"

namespace harness {
namespace {

using svg::escape_xml;

constexpr const char* kRunColour = "#1f6fb2";
constexpr const char* kLevelColour = "#e07b00";
constexpr const char* kBandColour = "#9ecae1";
constexpr const char* kBaselineColour = "#2e7d32";
constexpr const char* kChangeColour = "#c62828";

constexpr const char* kCss = R"(
body{font-family:Helvetica,Arial,sans-serif;color:#222;margin:24px auto;max-width:1180px;padding:0 16px;line-height:1.4}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:28px}
h3{font-size:15px;margin:14px 0 6px}
nav{font-size:13px;margin-bottom:12px} nav a{margin-right:14px}
.meta,.method{color:#555;font-size:13px}
table{border-collapse:collapse;font-size:13px;margin:6px 0 12px}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.badge{display:inline-block;padding:1px 9px;border-radius:9px;font-size:12px;font-weight:bold;color:#fff}
.badge.regressed,.badge.failed{background:#c62828}.badge.passed{background:#2e7d32}
.badge.aborted{background:#6d4c41}.badge.running,.badge.abandoned{background:#757575}.badge.cannot-tell{background:#6a1b9a}
ol.regressions li,ul.regressions li{margin:2px 0}
.worse{color:#c62828;font-weight:bold}.better{color:#2e7d32;font-weight:bold}
.charts{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:0} figcaption{font-size:12px;color:#555}
a{color:#1f5f9f}
)";

std::string page(const std::string& title, const std::string& body, bool nested) {
  const std::string up = nested ? "../" : "";
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{0}</title>\n"
      "<style>{1}</style>\n</head>\n<body>\n<nav><a href=\"{2}index.html\">last night</a><a "
      "href=\"{2}tables.html\">regression tables</a><a href=\"{2}runs.html\">runs</a></nav>\n{3}</body>\n</html>\n",
      escape_xml(title), kCss, up, body);
}

std::string value_text(double v, const std::string& unit) { return figure_text(v, unit); }

std::string percent(double rel) {
  if (!std::isfinite(rel)) return rel > 0 ? "+inf %" : "-inf %";
  return fmt::format("{:+.1f} %", 100 * rel);
}

std::string day_of(const std::string& iso) { return iso.substr(0, 10); }

// Days since 1970-01-01 of "YYYY-MM-DDTHH:MM:SS...", with the time of day as
// a fraction; nothing for text that is not such a time.
std::optional<double> day_number(const std::string& iso) {
  // By hand: sscanf cost a second and a half over a year of 20 rigs' nights.
  auto digits = [&](std::size_t at, std::size_t n) -> int {
    if (iso.size() < at + n) return -1;
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (iso[i] < '0' || iso[i] > '9') return -1;
      v = v * 10 + (iso[i] - '0');
    }
    return v;
  };
  int y = digits(0, 4), mo = digits(5, 2), d = digits(8, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || iso[4] != '-' || iso[7] != '-') return std::nullopt;
  int h = 0, mi = 0, s = 0;
  if (iso.size() >= 19 && iso[10] == 'T') {
    h = std::max(digits(11, 2), 0);
    mi = std::max(digits(14, 2), 0);
    s = std::max(digits(17, 2), 0);
  }
  // Days from civil (proleptic Gregorian), H. Hinnant's public-domain formula.
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + static_cast<unsigned>(d) - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097.0 + static_cast<double>(doe) - 719468 + (h * 3600 + mi * 60 + s) / 86400.0;
}

std::string date_tick(double days) {
  long z = static_cast<long>(std::floor(days)) + 719468;
  const long era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const long y = static_cast<long>(yoe) + era * 400 + (m <= 2);
  return fmt::format("{}-{:02}-{:02}", y, m, d);
}

// An axis in hours since 1970 (runs of one day): "HH:MM" of the tick.
std::string hour_tick(double hours) {
  const long minutes = std::lround(hours * 60);
  return fmt::format("{:02}:{:02}", ((minutes / 60) % 24 + 24) % 24, (minutes % 60 + 60) % 60);
}

std::string series_title(const MetricSeries& s) { return fmt::format("{} on {}", s.scenario, s.rig); }

std::string change_words(const SeriesChange& c, const std::string& unit) {
  return fmt::format("{} ({} &rarr; {}) since run {} ({}), level shift", percent(c.relative),
                     escape_xml(value_text(c.before, unit)), escape_xml(value_text(c.after, unit)), c.since_run,
                     escape_xml(day_of(c.since)));
}

// A night's verdict of one metric in words: the change, its interval or what
// it could detect, and what it was judged against.
std::string verdict_words(const MetricComparison& m) {
  const std::string change = m.effect ? percent(*m.effect) : m.relative_change ? percent(*m.relative_change) : "";
  return fmt::format("{} {}{}", outcome_mark(m.verdict), change_name(m.verdict),
                     change.empty() ? "" : " " + change) ;
}

std::string run_link(std::int64_t id, bool nested) {
  return fmt::format("<a href=\"{}{}\">run {}</a>", nested ? "../" : "", run_report_path(id), id);
}

}  // namespace

std::string metric_page_path(const std::string& metric) {
  std::string slug;
  bool replaced = metric.empty() || metric[0] == '.';
  for (char c : metric.substr(0, 120)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-';
    slug += ok ? c : '_';
    replaced = replaced || !ok;
  }
  if (!slug.empty() && slug[0] == '.') slug[0] = '_';  // no hidden files, no ".."
  if (replaced || metric.size() > 120) slug += "-" + sha256_hex(metric).substr(0, 12);
  return "metrics/" + slug + ".html";
}

std::string run_report_path(std::int64_t run_id) { return fmt::format("runs/{}.html", run_id); }

namespace {

// Each run's start as a day number (day_number), by index into
// SiteData::runs: parsed once per run rather than once per point of every
// chart (a year of 20 rigs is 1.46 M points).
using RunDays = std::vector<std::optional<double>>;

RunDays run_days(const SiteData& site) {
  RunDays days;
  days.reserve(site.runs.size());
  for (const RunSummary& r : site.runs) days.push_back(day_number(r.started_at));
  return days;
}

std::string trend_chart_of(const SiteData& site, const RunDays& days, const MetricSeries& s,
                           const std::string& metric, const std::string& unit, bool compact) {
  const double width = compact ? 360 : 760, height = compact ? 170 : 300;
  svg::Canvas c(width, height, fmt::format("{} on {} / {}", metric, s.rig, s.scenario));
  // x: the run's start in days; y: the values, the band and the baselines.
  std::vector<std::pair<double, double>> xy;  // per point with a finite value
  std::vector<std::optional<double>> x_of(s.points.size());
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    x_of[i] = days[s.points[i].run];
    if (!x_of[i]) x_of[i] = static_cast<double>(i);
    x_lo = std::min(x_lo, *x_of[i]);
    x_hi = std::max(x_hi, *x_of[i]);
    if (const SeriesPoint& p = s.points[i]; site.has_value(p) && std::isfinite(p.value)) {
      y_lo = std::min(y_lo, p.value);
      y_hi = std::max(y_hi, p.value);
    }
  }
  if (s.band) {
    y_lo = std::min(y_lo, s.band->lo);
    y_hi = std::max(y_hi, s.band->hi);
  }
  for (const auto& b : s.baselines) {
    if (!b.value) continue;
    y_lo = std::min(y_lo, *b.value);
    y_hi = std::max(y_hi, *b.value);
  }
  if (!std::isfinite(y_lo)) {
    c.text(width / 2, height / 2, "no value in any run", svg::Anchor::middle, 12, "#555");
    return c.str();
  }
  // Runs of one day apart only in their time: the axis in hours of that
  // day, so that they stand apart by time rather than on one x.
  const bool one_day = x_hi > x_lo && x_hi - x_lo < 1;
  std::string day_title;
  if (one_day) {
    day_title = fmt::format("time (UTC) on {}", date_tick(x_lo));
    for (std::optional<double>& x : x_of) *x *= 24;
    const double pad = std::max((x_hi - x_lo) * 24 * 0.05, 0.25);
    x_lo = x_lo * 24 - pad;
    x_hi = x_hi * 24 + pad;
  } else if (x_hi - x_lo < 7) {
    // At least a week on the axis, so that the ticks fall on whole days (one
    // label per day at most) and a single night still gets an axis.
    const double pad = (7 - (x_hi - x_lo)) / 2;
    x_lo -= pad;
    x_hi += pad;
  }
  auto [ny_lo, ny_hi] = svg::nice_range(y_lo, y_hi);
  svg::Frame f;
  f.left = compact ? 56 : 72;
  f.right = width - (compact ? 24 : 40);  // room for the last date label
  f.top = 14;
  f.bottom = height - (compact ? 40 : 48);
  f.x = svg::Scale::linear(x_lo, x_hi, f.left, f.right);
  f.y = svg::Scale::linear(ny_lo, ny_hi, f.bottom, f.top);
  svg::draw_axes(c, f, compact ? "" : one_day ? day_title : "night (UTC)", unit.empty() || unit == "1" ? "value" : unit,
                 one_day ? &hour_tick : &date_tick, nullptr);

  auto fitted_x = [&](std::size_t k) { return f.x.px(*x_of[s.fitted[k]]); };
  auto fitted_v = [&](std::size_t k) { return s.points[s.fitted[k]].value; };
  if (s.band && s.band->runs > 0) {
    double x0 = fitted_x(s.band->first), x1 = fitted_x(s.fitted.size() - 1);
    c.rect(x0, f.y.px(s.band->hi), std::max(x1 - x0, 2.0), f.y.px(s.band->lo) - f.y.px(s.band->hi),
           {kBandColour, 0, kBandColour, "", 0.35});
  }
  for (const auto& b : s.baselines) {
    if (!b.value) continue;
    double y = f.y.px(*b.value);
    c.line(f.left, y, f.right, y, {kBaselineColour, 1.5, "none", "6 4"});
    if (!compact) c.text(f.right - 4, y - 4, "baseline " + b.name, svg::Anchor::end, 11, kBaselineColour);
  }
  // The level of each segment between change points.
  if (!s.fitted.empty()) {
    std::size_t begin = 0;
    std::vector<std::size_t> ends;
    for (const ChangePoint& cp : s.change_points) ends.push_back(cp.index);
    ends.push_back(s.fitted.size());
    for (std::size_t e : ends) {
      if (e <= begin) continue;
      double sum = 0;
      for (std::size_t k = begin; k < e; ++k) sum += fitted_v(k);
      double level = sum / static_cast<double>(e - begin);
      c.line(fitted_x(begin), f.y.px(level), fitted_x(e - 1), f.y.px(level), {kLevelColour, 2});
      begin = e;
    }
  }
  for (const ChangePoint& cp : s.change_points) {
    double x = fitted_x(cp.index);
    c.line(x, f.top, x, f.bottom, {kChangeColour, 1.2, "none", "3 3"});
    if (!compact && cp.before != 0)
      c.text(x + 3, f.top + 10, percent((cp.after - cp.before) / std::fabs(cp.before)), svg::Anchor::start, 10,
             kChangeColour);
  }
  std::vector<std::pair<double, double>> line;
  for (std::size_t k = 0; k < s.fitted.size(); ++k) line.push_back({fitted_x(k), f.y.px(fitted_v(k))});
  if (line.size() > 1) c.polyline(line, {kRunColour, 1.2});
  // Markers only where they stay readable; a year of nights is the line.
  const bool markers = s.points.size() <= 120;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const SeriesPoint& p = s.points[i];
    if (!site.has_value(p) || !std::isfinite(p.value)) continue;
    bool live = site.live[p.run] != 0;
    if (live && !markers) continue;
    double x = f.x.px(*x_of[i]), y = f.y.px(p.value);
    if (live) c.circle(x, y, 2.5, {kRunColour, 1, kRunColour});
    else c.diamond(x, y, 3.5, {kRunColour, 1.2, "#fff"});
  }
  return c.str();
}

}  // namespace

std::string trend_chart(const SiteData& site, const MetricSeries& s, const std::string& metric,
                        const std::string& unit, bool compact) {
  return trend_chart_of(site, run_days(site), s, metric, unit, compact);
}

namespace {

std::string verdict_badge(const LastNight& n) {
  if (n.regressed()) return "<span class=\"badge regressed\">regressed</span>";
  if (n.cannot_tell > 0) return "<span class=\"badge cannot-tell\">❔ cannot tell</span>";
  return fmt::format("<span class=\"badge {0}\">{0}</span>", run_status_name(n.run.status));
}

const MetricSeries* find_series(const SiteData& site, const std::string& metric, const SeriesKey& key) {
  for (const MetricPage& p : site.metrics) {
    if (p.name != metric) continue;
    for (const MetricSeries& s : p.series)
      if (s.scenario == key.first && s.rig == key.second) return &s;
  }
  return nullptr;
}

std::string filters_text(const PublishFilters& f) {
  std::vector<std::string> parts;
  if (!f.since.empty()) parts.push_back("since " + f.since);
  if (!f.rig.empty()) parts.push_back("rig " + f.rig);
  if (!f.scenario.empty()) parts.push_back("scenario " + f.scenario);
  if (parts.empty()) return "every run";
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string index_page(const SiteData& site, const RunDays& days) {
  std::vector<std::pair<SeriesKey, const LastNight*>> nights;
  for (const auto& [key, n] : site.last_night) nights.push_back({key, &n});
  std::stable_sort(nights.begin(), nights.end(), [](const auto& a, const auto& b) {
    if (a.second->regressed() != b.second->regressed()) return a.second->regressed();
    return a.first < b.first;
  });
  std::size_t regressed = 0;
  for (const auto& n : nights) regressed += n.second->regressed() ? 1 : 0;
  std::string body = "<h1>Last night</h1>\n";
  body += fmt::format("<p class=\"meta\">store {} &middot; {} &middot; {} run{} &middot; {} of {} scenario and rig "
                      "pair{} regressed</p>\n",
                      escape_xml(site.store_path), escape_xml(filters_text(site.filters)), site.runs.size(),
                      site.runs.size() == 1 ? "" : "s", regressed, nights.size(), nights.size() == 1 ? "" : "s");
  if (nights.empty()) body += "<p>No completed run matches the filters.</p>\n";

  body += "<h2>Verdict per rig and scenario</h2>\n<table id=\"verdicts\">\n<tr><th>verdict</th><th>scenario</th>"
          "<th>rig</th><th>last run</th><th>started</th><th>regressions and failed checks</th><th>improved</th>"
          "<th>unchanged</th><th>cannot tell</th><th>judged against</th></tr>\n";
  for (const auto& [key, n] : nights) {
    std::string what;
    constexpr std::size_t kPerRow = 5;  // the rest is in the list below
    for (std::size_t i = 0; i < n->regressions.size() && i < kPerRow; ++i) {
      const MetricComparison& r = n->regressions[i];
      what += fmt::format("<li><a href=\"{}\">{}</a> <span class=\"worse\">{}</span></li>", metric_page_path(r.name),
                          escape_xml(r.name), escape_xml(verdict_words(r)));
    }
    if (n->regressions.size() > kPerRow)
      what += fmt::format("<li><a href=\"#regressions\">and {} more</a></li>", n->regressions.size() - kPerRow);
    for (const Verdict& v : n->failed) {
      what += fmt::format("<li>check <code>{}</code> failed: expected {}, measured {}</li>", escape_xml(v.check),
                          escape_xml(v.expected), escape_xml(v.measured));
    }
    body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}"
                        "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                        verdict_badge(*n), escape_xml(key.first), escape_xml(key.second), run_link(n->run.id, false),
                        escape_xml(n->run.started_at), what.empty() ? "none" : "<ul class=\"regressions\">" + what + "</ul>",
                        n->improvements.size(), n->unchanged, n->cannot_tell, escape_xml(n->judged_against));
  }
  body += "</table>\n";
  for (const auto& [key, n] : nights)
    if (!n->calibration.empty()) body += fmt::format("<p class=\"meta calibration\">{}</p>\n", escape_xml(n->calibration));

  // Every regression across the lab, largest first, with its trend.
  struct Row {
    SeriesKey key;
    const MetricComparison* r;
  };
  std::vector<Row> all;
  for (const auto& [key, n] : nights)
    for (const MetricComparison& r : n->regressions) all.push_back({key, &r});
  auto size = [](const MetricComparison& m) { return std::fabs(m.effect.value_or(m.relative_change.value_or(0))); };
  std::stable_sort(all.begin(), all.end(), [&](const Row& a, const Row& b) { return size(*a.r) > size(*b.r); });
  body += fmt::format("<h2>Regressions ({})</h2>\n", all.size());
  if (all.empty()) {
    body += "<p id=\"no-regressions\">No metric of last night regressed as 'harness compare' judges it.</p>\n";
  } else {
    body += "<ol class=\"regressions\" id=\"regressions\">\n";
    for (const Row& row : all) {
      // Since when: the series' newest level shift, where it has one.
      const MetricSeries* s = find_series(site, row.r->name, row.key);
      const std::string since = s && s->change ? "; " + change_words(*s->change, row.r->unit) : "";
      body += fmt::format("<li><a href=\"{}\">{}</a> on {} / {}: <span class=\"worse\">{}</span>{}: {}</li>\n",
                          metric_page_path(row.r->name), escape_xml(row.r->name), escape_xml(row.key.second),
                          escape_xml(row.key.first), escape_xml(verdict_words(*row.r)), since,
                          escape_xml(row.r->reason));
    }
    body += "</ol>\n<div class=\"charts\">\n";
    constexpr std::size_t kCharts = 12;  // the morning view, not the whole store
    for (std::size_t i = 0; i < all.size() && i < kCharts; ++i) {
      const MetricSeries* s = find_series(site, all[i].r->name, all[i].key);
      if (!s) continue;
      body += fmt::format("<figure class=\"trend\">{}<figcaption>{} on {} / {}</figcaption></figure>\n",
                          trend_chart_of(site, days, *s, all[i].r->name, all[i].r->unit, true),
                          escape_xml(all[i].r->name),
                          escape_xml(all[i].key.second), escape_xml(all[i].key.first));
    }
    body += "</div>\n";
    if (all.size() > kCharts) body += fmt::format("<p class=\"meta\">charts of the {} largest</p>\n", kCharts);
  }

  body += fmt::format("<h2>Metrics ({})</h2>\n<table id=\"metrics\">\n<tr><th>metric</th><th>unit</th><th>better</th>"
                      "<th>rigs</th><th>regressed on</th></tr>\n",
                      site.metrics.size());
  for (const MetricPage& m : site.metrics) {
    std::size_t worse = 0;
    for (const MetricSeries& s : m.series) {
      auto night = site.last_night.find({s.scenario, s.rig});
      if (night == site.last_night.end()) continue;
      auto v = night->second.verdicts.find(m.name);
      worse += v != night->second.verdicts.end() && v->second.verdict == Change::regressed && v->second.acknowledged.empty();
    }
    body += fmt::format("<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td "
                        "class=\"num\">{}</td></tr>\n",
                        metric_page_path(m.name), escape_xml(m.name), escape_xml(m.unit), better_name(m.better),
                        m.series.size(), worse);
  }
  body += "</table>\n";
  body += fmt::format("<p class=\"method\">method: {}</p>\n", escape_xml(kPublishMethod));
  return page("harness: last night", body, false);
}

std::string metric_page(const MetricPage& m, const SiteData& site, const RunDays& days) {
  std::string body = fmt::format("<h1>{}</h1>\n<p class=\"meta\">unit {} &middot; better {} &middot; {} scenario and "
                                 "rig pair{} &middot; {}</p>\n",
                                 escape_xml(m.name), escape_xml(m.unit.empty() ? "none" : m.unit),
                                 better_name(m.better), m.series.size(), m.series.size() == 1 ? "" : "s",
                                 escape_xml(filters_text(site.filters)));
  body += "<p class=\"meta\">blue: each run (hollow: a replay or import), the line through the fitted ones (a value "
          "without measured evidence, or a replay of a night already shown, is not fitted); orange: the level between change "
          "points; red dashes: change points; shaded: the noise band; green dashes: baselines</p>\n";
  for (const MetricSeries& s : m.series) {
    // The chart appended as it is, not copied through a format: a page is
    // 20 charts of a year of nights.
    body += fmt::format("<section class=\"series\">\n<h2>{}</h2>\n<figure class=\"trend\">",
                        escape_xml(series_title(s)));
    body += trend_chart_of(site, days, s, m.name, m.unit, false);
    body += "</figure>\n";
    std::size_t unavailable = 0;
    for (const SeriesPoint& p : s.points) unavailable += site.has_value(p) ? 0 : 1;
    const SeriesPoint& last = s.points.back();
    const RunSummary& last_run = site.run_of(last);
    body += fmt::format("<p>{} run{}, newest {} ({}): {}{}</p>\n", s.points.size(), s.points.size() == 1 ? "" : "s",
                        run_link(last_run.id, true), escape_xml(day_of(last_run.started_at)),
                        escape_xml(site.has_value(last) ? value_text(last.value, m.unit)
                                                        : "unavailable: " + site.text(site.label_of(last).unavailable)),
                        unavailable ? fmt::format("; unavailable in {}", unavailable) : "");
    if (auto night = site.last_night.find({s.scenario, s.rig}); night != site.last_night.end()) {
      auto v = night->second.verdicts.find(m.name);
      if (v != night->second.verdicts.end()) {
        const MetricComparison& x = v->second;
        const char* css = x.verdict == Change::regressed ? "worse" : x.verdict == Change::improved ? "better" : "verdict";
        body += fmt::format("<p class=\"{}\">last night, {} against {}: {}: {}</p>\n", css,
                            run_link(night->second.run.id, true), escape_xml(night->second.judged_against),
                            escape_xml(verdict_words(x)), escape_xml(x.reason));
      }
    }
    if (s.change) body += fmt::format("<p>newest level shift: {}</p>\n", change_words(*s.change, m.unit));
    if (s.band) {
      body += fmt::format("<p>noise band of the {} measured runs before the newest: {} to {} (mean {}); the newest run's p "
                          "= {:.3g}</p>\n",
                          s.band->runs, escape_xml(value_text(s.band->lo, m.unit)),
                          escape_xml(value_text(s.band->hi, m.unit)), escape_xml(value_text(s.band->mean, m.unit)),
                          s.band->p);
    } else {
      body += "<p>noise band: unavailable: fewer than 6 measured runs with a value</p>\n";
    }
    for (const auto& b : s.baselines) {
      std::string runs;
      for (std::int64_t id : b.runs) runs += (runs.empty() ? "" : ", ") + run_link(id, true);
      body += fmt::format("<p>baseline <b>{}</b> ({}): {}</p>\n", escape_xml(b.name), runs,
                          b.value ? escape_xml(value_text(*b.value, m.unit))
                                  : "unavailable: none of its runs is within the filters or has a value");
    }
    if (!s.change_points.empty()) {
      body += "<table class=\"changes\"><tr><th>from run</th><th>night</th><th>before</th><th>after</th><th>change</th>"
              "</tr>\n";
      for (const ChangePoint& cp : s.change_points) {
        const RunSummary& p = site.run_of(s.points[s.fitted[cp.index]]);
        body += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
                            "class=\"num\">{}</td></tr>\n",
                            run_link(p.id, true), escape_xml(day_of(p.started_at)),
                            escape_xml(value_text(cp.before, m.unit)), escape_xml(value_text(cp.after, m.unit)),
                            cp.before != 0 ? percent((cp.after - cp.before) / std::fabs(cp.before)) : "");
      }
      body += "</table>\n";
    } else {
      body += "<p>no level shift</p>\n";
    }
    body += "</section>\n";
  }
  body += fmt::format("<p class=\"method\">method: {}</p>\n", escape_xml(kPublishMethod));
  return page(m.name, body, true);
}

std::string tables_page(const SiteData& site) {
  std::string body = fmt::format("<h1>Regression tables</h1>\n<p class=\"meta\">seed 001's three tables, the newest {} "
                                 "nights of each scenario on each rig &middot; {}</p>\n",
                                 kPublishTableNights, escape_xml(filters_text(site.filters)));
  for (const RegressionTableSpec& spec : regression_table_specs()) {
    std::vector<MetricHistory> rows;
    for (const MetricPage& m : site.metrics) {
      if (!regression_row_rank(spec.kind, m.name)) continue;
      MetricHistory h{m.name, {}};
      // Only the nights the table shows: a year of 20 rigs is 7,300 points a row.
      for (const MetricSeries& s : m.series) {
        auto from = s.points.size() > kPublishTableNights ? s.points.end() - kPublishTableNights : s.points.begin();
        for (auto it = from; it != s.points.end(); ++it) {
          const RunSummary& r = site.run_of(*it);
          const ValueLabel& l = site.label_of(*it);
          h.points.push_back(HistoryPoint{r.id, r.started_at, r.origin, r.scenario_name, r.rig, site.value_of(*it),
                                          site.text(l.unit), site.text(l.provenance), site.text(l.unavailable)});
        }
      }
      rows.push_back(std::move(h));
    }
    body += fmt::format("<h2 id=\"{}\">{}</h2>\n<p class=\"meta\">{}</p>\n", spec.name, escape_xml(spec.title),
                        escape_xml(spec.rows));
    body += render_regression_tables_html(build_regression_tables(spec, rows, kPublishTableNights));
  }
  return page("harness: regression tables", body, false);
}

std::string runs_page(const SiteData& site) {
  std::string body = fmt::format("<h1>Runs</h1>\n<p class=\"meta\">{} run{}, newest first &middot; {}</p>\n",
                                 site.runs.size(), site.runs.size() == 1 ? "" : "s",
                                 escape_xml(filters_text(site.filters)));
  body += "<table id=\"runs\">\n<tr><th>run</th><th>scenario</th><th>rig</th><th>origin</th><th>status</th>"
          "<th>started</th><th>metrics</th><th>failed checks</th></tr>\n";
  for (const RunSummary& r : site.runs) {
    body += fmt::format("<tr><td>{0}</td><td>{1}</td><td>{2}</td><td>{3}</td><td><span class=\"badge {4}\">{4}</span>{5}"
                        "</td><td>{6}</td><td class=\"num\">{7}</td><td class=\"num\">{8}</td></tr>\n",
                        run_link(r.id, false), escape_xml(r.scenario_name), escape_xml(r.rig), escape_xml(r.origin),
                        run_status_name(r.status), r.reason.empty() ? "" : " " + escape_xml(r.reason),
                        escape_xml(r.started_at), r.metric_count, r.verdicts_failed);
  }
  body += "</table>\n";
  return page("harness: runs", body, false);
}

}  // namespace

std::map<std::string, std::string> render_site_pages(const SiteData& site) {
  std::map<std::string, std::string> pages;
  const RunDays days = run_days(site);
  pages["index.html"] = index_page(site, days);
  pages["tables.html"] = tables_page(site);
  pages["runs.html"] = runs_page(site);
  for (const MetricPage& m : site.metrics) pages[metric_page_path(m.name)] = metric_page(m, site, days);
  return pages;
}

}  // namespace harness
