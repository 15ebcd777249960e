// A metric across runs: `history` and the noise bands of compare.
#include <algorithm>

#include <fmt/format.h>

#include "harness/store/store.h"
#include "harness/store/store_internal.h"

namespace harness {

using sql::Params;
using namespace store_internal;

Result<std::vector<HistoryPoint>> Store::metric_history(const HistoryQuery& h) const {
  // Read oldest first, as handed out; newest first when a limit keeps the
  // newest, then reversed. Only the filters given are in the statements, so
  // that an index serves them: the metric's rows of one rig come from
  // metrics_by_rig (rig, then scenario, then run: schema 7), those across
  // rigs from metrics_history; the runs from runs_history. The texts are
  // copied from the rows' views.
  const bool newest_first = h.limit > 0;
  const std::string order = newest_first ? " DESC" : "";
  const std::int64_t limit = newest_first ? static_cast<std::int64_t>(h.limit) : kNoLimit;
  std::string metric_where = "m.name = ?";
  Params metric_params = {h.metric};
  if (!h.rig.empty()) {
    metric_where += " AND m.rig = ?", metric_params.push_back(h.rig);
    if (!h.scenario.empty()) metric_where += " AND m.scenario_name = ?", metric_params.push_back(h.scenario);
  }
  if (h.before_run > 0) metric_where += " AND m.run_id < ?", metric_params.push_back(h.before_run);
  std::string run_where = "r.status IN ('passed', 'failed')";
  Params run_params;
  if (!h.scenario.empty()) run_where += " AND r.scenario_name = ?", run_params.push_back(h.scenario);
  if (!h.rig.empty()) run_where += " AND r.rig = ?", run_params.push_back(h.rig);
  if (h.before_run > 0) run_where += " AND r.id < ?", run_params.push_back(h.before_run);
  if (h.live_only) run_where += " AND r.origin = 'live'";

  // A filtered scenario or rig is the filter's text (equality on text is
  // byte for byte on both engines), not a column read 100,000 times.
  std::string run_columns = "r.id, r.started_at, r.origin";
  if (h.scenario.empty()) run_columns += ", r.scenario_name";
  if (h.rig.empty()) run_columns += ", r.rig";
  auto read_run = [&](HistoryPoint& p, const sql::Rows& row, int id_column) {
    int c = id_column;
    p.run_id = row.int64(c++);
    p.started_at = row.text_view(c++);
    p.origin = row.text_view(c++);
    p.scenario_name = h.scenario.empty() ? row.text_view(c++) : std::string_view(h.scenario);
    p.rig = h.rig.empty() ? row.text_view(c++) : std::string_view(h.rig);
  };
  auto read_metric = [](HistoryPoint& p, const sql::Rows& row, int value_column) {
    if (!row.is_null(value_column)) p.value = row.real(value_column);
    p.unit = row.text_view(value_column + 1);
    p.provenance = row.text_view(value_column + 2);
    p.unavailable = row.text_view(value_column + 3);
  };

  std::vector<HistoryPoint> out;
  if (!is_postgres()) {
    // SQLite has no merge join: joined in SQL it looks each metric row's run
    // up in the runs table, whose rows hold the scenario text (wide). The
    // store merges the two index walks itself instead, as PostgreSQL does,
    // stepping both statements in run order. Counting the runs first sizes
    // the points once (100,000 of them grown by doubling were a sixth of the
    // time).
    {
      HARNESS_STORE_LET(c, db_->query("SELECT count(*) FROM runs r WHERE " + run_where, run_params));
      if (c->next()) out.reserve(static_cast<std::size_t>(std::min(c->int64(0), limit)));
      HARNESS_TRY(c->status());
    }
    // The indexes are named: without statistics SQLite scans the runs table
    // (wide rows) for a rig without a scenario, and takes metrics_history
    // for "name = ? AND rig = ?", reading a table row per point.
    HARNESS_STORE_LET(r, db_->query("SELECT " + run_columns + " FROM runs r INDEXED BY runs_history WHERE " +
                                        run_where + " ORDER BY r.id" + order,
                                    run_params));
    HARNESS_STORE_LET(q, db_->query("SELECT m.run_id, m.value, m.unit, m.provenance, m.unavailable FROM metrics m "
                                    "INDEXED BY " + std::string(h.rig.empty() ? "metrics_history" : "metrics_by_rig") +
                                        " WHERE " + metric_where + " ORDER BY m.run_id" + order,
                                    metric_params));
    auto before = [&](std::int64_t run, std::int64_t metric_run) {  // the run comes before the metric's in the walk
      return newest_first ? run > metric_run : run < metric_run;
    };
    bool more_runs = r->next();
    std::int64_t run_id = more_runs ? r->int64(0) : 0;
    while (more_runs && static_cast<std::int64_t>(out.size()) < limit && q->next()) {
      const std::int64_t id = q->int64(0);
      while (more_runs && before(run_id, id)) {
        more_runs = r->next();
        if (more_runs) run_id = r->int64(0);
      }
      if (!more_runs || run_id != id) continue;  // a run the filters leave out
      HistoryPoint& p = out.emplace_back();
      read_run(p, *r, 0);
      read_metric(p, *q, 1);
    }
    HARNESS_TRY(r->status());
    HARNESS_TRY(q->status());
  } else {
    // One rig's metric rows carry their run's status, origin and start
    // (schema 10): the server walks metrics_by_rig alone. Across rigs it
    // merges metrics_history and runs_history.
    Params params = metric_params;
    std::string sql = "SELECT m.value, m.unit, m.provenance, m.unavailable, ";
    if (!h.rig.empty()) {
      sql += "m.run_id, m.started_at, m.origin" + std::string(h.scenario.empty() ? ", m.scenario_name" : "") +
             " FROM metrics m WHERE " + metric_where + " AND m.status IN ('passed', 'failed')" +
             (h.live_only ? " AND m.origin = 'live'" : "");
    } else {
      params.insert(params.end(), run_params.begin(), run_params.end());
      sql += run_columns + " FROM metrics m JOIN runs r ON r.id = m.run_id WHERE " + metric_where + " AND " + run_where;
    }
    sql += " ORDER BY m.run_id" + order;
    if (newest_first) sql += " LIMIT ?", params.push_back(limit);
    HARNESS_STORE_LET(q, db_->query(sql, params));
    if (std::optional<std::size_t> n = q->count()) out.reserve(*n);
    while (q->next()) {
      HistoryPoint& p = out.emplace_back();
      read_metric(p, *q, 0);
      read_run(p, *q, 4);
    }
    HARNESS_TRY(q->status());
  }
  if (newest_first) std::reverse(out.begin(), out.end());
  return out;
}

Result<std::map<std::string, std::vector<double>>> Store::recent_values(const std::string& scenario,
                                                                         const std::string& rig,
                                                                         std::int64_t before_run, int runs) const {
  // The runs history's change points count (cmd_history.cc): live runs, and
  // replays and imports unless an earlier completed run of the same scenario
  // and rig has their start time (a replay of a night already stored repeats
  // it; runs_by_start finds that run). Of those, the values with measured
  // evidence: provenance measured, or replayed (a rig's figures analysed
  // again); declared and model figures are not a run's noise.
  HARNESS_STORE_LET(q, db_->query("SELECT m.name, m.value FROM metrics m WHERE m.value IS NOT NULL "
                                  "AND m.provenance IN ('measured', 'replayed') AND m.run_id IN "
                                  "(SELECT r.id FROM runs r WHERE r.scenario_name = ? AND (? = '' OR r.rig = ?) "
                                  "AND r.status IN ('passed', 'failed') AND r.id < ? AND (r.origin = 'live' OR "
                                  "NOT EXISTS (SELECT 1 FROM runs e WHERE e.scenario_name = r.scenario_name "
                                  "AND e.rig = r.rig AND e.started_at = r.started_at AND e.id < r.id "
                                  "AND e.status IN ('passed', 'failed'))) "
                                  "ORDER BY r.id DESC LIMIT ?) ORDER BY m.run_id",
                                  {scenario, rig, rig, before_run, runs}));
  std::map<std::string, std::vector<double>> out;
  while (q->next()) out[q->text(0)].push_back(q->real(1));
  HARNESS_TRY(q->status());
  return out;
}

Result<std::vector<HistoryMetric>> Store::history_metrics(const std::string& scenario, const std::string& rig) const {
  HARNESS_STORE_LET(q, db_->query("SELECT m.name, max(m.unit), count(*), count(m.value), max(r.id) "
                                  "FROM metrics m JOIN runs r ON r.id = m.run_id "
                                  "WHERE (? = '' OR r.scenario_name = ?) AND (? = '' OR r.rig = ?) "
                                  "AND r.status IN ('passed', 'failed') GROUP BY m.name ORDER BY m.name",
                                  {scenario, scenario, rig, rig}));
  std::vector<HistoryMetric> out;
  while (q->next()) {
    out.push_back({q->text(0), q->text(1), static_cast<int>(q->int64(2)), static_cast<int>(q->int64(3)),
                   q->int64(4)});
  }
  HARNESS_TRY(q->status());
  return out;
}

Result<std::map<std::string, std::vector<HistoryPoint>>> Store::all_metric_history(const std::string& scenario,
                                                                                   const std::string& rig) const {
  return all_metric_history_after(0, scenario, rig);
}

Result<std::map<std::string, std::vector<HistoryPoint>>> Store::all_metric_history_after(
    std::int64_t after_run, const std::string& scenario, const std::string& rig) const {
  HARNESS_STORE_LET(q, db_->query("SELECT m.name, r.id, r.started_at, r.origin, r.scenario_name, r.rig, m.value, m.unit, "
                                  "m.provenance, m.unavailable FROM metrics m JOIN runs r ON r.id = m.run_id "
                                  "WHERE m.run_id > ? AND (? = '' OR r.scenario_name = ?) AND (? = '' OR r.rig = ?) "
                                  "AND r.status IN ('passed', 'failed') ORDER BY m.run_id",
                                  {after_run, scenario, scenario, rig, rig}));
  std::map<std::string, std::vector<HistoryPoint>> out;
  std::string name;
  std::vector<HistoryPoint>* points = nullptr;
  while (q->next()) {
    std::string n = q->text(0);
    if (!points || name != n) {
      name = std::move(n);
      points = &out[name];
    }
    HistoryPoint p;
    p.run_id = q->int64(1);
    p.started_at = q->text(2);
    p.origin = q->text(3);
    p.scenario_name = q->text(4);
    p.rig = q->text(5);
    if (!q->is_null(6)) p.value = q->real(6);
    p.unit = q->text(7);
    p.provenance = q->text(8);
    p.unavailable = q->text(9);
    points->push_back(std::move(p));
  }
  HARNESS_TRY(q->status());
  return out;
}

Status Store::visit_metric_values_after(std::int64_t after_run, const std::string& scenario, const std::string& rig,
                                        MetricValueVisitor& visitor) const {
  HARNESS_STORE_LET(q, db_->query("SELECT m.run_id, m.name, m.value, m.unit, m.provenance, m.unavailable "
                                  "FROM metrics m JOIN runs r ON r.id = m.run_id "
                                  "WHERE m.run_id > ? AND (? = '' OR r.scenario_name = ?) AND (? = '' OR r.rig = ?) "
                                  "AND r.status IN ('passed', 'failed') ORDER BY m.run_id",
                                  {after_run, scenario, scenario, rig, rig}));
  MetricValueRow row;
  while (q->next()) {
    row.run_id = q->int64(0);
    row.name = q->text(1);
    row.value.reset();
    if (!q->is_null(2)) row.value = q->real(2);
    row.unit = q->text(3);
    row.provenance = q->text(4);
    row.unavailable = q->text(5);
    visitor.value(row);
  }
  return q->status();
}

}  // namespace harness
