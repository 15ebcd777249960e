#include "harness/levels/ddr.h"

#include <nlohmann/json.hpp>

namespace harness {

void to_json(nlohmann::json& j, const DdrRecording& r) {
  j = {{"capture", r.capture}, {"unavailable", r.unavailable}};
}

void from_json(const nlohmann::json& j, DdrRecording& r) {
  r.capture = j.value("capture", "");
  r.unavailable = j.value("unavailable", "");
}

void analyse_ddr(const Scenario& scenario, const DdrRecording* rec, Provenance, Analysis& out) {
  if (!scenario.ddr) {
    out.metrics.push_back(Metric::missing(Level::ddr, "ddr", "",
                                          "the scenario has no [ddr] section (no logic-analyzer source)"));
    return;
  }
  out.metrics.push_back(Metric::missing(Level::ddr, "ddr", "",
                                        rec && !rec->unavailable.empty() ? rec->unavailable
                                                                         : "DDR decoding is not available in this build"));
}

}  // namespace harness
