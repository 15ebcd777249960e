#include "harness/model/analysis_json.h"

namespace harness {

nlohmann::json metric_to_json(const Metric& m) {
  nlohmann::json j = {{"level", level_name(m.level)}, {"name", m.name}, {"unit", m.unit},
                      {"provenance", provenance_name(m.provenance)}, {"source", m.source},
                      {"better", better_name(m.better)}};
  j["value"] = m.value ? nlohmann::json(*m.value) : nlohmann::json(nullptr);
  if (!m.text.empty()) j["text"] = m.text;
  if (!m.value) j["unavailable"] = m.unavailable;
  return j;
}

nlohmann::json verdict_to_json(const Verdict& v) {
  return {{"level", level_name(v.level)}, {"check", v.check}, {"expected", v.expected},
          {"measured", v.measured}, {"status", verdict_status_name(v.status)}, {"detail", v.detail}};
}

}  // namespace harness
