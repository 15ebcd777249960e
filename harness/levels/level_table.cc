#include "harness/levels/level_table.h"

#include <algorithm>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "harness/levels/accuracy.h"
#include "harness/levels/counters.h"
#include "harness/levels/ddr.h"
#include "harness/levels/diagnostics.h"
#include "harness/levels/latency.h"
#include "harness/levels/roofline.h"

namespace harness {
namespace {

template <class Config>
std::vector<Expectation> expectations_of(const std::optional<Config>& config) {
  return config ? config->expectations : std::vector<Expectation>{};
}

template <class Config, class Judge>
std::vector<Verdict> baseline_of(const std::optional<Config>& config, const Analysis& baseline, const Analysis& current,
                                 Judge judge) {
  return config ? judge(*config, baseline, current) : std::vector<Verdict>{};
}

// The typed member of Recording that holds a level's part (an optional).
template <auto Part>
constexpr RecordingPart part_of_recording() {
  using PartType = typename std::remove_cvref_t<decltype(std::declval<Recording>().*Part)>::value_type;
  return {[](const Recording& r, const std::string& key, nlohmann::json& j) {
            if (r.*Part) j[key] = *(r.*Part);
          },
          [](const nlohmann::json& j, const std::string& key, Recording& r) {
            if (j.contains(key)) r.*Part = j[key].get<PartType>();
          }};
}

constexpr HeadlineFigure kCountersHeadline[] = {
    {"counter.ipc", "IPC"},
    {"counter.mem_stall_ratio", "memory stalls"},
    {"counter.l2_miss_rate", "L2 miss rate"},
    {"counter.llc_load_miss_rate", "LLC load miss rate"},
    {"counter.bytes_per_iteration", "bytes/iteration"},
};
constexpr HeadlineFigure kDdrHeadline[] = {
    {"ddr.bandwidth", "bandwidth"},
    {"ddr.dq_active_ratio", "DQ active"},
    {"ddr.row_hit_rate", "row hits"},
    {"ddr.burst_bytes_mode", "commonest transaction size"},
};
constexpr HeadlineFigure kLatencyHeadline[] = {
    {"latency_p50", "p50"},       {"latency_p95", "p95"},     {"latency_p99", "p99"},
    {"throughput", "throughput"}, {"power_mean", "power"},    {"iterations", "iterations"},
};
constexpr HeadlineFigure kAccuracyHeadline[] = {
    {"accuracy.layers", "layers"},
    {"accuracy.min_cosine", "worst cosine"},
    {"accuracy.min_psnr_db", "worst PSNR"},
};

void ddr_files(const Recording& rec, std::vector<RecordedFile>& out) {
  if (rec.ddr && !rec.ddr->capture.empty())
    out.push_back({rec.ddr->capture, rec.ddr->format == "sr" ? "sigrok-session" : "capture:" + rec.ddr->format});
}

void accuracy_files(const Recording& rec, std::vector<RecordedFile>& out) {
  if (!rec.accuracy) return;
  for (const AccuracyDumpRecording& d : rec.accuracy->dumps)
    for (const auto& f : d.files) out.push_back({f.name, "accuracy-dump:" + d.role});
  if (!rec.accuracy->map.empty()) out.push_back({rec.accuracy->map, "accuracy-layer-map"});
}

const LevelRow kLevels[] = {
    {Level::counters,
     [](const Scenario& s, const Recording& r, Provenance p, Analysis& out) {
       analyse_counters(s, r.counters ? &*r.counters : nullptr, p, out);
     },
     [](const Scenario& s) { return expectations_of(s.counters); },
     &add_counters_verdicts_and_hints,  // baseline placeholders, the seed's diagnostic rule
     [](const Scenario& s, const Analysis& b, const Analysis& c) {
       return baseline_of(s.counters, b, c, &evaluate_counters_baseline);
     },
     "Level 2: counters", part_of_recording<&Recording::counters>(), nullptr, kCountersHeadline},
    {Level::ddr,
     [](const Scenario& s, const Recording& r, Provenance p, Analysis& out) {
       analyse_ddr(s, r.ddr ? &*r.ddr : nullptr, r.base_dir, p, out);
     },
     [](const Scenario& s) { return expectations_of(s.ddr); }, nullptr,
     [](const Scenario& s, const Analysis& b, const Analysis& c) {
       return baseline_of(s.ddr, b, c, &evaluate_ddr_baseline);
     },
     "Level 3: DDR bus", part_of_recording<&Recording::ddr>(), &ddr_files, kDdrHeadline},
    {Level::latency,
     [](const Scenario& s, const Recording& r, Provenance p, Analysis& out) {
       analyse_latency(s, r.latency ? &*r.latency : nullptr, p, out);
     },
     [](const Scenario& s) { return expectations_of(s.latency); }, nullptr,
     [](const Scenario& s, const Analysis& b, const Analysis& c) {
       return baseline_of(s.latency, b, c, &evaluate_latency_baseline);
     },
     "Level 4: latency", part_of_recording<&Recording::latency>(), nullptr, kLatencyHeadline},
    {Level::roofline,
     [](const Scenario& s, const Recording& r, Provenance p, Analysis& out) {
       analyse_roofline(s, r.roofline ? &*r.roofline : nullptr, p, out);
     },
     [](const Scenario& s) { return expectations_of(s.roofline); }, nullptr,
     [](const Scenario& s, const Analysis& b, const Analysis& c) {
       return baseline_of(s.roofline, b, c, &evaluate_roofline_baseline);
     },
     "Level 1: roofline", part_of_recording<&Recording::roofline>(), nullptr, {}},
    {Level::accuracy,
     [](const Scenario& s, const Recording& r, Provenance p, Analysis& out) {
       analyse_accuracy(s, r.accuracy ? &*r.accuracy : nullptr, r.base_dir, p, out);
       add_accuracy_fallback_candidates(s, out);
     },
     [](const Scenario&) { return std::vector<Expectation>{}; },  // its verdicts are its own (per-layer bounds)
     nullptr,
     [](const Scenario& s, const Analysis& b, const Analysis& c) {
       return baseline_of(s.accuracy, b, c, &evaluate_accuracy_baseline);
     },
     "Level 5: layer-wise accuracy", part_of_recording<&Recording::accuracy>(), &accuracy_files, kAccuracyHeadline},
};

}  // namespace

std::span<const LevelRow> level_table() { return kLevels; }

std::vector<const LevelRow*> levels_in_report_order() {
  std::vector<const LevelRow*> rows;
  for (const LevelRow& r : kLevels) rows.push_back(&r);
  std::sort(rows.begin(), rows.end(), [](const LevelRow* a, const LevelRow* b) {
    return static_cast<int>(a->level) < static_cast<int>(b->level);
  });
  return rows;
}

const LevelRow& level_row(Level level) {
  for (const LevelRow& r : kLevels)
    if (r.level == level) return r;
  return kLevels[0];  // unreachable: every Level has a row (level_table_test)
}

}  // namespace harness
