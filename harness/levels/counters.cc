#include "harness/levels/counters.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace harness {

void to_json(nlohmann::json& j, const CountersRecording& r) {
  j = nlohmann::json::object();
  j["unavailable"] = r.unavailable;
  j["readings"] = nlohmann::json::array();
  for (const CounterReading& c : r.readings) {
    nlohmann::json e = {{"name", c.name}, {"source", c.source}, {"unit", c.unit},
                        {"unavailable", c.unavailable}};
    e["before"] = c.before ? nlohmann::json(*c.before) : nlohmann::json(nullptr);
    e["after"] = c.after ? nlohmann::json(*c.after) : nlohmann::json(nullptr);
    j["readings"].push_back(e);
  }
}

void from_json(const nlohmann::json& j, CountersRecording& r) {
  r.unavailable = j.value("unavailable", "");
  for (const auto& e : j.at("readings")) {
    CounterReading c;
    c.name = e.at("name");
    c.source = e.at("source");
    c.unit = e.value("unit", "");
    c.unavailable = e.value("unavailable", "");
    if (!e.at("before").is_null()) c.before = e.at("before").get<double>();
    if (!e.at("after").is_null()) c.after = e.at("after").get<double>();
    r.readings.push_back(c);
  }
}

void analyse_counters(const Scenario& scenario, const CountersRecording* rec, Provenance measured,
                      Analysis& out) {
  if (!scenario.counters) {
    out.metrics.push_back(Metric::missing(Level::counters, "counters", "",
                                          "the scenario has no [counters] section"));
    return;
  }
  if (!rec || rec->readings.empty()) {
    out.metrics.push_back(Metric::missing(Level::counters, "counters", "",
                                          rec && !rec->unavailable.empty() ? rec->unavailable
                                                                           : "no counter readings recorded"));
    return;
  }
  for (const CounterReading& c : rec->readings) {
    std::string name = "counter." + c.name;
    if (!c.before || !c.after) {
      out.metrics.push_back(Metric::missing(Level::counters, name, c.unit,
                                            c.unavailable.empty() ? "no reading" : c.unavailable,
                                            Better::lower));
      continue;
    }
    if (*c.after < *c.before) {
      out.metrics.push_back(Metric::missing(
          Level::counters, name, c.unit,
          fmt::format("went backwards ({} -> {}): not used", *c.before, *c.after), Better::lower));
      continue;
    }
    Metric m;
    m.level = Level::counters;
    m.name = name;
    m.value = *c.after - *c.before;
    m.unit = c.unit;
    m.provenance = measured;
    m.source = c.source + ": after - before";
    m.better = Better::lower;
    out.metrics.push_back(m);
  }
}

}  // namespace harness
