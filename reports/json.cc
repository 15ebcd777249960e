#include "reports/json.h"

namespace harness {

nlohmann::json run_to_json(const RunRecord& run) {
  nlohmann::json j = {{"id", run.id},
                      {"uuid", run.uuid},
                      {"scenario", {{"name", run.scenario_name}, {"path", run.scenario_path},
                                    {"sha256", run.scenario_hash}}},
                      {"rig", run.rig},
                      {"origin", run.origin},
                      {"status", run_status_name(run.status)},
                      {"reason", run.reason},
                      {"started_at", run.started_at},
                      {"ended_at", run.ended_at},
                      {"context", run.context}};
  j["metrics"] = nlohmann::json::array();
  for (const Metric& m : run.analysis.metrics) j["metrics"].push_back(metric_to_json(m));
  j["samples"] = nlohmann::json::array();
  for (const SampleSet& s : run.analysis.samples) {
    j["samples"].push_back({{"level", level_name(s.level)}, {"name", s.name}, {"unit", s.unit},
                            {"provenance", provenance_name(s.provenance)}, {"source", s.source},
                            {"count", s.values.size()}});
  }
  j["verdicts"] = nlohmann::json::array();
  for (const Verdict& v : run.analysis.verdicts) j["verdicts"].push_back(verdict_to_json(v));
  j["hints"] = run.analysis.hints;
  j["artifacts"] = nlohmann::json::array();
  for (const Artifact& a : run.artifacts) {
    j["artifacts"].push_back({{"name", a.name}, {"path", a.path}, {"size", a.size}, {"sha256", a.sha256},
                              {"kind", a.kind}});
  }
  return j;
}

nlohmann::json run_list_to_json(const std::vector<RunSummary>& runs) {
  nlohmann::json j = nlohmann::json::array();
  for (const RunSummary& r : runs) {
    j.push_back({{"id", r.id}, {"uuid", r.uuid}, {"scenario", r.scenario_name}, {"rig", r.rig}, {"origin", r.origin},
                 {"status", run_status_name(r.status)}, {"reason", r.reason}, {"started_at", r.started_at},
                 {"ended_at", r.ended_at}, {"metrics", r.metric_count}, {"verdicts_failed", r.verdicts_failed}});
  }
  return j;
}

}  // namespace harness
