// Baselines (one or several runs under a name, per scenario and rig) and
// acknowledged regressions.
#include <fmt/format.h>

#include "harness/store/store.h"
#include "harness/store/store_internal.h"

namespace harness {

using namespace store_internal;

Result<std::optional<std::int64_t>> Store::set_baseline(const std::string& name, std::int64_t run_id,
                                                        const std::string& set_at) {
  return set_baseline(name, std::vector<std::int64_t>{run_id}, set_at);
}

Result<std::optional<std::int64_t>> Store::set_baseline(const std::string& name, const std::vector<std::int64_t>& runs,
                                                        const std::string& set_at) {
  if (runs.empty()) return Error::input("a baseline needs at least one run");
  HARNESS_STORE_LET(tx, sql::Transaction::begin(*db_));
  std::string scenario, rig;
  std::int64_t newest = 0;
  for (std::int64_t run_id : runs) {
    HARNESS_STORE_LET(run, db_->query(fmt::format("SELECT scenario_name, rig, status, {} FROM runs WHERE id = ?",
                                                  kOwnerColumns),
                                      {run_id}));
    if (!run->next()) {
      HARNESS_TRY(run->status());
      return Error::input(fmt::format("store {}: no run with id {}", path_, run_id));
    }
    std::string run_scenario = run->text(0);
    std::string run_rig = run->text(1);
    std::string ignored_reason;
    std::string status(run_status_name(effective_status(*run, 2, 3, ignored_reason)));
    if (status != "passed" && status != "failed") {
      return Error::input(fmt::format("run {} is {}: only a completed run (passed or failed) can be a baseline",
                                      run_id, status));
    }
    if (newest == 0) {
      scenario = run_scenario;
      rig = run_rig;
    } else if (run_scenario != scenario || run_rig != rig) {
      return Error::input(fmt::format(
          "run {} is scenario '{}' on rig '{}', run {} is scenario '{}' on rig '{}': the runs of a baseline "
          "share one scenario and one rig",
          run_id, run_scenario, run_rig, runs.front(), scenario, rig));
    }
    newest = std::max(newest, run_id);
  }
  std::optional<std::int64_t> previous;
  {
    HARNESS_STORE_LET(old, db_->query("SELECT run_id FROM baselines WHERE scenario_name = ? AND rig = ? AND name = ?",
                                      {scenario, rig, name}));
    if (old->next()) previous = old->int64(0);
    HARNESS_TRY(old->status());
  }
  HARNESS_TRY(db_->run("INSERT INTO baselines (scenario_name, rig, name, run_id, set_at) VALUES (?,?,?,?,?) "
                       "ON CONFLICT (scenario_name, rig, name) DO UPDATE SET run_id = excluded.run_id, "
                       "set_at = excluded.set_at",
                       {scenario, rig, name, newest, set_at}));
  HARNESS_TRY(db_->run("DELETE FROM baseline_runs WHERE scenario_name = ? AND rig = ? AND name = ?",
                       {scenario, rig, name}));
  for (std::int64_t run_id : runs) {
    HARNESS_TRY(db_->run("INSERT INTO baseline_runs (scenario_name, rig, name, run_id) VALUES (?,?,?,?) "
                         "ON CONFLICT DO NOTHING",
                         {scenario, rig, name, run_id}));
  }
  HARNESS_TRY(tx.commit());
  return previous;
}

Status Store::acknowledge(const Acknowledgement& a) {
  HARNESS_TRY(db_->run("INSERT INTO baseline_acks (scenario_name, rig, name, metric, baseline_run, acked_by, acked_at, "
                       "reason) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (scenario_name, rig, name, metric, baseline_run) "
                       "DO UPDATE SET acked_by = excluded.acked_by, acked_at = excluded.acked_at, "
                       "reason = excluded.reason",
                       {a.scenario_name, a.rig, a.baseline, a.metric, a.baseline_run, a.by, a.at, a.reason}));
  return ok();
}

Result<std::vector<Acknowledgement>> Store::acknowledgements(const std::string& baseline, const std::string& scenario,
                                                             const std::string& rig) const {
  HARNESS_STORE_LET(q, db_->query("SELECT a.metric, a.baseline_run, a.acked_by, a.acked_at, a.reason FROM "
                                  "baseline_acks a JOIN baselines b ON b.scenario_name = a.scenario_name AND "
                                  "b.rig = a.rig AND b.name = a.name AND b.run_id = a.baseline_run WHERE a.name = ? "
                                  "AND a.scenario_name = ? AND a.rig = ? ORDER BY a.metric",
                                  {baseline, scenario, rig}));
  std::vector<Acknowledgement> out;
  while (q->next()) {
    out.push_back({baseline, scenario, rig, q->text(0), q->int64(1), q->text(2), q->text(3), q->text(4)});
  }
  HARNESS_TRY(q->status());
  return out;
}

Result<std::vector<Baseline>> Store::list_baselines(const std::string& name) const {
  std::vector<Baseline> out;
  {
    HARNESS_STORE_LET(q, db_->query("SELECT name, scenario_name, rig, run_id, set_at FROM baselines "
                                    "WHERE ? = '' OR name = ? ORDER BY name, scenario_name, rig",
                                    {name, name}));
    while (q->next()) out.push_back({q->text(0), q->text(1), q->text(2), q->int64(3), q->text(4), {}});
    HARNESS_TRY(q->status());
  }
  for (Baseline& b : out) {
    HARNESS_STORE_LET(m, db_->query("SELECT run_id FROM baseline_runs WHERE scenario_name = ? AND rig = ? "
                                    "AND name = ? ORDER BY run_id",
                                    {b.scenario_name, b.rig, b.name}));
    while (m->next()) b.runs.push_back(m->int64(0));
    HARNESS_TRY(m->status());
    if (b.runs.empty()) b.runs.push_back(b.run_id);
  }
  return out;
}

}  // namespace harness
