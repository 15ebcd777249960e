// Two runs shaped like the Whisper case study (seed 000, section 6): day 1
// and day 6, built in code so that report tests have a fixed input with every
// level populated, a failed and an unavailable verdict, and raw samples.
// Figures follow the case study's narrative; they are test data, not
// measurements, and the runs say so in their context.
#pragma once

#include <algorithm>
#include <map>
#include <cmath>
#include <string>
#include <vector>

#include "harness/base/stats.h"
#include "reports/report_model.h"
#include "harness/model/run.h"

namespace harness::testdata {

inline Metric figure(Level level, std::string name, double value, std::string unit, Provenance p,
                     std::string source, Better better = Better::none) {
  return Metric::known(level, std::move(name), value, std::move(unit), p, std::move(source), better);
}

// Deterministic latencies: a body around `median` with a tail that grows
// with `tail` (p95/p50 roughly 1 + tail).
inline std::vector<double> latencies(double median, double tail, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    double u = (i * 37 % n + 0.5) / n;  // a fixed permutation of (0, 1)
    double body = median * (0.97 + 0.06 * u);
    v.push_back(u > 0.9 ? body * (1 + tail * (u - 0.9) * 10) : body);
  }
  return v;
}

// As level 4 writes them: the load, when there is one, is in the source.
inline void add_latency(Analysis& a, const std::string& prefix, const std::string& set_name,
                        const std::vector<double>& lat, const std::string& load = "") {
  std::vector<double> sorted = lat;
  std::sort(sorted.begin(), sorted.end());
  const std::string src = "replay of 200 inferences" + (load.empty() ? "" : " under load \"" + load + "\"");
  double p50 = percentile_sorted(sorted, 50), p95 = percentile_sorted(sorted, 95);
  a.metrics.push_back(figure(Level::latency, prefix + "p50", p50, "s", Provenance::replayed, src, Better::lower));
  a.metrics.push_back(figure(Level::latency, prefix + "p95", p95, "s", Provenance::replayed, src, Better::lower));
  a.metrics.push_back(figure(Level::latency, prefix + "p99", percentile_sorted(sorted, 99), "s", Provenance::replayed,
                             src, Better::lower));
  a.metrics.push_back(figure(Level::latency, prefix + "p95_over_p50", p95 / p50, "1", Provenance::replayed,
                             "p95 / p50", Better::lower));
  a.samples.push_back({Level::latency, set_name, "s", Provenance::replayed, src, Better::lower, lat});
}

// day == 1 or 6.
inline RunRecord case_study_run(int day) {
  const bool after = day == 6;
  RunRecord r;
  r.id = after ? 6 : 1;
  r.scenario_name = "whisper-medium";
  r.scenario_path = "fixtures/case-study/whisper-medium.toml";
  r.scenario_text = "[scenario]\nname = \"whisper-medium\"\n";
  r.scenario_hash = "3f1c9a0d5be27c4480f1e6a2d9b7c3e1f0a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8";
  r.rig = "ryzen-7840hs-lab";
  r.origin = "replay";
  r.status = RunStatus::failed;  // both fail the DQ-activity check
  r.started_at = after ? "2026-11-06T09:00:00.000Z" : "2026-11-01T09:00:00.000Z";
  r.ended_at = after ? "2026-11-06T09:04:10.500Z" : "2026-11-01T09:05:02.250Z";
  r.context = {{"host", "lab-bench-3"}, {"kernel", "Linux 6.1.0-27-amd64"},
               {"npu_driver", after ? "1.3.1" : "1.2.0"}, {"fixture", "synthetic case-study series (test data)"}};

  Analysis& a = r.analysis;
  const Provenance rp = Provenance::replayed;
  // Level 1: a 10 TOPS INT8 ceiling (declared) and LPDDR5X bandwidth.
  a.metrics.push_back(figure(Level::roofline, "ceiling.compute.int8", 10e12, "op/s", Provenance::declared,
                             "scenario rig.compute.int8", Better::higher));
  a.metrics.push_back(figure(Level::roofline, "ceiling.memory.lpddr5x", 52e9, "B/s", rp, "membw:seq_read (median of 5)",
                             Better::higher));
  a.metrics.push_back(figure(Level::roofline, "ridge.int8.lpddr5x", 10e12 / 52e9, "op/B", rp,
                             "ceiling.compute.int8 / ceiling.memory.lpddr5x"));
  const double ai = after ? 0.095 : 0.012, util = after ? 0.73 : 0.29;
  a.metrics.push_back(figure(Level::roofline, "encoder.intensity", ai, "op/B", rp, "flops / bytes", Better::higher));
  a.metrics.push_back(figure(Level::roofline, "encoder.achieved", 52e9 * ai * util, "op/s", rp, "flops / time",
                             Better::higher));
  a.metrics.push_back(figure(Level::roofline, "encoder.utilisation", util, "1", rp, "achieved / attainable",
                             Better::higher));
  Metric bound = figure(Level::roofline, "encoder.bound", 0, "", rp, "binding ceiling: lpddr5x");
  bound.text = "memory";
  a.metrics.push_back(bound);
  a.metrics.push_back(Metric::missing(Level::roofline, "decoder.achieved", "op/s", "no timing source for a declared kernel",
                                      Better::higher));
  a.metrics.push_back(figure(Level::roofline, "decoder.intensity", 0.4, "op/B", Provenance::declared, "declared",
                             Better::higher));

  // Level 2: stall counters.
  a.metrics.push_back(figure(Level::counters, "counter.mem_stall_cycles", after ? 3.1e9 : 8.7e9, "", rp,
                             "sysfs:/sys/kernel/debug/npu/pmu: after - before", Better::lower));
  a.metrics.push_back(figure(Level::counters, "counter.l2_miss_cycles", after ? 1.9e9 : 4.7e9, "", rp,
                             "sysfs:/sys/kernel/debug/npu/pmu: after - before", Better::lower));
  a.metrics.push_back(Metric::missing(Level::counters, "counter.alu_stall_cycles", "",
                                      "the PMU file has no ALU_STALL_CYCLES line", Better::lower));

  // Level 3: DDR bus.
  a.metrics.push_back(figure(Level::ddr, "ddr.dq_active_ratio", after ? 0.68 : 0.32, "1", rp,
                             "capture ddr.sr: DQ toggling time / capture time", Better::higher));
  std::vector<double> bursts, intervals, timeline;
  for (int i = 0; i < 64; ++i) {
    bursts.push_back(after ? (i % 16 == 0 ? 64 : 128) : (i % 3 == 0 ? 128 : (i % 3 == 1 ? 32 : 64)));
    intervals.push_back((after ? 6e-9 : 14e-9) * (1 + (i * 7 % 10) / 10.0));
  }
  for (int i = 0; i < 24; ++i) timeline.push_back(after ? 0.64 + 0.04 * ((i * 5 % 7) / 7.0) : (i % 6 == 0 ? 0.9 : 0.12));
  // Level 3 counts the transactions of each size (harness/levels/ddr.cc).
  std::map<int, int> sizes;
  for (double b : bursts) ++sizes[static_cast<int>(b)];
  a.metrics.push_back(figure(Level::ddr, "ddr.transactions", static_cast<double>(bursts.size()), "1", rp,
                             "capture ddr.sr", Better::none));
  for (auto [bytes, n] : sizes) {
    a.metrics.push_back(figure(Level::ddr, "ddr.transactions." + std::to_string(bytes) + "B", n, "1", rp,
                               "capture ddr.sr", Better::none));
  }
  a.samples.push_back({Level::ddr, "ddr.read_interval", "s", rp, "capture ddr.sr", Better::lower, intervals});
  a.samples.push_back({Level::ddr, "ddr.dq_active_timeline", "1", rp, "capture ddr.sr: DQS toggles, windows of 1 us",
                       Better::higher, timeline});

  // Level 4: latency without and with background load; no power source.
  add_latency(a, "latency_", "latency", latencies(after ? 0.640 : 1.05, after ? 0.08 : 0.9, 200));
  add_latency(a, "load.stress-cpu4.latency_", "load.stress-cpu4.latency",
              latencies(after ? 0.655 : 1.12, after ? 0.1 : 1.8, 200), "stress-ng --cpu 4");
  a.metrics.push_back(Metric::missing(Level::latency, "power_mean", "W", "no power source on this rig", Better::lower));

  auto verdict = [&](Level l, std::string check, std::string expected, std::string measured, VerdictStatus s,
                     std::string detail = "") {
    a.verdicts.push_back({l, std::move(check), std::move(expected), std::move(measured), s, std::move(detail)});
  };
  verdict(Level::roofline, "roofline.expect.encoder.intensity_min", ">= 0.08", after ? "0.095" : "0.012",
          after ? VerdictStatus::pass : VerdictStatus::fail);
  verdict(Level::ddr, "ddr.expect.dq_active_ratio_min", ">= 0.7", after ? "0.68" : "0.32", VerdictStatus::fail,
          "DQ bus active < 70 % of the capture: look for gaps between read bursts");
  const double p95 = *a.find_metric("latency_p95")->value;
  verdict(Level::latency, "latency.expect.p95_max", "<= 800 ms", figure_text(p95, "s"),
          p95 <= 0.8 ? VerdictStatus::pass : VerdictStatus::fail);
  verdict(Level::latency, "latency.expect.efficiency_min", ">= 2.1 x baseline", "unavailable: no power source on this rig",
          VerdictStatus::unavailable);
  a.hints.push_back("levels 1-3 improved but power is unavailable: efficiency cannot be judged");
  return r;
}

}  // namespace harness::testdata
