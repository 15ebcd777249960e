#include "harness/levels/recording.h"

#include <nlohmann/json.hpp>

namespace harness {

void to_json(nlohmann::json& j, const Recording& r) {
  j = {{"format_version", Recording::kFormatVersion},
       {"context", r.context},
       {"started_at", r.started_at},
       {"ended_at", r.ended_at},
       {"aborted", r.aborted}};
  if (r.roofline) j["roofline"] = *r.roofline;
  if (r.counters) j["counters"] = *r.counters;
  if (r.ddr) j["ddr"] = *r.ddr;
  if (r.latency) j["latency"] = *r.latency;
  j["files"] = nlohmann::json::array();
  for (const RecordedFile& f : r.files) j["files"].push_back({{"name", f.name}, {"kind", f.kind}});
}

void from_json(const nlohmann::json& j, Recording& r) {
  r.context = j.at("context").get<std::map<std::string, std::string>>();
  r.started_at = j.value("started_at", "");
  r.ended_at = j.value("ended_at", "");
  r.aborted = j.value("aborted", "");
  if (j.contains("roofline")) r.roofline = j["roofline"].get<RooflineRecording>();
  if (j.contains("counters")) r.counters = j["counters"].get<CountersRecording>();
  if (j.contains("ddr")) r.ddr = j["ddr"].get<DdrRecording>();
  if (j.contains("latency")) r.latency = j["latency"].get<LatencyRecording>();
  if (j.contains("files")) {
    for (const auto& f : j["files"]) r.files.push_back({f.at("name"), f.at("kind")});
  }
}

}  // namespace harness
