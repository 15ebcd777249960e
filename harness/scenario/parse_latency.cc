#include "harness/scenario/sections.h"

namespace harness {
namespace {

const std::vector<ExpectableMetric>& latency_expectables() {
  static const std::vector<ExpectableMetric> k = {
      {"latency_p50", "latency_p50", Dimension::time, false, {}},
      {"latency_p95", "latency_p95", Dimension::time, false, {}},
      {"latency_p99", "latency_p99", Dimension::time, false, {}},
      {"latency_mean", "latency_mean", Dimension::time, false, {}},
      {"p95_over_p50", "latency_p95_over_p50", std::nullopt, false, {}},
      {"throughput", "throughput", std::nullopt, false, {}},
  };
  return k;
}

}  // namespace

LatencyConfig read_latency_section(TableReader& r) {
  LatencyConfig c;
  if (auto n = r.integer("iterations", 1, 100'000'000)) c.iterations = *n;
  if (auto n = r.integer("warmup", 0, 1'000'000)) c.warmup = *n;
  if (auto d = r.quantity("min_duration", Dimension::time)) c.min_duration_s = *d;
  if (auto d = r.quantity("timeout", Dimension::time)) c.run_timeout_s = *d;
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, "latency.expect");
    c.expectations = read_expectations(er, Level::latency, latency_expectables());
    (void)er.finish();
  }
  return c;
}

}  // namespace harness
