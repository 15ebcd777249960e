// A rig's calibrations (`harness calibrate`): schema 8's calibrations and
// calibration_metrics tables.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/store/sql/connection.h"
#include "harness/store/store.h"

namespace harness {
namespace {

std::optional<double> maybe(const sql::Rows& r, int column) {
  return r.is_null(column) ? std::nullopt : std::optional<double>(r.real(column));
}

}  // namespace

Result<std::int64_t> Store::insert_calibration(const Calibration& c) {
  Result<sql::Transaction> tx = sql::Transaction::begin(*db_);
  if (!tx) return tx.error();
  Result<std::unique_ptr<sql::Rows>> q =
      db_->query("INSERT INTO calibrations (scenario_name, rig, created_at, runs, comparisons, false_alarms) "
                 "VALUES (?,?,?,?,?,?) RETURNING id",
                 {c.scenario_name, c.rig, c.created_at, nlohmann::json(c.runs).dump(), c.comparisons, c.false_alarms});
  if (!q) return q.error();
  if (!(*q)->next()) {
    HARNESS_TRY((*q)->status());
    return Error::infra(fmt::format("store {}: a new calibration got no id", path_));
  }
  const std::int64_t id = (*q)->int64(0);
  while ((*q)->next()) {
  }
  HARNESS_TRY((*q)->status());
  for (const CalibratedMetric& m : c.metrics) {
    HARNESS_TRY(db_->run("INSERT INTO calibration_metrics (calibration_id, name, scale, sd, df, detectable, paired_sd, "
                         "paired_rounds, paired_detectable, false_alarms) VALUES (?,?,?,?,?,?,?,?,?,?)",
                         {id, m.name, m.scale, m.sd, m.df, m.detectable, m.paired_sd, m.paired_rounds,
                          m.paired_detectable, m.false_alarms}));
  }
  HARNESS_TRY(tx->commit());
  return id;
}

Result<std::optional<Calibration>> Store::latest_calibration(const std::string& scenario, const std::string& rig) const {
  Result<std::unique_ptr<sql::Rows>> q =
      db_->query("SELECT id, created_at, runs, comparisons, false_alarms FROM calibrations "
                 "WHERE scenario_name = ? AND rig = ? ORDER BY id DESC LIMIT 1",
                 {scenario, rig});
  if (!q) return q.error();
  if (!(*q)->next()) {
    HARNESS_TRY((*q)->status());
    return std::optional<Calibration>();
  }
  Calibration c;
  c.id = (*q)->int64(0);
  c.scenario_name = scenario;
  c.rig = rig;
  c.created_at = (*q)->text(1);
  try {
    Result<nlohmann::json> runs =
        parse_bounded_json((*q)->text(2), fmt::format("store {}: calibration {}'s runs", path_, c.id));
    if (!runs) return runs.error();
    for (const nlohmann::json& id : *runs) c.runs.push_back(json_integer<std::int64_t>(id));
  } catch (const nlohmann::json::exception& e) {
    return Error::infra(fmt::format("store {}: calibration {} has a malformed list of runs: {}", path_, c.id, e.what()));
  }
  c.comparisons = (*q)->int64(3);
  c.false_alarms = (*q)->int64(4);
  while ((*q)->next()) {
  }
  HARNESS_TRY((*q)->status());
  Result<std::unique_ptr<sql::Rows>> m =
      db_->query("SELECT name, scale, sd, df, detectable, paired_sd, paired_rounds, paired_detectable, false_alarms "
                 "FROM calibration_metrics WHERE calibration_id = ? ORDER BY name",
                 {c.id});
  if (!m) return m.error();
  while ((*m)->next()) {
    const sql::Rows& r = **m;
    c.metrics.push_back({r.text(0), r.text(1), r.real(2), r.real(3), maybe(r, 4), maybe(r, 5), r.int64(6),
                         maybe(r, 7), r.int64(8)});
  }
  HARNESS_TRY((*m)->status());
  return std::optional<Calibration>(std::move(c));
}

}  // namespace harness
