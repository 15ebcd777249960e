// Stored runs as the Prometheus text exposition format (version 0.0.4), for
// node_exporter's textfile collector: the lab's Prometheus scrapes it and
// Grafana charts it beside the rest of the lab. Reference:
// docs/parts/reports.md "OpenMetrics".
//
// Per run (the newest of each scenario and rig, chosen by the caller):
//   - one gauge family per metric, harness_<name> (characters Prometheus
//     does not allow become '_'), labelled rig, scenario, level, provenance,
//     its unit and description in the HELP line; a metric that is
//     unavailable or categorical has no number and is left out (never 0);
//   - every verdict as a state set (harness_verdict: one series per state,
//     1 for the verdict's, 0 for the others; label check);
//   - the run's status as a state set (harness_run_status), its id
//     (harness_run_id) and start (harness_run_start_timestamp_seconds);
//   - its one judgement (harness/compare/outcome.h, the one compare,
//     history --changes and publish show) as a state set of the four
//     outcomes (harness_judgement: regressed, improved, unchanged, cannot
//     tell), why in harness_judgement_info's labels, and each judged
//     metric's verdict (harness_metric_judgement, label against = nights
//     or reference); a run with no judgement (no earlier night) has none,
//     and a comment says why.
// No sample carries a timestamp: the textfile collector refuses them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/compare/stored_comparison.h"
#include "harness/model/run.h"

namespace harness {

struct JudgedRun {
  JudgedRun(RunRecord r, std::optional<CompareReport> j = std::nullopt, std::string why = "")
      : run(std::move(r)), judged(std::move(j)), unjudged(std::move(why)) {}
  RunRecord run;
  std::optional<CompareReport> judged;  // its default judgement (compare_stored_runs)
  std::string unjudged;                 // why it has none
};

std::string render_openmetrics(const std::vector<JudgedRun>& runs);

// A metric's family name: "load.stress-ng-cpu-1.latency_p95" ->
// "harness_load_stress_ng_cpu_1_latency_p95"; a Prometheus type as a word
// of the name takes an s ("counter.CYCLES" -> "harness_counters_CYCLES").
std::string openmetrics_family(const std::string& metric);

}  // namespace harness
