// harness history [--scenario S] [--rig R | --all-rigs] [--metric M] [--changes]: a metric
// across stored runs, and where its level shifted (harness/compare/change_points.h);
// --table bandwidth|compute|latency: seed 001's regression tables, one column
// per night (reports/regression_tables.h).
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/closest_match.h"
#include "harness/base/units.h"
#include "harness/cli/commands.h"
#include "harness/compare/change_points.h"
#include "harness/compare/history_evidence.h"
#include "harness/compare/stored_comparison.h"
#include "harness/scenario/scenario.h"
#include "harness/store/store.h"
#include "reports/regression_tables.h"

namespace harness {
namespace {

struct HistoryOptions {
  std::string scenario, rig, metric, table;
  bool changes = false, markdown = false, all_rigs = false;
  int limit = 0;
};

constexpr const char* kChangeMethod =
    "penalised step fit for changes in mean (optimal partitioning with functional pruning, exact, up to 20000 runs; "
    "binary segmentation beyond), penalty "
    "3 ln(n) x sigma^2, sigma from the median absolute difference of consecutive runs and at least the rig's "
    "calibrated spread between nights, >= 3 runs per level, a step at least the metric's threshold, runs with "
    "measured evidence (a night replayed again counts once); the newest night judged as 'harness compare RUN' "
    "judges it";

struct Shift {
  std::int64_t run_id = 0;
  std::string scenario, rig;
  double before = 0, after = 0;
};

// One (scenario, rig) series as compare sees it: the compare settings of its
// newest run's scenario, the rig's calibration, and the newest run's default
// judgement (compare_stored_runs without a baseline), each read once.
class SeriesJudge {
 public:
  explicit SeriesJudge(const Store& store) : store_(store) {}

  struct Series {
    std::int64_t newest = 0;
    CompareConfig config;
    std::optional<Calibration> calibration;
    std::optional<CompareReport> judged;  // empty: no earlier night to judge it by
    std::string unjudged;                 // why, then
  };

  Result<const Series*> of(const std::string& scenario, const std::string& rig, std::int64_t newest) {
    auto key = std::make_pair(scenario, rig);
    auto it = series_.find(key);
    if (it != series_.end()) return &it->second;
    Series s;
    s.newest = newest;
    Result<RunRecord> run = store_.load_run(newest);
    if (!run) return run.error();
    if (Result<Scenario> parsed = parse_scenario(run->scenario_text, run->scenario_path); parsed && parsed->compare)
      s.config = *parsed->compare;
    Result<std::optional<Calibration>> cal = store_.latest_calibration(scenario, rig);
    if (!cal) return cal.error();
    s.calibration = std::move(*cal);
    CompareRequest request;
    request.run = newest;
    Result<StoredComparison> judged = compare_stored_runs(store_, request);
    if (judged) s.judged = std::move(judged->report);
    else s.unjudged = judged.error().message;
    return &series_.emplace(key, std::move(s)).first->second;
  }

 private:
  const Store& store_;
  std::map<std::pair<std::string, std::string>, Series> series_;
};

// The newest night's verdict of `metric` in its series' judgement: the
// paired one when the run has a reference, else the one against nights.
const MetricComparison* newest_verdict(const SeriesJudge::Series& s, const std::string& metric) {
  if (!s.judged) return nullptr;
  if (s.judged->reference)
    for (const MetricComparison& m : s.judged->reference->metrics)
      if (m.name == metric) return &m;
  for (const MetricComparison& m : s.judged->comparison.metrics)
    if (m.name == metric) return &m;
  return nullptr;
}

std::string number_text(double v, const std::string& unit) {
  if (unit.empty() || unit == "1") return fmt::format("{:.4g}", v);
  return format_quantity(v, unit);
}

// Change points per (scenario, rig) series: a level only means something on
// one rig. The points that take part are those evidence_points takes
// (harness/compare/history_evidence.h: measured evidence, a night replayed
// again counted once), the rule compare's noise band and publish use too.
Result<std::vector<Shift>> find_shifts(SeriesJudge& judge, const std::string& metric,
                                       const std::vector<HistoryPoint>& points) {
  std::map<std::pair<std::string, std::string>, std::vector<const HistoryPoint*>> series;
  for (std::size_t i : evidence_points(points)) {
    const HistoryPoint& p = points[i];
    series[{p.scenario_name, p.rig}].push_back(&p);
  }
  std::vector<Shift> out;
  for (const auto& [key, pts] : series) {
    std::vector<double> values;
    for (const HistoryPoint* p : pts) values.push_back(*p->value);
    Result<const SeriesJudge::Series*> s = judge.of(key.first, key.second, pts.back()->run_id);
    if (!s) return s.error();
    const ChangePointOptions options = series_change_options((*s)->calibration, (*s)->config, metric, values);
    for (const ChangePoint& c : find_change_points(values, options))
      out.push_back({pts[c.index]->run_id, key.first, key.second, c.before, c.after});
  }
  std::sort(out.begin(), out.end(), [](const Shift& a, const Shift& b) { return a.run_id < b.run_id; });
  return out;
}

std::string shift_text(const Shift& s, const std::string& unit) {
  std::string rel = s.before != 0 ? fmt::format(" ({:+.1f} %)", 100 * (s.after - s.before) / std::fabs(s.before)) : "";
  return fmt::format("level shift {} -> {}{}", number_text(s.before, unit), number_text(s.after, unit), rel);
}

enum class Align { left, right };

// `text` padded with spaces to `width` columns, as fmt's "{:<N}" / "{:>N}"
// would: ASCII counts a column per byte; anything else goes through fmt,
// which knows wide characters.
void pad(fmt::memory_buffer& out, std::string_view text, std::size_t width, Align align) {
  const bool ascii = std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (!ascii) {
    if (align == Align::left) fmt::format_to(fmt::appender(out), "{:<{}}", text, width);
    else fmt::format_to(fmt::appender(out), "{:>{}}", text, width);
    return;
  }
  static constexpr std::string_view kSpaces = "                                ";
  const std::string_view fill = kSpaces.substr(0, text.size() < width ? width - text.size() : 0);
  if (align == Align::right) out.append(fill);
  out.append(text);
  if (align == Align::left) out.append(fill);
}

nlohmann::json shift_to_json(const Shift& s) {
  return {{"run", s.run_id}, {"scenario", s.scenario}, {"rig", s.rig}, {"before", s.before}, {"after", s.after}};
}

// The points as `nlohmann::json::dump(2)` writes an array at the second
// level: keys sorted, strings and numbers in its own formatting.
std::string points_json(const std::vector<HistoryPoint>& points) {
  auto text = [](const std::string& s) { return nlohmann::json(s).dump(); };
  std::string out = "[\n";
  out.reserve(points.size() * 260);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const HistoryPoint& p = points[i];
    out += "    {\n      \"origin\": " + text(p.origin) + ",\n      \"provenance\": " + text(p.provenance) +
           ",\n      \"rig\": " + text(p.rig) + ",\n      \"run\": " + std::to_string(p.run_id) +
           ",\n      \"scenario\": " + text(p.scenario_name) + ",\n      \"started_at\": " + text(p.started_at) +
           ",\n      \"unavailable\": " + text(p.unavailable) + ",\n      \"value\": " +
           (p.value ? nlohmann::json(*p.value).dump() : std::string("null")) + "\n    }" +
           (i + 1 < points.size() ? ",\n" : "\n");
  }
  return out + "  ]";
}

Result<std::vector<HistoryPoint>> load_points(const Store& store, const HistoryOptions& o, const std::string& metric) {
  HistoryQuery q;
  q.metric = metric;
  q.scenario = o.scenario;
  q.rig = o.rig;
  q.limit = o.limit;
  return store.metric_history(q);
}

Result<ExitCode> one_metric(const Store& store, const HistoryOptions& o, const GlobalOptions& global, Io io) {
  Result<std::vector<HistoryPoint>> points = load_points(store, o, o.metric);
  if (!points) return points.error();
  if (o.rig.empty() && !o.all_rigs) {
    std::set<std::string> rigs;
    for (const HistoryPoint& p : *points) rigs.insert(p.rig);
    if (rigs.size() > 1) {
      std::string names;
      for (const std::string& r : rigs) names += (names.empty() ? "" : ", ") + r;
      return Error::input(fmt::format("metric '{}' comes from {} rigs ({}): history does not mix rigs unless asked; "
                                      "pick one with --rig NAME, or list them together with --all-rigs",
                                      o.metric, rigs.size(), names));
    }
  }
  if (points->empty()) {
    Result<std::vector<HistoryMetric>> known = store.history_metrics(o.scenario, o.rig);
    if (!known) return known.error();
    std::vector<std::string> names;
    for (const HistoryMetric& m : *known) names.push_back(m.name);
    std::optional<std::string> near = closest_match(o.metric, names);
    return Error::input(fmt::format("no stored run{} has a metric '{}'{}",
                                    o.scenario.empty() && o.rig.empty() ? "" : " matching the filters", o.metric,
                                    near ? fmt::format("; did you mean '{}'?", *near) : ""));
  }
  std::vector<Shift> shifts;
  SeriesJudge judge(store);
  if (o.changes) {
    Result<std::vector<Shift>> found = find_shifts(judge, o.metric, *points);
    if (!found) return found.error();
    shifts = std::move(*found);
  }
  const std::string unit = points->back().unit;
  if (global.json) {
    // The points are written straight into the text (100,000 of them as a
    // JSON tree would take ~1 KB each); the rest of the object is a tree, and
    // the points stand in for a marker in its dump, so the layout stays
    // nlohmann's: sorted keys, two-space indent, its number format.
    constexpr std::string_view kPointsMarker = "\"@points@\"";
    nlohmann::json j = {{"metric", o.metric}, {"unit", unit}, {"points", "@points@"}};
    if (o.changes) {
      j["changes"] = nlohmann::json::array();
      for (const Shift& s : shifts) j["changes"].push_back(shift_to_json(s));
      j["change_method"] = kChangeMethod;
    }
    const std::string tree = j.dump(2);
    const std::size_t at = tree.find(kPointsMarker);
    io.out.write(tree.data(), static_cast<std::streamsize>(at));
    io.out << points_json(*points);
    io.out << std::string_view(tree).substr(at + kPointsMarker.size()) << "\n";
    return ExitCode::ok;
  }
  std::map<std::int64_t, const Shift*> at;
  for (const Shift& s : shifts) at[s.run_id] = &s;
  std::string out = fmt::format("{} ({}) across {} runs\n", o.metric, unit.empty() ? "no unit" : unit, points->size());
  out += fmt::format("{:>6}  {:<24}  {:<16}  {:<16}  {:<6}  {:>14}  {}\n", "run", "started", "scenario", "rig",
                     "origin", "value", "provenance");
  // Formatted in place into one buffer sized for the whole table: 100,000
  // points are one allocation, not three per line, and the columns are padded
  // by hand (fmt's width counting walks every string's code points;
  // docs/parts/store.md).
  fmt::memory_buffer table;
  table.reserve(points->size() * 112);
  for (const HistoryPoint& p : *points) {
    const fmt::format_int id(p.run_id);
    pad(table, std::string_view(id.data(), id.size()), 6, Align::right);
    table.append(std::string_view("  "));
    pad(table, p.started_at, 24, Align::left);
    table.append(std::string_view("  "));
    pad(table, terminal_safe(p.scenario_name), 16, Align::left);
    table.append(std::string_view("  "));
    pad(table, terminal_safe(p.rig), 16, Align::left);
    table.append(std::string_view("  "));
    pad(table, p.origin, 6, Align::left);
    table.append(std::string_view("  "));
    pad(table, p.value ? number_text(*p.value, p.unit) : std::string("unavailable"), 14, Align::right);
    table.append(std::string_view("  "));
    table.append(std::string_view(p.value ? p.provenance : p.unavailable));
    if (!at.empty()) {
      if (auto it = at.find(p.run_id); it != at.end())
        fmt::format_to(fmt::appender(table), "  <- {}", shift_text(*it->second, unit));
    }
    table.push_back('\n');
  }
  print_text(io.out, out);
  print_text(io.out, std::string_view(table.data(), table.size()));
  out.clear();
  if (o.changes) {
    out += fmt::format("\n{} level shift{} found; method: {}\n", shifts.size(), shifts.size() == 1 ? "" : "s",
                       kChangeMethod);
    std::set<std::pair<std::string, std::string>> seen;
    for (auto p = points->rbegin(); p != points->rend(); ++p) {
      if (!seen.insert({p->scenario_name, p->rig}).second) continue;
      Result<const SeriesJudge::Series*> s = judge.of(p->scenario_name, p->rig, p->run_id);
      if (!s) return s.error();
      const MetricComparison* m = newest_verdict(**s, o.metric);
      out += fmt::format("newest night of scenario {} on rig {}, run {}: {}\n", terminal_safe(p->scenario_name), terminal_safe(p->rig), p->run_id,
                         m ? fmt::format("{} ({})", change_name(m->verdict), m->reason)
                           : "not judged: " + ((*s)->unjudged.empty() ? std::string("no verdict on this metric")
                                                                       : (*s)->unjudged));
    }
  }
  print_text(io.out, out);
  return ExitCode::ok;
}

Result<ExitCode> all_metrics(const Store& store, const HistoryOptions& o, const GlobalOptions& global, Io io) {
  Result<std::vector<HistoryMetric>> known = store.history_metrics(o.scenario, o.rig);
  if (!known) return known.error();
  if (known->empty()) {
    return Error::input(o.scenario.empty() && o.rig.empty() ? "no completed runs stored"
                                                             : "no completed runs match the filters");
  }
  std::map<std::string, std::vector<Shift>> shifts;
  SeriesJudge judge(store);
  if (o.changes) {
    for (const HistoryMetric& m : *known) {
      Result<std::vector<HistoryPoint>> points = load_points(store, o, m.name);
      if (!points) return points.error();
      Result<std::vector<Shift>> found = find_shifts(judge, m.name, *points);
      if (!found) return found.error();
      shifts[m.name] = std::move(*found);
    }
  }
  if (global.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const HistoryMetric& m : *known) {
      nlohmann::json row = {{"metric", m.name}, {"unit", m.unit}, {"runs", m.runs},
                            {"available", m.with_value}, {"last_run", m.last_run}};
      if (o.changes) {
        row["changes"] = nlohmann::json::array();
        for (const Shift& s : shifts[m.name]) row["changes"].push_back(shift_to_json(s));
      }
      j.push_back(row);
    }
    io.out << j.dump(2) << "\n";
    return ExitCode::ok;
  }
  std::size_t w = 6;
  for (const HistoryMetric& m : *known) w = std::max(w, m.name.size());
  std::string out = fmt::format("{:<{}}  {:<8}  {:>6}  {:>9}  {:>8}{}\n", "metric", w, "unit", "runs", "available",
                                "last run", o.changes ? "  level shifts" : "");
  for (const HistoryMetric& m : *known) {
    out += fmt::format("{:<{}}  {:<8}  {:>6}  {:>9}  {:>8}", m.name, w, m.unit, m.runs, m.with_value, m.last_run);
    if (o.changes) {
      std::string s;
      for (const Shift& x : shifts[m.name]) s += fmt::format("{}run {}: {}", s.empty() ? "" : "; ", x.run_id,
                                                             shift_text(x, m.unit));
      out += "  " + (s.empty() ? std::string("none") : s);
    }
    out += "\n";
  }
  if (o.changes) out += fmt::format("\nmethod: {}\n", kChangeMethod);
  out += "show one metric across runs with --metric NAME\n";
  print_text(io.out, out);
  return ExitCode::ok;
}

// --table: the rows' metrics from the store, one table per scenario and rig.
Result<ExitCode> regression_table(const Store& store, const HistoryOptions& o, const GlobalOptions& global, Io io) {
  const RegressionTableSpec* spec = find_regression_table(o.table);
  if (!spec) {
    std::vector<std::string> names;
    for (const RegressionTableSpec& s : regression_table_specs()) names.emplace_back(s.name);
    std::optional<std::string> near = closest_match(o.table, names);
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    return Error::input(fmt::format("unknown table '{}' (known: {}){}", o.table, known,
                                    near ? fmt::format("; did you mean '{}'?", *near) : ""));
  }
  Result<std::vector<HistoryMetric>> known = store.history_metrics(o.scenario, o.rig);
  if (!known) return known.error();
  std::vector<MetricHistory> rows;
  for (const HistoryMetric& m : *known) {
    if (!regression_row_rank(spec->kind, m.name)) continue;
    HistoryOptions all = o;
    all.limit = 0;  // the newest nights are picked per series, not over every rig at once
    Result<std::vector<HistoryPoint>> points = load_points(store, all, m.name);
    if (!points) return points.error();
    rows.push_back({m.name, std::move(*points)});
  }
  std::vector<RegressionTable> tables =
      build_regression_tables(*spec, rows, o.limit > 0 ? static_cast<std::size_t>(o.limit) : 7);
  if (global.json) io.out << regression_tables_to_json(tables).dump(2) << "\n";
  else if (o.markdown) print_text(io.out, render_regression_tables_markdown(tables));
  else print_text(io.out, render_regression_tables_text(tables));
  return ExitCode::ok;
}

}  // namespace

Action setup_history(CLI::App& app, const GlobalOptions& global, Io io) {
  auto o = std::make_shared<HistoryOptions>();
  app.add_option("--scenario", o->scenario, "Only runs of this scenario (its [scenario] name)");
  CLI::Option* rig = app.add_option("--rig", o->rig, "Only runs on this rig (its [rig] name)");
  app.add_flag("--all-rigs", o->all_rigs,
               "With --metric: list the runs of every rig together (change points stay per rig)")
      ->excludes(rig);
  app.add_option("--metric", o->metric, "The metric to list across runs");
  app.add_flag("--changes", o->changes, "Mark where the metric's level shifted (change points of a penalised step fit)");
  app.add_option("--limit", o->limit, "Only the newest N runs (with --table: N nights per rig, default 7)")
      ->check(CLI::Range(1, 100000000));
  CLI::Option* table = app.add_option(
      "--table", o->table,
      "Seed 001's regression table, one column per night: bandwidth (sequential, random 4 KiB, burst 64 B - 2 KiB), "
      "compute (peak per precision) or latency (per kernel or layer)");
  app.add_flag("--markdown", o->markdown, "With --table: print Markdown instead of text")->needs(table);
  table->excludes(app.get_option("--metric"));
  return [=, &global]() -> Result<ExitCode> {
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    if (!o->table.empty()) return regression_table(*store, *o, global, io);
    if (o->metric.empty()) return all_metrics(*store, *o, global, io);
    return one_metric(*store, *o, global, io);
  };
}

}  // namespace harness
