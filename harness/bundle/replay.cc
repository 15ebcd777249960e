#include "harness/bundle/replay.h"

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "harness/compare/compare.h"
#include "harness/levels/analyse.h"
#include "harness/model/analysis_json.h"

namespace harness {

Result<RunRecord> replay_bundle(const LoadedBundle& b) {
  // Named as the bundle names it, so that positions in messages ("scenario.toml:56:23")
  // do not depend on where the bundle was copied to.
  // Its counter groups resolve inside the bundle (BundleScope).
  const BundleScope scope{b.dir, b.files};
  Result<Scenario> scenario = parse_scenario(b.scenario_text, "scenario.toml", &scope);
  if (!scenario) return scenario.error();
  RunRecord run;
  run.scenario_name = scenario->name;
  run.scenario_path = b.dir + "/scenario.toml";
  run.scenario_text = b.scenario_text;
  run.scenario_hash = sha256_hex(b.scenario_text);
  run.rig = scenario->rig.name;
  run.origin = "replay";
  run.started_at = b.manifest.started_at;
  run.ended_at = b.manifest.ended_at;
  run.context = b.recording.context;
  run.context["recording.path"] = b.dir;
  if (!b.manifest.provenance.empty()) run.context["recording.provenance"] = b.manifest.provenance;
  run.recording_json = nlohmann::json(b.recording).dump();
  run.analysis = analyse(*scenario, b.recording, Provenance::replayed);
  add_reference_verdicts(scenario->compare.value_or(CompareConfig{}), run.analysis);
  if (!b.recording.aborted.empty()) {
    run.status = RunStatus::aborted;
    run.reason = b.recording.aborted;
  } else {
    run.status = status_from_verdicts(run.analysis.verdicts);
    if (run.status == RunStatus::failed) run.reason = "a verdict failed";
  }
  return run;
}

nlohmann::json analysis_fingerprint(const Analysis& a) {
  nlohmann::json j;
  j["metrics"] = nlohmann::json::array();
  for (const Metric& m : a.metrics) j["metrics"].push_back(metric_to_json(m));
  j["verdicts"] = nlohmann::json::array();
  for (const Verdict& v : a.verdicts) j["verdicts"].push_back(verdict_to_json(v));
  j["hints"] = a.hints;
  return j;
}

std::string describe_fingerprint_difference(const nlohmann::json& expected, const nlohmann::json& actual) {
  std::string out;
  auto by_key = [](const nlohmann::json& list, const char* key) {
    std::map<std::string, nlohmann::json> m;
    if (list.is_array())
      for (const auto& e : list) m[e.value(key, "")] = e;
    return m;
  };
  for (const char* section : {"metrics", "verdicts"}) {
    const char* key = std::string_view(section) == "metrics" ? "name" : "check";
    auto want = by_key(expected.value(section, nlohmann::json::array()), key);
    auto got = by_key(actual.value(section, nlohmann::json::array()), key);
    std::string noun = std::string_view(section) == "metrics" ? "metric" : "verdict";
    for (const auto& [name, w] : want) {
      auto it = got.find(name);
      if (it == got.end()) {
        out += fmt::format("{} {}: expected but missing\n", noun, name);
        continue;
      }
      for (const auto& [field, value] : w.items()) {
        nlohmann::json other = it->second.value(field, nlohmann::json());
        if (other != value) out += fmt::format("{} {}: {} {} expected {}\n", noun, name, field, other.dump(), value.dump());
      }
    }
    for (const auto& [name, g] : got) {
      if (!want.count(name)) out += fmt::format("{} {}: not expected\n", noun, name);
    }
  }
  if (expected.value("hints", nlohmann::json::array()) != actual.value("hints", nlohmann::json::array())) {
    out += fmt::format("hints: {} expected {}\n", actual.value("hints", nlohmann::json()).dump(),
                       expected.value("hints", nlohmann::json()).dump());
  }
  return out;
}

}  // namespace harness
