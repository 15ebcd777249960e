#include "harness/levels/recording.h"

#include <nlohmann/json.hpp>

#include "harness/levels/level_table.h"

namespace harness {
namespace {

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
std::optional<double> optional_number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<double>();
}

nlohmann::json rig_to_json(const RigRecording& r) {
  nlohmann::json syncs = nlohmann::json::array();
  for (const auto& s : r.syncs) {
    syncs.push_back({{"when", s.when}, {"offset_ns", s.offset_ns}, {"uncertainty_ns", s.uncertainty_ns},
                     {"rtt_ns", s.rtt_ns}, {"probes", s.probes}});
  }
  nlohmann::json j = {{"name", r.name},         {"transport", r.transport}, {"agent_version", r.agent_version},
                      {"protocol", r.protocol}, {"missing", r.missing},     {"syncs", syncs}};
  if (r.window) {
    const auto& w = *r.window;
    j["window"] = {{"level", w.level},
                   {"condition", w.condition},
                   {"origin_host_ns", w.origin_host_ns},
                   {"closed_s", w.closed_s},
                   {"iterations_start_s", w.iterations_start_s},
                   {"iterations_end_s", w.iterations_end_s},
                   {"iterations_origin_s", w.iterations_origin_s},
                   {"capture_start_s", optional_number(w.capture_start_s)},
                   {"capture_end_s", optional_number(w.capture_end_s)},
                   {"power_start_s", optional_number(w.power_start_s)},
                   {"power_end_s", optional_number(w.power_end_s)}};
  }
  return j;
}

RigRecording rig_from_json(const nlohmann::json& j) {
  RigRecording r;
  r.name = j.value("name", "");
  r.transport = j.value("transport", "");
  r.agent_version = j.value("agent_version", "");
  r.protocol = j.value("protocol", 0);
  r.missing = j.value("missing", std::vector<std::string>{});
  for (const auto& s : j.value("syncs", nlohmann::json::array())) {
    r.syncs.push_back({s.value("when", ""), s.value("offset_ns", std::int64_t{0}),
                       s.value("uncertainty_ns", std::uint64_t{0}), s.value("rtt_ns", std::uint64_t{0}),
                       s.value("probes", 0)});
  }
  if (j.contains("window") && j["window"].is_object()) {
    const auto& w = j["window"];
    RigRecording::Window win;
    win.level = w.value("level", "");
    win.condition = w.value("condition", "");
    win.origin_host_ns = w.value("origin_host_ns", std::uint64_t{0});
    win.closed_s = w.value("closed_s", 0.0);
    win.iterations_start_s = w.value("iterations_start_s", 0.0);
    win.iterations_end_s = w.value("iterations_end_s", 0.0);
    win.iterations_origin_s = w.value("iterations_origin_s", 0.0);
    win.capture_start_s = optional_number(w, "capture_start_s");
    win.capture_end_s = optional_number(w, "capture_end_s");
    win.power_start_s = optional_number(w, "power_start_s");
    win.power_end_s = optional_number(w, "power_end_s");
    r.window = win;
  }
  return r;
}

}  // namespace

void to_json(nlohmann::json& j, const Recording& r) {
  j = {{"format_version", Recording::kFormatVersion},
       {"context", r.context},
       {"started_at", r.started_at},
       {"ended_at", r.ended_at},
       {"aborted", r.aborted}};
  for (const LevelRow& row : level_table()) row.recording.save(r, std::string(level_name(row.level)), j);
  if (r.rig) j["rig"] = rig_to_json(*r.rig);
  if (r.stability) j["stability"] = *r.stability;
  j["files"] = nlohmann::json::array();
  for (const RecordedFile& f : r.files) j["files"].push_back({{"name", f.name}, {"kind", f.kind}});
}

void from_json(const nlohmann::json& j, Recording& r) {
  r.context = j.at("context").get<std::map<std::string, std::string>>();
  r.started_at = j.value("started_at", "");
  r.ended_at = j.value("ended_at", "");
  r.aborted = j.value("aborted", "");
  for (const LevelRow& row : level_table()) row.recording.load(j, std::string(level_name(row.level)), r);
  if (j.contains("rig")) r.rig = rig_from_json(j["rig"]);
  if (j.contains("stability")) r.stability = j["stability"].get<StabilityRecording>();
  if (j.contains("files")) {
    for (const auto& f : j["files"]) r.files.push_back({f.at("name"), f.at("kind")});
  }
}

}  // namespace harness
