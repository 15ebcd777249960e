#include "harness/levels/latency.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/stats.h"

namespace harness {

void to_json(nlohmann::json& j, const LatencyRecording& r) {
  j = {{"source", r.source}, {"start_s", r.start_s}, {"latency_s", r.latency_s},
       {"window_s", r.window_s}, {"unavailable", r.unavailable},
       {"power_unavailable", r.power_unavailable}};
}

void from_json(const nlohmann::json& j, LatencyRecording& r) {
  r.source = j.at("source");
  r.start_s = j.at("start_s").get<std::vector<double>>();
  r.latency_s = j.at("latency_s").get<std::vector<double>>();
  r.window_s = j.at("window_s");
  r.unavailable = j.value("unavailable", "");
  r.power_unavailable = j.value("power_unavailable", "");
}

void analyse_latency(const Scenario& scenario, const LatencyRecording* rec, Provenance measured,
                     Analysis& out) {
  auto missing = [&](const std::string& why) {
    for (const char* name : {"latency_p50", "latency_p95", "latency_p99", "latency_mean"})
      out.metrics.push_back(Metric::missing(Level::latency, name, "s", why, Better::lower));
    out.metrics.push_back(Metric::missing(Level::latency, "latency_p95_over_p50", "1", why, Better::lower));
    out.metrics.push_back(Metric::missing(Level::latency, "throughput", "1/s", why, Better::higher));
  };
  if (!scenario.latency) {
    missing("the scenario has no [latency] section");
    return;
  }
  if (!rec || rec->latency_s.empty()) {
    missing(rec && !rec->unavailable.empty() ? rec->unavailable : "no latency samples recorded");
    return;
  }
  std::vector<double> sorted = rec->latency_s;
  std::sort(sorted.begin(), sorted.end());
  auto metric = [&](const std::string& name, double value, const std::string& unit, Better better,
                    const std::string& how) {
    Metric m;
    m.level = Level::latency;
    m.name = name;
    m.value = value;
    m.unit = unit;
    m.provenance = measured;
    m.source = fmt::format("{}: {}", rec->source, how);
    m.better = better;
    out.metrics.push_back(m);
  };
  const std::size_t n = sorted.size();
  const double p50 = percentile_sorted(sorted, 50);
  const double p95 = percentile_sorted(sorted, 95);
  metric("latency_p50", p50, "s", Better::lower, fmt::format("p50 of {} iterations", n));
  metric("latency_p95", p95, "s", Better::lower, fmt::format("p95 of {} iterations", n));
  metric("latency_p99", percentile_sorted(sorted, 99), "s", Better::lower, fmt::format("p99 of {} iterations", n));
  metric("latency_max", sorted.back(), "s", Better::lower, fmt::format("max of {} iterations", n));
  metric("latency_mean", mean(sorted), "s", Better::lower, fmt::format("mean of {} iterations", n));
  metric("latency_p95_over_p50", p95 / p50, "1", Better::lower, "p95 / p50");
  if (rec->window_s > 0) {
    metric("throughput", static_cast<double>(n) / rec->window_s, "1/s", Better::higher,
           "iterations / measured window");
  }
  out.samples.push_back({Level::latency, "latency", "s", measured, rec->source, Better::lower, rec->latency_s});
  out.metrics.push_back(Metric::missing(Level::latency, "power_mean", "W", rec->power_unavailable, Better::lower));
  out.metrics.push_back(Metric::missing(Level::latency, "efficiency", "1/J",
                                        "needs power: " + rec->power_unavailable, Better::higher));
}

}  // namespace harness
