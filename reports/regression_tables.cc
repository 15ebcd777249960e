#include "reports/regression_tables.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "harness/model/metric_catalogue.h"
#include "reports/markdown.h"
#include "reports/report_model.h"
#include "reports/svg.h"

namespace harness {
namespace {


// The catalogue row a stored metric falls under (history rows carry no
// level: the bandwidth, compute and kernel/layer rows are level 1's).
bool falls_under(std::string_view metric, Level level, std::string_view pattern) {
  return find_catalogue_entry(level, metric) == &catalogue_pattern(pattern);
}

// "bandwidth.burst_512B" -> 512
std::optional<int> burst_bytes(std::string_view metric) {
  std::optional<std::string> digits = placeholder_value(catalogue_pattern("bandwidth.burst_<N>B").name, metric);
  if (!digits) return std::nullopt;
  int n = 0;
  auto [end, ec] = std::from_chars(digits->data(), digits->data() + digits->size(), n);
  if (ec != std::errc{} || end != digits->data() + digits->size() || n <= 0 || n > 1 << 24) return std::nullopt;
  return n;
}

// Absent in that run (or unavailable there): a dash, as a table reads.
std::string cell(const std::optional<double>& v, const std::string& unit) { return v ? figure_text(v, unit) : "-"; }

// The last column against the one before it, where both have a value.
std::string last_change(const RegressionRow& r) {
  if (r.values.size() < 2 || !r.values.back() || !r.values[r.values.size() - 2]) return "";
  double before = *r.values[r.values.size() - 2], after = *r.values.back();
  if (before == 0) return "";
  return fmt::format("{:+.1f} %", 100 * (after - before) / std::fabs(before));
}

std::string date_of(const std::string& started_at) { return started_at.substr(0, 10); }

std::string heading(const RegressionTable& t) {
  return fmt::format("{}: scenario {} on rig {} ({} run{})", t.spec->title, t.scenario, t.rig, t.columns.size(),
                     t.columns.size() == 1 ? "" : "s");
}

}  // namespace

const std::vector<RegressionTableSpec>& regression_table_specs() {
  static const std::vector<RegressionTableSpec> specs = {
      {RegressionTableKind::bandwidth, "bandwidth", "bandwidth regression",
       "bandwidth.*: sequential read, random 4 KiB, the burst sweep 64 B - 2 KiB, other levels"},
      {RegressionTableKind::compute, "compute", "compute regression",
       "ceiling.compute.<precision> and compute.* (peak per precision)"},
      {RegressionTableKind::latency, "latency", "op latency regression",
       "<kernel or layer>.time, and the end-to-end latency_p50 / latency_p99"},
  };
  return specs;
}

const RegressionTableSpec* find_regression_table(std::string_view name) {
  for (const RegressionTableSpec& s : regression_table_specs())
    if (s.name == name) return &s;
  return nullptr;
}

std::optional<int> regression_row_rank(RegressionTableKind kind, std::string_view m) {
  switch (kind) {
    case RegressionTableKind::bandwidth:
      // Sequential first (the host's per thread count, a vendor tool's "dram"), random 4 KiB, the burst sweep.
      if (falls_under(m, Level::roofline, "bandwidth.seq_read.<N>t") ||
          m == instance_name(catalogue_pattern("bandwidth.<figure>").name, {"dram"}))
        return 0;
      if (falls_under(m, Level::roofline, "bandwidth.random_4k")) return 1;
      if (falls_under(m, Level::roofline, "bandwidth.burst_<N>B")) {
        if (std::optional<int> n = burst_bytes(m)) return 2 + *n;
        return 1 << 26;
      }
      if (falls_under(m, Level::roofline, "bandwidth.l2") || falls_under(m, Level::roofline, "bandwidth.<figure>"))
        return 1 << 26;
      return std::nullopt;
    case RegressionTableKind::compute:
      if (falls_under(m, Level::roofline, "ceiling.compute.fp32") ||
          falls_under(m, Level::roofline, "ceiling.compute.<name>"))
        return 0;
      if (falls_under(m, Level::roofline, "compute.fma_fp32.<N>t")) return 1;
      // A vendor tool's compute figure (compute.<figure>). Compared by the
      // row's name rather than looked up: no recorded fixture has one, and a
      // lookup is a promise the catalogue test checks on fixtures.
      if (const CatalogueEntry* e = find_catalogue_entry(Level::roofline, m); e && e->name == "compute.<figure>")
        return 1;
      return std::nullopt;
    case RegressionTableKind::latency:
      if (falls_under(m, Level::latency, "latency_p50")) return 0;
      if (falls_under(m, Level::latency, "latency_p99")) return 1;
      // A kernel's or a profile layer's time (level 1); the load conditions'
      // figures are level 4's ("load.<load>.") and never a kernel's.
      if (m.starts_with("load.")) return std::nullopt;
      if (falls_under(m, Level::roofline, "layer.<layer>.time") || falls_under(m, Level::roofline, "<kernel>.time"))
        return 2;
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<RegressionTable> build_regression_tables(const RegressionTableSpec& spec,
                                                      const std::vector<MetricHistory>& per_metric,
                                                      std::size_t nights) {
  using Key = std::pair<std::string, std::string>;
  struct Series {
    std::map<std::int64_t, RegressionColumn> runs;
    // metric -> run -> value
    std::map<std::string, std::map<std::int64_t, std::optional<double>>> cells;
    std::map<std::string, std::string> units;
  };
  std::map<Key, Series> series;
  for (const MetricHistory& h : per_metric) {
    for (const HistoryPoint& p : h.points) {
      Series& s = series[{p.scenario_name, p.rig}];
      s.runs[p.run_id] = {p.run_id, p.started_at, p.origin};
      s.cells[h.metric][p.run_id] = p.value;
      if (!p.unit.empty()) s.units[h.metric] = p.unit;
    }
  }
  std::vector<RegressionTable> out;
  for (auto& [key, s] : series) {
    RegressionTable t;
    t.spec = &spec;
    t.scenario = key.first;
    t.rig = key.second;
    for (const auto& [id, column] : s.runs) t.columns.push_back(column);
    if (nights > 0 && t.columns.size() > nights)
      t.columns.erase(t.columns.begin(), t.columns.end() - static_cast<std::ptrdiff_t>(nights));
    for (const auto& [metric, by_run] : s.cells) {
      RegressionRow row{metric, s.units[metric], {}};
      bool any = false;
      for (const RegressionColumn& c : t.columns) {
        auto it = by_run.find(c.run_id);
        row.values.push_back(it == by_run.end() ? std::nullopt : it->second);
        any = any || row.values.back().has_value();
      }
      if (any) t.rows.push_back(std::move(row));
    }
    std::stable_sort(t.rows.begin(), t.rows.end(), [&](const RegressionRow& a, const RegressionRow& b) {
      int ra = regression_row_rank(spec.kind, a.metric).value_or(1 << 30);
      int rb = regression_row_rank(spec.kind, b.metric).value_or(1 << 30);
      return ra != rb ? ra < rb : a.metric < b.metric;
    });
    if (!t.rows.empty()) out.push_back(std::move(t));
  }
  return out;
}

std::string render_regression_tables_text(const std::vector<RegressionTable>& tables) {
  std::string out;
  for (const RegressionTable& t : tables) {
    if (!out.empty()) out += "\n";
    out += heading(t) + "\n";
    std::size_t w = 6;
    for (const RegressionRow& r : t.rows) w = std::max(w, r.metric.size());
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> cw;
    for (const RegressionColumn& c : t.columns) {
      cw.push_back(std::max<std::size_t>(10, fmt::format("run {}", c.run_id).size()));
    }
    for (const RegressionRow& r : t.rows) {
      std::vector<std::string> line;
      for (std::size_t i = 0; i < r.values.size(); ++i) {
        line.push_back(cell(r.values[i], r.unit));
        cw[i] = std::max(cw[i], line.back().size());
      }
      cells.push_back(std::move(line));
    }
    std::string head = fmt::format("{:<{}}", "metric", w), dates = fmt::format("{:<{}}", "", w);
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      head += fmt::format("  {:>{}}", fmt::format("run {}", t.columns[i].run_id), cw[i]);
      dates += fmt::format("  {:>{}}", date_of(t.columns[i].started_at), cw[i]);
    }
    out += head + "  last change\n" + dates + "\n";
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      std::string line = fmt::format("{:<{}}", t.rows[r].metric, w);
      for (std::size_t i = 0; i < cells[r].size(); ++i) line += fmt::format("  {:>{}}", cells[r][i], cw[i]);
      std::string change = last_change(t.rows[r]);
      if (!change.empty()) line += "  " + change;
      out += line + "\n";
    }
  }
  if (tables.empty()) out = "no stored run has a metric of this table\n";
  return out;
}

std::string render_regression_tables_markdown(const std::vector<RegressionTable>& tables) {
  std::string out;
  for (const RegressionTable& t : tables) {
    if (!out.empty()) out += "\n";
    out += "### " + markdown_text(heading(t)) + "\n\n| metric |";
    for (const RegressionColumn& c : t.columns) out += fmt::format(" run {} ({}) |", c.run_id, date_of(c.started_at));
    out += " last change |\n|---|";
    for (std::size_t i = 0; i < t.columns.size(); ++i) out += "---:|";
    out += "---:|\n";
    for (const RegressionRow& r : t.rows) {
      out += fmt::format("| `{}` |", r.metric);
      for (const std::optional<double>& v : r.values) out += fmt::format(" {} |", cell(v, r.unit));
      out += fmt::format(" {} |\n", last_change(r));
    }
  }
  if (tables.empty()) out = "no stored run has a metric of this table\n";
  return out;
}

nlohmann::json regression_tables_to_json(const std::vector<RegressionTable>& tables) {
  nlohmann::json out = nlohmann::json::array();
  for (const RegressionTable& t : tables) {
    nlohmann::json j = {{"table", t.spec->name}, {"title", t.spec->title}, {"scenario", t.scenario},
                        {"rig", t.rig}, {"runs", nlohmann::json::array()}, {"rows", nlohmann::json::array()}};
    for (const RegressionColumn& c : t.columns)
      j["runs"].push_back({{"run", c.run_id}, {"started_at", c.started_at}, {"origin", c.origin}});
    for (const RegressionRow& r : t.rows) {
      nlohmann::json values = nlohmann::json::array();
      for (const std::optional<double>& v : r.values) values.push_back(v ? nlohmann::json(*v) : nlohmann::json(nullptr));
      j["rows"].push_back({{"metric", r.metric}, {"unit", r.unit}, {"values", values}});
    }
    out.push_back(j);
  }
  return out;
}

std::string render_regression_tables_html(const std::vector<RegressionTable>& tables) {
  using svg::escape_xml;
  std::string out;
  for (const RegressionTable& t : tables) {
    out += "<h3>" + escape_xml(heading(t)) + "</h3>\n<table class=\"regression\">\n<tr><th>metric</th>";
    for (const RegressionColumn& c : t.columns)
      out += fmt::format("<th>run {}<br>{}</th>", c.run_id, escape_xml(date_of(c.started_at)));
    out += "<th>last change</th></tr>\n";
    for (const RegressionRow& r : t.rows) {
      out += "<tr><td><code>" + escape_xml(r.metric) + "</code></td>";
      for (const std::optional<double>& v : r.values) out += "<td class=\"num\">" + escape_xml(cell(v, r.unit)) + "</td>";
      out += "<td class=\"num\">" + escape_xml(last_change(r)) + "</td></tr>\n";
    }
    out += "</table>\n";
  }
  if (tables.empty()) out = "<p>no stored run has a metric of this table</p>\n";
  return out;
}

}  // namespace harness
