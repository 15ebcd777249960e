// The run one of several concurrent writers inserts (the store's concurrency
// test, and build/store_writers for scripts/bench-store): `metrics` latency
// metrics and a set of 1,000 samples, told apart by writer and number.
#pragma once

#include <vector>

#include <fmt/format.h>

#include "harness/model/run.h"

namespace harness::testing_support {

inline RunRecord writer_run(int writer, int n, int metrics) {
  RunRecord r;
  r.scenario_name = "host";
  r.scenario_path = "scenarios/host.toml";
  r.scenario_hash = "h";
  r.rig = fmt::format("rig-{}", writer);
  r.status = RunStatus::passed;
  r.started_at = fmt::format("2026-12-01T00:{:02}:{:02}Z", writer % 60, n % 60);
  r.ended_at = r.started_at;
  for (int i = 0; i < metrics; ++i) {
    Metric m;
    m.level = Level::latency;
    m.name = fmt::format("metric_{}", i);
    m.value = writer * 1000.0 + n + i / 100.0;
    m.unit = "s";
    m.better = Better::lower;
    r.analysis.metrics.push_back(m);
  }
  r.analysis.samples.push_back({Level::latency, "latency", "s", Provenance::measured, "builtin:gemm", Better::lower,
                                std::vector<double>(1000, 0.001 * (n + 1))});
  return r;
}

}  // namespace harness::testing_support
