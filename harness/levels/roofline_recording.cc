// A roofline recording (level 1's raw timings and tables) as the agent
// sends it and the store keeps it, apart from the analysis so that the
// device agent (cmake/agent.cmake) links without the profile readers.
#include <nlohmann/json.hpp>

#include "harness/levels/roofline.h"

namespace harness {

const CeilingSamples* RooflineRecording::find_ceiling(const std::string& name) const {
  for (const CeilingSamples& c : ceilings)
    if (c.name == name) return &c;
  return nullptr;
}

const KernelTiming* RooflineRecording::find_kernel(const std::string& name) const {
  for (const KernelTiming& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

void to_json(nlohmann::json& j, const RooflineRecording& r) {
  j = nlohmann::json::object();
  j["ceilings"] = nlohmann::json::array();
  for (const CeilingSamples& c : r.ceilings) {
    j["ceilings"].push_back({{"name", c.name}, {"unit", c.unit}, {"source", c.source},
                             {"values", c.values}, {"unavailable", c.unavailable}});
  }
  j["kernels"] = nlohmann::json::array();
  for (const KernelTiming& k : r.kernels) {
    nlohmann::json& kernel = j["kernels"].emplace_back(
        nlohmann::json{{"name", k.name}, {"seconds", k.seconds}, {"unavailable", k.unavailable}});
    if (!k.reference_seconds.empty()) kernel["reference_seconds"] = k.reference_seconds;
    if (k.runs_per_round > 0) kernel["runs_per_round"] = k.runs_per_round;
  }
  if (!r.pairing.empty()) j["pairing"] = r.pairing;
  j["vendor"] = nlohmann::json::array();
  for (const VendorOutput& v : r.vendor) {
    j["vendor"].push_back({{"tool", v.tool}, {"argv", v.argv}, {"out", v.out}, {"unavailable", v.unavailable}});
  }
  if (r.profile) j["profile"] = {{"path", r.profile->path}, {"text", r.profile->text}};
  if (r.profile_work) j["profile_work"] = {{"path", r.profile_work->path}, {"text", r.profile_work->text}};
}

void from_json(const nlohmann::json& j, RooflineRecording& r) {
  for (const auto& c : j.at("ceilings")) {
    r.ceilings.push_back({c.at("name"), c.at("unit"), c.at("source"),
                          c.at("values").get<std::vector<double>>(), c.value("unavailable", "")});
  }
  for (const auto& k : j.at("kernels")) {
    r.kernels.push_back({k.at("name"), k.at("seconds").get<std::vector<double>>(), k.value("unavailable", ""),
                         k.value("reference_seconds", std::vector<double>{}), k.value("runs_per_round", 0)});
  }
  r.pairing = j.value("pairing", "");
  if (j.contains("vendor")) {
    for (const auto& v : j.at("vendor")) {
      r.vendor.push_back({v.at("tool"), v.at("argv").get<std::vector<std::string>>(), v.value("out", ""),
                          v.value("unavailable", "")});
    }
  }
  if (j.contains("profile")) r.profile = ProfileText{j["profile"].at("path"), j["profile"].at("text")};
  if (j.contains("profile_work"))
    r.profile_work = ProfileText{j["profile_work"].at("path"), j["profile_work"].at("text")};
}

}  // namespace harness
